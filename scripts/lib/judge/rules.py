"""The rules: a boot's tree (tree.py) judged into result lines, each
"PASS name", "FAIL name: reason", "SKIP name: reason" or "CHANGED name:
reason", in the order of the log; what concerns the whole boot last.
"""
import re
from dataclasses import dataclass

import ktap
from tree import RESULT, RUN

END = float('inf')  # the place of the results about the whole boot
STATUS = re.compile(r'#\s+(OK|FAIL|SKIP)\s')  # kselftest_harness.h's "#            OK  name"
EXPECTATION = re.compile(r'# [^ :]+:[0-9]+:[^:]*:Expected ')  # its failed EXPECT_*()
NOTHING_TESTED = re.compile(r'\[(OK|WARN)\].*(try running as root|Dropping privileges failed|nor supported)')


@dataclass
class Options:
    allow_skip: str = ''     # SKIPs whose name this regex matches are SKIPs
    changed: dict = None     # case (PROGRAM/CASE) -> why it may fail on stock
    expect_kunit: dict = None  # suite -> number of cases
    cpus: int = 1
    strict_kill: str = ''    # the program whose one kernel line must be its strict-mode kill
    hotplug_cycles: int = 0  # the offline/online cycles cpu.hotplug must report
    modules: str = ''        # an lsmod file: the modules the kernel may load
    leak_shown: bool = False  # the boot is stock's under Xen: only whether it leaked


def directive(line):
    """What follows " # " in a result line ("" without)"""
    return line.split(' # ', 1)[1] if ' # ' in line else ''


def skipped(text):
    """A KTAP directive "SKIP ..." (any case, as TAP has it)"""
    return text.upper().startswith('SKIP')


def number(test):
    return int(re.match(r'\s*(not )?ok ([0-9]+)', test.line).group(2))


def failed(test):
    """Whether TEST's result line says "not ok" """
    return test.line.lstrip().startswith('not ok')


def numbering(tests, plan, unit):
    """"" when TESTS are the results 1..PLAN once each, else what is wrong"""
    if len(tests) != plan:
        return f'plan says {plan} {unit}s, {len(tests)} reported'
    seen = [number(t) for t in tests]
    for k in range(1, plan + 1):
        if seen.count(k) != 1:
            return f'plan says {plan} {unit}s, {unit} {k} reported {seen.count(k)} times'
    return ''


def failed_subtest(test):
    """The first "not ok" (not SKIP) line below TEST, or None"""
    for sub in test.subtests:
        line = getattr(sub, 'line', None)
        if line is not None and failed(sub) and not skipped(directive(line)):
            return line.strip()
        if (deeper := failed_subtest(sub)) is not None:
            return deeper
    return None


def diagnostics(test):
    """The "# " lines a kselftest case printed after its RUN line, but its
    status line, joined"""
    diag = []
    for line in test.log:
        if RUN.match(line):
            diag = []
        elif line.startswith('# ') and not STATUS.match(line):
            diag.append(line[2:])
    return ' | '.join(diag)


def kunit_diagnostics(test):
    """What a KUnit case printed: its lines at the suite's indentation and
    the lines that continue them (the same printk record: the same
    timestamp; 6.12 prints an expectation's message unindented), each
    distinct line once"""
    diag, records = [], set()
    for line in test.log:
        if line.startswith('    '):
            text = line[4:]
            records.add(line.ts)
        elif line.ts in records:
            text = str(line)
        else:
            continue
        if text not in diag:
            diag.append(text)
    return ' | '.join(diag)


def check_name(line):
    """A printf-style selftest's line as a case name: "[FAIL] CLI NOPped" """
    return ' '.join(line.split())


class Judge:
    def __init__(self, boot, options):
        self.boot, self.o = boot, options
        self.results = []  # (place, kind, name, reason)

    def add(self, place, kind, name, reason=''):
        if kind == 'SKIP' and not (self.o.allow_skip and re.search(self.o.allow_skip, name)):
            kind = 'FAIL'
        self.results.append((place, kind, name, reason))

    def lines(self):
        if self.boot.system and not self.system():
            return self.text()
        self.reports()
        for i, p in enumerate(self.boot.programs):
            self.program(i, p)
        self.kunit_cases()
        self.whole_boot()
        self.kunit_suites()
        self.cpus()
        self.strict_kill()
        self.hotplug_cycles()
        self.modules()
        return self.leak() if self.o.leak_shown else self.text()

    def text(self):
        self.results.sort(key=lambda r: r[0])
        return [f'{k} {n}: {r}' if r else f'{k} {n}' for _, k, n, r in self.results]

    def leak(self):
        """--leak-shown: the stock kernel under Xen must show the leak, as
        a case that found an open port; its failures are not failures of
        this check, which is one line, BOOT/leak-shown (with the first
        five failures when the leak did not show)"""
        lines = self.text()
        fails = [l for l in lines if l.startswith('FAIL ')]
        leak = next((l for l in fails if 'is open, expected a fault' in l), None)
        name = f'{self.boot.name}/leak-shown'
        if leak:
            return [f'PASS {name}: {leak[len("FAIL "):]}'[:220]]
        return [f'FAIL {name}: stock showed no leak under Xen, so this check proves nothing'] + fails[:5]

    def system(self):
        """The steps of a booted system before the tests, each named when
        it did not happen: systemd never reached multi-user.target (with
        the console's last lines), the test service never started, or
        started more than once, or never reported its end (with its last
        lines); and any unit systemd says failed. Whether the tests ran."""
        b, s = self.boot, self.boot.system
        status = f'(QEMU status {b.status})'
        if not s.reached:
            self.add(0, 'FAIL', b.name, f'systemd did not reach multi-user.target {status}; '
                     f"the console's last lines:" + indented(s.plain[-8:]))
            return False
        if not s.starts:
            self.add(0, 'FAIL', b.name, f'multi-user.target reached, the service iopl-tests never started {status}')
            return False
        if len(s.starts) > 1:
            self.add(0, 'FAIL', b.name, f'the service iopl-tests started {len(s.starts)} times {status}')
        if not b.done:
            first = s.plain.index(s.starts[0])
            self.add(0, 'FAIL', b.name, f'the service iopl-tests started and never reported its end {status}; '
                     'its last lines:' + indented(s.plain[first:][-8:]))
        for line in s.failed:
            self.add(0, 'FAIL', f'{b.name}/systemd', line)
        return True

    def reports(self):
        if self.boot.reports:
            first = self.boot.reports[0]
            self.add(first.line.no, 'FAIL', f'{self.boot.name}/kernel', first.text)

    def changed(self, case):
        return (self.o.changed or {}).get(case)

    def program(self, i, p):
        name = f'{self.boot.name}/{p.name}'
        runs = self.boot.runlist
        if runs is not None and (i >= len(runs) or runs[i] != p.name):
            asked = runs[i] if i < len(runs) else 'no more programs'
            self.add(p.run.no, 'FAIL', name, f'init ran {p.name} where the command line asks for {asked}')
        failures = [self.case(p, t) for t in ktap.results(p.ktap)] if p.ktap else []
        if p.result is None:
            self.add(END, 'FAIL', name, 'no result (guest stopped while it ran)')
            return
        said = p.result.line
        if p.result.name.strip() != p.name:
            self.add(said.no, 'FAIL', name, f'init ran {p.name}, its result names {p.result.name.strip()}: {said}')
            return
        kind, reason = self.program_verdict(p, failures)
        if kind:
            self.add(said.no, kind, name, reason)

    def case(self, p, t):
        """The result of the case T of the program P; whether it failed"""
        name, why = t.name.strip(), directive(t.line)
        if failed(t):
            if skipped(why):
                reason = f'not ok # {why}' + (f': {d}' if (d := diagnostics(t)) else '')
            else:
                reason = why or (f'not ok: {d}' if (d := diagnostics(t)) else 'not ok')
        elif (sub := failed_subtest(t)) is not None:
            reason = f'ok, but its subtest failed: {sub}'
        elif (e := next((l for l in t.log if EXPECTATION.match(l)), None)) is not None:
            reason = f'{t.line}, but an expectation failed before: {e[2:]}'
        elif (said := next((l for l in p.unnamed if l.no == t.line.no), None)) is not None:
            reason = f'{said}: no name, and no "#  RUN" line since the result before it'
        elif skipped(why):
            self.add(t.line.no, 'SKIP', f'{self.boot.name}/{p.name}/{name}', why)
            return False
        else:
            self.add(t.line.no, 'PASS', f'{self.boot.name}/{p.name}/{name}')
            return False
        self.fail(t.line.no, f'{p.name}/{name}', reason)
        return True

    def fail(self, place, case, reason):
        """A failed case; CHANGED when it is listed as a change on stock"""
        why = self.changed(case)
        self.add(place, 'CHANGED' if why else 'FAIL', f'{self.boot.name}/{case}', why or reason)

    def program_verdict(self, p, failures):
        """The program P's own result: (kind, reason), (None, None) when
        its cases say it all"""
        said = p.result.line
        why = directive(said)
        bail = next((l for l in p.body if l.startswith('Bail out!')), None)
        if not said.startswith('ok'):
            if any(failures) and why == 'exit status 1' and bail is None:
                return None, None  # kselftest's exit for a failed case
            if p.ktap is None and why == 'exit status 1':
                return self.checks(p, why)
            return 'FAIL', why + (f': {bail}' if bail else '')
        if bail is not None:
            return 'FAIL', bail
        if p.ktap is not None:
            return self.ktap_verdict(p)
        return self.checks(p, why)

    def checks(self, p, why):
        """A printf-style program's result: its [FAIL] lines (CHANGED when
        each is listed), a pass that tested nothing, a SKIP"""
        fails = [check_name(l) for l in p.body if '[FAIL]' in l]
        if fails:
            whys = [self.changed(f'{p.name}/{f}') for f in fails]
            if all(whys):
                return 'CHANGED', '; '.join(f'{f} ({w})' for f, w in zip(fails, whys))
            if self.o.changed:  # a stock boot: say which failure is no change
                other = next(f for f, w in zip(fails, whys) if not w)
                return 'FAIL', f'{why or "ok"}; {other} is none of the changes listed for this boot'
            if why:  # the exit status, as before
                return 'FAIL', why
            return 'FAIL', next(l for l in p.body if '[FAIL]' in l)
        if why and not skipped(why):
            return 'FAIL', why
        nothing = next((l for l in p.body if NOTHING_TESTED.match(l)), None)
        if nothing is not None:
            return 'FAIL', f'tested nothing: {nothing}'
        if skipped(why):
            return 'SKIP', why
        if not p.body:
            return 'FAIL', 'printed nothing'
        return 'PASS', ''

    def ktap_verdict(self, p):
        doc = p.ktap
        cases = ktap.results(doc)
        plan = doc.expected_count if getattr(doc, 'plan_line', None) is not None else None
        why = directive(p.result.line)
        if not cases:
            plan_why = directive(doc.plan_line) if plan is not None else ''
            if plan:
                return 'FAIL', f'plan says {plan} tests, 0 reported'
            if skipped(why) or (plan == 0 and skipped(plan_why)):
                return 'SKIP', why if skipped(why) else plan_why
            if plan == 0:
                return 'FAIL', 'plan 1..0: the program tests nothing'
        for wrong in (self.stray_results(p, doc),
                      plan is not None and numbering(cases, plan, 'test'),
                      self.totals_wrong(p, cases),
                      harness_program(p) and duplicates(cases)):
            if wrong:
                return 'FAIL', wrong
        return None, None

    def totals_wrong(self, p, cases):
        """"" when the program's "# Totals: pass:P fail:F xfail:X xpass:XP
        skip:S error:E" line agrees with its results, else what differs"""
        line = next((l for l in reversed(p.body) if l.startswith('# Totals: ')), None)
        if line is None:
            return ''
        t = {k: int(v) for k, v in re.findall(r'([a-z]+):([0-9]+)', line)}
        ok = [c for c in cases if not failed(c) and failed_subtest(c) is None]
        skip = sum(skipped(directive(c.line)) for c in ok)
        npass, nfail = len(ok) - skip, len(cases) - len(ok)
        if (t.get('pass', 0) + t.get('xfail', 0) != npass
                or t.get('fail', 0) + t.get('xpass', 0) + t.get('error', 0) != nfail
                or t.get('skip', 0) != skip):
            return f'{line} disagrees with the results, pass:{npass} fail:{nfail} skip:{skip}'
        return ''

    def stray_results(self, p, doc):
        """A line that looks like a result and that kunit_parser did not
        take as one ("ok 3 x #SKIP why", no space before the directive)"""
        taken = {t.line.no for t in all_tests(doc) if getattr(t, 'line', None) is not None}
        stray = next((l for l in p.body if RESULT.match(l) and l.no not in taken), None)
        return f'not a KTAP result line: {stray}' if stray is not None else ''

    def kunit_cases(self):
        for suite in self.suites():
            for t in ktap.results(suite):
                name = f'{self.boot.name}/kunit/{suite.name}/{t.name.strip()}'
                if failed(t):
                    self.add(t.line.no, 'FAIL', name, kunit_diagnostics(t) or 'not ok')
                elif (sub := failed_subtest(t)) is not None:
                    self.add(t.line.no, 'FAIL', name, f'ok, but its subtest failed: {sub}')
                elif ' # SKIP' in t.line.upper():
                    self.add(t.line.no, 'SKIP', name)
                else:
                    self.add(t.line.no, 'PASS', name)

    def suites(self):
        doc = self.boot.kunit
        return [s for s in doc.subtests + doc.extra if s.name] if doc else []

    def whole_boot(self):
        b, name = self.boot, self.boot.name
        outer = b.outer
        plan = outer.expected_count if outer and getattr(outer, 'plan_line', None) is not None else None
        said = ktap.results(outer) if outer else []
        runs = b.runlist
        if b.status in (124, 137):
            self.add(END, 'FAIL', name, 'timeout: QEMU killed')
        elif b.status:
            self.add(END, 'FAIL', name, f'QEMU exited with status {b.status}')
        elif plan is None:
            self.add(END, 'FAIL', name, 'no KTAP plan in the log (the guest did not start)')
        elif wrong := numbering(said, plan, 'program'):
            self.add(END, 'FAIL', name, wrong)
        elif runs is not None and plan != len(runs):
            self.add(END, 'FAIL', name, f'plan says {plan} programs, the command line asks for '
                     f'{len(runs)} (run={",".join(runs)})')
        elif not b.done:
            self.add(END, 'FAIL', name, 'init did not finish')

    def kunit_suites(self):
        name = self.boot.name
        suites = self.suites()
        for s in suites:
            cases = ktap.results(s)
            if getattr(s, 'plan_line', None) is None:
                self.add(END, 'FAIL', f'{name}/kunit/{s.name}',
                         f'no plan line: {len(cases)} cases reported, none can be missing or reported twice')
            elif wrong := numbering(cases, s.expected_count, 'case'):
                self.add(END, 'FAIL', f'{name}/kunit/{s.name}', wrong)
        for suite, want in (self.o.expect_kunit or {}).items():
            found = [s for s in suites if s.name == suite]
            if not found:
                self.add(END, 'FAIL', f'{name}/kunit/{suite}', f'suite not in the log (expected {want} cases)')
            elif len(ktap.results(found[0])) != want:
                self.add(END, 'FAIL', f'{name}/kunit/{suite}',
                         f'expected {want} cases, {len(ktap.results(found[0]))} reported')

    def strict_kill(self):
        """--strict-kill PROG: PROG's child without a SIGSEGV handler is
        killed by CLI under iopl=strict; the kernel logs exactly one line
        about PROG, the report of that SIGSEGV, naming strict mode as the
        cause and no way to weaken it"""
        prog = self.o.strict_kill
        if not prog:
            return
        about = [l for l in self.boot.lines if l.ts and re.search(re.escape(prog) + r'\[[0-9]+\]', l)]
        name = f'{self.boot.name}/report'
        if len(about) == 1 and STRICT_KILL in about[0] and 'compat' not in about[0]:
            self.add(END, 'PASS', name, 'one line per kill, the SIGSEGV of CLI under iopl(3) names strict mode')
        else:
            self.add(END, 'FAIL', name, f'want one kernel line about {prog}, its SIGSEGV report naming '
                     f'strict mode; got {len(about)}')

    def hotplug_cycles(self):
        """--hotplug-cycles N: ioperm_bitmap's cpu.hotplug reported at least
        N offline/online cycles ("# hotplug cycles: N")"""
        want = self.o.hotplug_cycles
        if not want:
            return
        said = [int(m.group(1)) for p in self.boot.programs for l in p.body
                if (m := re.search(r'# hotplug cycles: ([0-9]+)', l))]
        name = f'{self.boot.name}/cycles'
        if said and said[-1] >= want:
            self.add(END, 'PASS', name, f'{said[-1]} offline/online cycles')
        else:
            self.add(END, 'FAIL', name, f'{said[-1] if said else "no"} cycles reported, expected at least {want}')

    def modules(self):
        """--modules LSMOD: every module that the "system" program says
        the kernel loaded ("modules: a b c") is in the recorded lsmod
        LSMOD, whose modules the patched kernel is built with"""
        path = self.o.modules
        if not path:
            return
        with open(path) as f:
            listed = {l.split()[0] for l in list(f)[1:] if l.strip() and not l.startswith('#')} - {'Module'}
        said = next((l for p in self.boot.programs for l in p.body if l.startswith('modules: ')), '')
        loaded = said[len('modules: '):].split()
        name, shown = f'{self.boot.name}/modules', path.split('/')[-1]
        if not loaded:
            self.add(END, 'FAIL', name, 'the boot printed no list of modules')
        elif unlisted := sorted(set(loaded) - listed):
            self.add(END, 'FAIL', name, f'loaded and not in the recorded lsmod {shown}: {" ".join(unlisted)}')
        else:
            self.add(END, 'PASS', name, "every module Debian's kernel loaded is built for the patched one")

    def cpus(self):
        b = self.boot
        if b.outer is None or getattr(b.outer, 'plan_line', None) is None:
            return
        if b.cpus is None:
            self.add(END, 'FAIL', f'{b.name}/cpus', f'no "smp: Brought up" line; asked for {self.o.cpus} CPUs')
        elif b.cpus != self.o.cpus:
            self.add(END, 'FAIL', f'{b.name}/cpus', f'asked for {self.o.cpus} CPUs, the kernel brought up {b.cpus}')


STRICT_KILL = 'general protection fault on CLI/STI with iopl(3) in iopl=strict mode ip:'


def indented(lines):
    """LINES as the lines that follow a result line"""
    return ''.join('\n    ' + l for l in lines)


def all_tests(test):
    """TEST and every test below it"""
    yield test
    for sub in test.subtests + getattr(test, 'extra', []):
        yield from all_tests(sub)


def harness_program(p):
    """Whether P is a kselftest_harness.h program, which names each case
    FIXTURE[.VARIANT].TEST, so that a name twice is a case reported twice
    (ksft_test_result() programs, test_vsyscall say, repeat names)"""
    return any(RUN.match(l) for l in p.body)


def duplicates(cases):
    """"" when no two cases have the same name, else the first repeated"""
    names = [c.name.strip() for c in cases]
    for n in names:
        if names.count(n) > 1:
            return f'test {n} reported {names.count(n)} times'
    return ''
