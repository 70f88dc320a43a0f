"""The kinds of kernel report, and how each starts on the console.

The list is built from syzkaller's list of Linux oopses, the headers of
linuxOopses in pkg/report/linux.go of google/syzkaller (commit
c4605131a0ec55ce05ce3489b0d8bee23db49555), with the lines its headers
ignore there; written here in our own code. Left out of it: "trusty:
panic" (an Arm TEE's) and the oopses of pkg/report/report.go that
syzkaller's own programs print ("SYZFAIL:", "panic:"). Added to it, each
with the kernel file that prints it: the reports that syzkaller finds by
other means or not at all, the lines that the harness itself prints
when it lost kernel messages, and the single-line reports that
earlier reviews of this harness found missing.

Each kind: its title; the regex that finds it in a kernel line (the
text after the timestamp, or an unindented line); the lines that regex
matches but are no report; the regex that finds it spliced into a line
of a program's output without a timestamp (printk.time=0), where only
the kernel's own report header counts, since programs print "WARNING:"
and "Out of memory" of their own; where it comes from. Each kind has
one recorded line in tests/harness/reports/lines.
"""
import re
from collections import namedtuple

Kind = namedtuple('Kind', 'title pattern ignore spliced source')
SYZ = 'syzkaller pkg/report/linux.go'


def kind(title, pattern, spliced, source, ignore=None):
    return Kind(title, re.compile(pattern), re.compile(ignore) if ignore else None,
                re.compile(spliced) if spliced else None, source)


DIE = r': [0-9a-f]{4} \[#[0-9]+\]'  # die()'s header: "...: 0000 [#1]"
USER_FAULT = r'traps: \S+\[[0-9]+\] '  # a user task's fault, not the kernel's

KINDS = [
    kind('BUG', r'BUG:', r'BUG: [A-Za-z]', SYZ,
         ignore=r'ODEBUG:|Boot_DEBUG:|xlog_status:|DEBUG:|BUG: no syscalls can create resource'),
    kind('WARNING', r'WARNING:',
         r'WARNING: CPU: [0-9]+ PID: [0-9]+ |WARNING: (possible|inconsistent|suspicious|bad unlock|held lock)',
         SYZ, ignore=r'WARNING: /etc/ssh/moduli does not exist|WARNING: workqueue cpumask: online intersect'),
    kind('INFO', r'INFO:', r'INFO: (task .* blocked|rcu_[a-z]+ (self-)?detected|possible|inconsistent|suspicious|trying to register)',
         SYZ, ignore=r'INFO: lockdep is turned off|INFO: Stall ended before state dump start|INFO: NMI handler|'
                     r'INFO: recovery required on readonly filesystem|(handler|interrupt).*took too long|_INFO::'),
    kind('paging request', r'Unable to handle kernel paging request', r'Unable to handle kernel paging request', SYZ),
    kind('general protection fault', r'general protection fault',
         r'general protection fault(, probably|' + DIE + ')', SYZ, ignore=USER_FAULT),
    kind('stack segment', r'stack segment: ', r'stack segment' + DIE, SYZ),
    kind('panic', r'Kernel panic', r'Kernel panic - not syncing', SYZ),
    kind('double fault', r'PANIC: double fault', r'PANIC: double fault', SYZ),
    kind('kernel BUG', r'kernel BUG', r'kernel BUG at ', SYZ),
    kind('Kernel BUG', r'Kernel BUG', r'Kernel BUG ', SYZ),
    kind('slab BUG', r'BUG kmalloc-', r'BUG kmalloc-', SYZ),
    kind('divide error', r'divide error:', r'divide error' + DIE, SYZ),
    kind('invalid opcode', r'invalid opcode:', r'invalid opcode' + DIE, SYZ),
    kind('UBSAN', r'UBSAN:', r'UBSAN: [a-z-]+ in ', SYZ),
    kind('reboot', r'Booting the kernel.', None, SYZ),  # "." any character, as there
    kind('netdevice', r'unregister_netdevice: waiting for', r'unregister_netdevice: waiting for', SYZ),
    # Not in syzkaller's list:
    kind('Oops', r'Oops: |' + DIE, r'Oops: |' + DIE, 'arch/x86/kernel/dumpstack.c (die header)'),
    kind('stack dump', r'Call Trace:', r'Call Trace:', 'arch/x86/kernel/dumpstack.c (any stack dump)'),
    kind('ODEBUG', r'ODEBUG:', r'ODEBUG: ', 'lib/debugobjects.c', ignore=r'ODEBUG: selftest passed'),
    kind('kmemleak', r'new suspected memory leaks|unreferenced object 0x',
         r'kmemleak: [0-9]+ new suspected memory leaks|unreferenced object 0x[0-9a-f]+ \(size',
         'mm/kmemleak.c'),
    kind('refcount', r'refcount_t: ', r'refcount_t: ', 'lib/refcount.c'),
    kind('hard lockup', r'hard LOCKUP', r'Watchdog detected hard LOCKUP', 'kernel/watchdog.c'),
    kind('list corruption', r'list_(add|del) corruption', r'list_(add|del) corruption', 'lib/list_debug.c'),
    kind('OOM kill', r'Out of memory: Kill', r'Out of memory: Killed process [0-9]+ ', 'mm/oom_kill.c'),
    kind('unknown NMI', r'Uhhuh\. NMI received|Dazed and confused|NMI: (PCI system error|IOCK error)',
         r'Uhhuh\. NMI received|Dazed and confused, but trying to continue', 'arch/x86/kernel/nmi.c'),
    kind('tick stop', r'NOHZ tick-stop error', r'NOHZ tick-stop error', 'kernel/time/tick-sched.c'),
    kind('CPU hotplug',
         r'CPU ?[0-9]+ failed to report (dead|alive) state|Error taking CPU[0-9]+ (down|up)|'
         r'Failed to offline CPU[0-9]+|do_boot_cpu failed|APIC never delivered|APIC delivery error|'
         r'is stuck in mwait_play_dead',
         r'CPU[0-9]+ failed to report (dead|alive) state|Error taking CPU[0-9]+ (down|up)',
         'kernel/cpu.c, arch/x86/kernel/smpboot.c'),
    kind('printk dropped', r'printk messages dropped', r'\*\* [0-9]+ printk messages dropped \*\*',
         'kernel/printk/printk.c'),
    kind('kmsg lost', r'^# init: kernel messages lost', None, 'guest/init.c (its /dev/kmsg window overran)'),
]


def in_kernel_line(text):
    """The kind of report that the kernel line TEXT starts, or None"""
    for k in KINDS:
        if k.pattern.search(text) and not (k.ignore and k.ignore.search(text)):
            return k
    return None


def in_program_line(text):
    """The kind of report spliced into the program's line TEXT without a
    timestamp, by the kernel's report headers only, or None"""
    for k in KINDS:
        if k.spliced and k.spliced.search(text) and not (k.ignore and k.ignore.search(text)):
            return k
    return None


def check(path):
    """The host test of the list: each line of PATH, "KIND<TAB>LINE"
    (KIND "none" for a line that is no report), must be found as KIND,
    and each kind must have a line. Result lines, and whether all passed."""
    out, seen = [], set()
    with open(path) as f:
        rows = [l.rstrip('\n').split('\t', 1) for l in f if l.strip() and not l.startswith('#')]
    for n, (title, line) in enumerate(rows, 1):
        m = re.match(r'\[ *[0-9]+\.[0-9]+\] ', line)
        found = in_kernel_line(line[m.end():] if m else line)
        got = found.title if found else 'none'
        name = f'host/reports/{title}' + (f'/{n}' if title == 'none' else '')
        out.append(f'PASS {name}' if got == title else f'FAIL {name}: found as {got}: {line}')
        seen.add(title)
    out += [f'FAIL host/reports/{k.title}: no recorded line in {path}' for k in KINDS if k.title not in seen]
    return out
