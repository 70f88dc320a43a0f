"""The tables of the changelogs and cover letters come from results/
(scripts/figures.sh; see it for the rules). A changelog's tables come
from the files that its set's cover letter names; no patch names a
results file or the harness (HARNESS), below its "---" neither. Run as
python3 scripts/lib/figures.py ROOT: prints one PASS or FAIL line per
message with a table, exit status 1 on a FAIL.

A table is a block of lines with a "|" in each: one whose lines start and
end with "|", or one with a separator row ("---|---"), outer pipes or
none. Its rows are compared trimmed, the separator rows left out. A
table of a message stands in a results file when its rows are a
contiguous run of the rows of one table there, and that table is the
one the message says: of the message's tree (patches/TREE/, a cover
letter's TREE), of the run it names ("run 1 of three"), with the words
of its caption ("Hot:") in its own caption or heading, where the
results file says a tree, a run or a caption.
"""
import glob
import os
import re
import sys

SEPARATOR = re.compile(r'\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?')
TREES = ('6.1', '6.12')
RUN = re.compile(r'\brun ([0-9]+)\b', re.I)
RESULTS = re.compile(r'results/[A-Za-z0-9._-]+\.md')


class Table:
    def __init__(self, rows, caption, heading):
        self.rows = [r for r in rows if not SEPARATOR.fullmatch(r)]
        self.cells = [cells(r) for r in self.rows]
        self.caption, self.heading = caption, heading

    def context(self):
        """What says whose table this is: its heading, caption, first row"""
        return ' '.join((self.heading, self.caption, self.rows[0] if self.rows else ''))


def cells(row):
    """A row's cells, blanks around them left out: outer pipes or none,
    the same row"""
    return tuple(c.strip() for c in row.strip().strip('|').split('|'))


def is_table(block):
    edged = all(line.startswith('|') and line.endswith('|') for line in block)
    return edged or (len(block) > 1 and any(SEPARATOR.fullmatch(line) for line in block))


def tables(text):
    """The tables of TEXT"""
    found, heading, caption, block = [], '', '', []
    for raw in text.split('\n') + ['']:
        line = raw.strip()
        if '|' in line:
            block.append(line)
            continue
        if block and is_table(block):
            found.append(Table(block, caption, heading))
        block = []
        if line.startswith('#'):
            heading, caption = line, ''
        elif line:
            caption = line
    return found


def names_tree(text, tree):
    return re.search(r'(?<![0-9.])' + re.escape(tree) + r'(?![0-9])', text) is not None


def trees_named(text):
    return [t for t in TREES if names_tree(text, t)]


def contains(rows, part):
    n = len(part)
    return any(rows[i:i + n] == part for i in range(len(rows) - n + 1))


def label(caption):
    """The words of a caption such as "Hot:" or "6.1, cold:", lowercase;
    none for a sentence"""
    if not re.fullmatch(r'[A-Za-z0-9., -]{1,30}:', caption) or len(caption.split()) > 2:
        return []
    return re.findall(r'[a-z]{3,}', caption.lower())


def fit(table, sources, named, tree, run):
    """Why no table of SOURCES (of the files NAMED) is TABLE, or "" when
    one is"""
    whole = [s for s in sources if contains(s.cells, table.cells)]
    if not whole:
        have = {c for s in sources for c in s.cells}
        missing = [r for r, c in zip(table.rows, table.cells) if c not in have]
        if missing:
            return f'rows in no file it names ({" ".join(named)}):' + ''.join('\n    ' + r for r in missing)
        return f'its rows are in the files it names, but in no one table there: {table.rows[0]}'
    kept = [s for s in whole if not tree or not trees_named(s.context()) or names_tree(s.context(), tree)]
    if not kept:
        return f'a table of {tree} stands there only as another tree\'s ({whole[0].caption or whole[0].heading})'
    if run:
        kept = [s for s in kept if not RUN.search(s.heading) or RUN.search(s.heading).group(1) == run]
        if not kept:
            return f'it says run {run}, the table stands there under {whole[0].heading}'
    words = label(table.caption)
    if words and not any(all(re.search(r'\b' + w + r'\b', s.context().lower()) for w in words)
                         for s in kept):
        return f'its caption says "{table.caption}", the table stands there under "{kept[0].caption}"'
    return ''


def message(path):
    """The text of a message: a patch's changelog (above its "---"), or a
    cover letter whole"""
    with open(path) as f:
        text = f.read()
    return text.split('\n---\n', 1)[0] if path.endswith('.patch') else text


def tree_of(name):
    m = re.match(r'patches/([0-9.]+)/', name) or re.match(r'patches/cover-letter-([0-9.]+)-', name)
    return m.group(1) if m else None


def set_letter(root, name):
    """The cover letter of the set that holds the patch NAME (patches/TREE/sets),
    or None"""
    m = re.match(r'patches/([0-9.]+)/([0-9]{4})-', name)
    sets = m and os.path.join(root, 'patches', m.group(1), 'sets')
    if not sets or not os.path.isfile(sets):
        return None
    for line in open(sets):
        f = line.split()
        if len(f) == 3 and not f[0].startswith('#') and re.fullmatch(r'[0-9]+-[0-9]+', f[2]):
            first, last = map(int, f[2].split('-'))
            if first <= int(m.group(2)) <= last:
                return f'patches/cover-letter-{m.group(1)}-{f[0]}.txt'
    return None


def check(root, name):
    """The result line of the message NAME, or None without a table. A
    changelog names no results/ file (upstream has none): its set's cover
    letter does, for it."""
    text = message(os.path.join(root, name))
    found = tables(text)
    if not found:
        return None
    named = sorted(set(RESULTS.findall(text)))
    letter = set_letter(root, name) if name.endswith('.patch') else None
    if not named and letter and os.path.isfile(os.path.join(root, letter)):
        named = sorted(set(RESULTS.findall(message(os.path.join(root, letter)))))
    if not named:
        return f'FAIL host/figures/{name}: a table, and no results/ file named, in it or in its set\'s cover letter'
    gone = [r for r in named if not os.path.isfile(os.path.join(root, r))]
    if gone:
        return '\n'.join(f'FAIL host/figures/{name}: names {r}, which does not exist' for r in gone)
    sources = [t for r in named for t in tables(open(os.path.join(root, r)).read())]
    runs = set(RUN.findall(text))
    run = runs.pop() if len(runs) == 1 else None
    for table in found:
        if why := fit(table, sources, named, tree_of(name), run):
            return f'FAIL host/figures/{name}: {why}'
    rows = sum(len(t.rows) for t in found)
    return f'PASS host/figures/{name}: {rows} rows from {" ".join(named)}'


# What upstream cannot follow: this project's results files and the parts
# of its harness (make targets, its directories)
HARNESS = re.compile(r'results/[A-Za-z0-9._-]+|\bmake (check|bench|run|deps|test-harness|outgoing)[a-z0-9-]*'
                     r'|\bbench-cycles\b|(?<![A-Za-z0-9_./-])(bench|guest|scripts/lib)/[A-Za-z0-9._-]+')


def harness_refs(root, patches):
    """FAIL lines for the patches (the whole files, below "---" too) that
    name a results file or the harness, or one PASS line"""
    bad = []
    for name in patches:
        for no, line in enumerate(open(os.path.join(root, name)), 1):
            if m := HARNESS.search(line):
                bad.append(f'FAIL host/figures/{name}: line {no} names {m.group(0)}, '
                           'which only this project has')
                break
    return bad or [f'PASS host/figures/harness-names: {len(patches)} patches name no results file '
                   'and no part of the harness']


def main(root):
    patches = sorted(glob.glob('patches/**/*.patch', root_dir=root, recursive=True))
    files = sorted(patches + glob.glob('patches/**/*.txt', root_dir=root, recursive=True))
    lines = [line for name in files if (line := check(root, name)) is not None]
    lines += harness_refs(root, patches)
    if not lines:
        lines = ['FAIL host/figures: no table in any changelog or cover letter']
    print('\n'.join(lines))
    return int(any(line.startswith('FAIL') for line in lines))


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))
