"""A boot's console log as a tree: the boot, the programs of guest/init.c's
outer KTAP document, each program's own results (its KTAP document, read
by kunit_parser, or the [OK]/[FAIL] lines of the upstream x86 selftests),
the kernel's KUnit suites, and the kernel reports where they occurred.

guest/init.c prints the outer document: "KTAP version 1", the plan, per
program "# init: run NAME", the program's output indented by four spaces,
and "ok N NAME" or "not ok N NAME # reason"; "# init: done" at the end.
kunit_parser reads the document's results and plan, fed its unindented
lines only: it takes nesting from "KTAP version" and "# Subtest:" lines
and ignores indentation, so a program's document cut short (the program
killed) would swallow init's results (tests/harness/kunit-parser/). The
judge assigns each program its output by init's "# init: run" lines and
hands kunit_parser each program's output on its own.
"""
import re
from dataclasses import dataclass, field

import console
import ktap
import reports

VERSION = re.compile(r'(K?TAP) version [0-9]+$')
# A line of a KTAP document: indented (a subtest's), or a version, plan,
# result or diagnostic line
KTAP_SYNTAX = re.compile(r'\s|K?TAP version |1\.\.[0-9]|(not )?ok [0-9]|#')
PLAN = re.compile(r'1\.\.[0-9]+')
RESULT = re.compile(r'(not )?ok ([0-9]+)\b')
RUN = re.compile(r'#  RUN +(.*?)( \.\.\.)?$')  # kselftest_harness.h's
NAMELESS = re.compile(r'((?:not )?ok [0-9]+) (# .*)')  # 6.1's "ok 3 # SKIP why"
ESCAPE = re.compile(r'\x1b\[[0-9;]*m')  # systemd's colours
SERVICE_START = '# iopl-tests: start'  # guest/debian/usr/local/lib/iopl/run
SMP = re.compile(r'smp: Brought up [0-9]+ nodes?, ([0-9]+) CPUs?$')
RUNLIST = re.compile(r'Command line: .* run=([^ ]*)')


@dataclass
class Report:
    line: console.Line   # where it starts
    text: str            # the line that says it
    kind: str


@dataclass
class Program:
    name: str
    run: console.Line                        # its "# init: run" line
    body: list = field(default_factory=list)  # its output, de-indented
    result: object = None    # init's result for it (a kunit_parser Test)
    ktap: object = None      # its own KTAP document, when it printed one
    unnamed: list = field(default_factory=list)  # nameless results no RUN line names
    reports: list = field(default_factory=list)


@dataclass
class Boot:
    name: str
    status: int
    lines: list
    outer: object = None     # init's document (kunit_parser's main Test)
    programs: list = field(default_factory=list)
    kunit: object = None     # the kernel's KUnit document
    reports: list = field(default_factory=list)
    runlist: list = None     # run= of the command line
    cpus: int = None         # what "smp: Brought up" says
    done: bool = False       # "# init: done"
    system: object = None    # a booted system's state (System), else None


@dataclass
class System:
    """What systemd and the test service of make check-debian's system
    printed on the console (colours removed)"""
    reached: bool = False    # "Reached target ... multi-user.target"
    starts: list = field(default_factory=list)   # the service's start lines
    failed: list = field(default_factory=list)   # "[FAILED] ..." lines
    plain: list = field(default_factory=list)    # every console line, plain


def is_ktap(body):
    """Whether a program's output is a KTAP document: a version line, a
    plan or a result at its top level"""
    return any(VERSION.match(l) or PLAN.match(l) or RESULT.match(l) for l in body)


def named_results(body, program):
    """BODY with each nameless result of kselftest_harness.h on 6.1
    ("ok 3 # SKIP why": kunit_parser takes no result without a name)
    named by the "#  RUN" line before it; one that no RUN line since the
    previous result names is kept in PROGRAM.unnamed and named test-N"""
    named, last_run = [], None
    for line in body:
        if m := RUN.match(line):
            last_run = m.group(1)
        elif m := NAMELESS.fullmatch(line):
            number = RESULT.match(line).group(2)
            if last_run is None:
                program.unnamed.append(line)
            line = line.but(f'{m.group(1)} {last_run or "test-" + number} {m.group(2)}')
            last_run = None
        elif RESULT.match(line):
            last_run = None
        named.append(line)
    return named


def kernel_text(line):
    """The kernel's part of a console line: what follows the timestamp, or
    a whole unindented line that is not init's; None for a program's line"""
    if line.ts:
        return line.kernel
    return None if line.startswith(console.INDENT) else str(line)


def find_reports(boot, forbid):
    """Every kernel report and forbidden kernel line, into the boot and
    into the program that ran when it came"""
    running = {}
    for p in boot.programs:
        end = p.result.line.no if p.result else len(boot.lines) + 1
        for no in range(p.run.no, end + 1):
            running[no] = p
    for line in boot.lines:
        text = kernel_text(line)
        if text is not None:
            k = reports.in_kernel_line(text)
            title = k.title if k else ('forbidden' if forbid and re.search(forbid, text) else None)
            shown = line
        else:
            k = reports.in_program_line(line)
            title, shown = (k.title if k else None), line[len(console.INDENT):]
        if title:
            r = Report(line, shown, title)
            boot.reports.append(r)
            if line.no in running:
                running[line.no].reports.append(r)


def outer_lines(lines):
    """init's lines, from its last "KTAP version" (a service that started
    again starts init again): unindented, not the kernel's"""
    starts = [i for i, l in enumerate(lines) if not l.ts and VERSION.match(l)]
    if not starts:
        return []
    start = starts[-1]
    return [l for l in lines[start:] if not l.ts and not l.startswith(console.INDENT)]


def programs(boot, lines):
    """The programs init ran, each with its output and its result"""
    results = {t.line.no: t for t in ktap.results(boot.outer)}
    runs = [l for l in lines if l.startswith('# init: run ')]
    for i, run in enumerate(runs):
        end = runs[i + 1].no if i + 1 < len(runs) else len(boot.lines) + 1
        p = Program(run[len('# init: run '):], run)
        p.result = next((results[n] for n in sorted(results) if run.no < n < end), None)
        stop = p.result.line.no if p.result else end
        p.body = [l.but(l[len(console.INDENT):]) for l in boot.lines[run.no:stop - 1]
                  if not l.ts and l.startswith(console.INDENT)]
        if is_ktap(p.body):
            p.ktap = ktap.parse(named_results(p.body, p))
        boot.programs.append(p)


def kunit(boot):
    """The kernel's KUnit document: the kernel lines from its first
    "KTAP version" on, timestamps removed, without the other kernel
    messages printed meanwhile (a driver's line between a suite's
    "KTAP version" and its "# Subtest:" hides the suite from
    kunit_parser). A line of KTAP's own syntax, indented or not, stays,
    and so does the rest of a message that one printk() spread over
    lines (a failed expectation's text): its timestamp is that of the
    line before."""
    lines = [l for l in boot.lines if l.ts]
    start = next((i for i, l in enumerate(lines) if VERSION.match(l.kernel)), None)
    if start is None:
        return
    doc = []
    for l in lines[start:]:
        if KTAP_SYNTAX.match(l.kernel) or (doc and l.ts == doc[-1].ts):
            doc.append(l)
    boot.kunit = ktap.parse([l.but(l.kernel) for l in doc])


def system(lines):
    """The booted system's state in the console LINES"""
    s = System(plain=[ESCAPE.sub('', l) for l in lines])
    for line in s.plain:
        s.reached |= bool(re.search(r'Reached target.*multi-user\.target', line))
        if line.startswith(SERVICE_START):
            s.starts.append(line)
        if line.startswith('[FAILED] '):
            s.failed.append(line)
    return s


def build(path, name, status, forbid=None, booted_system=False):
    """The tree of the boot NAME from its console log at PATH; with
    BOOTED_SYSTEM, a whole system's (make check-debian)"""
    boot = Boot(name, status, console.read(path))
    if booted_system:
        boot.system = system(boot.lines)
    for line in boot.lines:
        text = kernel_text(line) or ''
        if (m := RUNLIST.search(text)) and boot.runlist is None:
            # A program's argument (run=ioperm:--sweep) is not its name
            boot.runlist = [r.split(':')[0] for r in m.group(1).split(',')]
        if m := SMP.search(text):
            boot.cpus = int(m.group(1))
    init = outer_lines(boot.lines)
    boot.done = any(l.startswith('# init: done') for l in init)
    if init:
        boot.outer = ktap.parse(init)
        programs(boot, init)
    kunit(boot)
    find_reports(boot, forbid)
    return boot
