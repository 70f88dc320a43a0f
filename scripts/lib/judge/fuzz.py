"""Did a make fuzz boot make the calls it was asked for? (scripts/fuzz.sh;
judge fuzz LOG NAME TRINITY-CALLS OWN-CALLS). One PASS or FAIL line per
check, NAME/...:
 - trinity skipped none of the calls asked for (it skips the ones it
   marks AVOID_SYSCALL, such as ioperm, with a line and goes on),
 - trinity ran TRINITY-CALLS calls and, per its --stats, attempted each
   64-bit call that guest/fuzz.c asked for (its -c words on the line
   "# fuzz: run .../trinity ..." that fuzz.c prints) at least once,
 - ioport_fuzz ran OWN-CALLS calls and each kind of call it made (its
   line "ioport_fuzz: N syscalls (KIND N, ...)") succeeded at least once
   (its line "ioport_fuzz: succeeded: KIND N, ..."),
 - the boot ended with a kmemleak scan (guest/kmemleak.c's line
   "kmemleak: N unreferenced objects"; the boot's verdict fails N > 0).
The log is read as the judge reads any console log (console.py): a
kernel line spliced into fuzz.c's line hid the calls after it.
"""
import re

import console


def last(pattern, lines):
    """The first group of the last line PATTERN matches, or None"""
    found = [m.group(1) for l in lines if (m := re.search(pattern, l))]
    return found[-1] if found else None


def attempted(lines, call):
    """Whether trinity's --stats, in its "64bit:" part, say it attempted
    CALL at least once ("    NAME: (attempted:N. ...")"""
    in_64 = False
    for line in lines:
        if re.fullmatch(r' *64bit:', line):
            in_64 = True
        elif re.fullmatch(r' *32bit:', line):
            in_64 = False
        elif in_64 and line.split()[:1] == [call + ':']:
            m = re.search(r'attempted:([0-9]+)', line)
            if m and int(m.group(1)) > 0:
                return True
    return False


def kinds(text):
    """The kinds of "KIND N, KIND N" in order, and those with N > 0"""
    pairs = [p.split() for p in re.split(r', *', text) if p.split()]
    return [p[0] for p in pairs], {p[0] for p in pairs if len(p) == 2 and re.fullmatch(r'[1-9][0-9]*', p[1])}


def check(log, name, want_trinity, want_own):
    """The result lines, and the summary for stderr"""
    lines = [str(l) for l in console.read(log)]
    out = []

    def result(ok, what, why):
        out.append(f'PASS {name}/{what}' if ok else f'FAIL {name}/{what}: {why}')

    avoided = sorted({m.group(1) for l in lines
                      if (m := re.fullmatch(r' *\[main\] ([a-z0-9_]*) is marked as AVOID. Skipping', l))})
    result(not avoided, 'trinity-avoid', f'trinity skipped {" ".join(avoided)}: it marks them AVOID_SYSCALL')
    ran = last(r'\[main\] Ran ([0-9]*) syscalls', lines)
    result(bool(ran) and int(ran) >= want_trinity, 'trinity-count',
           f'trinity ran {ran or "no"} syscalls, expected {want_trinity}')
    # What guest/fuzz.c asked for, not what trinity says it enabled
    asked = sorted({w[i + 1] for l in lines if re.match(r' *# fuzz: run [^ ]*/trinity ', l)
                    for w in [l.split()] for i in range(len(w) - 1) if w[i] == '-c'})
    if not asked:
        result(False, 'trinity-calls', 'no call asked for: no "# fuzz: run .../trinity -c ..." line of guest/fuzz.c')
    else:
        missing = [c for c in asked if not attempted(lines, c)]
        result(not missing, 'trinity-calls', f'trinity attempted no 64-bit {" ".join(missing)}')
    own = last(r'^ *ioport_fuzz: ([0-9]*) syscalls', lines)
    result(bool(own) and int(own) >= want_own, 'own-count', f'ioport_fuzz ran {own or "no"} syscalls, expected {want_own}')
    # Calls that only failed tested nothing: every kind made must have
    # succeeded, not only the kinds the "succeeded:" line names
    ok = last(r'^ *ioport_fuzz: succeeded: (.*)', lines)
    made = last(r'^ *ioport_fuzz: [0-9]* syscalls \(([^)]*)\)', lines) or ''
    if ok is None:
        result(False, 'own-calls', 'no "ioport_fuzz: succeeded:" line')
    else:
        good = kinds(ok)[1]
        never = list(dict.fromkeys(k for k in kinds(made + ', ' + ok)[0] if k not in good))
        result(not never, 'own-calls', f'ioport_fuzz never succeeded in {" ".join(never)}')
    result(any(re.fullmatch(r' *kmemleak: [0-9]* unreferenced objects', l) for l in lines), 'kmemleak-scan',
           'no kmemleak scan: no "kmemleak: N unreferenced objects" line')
    return out, f'# {name}: trinity {ran or "no"} syscalls, ioport_fuzz {own or "no"} syscalls'
