"""make x86-selftests' comparison (scripts/x86-selftests.sh --compare;
judge compare): the stock and the patched kernel's x86-selftests boots,
each judged as any boot (the boot "x86", every SKIP allowed), one
result line per test and per failed boot-level check, sorted by name.

The patched kernel must do no worse than stock, test by test:
  PASS NAME            passes on both
  SKIP NAME: ...       skips on both, or fails on both in the same way
  FAIL NAME: ...       fails or is missing on patched and not so on
                       stock, skips on patched where stock does not skip
                       (a skip tests nothing), or fails on both but not in
                       the same way
  CHANGED NAME: ...    better on patched than on stock
"In the same way": the program ends the same way (init's reason of "not
ok": the same exit status or signal; a timeout's seconds aside), prints
no "[FAIL]" line that stock does not print, and a KTAP case fails with
the same message. Numbers in those lines are compared as N: some
failures count what a race did (ldt_gdt's "[FAIL] 3 of 5 iterations
failed"). A boot-level result of either kernel (a kernel report, the
number of CPUs, QEMU's status, a short plan) is a FAIL of its own,
NAME/K/kernel, NAME/K/cpus or NAME/K: no comparison stands on a boot
that failed. Nor on no test: when none passes on both kernels, FAIL NAME
says so. Names repeat (test_vsyscall's cases, nameless skips): the worst
outcome of a name stands for it.
"""
import re

import rules
import tree

RANK = {'passes': 3, 'skips': 2, 'fails': 1, 'missing': 0}
BOOT_LEVEL = ('', '/kernel', '/cpus', '/kunit')


def norm(text):
    """TEXT with every number N"""
    return re.sub(r'0x[0-9a-fA-F]+|[0-9]+', 'N', text)


def end_norm(text):
    """init's end reason with a timeout's seconds as N"""
    return re.sub(r'timeout after [0-9]+ s', 'timeout after N s', text)


class Kernel:
    """One kernel's boot: its tests' worst outcomes and reasons, how init
    saw each program end, the [FAIL] lines each printed"""

    def __init__(self, log, status, cpus, name, k, out):
        boot = tree.build(log, 'x86', status)
        judged = rules.Judge(boot, rules.Options(allow_skip='.', cpus=cpus))
        judged.lines()
        self.outcome, self.why = {}, {}
        for _, kind, test, reason in judged.results:
            if test.startswith('x86/kunit/'):  # KUnit results belong to make check
                continue
            if test in ('x86' + b for b in BOOT_LEVEL):
                if kind != 'PASS':
                    out.append(f'FAIL {name}/{k}{test[3:]}: {reason}')
                continue
            test = test[len('x86/'):]
            got = {'PASS': 'passes', 'SKIP': 'skips'}.get(kind, 'fails')
            if test not in self.outcome or RANK[got] < RANK[self.outcome[test]]:
                self.outcome[test], self.why[test] = got, reason
        self.said, self.failed = {}, {}
        for p in boot.programs:
            line = p.result.line if p.result else None
            end = re.sub(r'^ # ', '', re.sub(r'^(not )?ok [0-9]+ [^ ]+', '', line)) if line else ''
            self.said[p.name] = 'no result' if line is None else \
                ('not ok' if line.startswith('not ') else 'ok') + (f': {end}' if end else '')
            for l in p.body:
                if '[FAIL]' in l:
                    shown = l[l.index('[FAIL]'):].replace('\t', ' ').rstrip()
                    self.failed.setdefault(p.name, {})[norm(shown)] = shown


def same_failure(test, stock, patched):
    """"" when TEST failed on patched as on stock, else how not"""
    prog = test.split('/')[0]
    if test != prog and norm(stock.why[test]) != norm(patched.why[test]):
        return f'"{stock.why[test]}" on stock, "{patched.why[test]}" on patched'
    s, p = stock.said.get(prog, ''), patched.said.get(prog, '')
    if end_norm(s) != end_norm(p):
        return f'"{s}" on stock, "{p}" on patched'
    news = [l for key, l in patched.failed.get(prog, {}).items() if key not in stock.failed.get(prog, {})]
    return 'on patched only: ' + ' | '.join(news) if news else ''


def compare(name, stock_log, stock_status, patched_log, patched_status, cpus):
    out = []
    stock = Kernel(stock_log, stock_status, cpus, name, 'stock', out)
    patched = Kernel(patched_log, patched_status, cpus, name, 'patched', out)
    passes = 0
    for test in set(stock.outcome) | set(patched.outcome):
        s, p = stock.outcome.get(test, 'missing'), patched.outcome.get(test, 'missing')
        if s == p == 'passes':
            out.append(f'PASS {name}/{test}')
            passes += 1
        elif s == p == 'fails' and (how := same_failure(test, stock, patched)):
            out.append(f'FAIL {name}/{test}: fails on both kernels, {how}')
        elif s == p:
            out.append(f'SKIP {name}/{test}: {s} on both kernels')
        elif RANK[p] < RANK[s] or p in ('fails', 'missing', 'skips'):
            out.append(f'FAIL {name}/{test}: {s} on stock, {p} on patched')
        else:
            out.append(f'CHANGED {name}/{test}: {s} on stock, {p} on patched')
    if not passes:
        out.append(f'FAIL {name}: no test passed on both kernels')
    # as sort -k2,2 in the C locale: by name, then by the whole line
    return sorted(out, key=lambda l: (l.split(' ')[1].encode(), l.encode()))
