"""The KTAP layer: the kernel's own parser, tools/testing/kunit/kunit_parser.py
of the tree being judged, through its Python API.

kunit_parser reads what a line means (a plan, a result's number, name and
status, the diagnostic lines before it) into a tree of Test objects. It
keeps neither the plan line nor the result line, and a result's directive
only as far as "# SKIP" (case-sensitive) makes it SKIPPED: "not ok 3 x #
SKIP why" is SKIPPED to it, and "ok 3 x # skip why" SUCCESS. So the judge
wraps its two line parsers to keep the line each consumed on the Test
(.plan_line, .line); the rules then read the directives themselves.
The lines fed in are console.Line objects, strings that know their
place in the log, so that every diagnostic kunit_parser hands back
still does.
"""
import importlib
import io
import sys

kp = None  # kunit_parser, once load() found it


def load(tool_dir):
    """Import kunit_parser from TOOL_DIR (tools/testing/kunit of a tree),
    its printer writing into a buffer: what it prints is not ours to show."""
    global kp
    if kp is not None:
        return kp
    sys.path.insert(0, tool_dir)
    try:
        kp = importlib.import_module('kunit_parser')
    except ImportError as e:
        sys.exit(f'judge: no kunit_parser in {tool_dir}: {e}')
    printer = importlib.import_module('kunit_printer')
    kp.stdout = printer.Printer(io.StringIO())
    kp.parse_test_plan = _keeping('plan_line', kp.parse_test_plan)
    kp.parse_test_result = _keeping('line', kp.parse_test_result)
    kp.Test.add_error = _noting_errors(kp.Test.add_error)
    return kp


def _keeping(attr, parse):
    """PARSE(lines, test, ...) that also keeps the line it consumed as
    test.ATTR"""
    def wrapper(lines, test, *args):
        line = lines.peek() if lines else None
        done = parse(lines, test, *args)
        if done:
            setattr(test, attr, line)
        return done
    return wrapper


def _noting_errors(add_error):
    """Test.add_error that keeps the messages on the test (.errors)"""
    def wrapper(test, message):
        add_error(test, message)
        test.__dict__.setdefault('errors', []).append(message)
    return wrapper


def parse(lines):
    """The KTAP document LINES (console.Line, indentation removed) as
    kunit_parser reads it: the main Test, its subtests the document's
    results; results past its plan are parsed on as subtests too
    (.extra), and the diagnostic lines after the last result are
    .trailer."""
    stream = kp.LineStream(iter(enumerate(lines, 1)))
    main = kp.parse_test(stream, 0, [], False)
    main.extra = []
    main.trailer = []
    while stream:
        log = kp.parse_diagnostic(stream)
        at = stream.line_number()
        if not stream:
            main.trailer += log
            break
        number = len(main.subtests) + len(main.extra) + 1
        main.extra.append(kp.parse_test(stream, number, log, True))
        if stream and stream.line_number() == at:  # a line no parser takes
            main.trailer += log + [stream.pop()]
    return main


def results(test):
    """The subtests of TEST that a result line reported, those past its
    plan included (kunit_parser's stand-ins for missing ones left out)"""
    subs = test.subtests + getattr(test, 'extra', [])
    return [t for t in subs if getattr(t, 'line', None) is not None]


def dump(test, depth=0):
    """kunit_parser's reading of a document, one line per test: its name
    (the result line it took, "-" for none), its status, its errors"""
    line = getattr(test, 'line', None)
    said = line.strip() if line is not None else '-'
    errors = '; '.join(getattr(test, 'errors', []))
    status = test.counts if depth == 0 else test.status.name
    out = ['  ' * depth + f'{said}: {status}' + (f' ({errors})' if errors else '')]
    for sub in test.subtests + getattr(test, 'extra', []):
        out += dump(sub, depth + 1)
    return out
