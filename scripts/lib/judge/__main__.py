"""judge: one parser of a boot's console log into a tree of results, and
the rules that judge the tree. Run as python3 scripts/lib/judge COMMAND.

  boot [OPTION...] LOG BOOT [QEMU-STATUS]
      the result lines of the boot BOOT (scripts/lib/verdict.sh's)
      --kunit-tool DIR   tools/testing/kunit of the tree (kunit_parser)
      --allow-skip RE    a SKIP whose name RE matches stays a SKIP
      --forbid RE        a kernel line RE matches is a report
      --changed KEY --changes FILE
                         the cases that FILE lists for the boot KEY may
                         fail, as CHANGED: behaviour the series changes
      --expect-kunit SUITE:CASES[,...]  suites the log must hold
      --cpus N           the CPUs the kernel must bring up
      --system           a whole system booted (make check-debian): systemd
                         and the test service must have done their part
      --strict-kill PROG the kernel's one line about PROG is the report of
                         its kill by CLI under iopl=strict (BOOT/report)
      --hotplug-cycles N cpu.hotplug reported N offline/online cycles or
                         more (BOOT/cycles)
      --modules LSMOD    every module the "system" program says the
                         kernel loaded is in LSMOD (BOOT/modules)
      --leak-shown       only BOOT/leak-shown: a case found a port open
                         that must fault (the stock kernel under Xen)
  compare --kunit-tool DIR [--cpus N] NAME STOCK-LOG STOCK-STATUS PATCHED-LOG PATCHED-STATUS
      make x86-selftests' comparison of two boots (compare.py)
  console LOG
      the log without \\r, each kernel line on its own (console.py)
  fuzz LOG NAME TRINITY-CALLS OWN-CALLS
      the calls of a make fuzz boot (fuzz.py), a summary on stderr
  programs --kunit-tool DIR --expect FILE --programs A,B [--cells] [--table OUT]
           COLUMN LOG STATUS [COLUMN LOG STATUS]...
      make programs' cells against the table FILE (programs.py)
  kinds FILE
      the host test of the list of report kinds (reports.py): each line
      of FILE, KIND<TAB>LINE, is found as KIND, and each kind has a line
  kunit-parser TOOL FILE
      kunit_parser's reading of the KTAP document FILE, one line per test
Exit status 1 when a result failed.
"""
import argparse
import os
import sys

sys.dont_write_bytecode = True  # nothing written into the kernel tree it imports from
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402
import console  # noqa: E402
import fuzz  # noqa: E402
import ktap  # noqa: E402
import programs  # noqa: E402
import reports  # noqa: E402
import rules  # noqa: E402
import tree  # noqa: E402


def changes(path, key):
    """The cases the data file PATH lists for the boot KEY: {case: why}"""
    listed = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if line.strip() and not line.startswith('#'):
                cols = line.rstrip('\n').split('\t')
                if len(cols) != 3 or not all(cols):
                    sys.exit(f'judge: {path}:{n}: not BOOT<TAB>CASE<TAB>WHY')
                if cols[0] == key:
                    listed[cols[1]] = cols[2]
    return listed


def expected_suites(spec):
    suites = {}
    for item in filter(None, (spec or '').split(',')):
        suite, _, cases = item.rpartition(':')
        suites[suite] = int(cases)
    return suites


def boot(argv):
    a = argparse.ArgumentParser(prog='judge boot')
    a.add_argument('--kunit-tool', required=True)
    a.add_argument('--allow-skip', default='')
    a.add_argument('--forbid', default='')
    a.add_argument('--changed', default='')
    a.add_argument('--changes', required=True)
    a.add_argument('--expect-kunit', action='append', default=[])
    a.add_argument('--cpus', type=int, default=4)
    a.add_argument('--system', action='store_true')
    a.add_argument('--strict-kill', default='')
    a.add_argument('--hotplug-cycles', type=int, default=0)
    a.add_argument('--modules', default='')
    a.add_argument('--leak-shown', action='store_true')
    a.add_argument('log')
    a.add_argument('name')
    a.add_argument('status', type=int, nargs='?', default=0)
    o = a.parse_args(argv)
    if not os.path.isfile(o.log):
        print(f'FAIL {o.name}: no console log {o.log}')
        return 1
    ktap.load(o.kunit_tool)
    options = rules.Options(
        allow_skip=o.allow_skip,
        changed=changes(o.changes, o.changed) if o.changed else {},
        expect_kunit=expected_suites(','.join(o.expect_kunit)),
        cpus=o.cpus, strict_kill=o.strict_kill, hotplug_cycles=o.hotplug_cycles,
        modules=o.modules, leak_shown=o.leak_shown)
    lines = rules.Judge(tree.build(o.log, o.name, o.status, o.forbid, o.system), options).lines()
    print('\n'.join(lines))
    return int(any(l.startswith('FAIL ') for l in lines))


def fuzz_count(argv):
    """fuzz LOG NAME TRINITY-CALLS OWN-CALLS: the calls of a make fuzz boot"""
    if len(argv) != 4 or not os.path.isfile(argv[0]):
        print('usage: judge fuzz LOG NAME TRINITY-CALLS OWN-CALLS (an existing LOG)', file=sys.stderr)
        return 2
    lines, summary = fuzz.check(argv[0], argv[1], int(argv[2]), int(argv[3]))
    print('\n'.join(lines))
    print(summary, file=sys.stderr)
    return int(any(l.startswith('FAIL ') for l in lines))


def compare_kernels(argv):
    """compare --kunit-tool DIR [--cpus N] NAME STOCK-LOG STOCK-STATUS
    PATCHED-LOG PATCHED-STATUS: make x86-selftests' comparison"""
    a = argparse.ArgumentParser(prog='judge compare')
    a.add_argument('--kunit-tool', required=True)
    a.add_argument('--cpus', type=int, default=4)
    a.add_argument('name')
    a.add_argument('stock_log')
    a.add_argument('stock_status', type=int)
    a.add_argument('patched_log')
    a.add_argument('patched_status', type=int)
    o = a.parse_args(argv)
    ktap.load(o.kunit_tool)
    lines = compare.compare(o.name, o.stock_log, o.stock_status, o.patched_log, o.patched_status, o.cpus)
    print('\n'.join(lines))
    return int(any(l.startswith('FAIL ') for l in lines))


def programs_cells(argv):
    """programs --kunit-tool DIR --expect FILE --programs A,B [--cells]
    [--table OUT] COLUMN LOG STATUS [...]: make programs' report"""
    a = argparse.ArgumentParser(prog='judge programs')
    a.add_argument('--kunit-tool', required=True)
    a.add_argument('--expect', required=True)
    a.add_argument('--programs', required=True)
    a.add_argument('--cells', action='store_true')
    a.add_argument('--table')
    a.add_argument('boots', nargs='+')
    o = a.parse_args(argv)
    if len(o.boots) % 3:
        a.error('COLUMN LOG STATUS, per boot')
    ktap.load(o.kunit_tool)
    logs = [(o.boots[i], o.boots[i + 1], int(o.boots[i + 2])) for i in range(0, len(o.boots), 3)]
    try:
        lines = programs.run(logs, o.expect, o.programs.split(','), o.cells, o.table)
    except programs.TableError as e:
        print(f'error: {e}', file=sys.stderr)
        print('\n'.join(e.lines))
        return 1
    print('\n'.join(lines))
    return int(any(l.startswith('FAIL ') for l in lines))


def show_console(argv):
    """console LOG: the log as the judge reads it (console.py), for the
    scripts that show or mine a log (make run, bench/icount.sh)"""
    print('\n'.join(console.read(argv[0])))
    return 0


def kinds(argv):
    """kinds FILE: the host test of the list of report kinds"""
    lines = reports.check(argv[0])
    print('\n'.join(lines))
    return int(any(l.startswith('FAIL ') for l in lines))


def kunit_parser(argv):
    """kunit-parser TOOL FILE: kunit_parser's reading of the KTAP document
    FILE, for the host tests that show where it is unfit for our input"""
    ktap.load(argv[0])
    with open(argv[1]) as f:
        lines = [console.Line(l.rstrip('\n'), n) for n, l in enumerate(f, 1)]
    print('\n'.join(ktap.dump(ktap.parse(lines))))
    return 0


COMMANDS = {'boot': boot, 'compare': compare_kernels, 'console': show_console, 'fuzz': fuzz_count, 'kinds': kinds, 'kunit-parser': kunit_parser,
            'programs': programs_cells}

if __name__ == '__main__':
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        sys.exit(__doc__)
    sys.exit(COMMANDS[sys.argv[1]](sys.argv[2:]))
