"""A guest console log as the judge reads it.

The kernel writes to the console while a line of a program's output is
half written: "    ok 7[    4.448970] traps: ...", and the rest of the
program's line, " global.cli", follows on the next line. read() puts the
kernel line on a line of its own and the program's line back together
("    ok 7 global.cli"); kernel lines that come in between stay as they
come. CONFIG_PRINTK_CALLER's "[   T45]" after a timestamp is dropped, so
that every kernel line starts with the plain timestamp. A Xen dom0 boot's
console holds the hypervisor's own lines, "(XEN) ...": they are Xen's,
not the guest's, and are left out.
"""
import re

TIMESTAMP = re.compile(r'\[ *[0-9]+\.[0-9]+\] ')
CALLER = re.compile(r'([0-9]\])\[ *[CT][0-9]+\] ')
INDENT = '    '  # guest/init.c's indentation of a program's output


class Line(str):
    """A line of the console: .no its place (1, 2, ...), .ts the kernel
    timestamp of a kernel line (None for any other line)"""

    def __new__(cls, text, no, ts=None):
        line = super().__new__(cls, text)
        line.no, line.ts = no, ts
        return line

    def but(self, text):
        """TEXT in this line's place (the line de-indented, say)"""
        return Line(text, self.no, self.ts)

    @property
    def kernel(self):
        """The text after the timestamp of a kernel line"""
        return self[TIMESTAMP.match(self).end():] if self.ts else None


def _unspliced(raw_lines):
    held = None  # a program's line cut by a kernel line
    for raw in raw_lines:
        line = CALLER.sub(r'\1 ', raw.rstrip('\n').removesuffix('\r'))
        if line.startswith('(XEN)'):
            continue
        if held is not None and TIMESTAMP.match(line):
            yield line
            continue
        if held is not None:
            line, held = held + line, None
        m = TIMESTAMP.search(line)
        if m and m.start() > 0:
            yield line[m.start():]
            held = line[:m.start()]
        else:
            yield line
    if held:
        yield held


def read(path):
    """The console log at PATH: its lines (Line), unspliced"""
    with open(path, encoding='utf-8', errors='replace') as f:
        texts = list(_unspliced(f))
    lines = []
    for no, text in enumerate(texts, 1):
        m = TIMESTAMP.match(text)
        lines.append(Line(text, no, m.group(0).strip() if m else None))
    return lines
