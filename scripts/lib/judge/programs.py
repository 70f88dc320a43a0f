"""make programs' cells (scripts/programs.sh; judge programs): Debian's
own port-I/O programs, run by guest/programs.c in a boot of each kernel
(a column: stock, strict, compat, off), against tests/programs.expect.

guest/programs.c prints, in its output: "# prog NAME: exit N" (or
"signal N"), "# out NAME: LINE" for each line the program printed, and
"# retry NAME: LINE" when it ran it again after a known transient
failure. A program works when it exits 0 and prints what it is for
(WANT); its cell says the line that shows it, or, when it failed, its
last error in its own name ("NAME: ...") and how it ended. Each line of
the table names a program, a column and works or fails; a "fails" line
also the status and a text that one of the program's lines must hold:
any other failure fails the cell. A program of a column booted without
a line fails too.
"""
import re

import rules
import tree

COLUMNS = ('stock', 'strict', 'compat', 'off')
WANT = {  # what a program prints when it did its job ("" for nothing)
    'hwclock': r'^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:.]+',
    'lspci': r'^00:00\.0 0600: 8086:1237',
    'inb': r'^(0x)?[0-9a-fA-F]+$',
    'outb': '',
    'superiotool': r'No Super I/O found|Found',
    'stress-ng': r'metrc: \[[0-9]+\] ioport +[1-9][0-9]*',
}


class TableError(Exception):
    """A table the judge cannot read; .lines: the results judged before"""
    lines = []


def said(boot, what, prog):
    """What guest/programs.c said of PROG: the texts of its "# WHAT PROG:"
    lines"""
    head = f'# {what} {prog}: '
    return [l[len(head):] for p in boot.programs for l in p.body if l.startswith(head)]


def cell(boot, prog):
    """(works or fails, the message) of PROG in BOOT"""
    status, out = '\n'.join(said(boot, 'prog', prog)), said(boot, 'out', prog)
    retries = len(said(boot, 'retry', prog))
    want = WANT[prog]
    if status == 'exit 0' and (not want or any(re.search(want, l) for l in out)):
        msg = next((l for l in out if re.search(want or '.', l)), '')
        if prog == 'stress-ng':  # the bogo ops of the ioport stressor
            n = {f[3]: f[4] for l in out if re.search(r'metrc: \[[0-9]+\] (ioport|switch) +[0-9]+ +[0-9.]+ ', l)
                 for f in [l.split()]}
            msg = f'ioport {n.get("ioport", "")} bogo ops (4 workers), switch {n.get("switch", "")}, in 5 s'
        if retries:
            msg += f' (after {retries} clock-tick synchronization failure(s), run again)'
        return 'works', msg or '(no output)'
    own = [l for l in out if l.startswith(f'{prog}: ')]
    msg = own[-1] if own else (out[-1] if out else '')
    return 'fails', f'{msg or "(no output)"} ({status or "no result"})'


def table(path):
    """The lines of the table at PATH: (program, column, works|fails,
    status, text); a line that is none stops the judge"""
    rows = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not line or line.startswith('#'):
                continue
            cols = line.split('\t') + [''] * 2
            if len(line.split('\t')) < 3 or cols[1] not in COLUMNS or cols[2] not in ('works', 'fails'):
                raise TableError(f'{path}:{n}: not PROGRAM<TAB>KERNEL ({" ".join(COLUMNS)})<TAB>works|fails...: {line}')
            rows.append(tuple(cols[:5]))
    return rows


def judge(boots, path, programs):
    """The result lines of the cells of BOOTS ({column: boot}) against the
    table at PATH, for PROGRAMS"""
    out, listed = [], set()
    cells = {(p, c): cell(b, p) for c, b in boots.items() for p in programs}
    for prog, col, want, status, text in table(path):
        if col not in boots:
            continue
        listed.add((prog, col))
        if want == 'fails' and not (status and text):
            raise TableError(f'{path}: a fails line names the exit status and the error: {prog} {col}')
        name = f'programs/{col}/{prog}'
        if (prog, col) not in cells:
            out.append(f'FAIL {name}: no result')
            continue
        got, msg = cells[prog, col]
        if got != want:
            out.append(f'FAIL {name}: expected {want}, got {got}: {msg}')
        elif want == 'fails' and ('\n'.join(said(boots[col], 'prog', prog)) != status
                                  or not any(text in l for l in said(boots[col], 'out', prog))):
            out.append(f'FAIL {name}: expected fails ({status}, "{text}"), got fails: {msg}')
        else:
            out.append(f'PASS {name}')
    out += [f'FAIL programs/{c}/{p}: no line in {path}' for c in boots for p in programs if (p, c) not in listed]
    return out, cells


def markdown(cells, programs):
    """The table program x kernel of the cells, for build/logs/programs.md"""
    rows = ['| program | ' + ' | '.join(COLUMNS) + ' |', '|---|---|---|---|---|']
    for p in programs:
        rows.append(f'| `{p}` |' + ''.join(f' {cells[p, c][0]}: {cells[p, c][1]} |' if (p, c) in cells else ' |'
                                          for c in COLUMNS))
    return '\n'.join(rows) + '\n'


def run(logs, path, programs, cells_only, table_out):
    """LOGS: (column, log, QEMU status); the report: each boot's own
    results but for its PASS of the programs program (unless CELLS_ONLY),
    then the cells"""
    out, boots = [], {}
    table(path)  # a table that is none stops the judge before anything
    for col, log, status in logs:
        if col not in COLUMNS:
            raise TableError(f'programs.sh: no column {col} in {path}')
        boots[col] = tree.build(log, f'programs/{col}', status)
        if not cells_only:
            lines = rules.Judge(boots[col], rules.Options(cpus=4)).lines()
            out += [l for l in lines if l != f'PASS programs/{col}/programs']
    try:
        report, cells = judge(boots, path, programs)
    except TableError as e:
        e.lines = out
        raise
    if table_out:
        with open(table_out, 'w') as f:
            f.write(markdown(cells, programs))
    return out + report
