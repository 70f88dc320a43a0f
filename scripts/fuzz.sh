#!/bin/bash
# make fuzz: random system calls on the sanitizer kernel of the series
# (config/debug.config: KASAN, UBSAN, lockdep, kmemleak, ...), 4 CPUs, in
# iopl=compat and iopl=strict. In each boot, at the same time:
#  - Debian's trinity, 4 children, --trinity-calls N (50000) calls
#    among iopl, execve, wait4 and sched_yield. Trinity marks ioperm,
#    clone, fork, exit, exit_group and ptrace AVOID_SYSCALL and never makes
#    them, even when named with -c;
#  - guest/ioport_fuzz.c for those: --own-calls N (100000) random
#    ioperm, iopl, clone, fork, vfork, execve, exit, wait4, ptrace,
#    sched_yield and sched_setaffinity calls, each task checking that port
#    0x80 and CLI/STI behave as its own shadow of its permissions says.
# Each boot ends with a kmemleak scan (guest/kmemleak.c, as in make
# check-debug). The console is checked as make check-debug checks it
# (scripts/lib/verdict.sh: any BUG, KASAN, UBSAN, lockdep, KFENCE or kmemleak
# line fails, and so does kmemleak's own result) and the calls by
# scripts/fuzz-count.sh. Prints "fuzz: N syscalls
# (trinity T, ioport_fuzz O), R boots with a kernel report".
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
. "$(dirname "$0")/lib/common.sh"
# shellcheck source=scripts/lib/initramfs.sh
. "$lib/initramfs.sh"

trinity_calls=50000 own_calls=100000
while [ $# -gt 0 ]; do
	case $1 in
	--trinity-calls) trinity_calls=${2-} ;;
	--own-calls) own_calls=${2-} ;;
	*) die "usage: fuzz.sh [--trinity-calls N] [--own-calls N]" ;;
	esac
	[ $# -ge 2 ] || die "usage: fuzz.sh [--trinity-calls N] [--own-calls N]"
	shift 2
done
root=$build/guest-fuzz/root
initrd=$build/guest-fuzz/initramfs.cpio

"$lib/tree.sh"
"$lib/kbuild.sh" debug
"$lib/guest.sh"

step "fuzz: initramfs with trinity and its libraries"
initramfs_root "$root"
initramfs_binary "$root" /usr/bin/trinity
# init runs /bin programs without arguments: guest/fuzz.c starts trinity
# and ioport_fuzz, then kmemleak scans
for prog in fuzz ioport_fuzz kmemleak; do
	gcc -static -O2 -g -std=gnu99 -pthread -Wall -o "$root/bin/$prog" "$top/guest/$prog.c" ||
		die "fuzz: compiling guest/$prog.c failed"
done
mkdir -p "$root/tmp"
initramfs_pack "$root" "$initrd"

results=$build/logs/results-fuzz.txt
: >"$results"
total=0 total_trinity=0 total_own=0 reports=0
for mode in compat strict; do
	log=$build/logs/boot-fuzz-$mode.log
	step "fuzz: trinity ($trinity_calls calls) and ioport_fuzz ($own_calls calls), iopl=$mode, sanitizer kernel (log: $log; about 13 minutes)"
	status=0
	"$lib/boot.sh" --mem 1G --prog-timeout 3000 --timeout 3600 --initrd "$initrd" \
		"$build/patched-debug/bzImage" "$log" fuzz,kmemleak "iopl=$mode" \
		FUZZ_MODE="$mode" FUZZ_TRINITY_SYSCALLS="$trinity_calls" FUZZ_OWN_SYSCALLS="$own_calls" ||
		status=$?
	verdict "fuzz/$mode" "$log" "$status" | tee -a "$results"
	counts=$(collect "fuzz/$mode/count" "$top/scripts/fuzz-count.sh" "$log" "fuzz/$mode" \
		"$trinity_calls" "$own_calls" 2>&1 >>"$results")
	sed -n "/^FAIL fuzz\/$mode\/\(trinity\|own\|kmemleak\|count\)/p" "$results"
	n=$(sed -n 's/.* trinity \([0-9]*\) syscalls.*/\1/p' <<<"$counts")
	o=$(sed -n 's/.* ioport_fuzz \([0-9]*\) syscalls.*/\1/p' <<<"$counts")
	# verdict.sh names the first kernel report of a boot as NAME/kernel
	r=$(grep -c '^FAIL fuzz/'"$mode"'/kernel: ' "$results" || true)
	echo "$counts, kernel report: $([ "$r" = 0 ] && echo none || echo yes)" >&2
	total_trinity=$((total_trinity + ${n:-0})) total_own=$((total_own + ${o:-0}))
	reports=$((reports + r))
done
total=$((total_trinity + total_own))
echo "fuzz: $total syscalls (trinity $total_trinity, ioport_fuzz $total_own), $reports boots with a kernel report"
summarize "$results"
