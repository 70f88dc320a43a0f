#!/bin/bash
# make fuzz: trinity (Debian's package) on the sanitizer kernel of the
# series (config/debug.config: KASAN, UBSAN, lockdep, kmemleak, ...), 4
# CPUs, in iopl=compat and iopl=strict: 4 children, $FUZZ_SYSCALLS
# (default 100000) system calls per boot among the ones that reach the I/O
# bitmap code (iopl, ioperm, clone, fork, execve, exit, exit_group, wait4,
# sched_yield, ptrace). The console is checked as make check-debug checks
# it (scripts/verdict.sh: any BUG, KASAN, UBSAN, lockdep, KFENCE or
# kmemleak line fails). Prints "trinity: N syscalls, R kernel reports".
set -euo pipefail
. "$(dirname "$0")/common.sh"

[ -x /usr/bin/trinity ] || die "fuzz: /usr/bin/trinity is missing (make deps installs it)"
calls=${FUZZ_SYSCALLS:-100000}
root=$build/guest-fuzz/root
initrd=$build/guest-fuzz/initramfs.cpio
debug_config=("$top/config/debug.config")
[ ! -f "$top/config/debug-$tree_version.config" ] ||
	debug_config+=("$top/config/debug-$tree_version.config")

"$top/scripts/tree.sh"
"$top/scripts/kbuild.sh" patched-debug "$build/tree" "${patched_config[@]}" "${debug_config[@]}"
"$top/scripts/guest.sh" "$build/tree"

step "fuzz: initramfs with trinity and its libraries"
rm -rf "$root"
mkdir -p "$(dirname "$root")"
cp -a "$guest/root" "$root"
install -D /usr/bin/trinity "$root/usr/bin/trinity"
ldd /usr/bin/trinity | grep -o '/[^ ]*' | while read -r lib; do
	install -D "$(readlink -f "$lib")" "$root$lib"
done
# init runs /bin programs without arguments: a wrapper gives trinity its own
gcc -static -O2 -Wall -o "$root/bin/fuzz" -x c - <<-C || die "fuzz: compiling the wrapper failed"
	#include <stdio.h>
	#include <stdlib.h>
	#include <unistd.h>
	int main(void)
	{
		const char *n = getenv("FUZZ_SYSCALLS");
		if (chdir("/tmp") && chdir("/"))
			return 2;
		execl("/usr/bin/trinity", "trinity", "--dangerous", "-q", "-C", "4",
		      "-N", n ? n : "$calls", "-c", "iopl", "-c", "ioperm", "-c", "clone",
		      "-c", "fork", "-c", "execve", "-c", "exit", "-c", "exit_group",
		      "-c", "wait4", "-c", "sched_yield", "-c", "ptrace", (char *)NULL);
		perror("execl trinity");
		return 2;
	}
C
mkdir -p "$root/tmp"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) >"$initrd" ||
	die "fuzz: cpio failed"

results=$build/logs/results-fuzz.txt
: >"$results"
total=0 reports=0
for mode in compat strict; do
	log=$build/logs/boot-fuzz-$mode.log
	step "fuzz: trinity, $calls system calls, iopl=$mode, sanitizer kernel (log: $log; several minutes)"
	status=0
	MEM=1G PROG_TIMEOUT=3000 BOOT_TIMEOUT=3600 INITRD=$initrd \
		"$top/scripts/boot.sh" "$build/patched-debug/bzImage" "$log" fuzz "iopl=$mode" \
		FUZZ_SYSCALLS="$calls" || status=$?
	"$top/scripts/verdict.sh" "$log" "fuzz/$mode" "$status" | tee -a "$results" || true
	n=$(tr -d '\r' <"$log" | sed -n 's/.*Ran \([0-9]*\) syscalls.*/\1/p' | tail -n 1)
	r=$(grep -c '^FAIL fuzz/'"$mode"': .*\(BUG\|KASAN\|UBSAN\|WARNING\|lockdep\|circular\|RCU\|KFENCE\|leak\|Oops\)' "$results" || true)
	echo "# trinity iopl=$mode: ${n:-no count} syscalls, $r kernel reports" >&2
	[ -n "$n" ] && [ "$n" -ge "$calls" ] || echo "FAIL fuzz/$mode/count: trinity ran ${n:-no} syscalls, expected $calls" | tee -a "$results"
	total=$((total + ${n:-0})) reports=$((reports + r))
done
echo "trinity: $total syscalls, $reports kernel reports"
summarize "$results"
