#!/bin/bash
# The selftests must be safe on a real machine: run without IOPORT_SCAN=full
# they may let reads through to no port but 0x80 and 0xed. QEMU traces every
# port access that reaches a device, the kernel's (its console's UART, for
# one) as well as the tests'; guest/init.c marks a window around each
# program (IOPORT_MARKER: 'S' and 'E' written to the harness's debugcon
# port) and holds the console output while it is open. Two boots of the
# patched kernel with the tree's ioperm selftest and ours:
#   safe: as they run by default: inside the windows at most {0x80, 0xed},
#         and 0x80, or the trace of the windows sees nothing
#   full: with IOPORT_SCAN=full, as every other boot runs them: inside the
#         windows the keyboard controller 0x64 and more than 1024 ports
# Prints PASS/FAIL lines.
#   porttrace.sh [KERNEL-NAME]       boot and judge (default: patched)
#   porttrace.sh --judge SAFE FULL   judge two recorded traces (exit 1 on
#                                    a FAIL)
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

marker=0xe9		# QEMU's -debugcon port: the harness's own
allowed="0x80 0xed"
programs=(ioperm "${ours[@]}")

# ports TRACE: the ports accessed inside the windows, one per line, sorted;
# prints "windows N" to fd 3
ports() {
	awk -v marker=$((marker)) -f "$lib/porttrace.awk" "$1" |
		awk '/^windows / { print $2 >"/dev/fd/3"; next } { print }' | sort -u
}

# judge SAFE-TRACE FULL-TRACE
judge() {
	local safe full nsafe nfull bad trace tmp
	for trace in "$1" "$2"; do
		[ -s "$trace" ] || { echo "FAIL porttrace/trace: no trace in ${trace#"$top/"}"; return 0; }
	done
	tmp=$(mktemp -d)
	safe=$(ports "$1" 3>"$tmp/safe" | paste -sd ' ')
	full=$(ports "$2" 3>"$tmp/full")
	nsafe=$(cat "$tmp/safe") nfull=$(cat "$tmp/full")
	rm -rf "$tmp"
	bad=$(tr ' ' '\n' <<<"$safe" | grep -vxF -f <(tr ' ' '\n' <<<"$allowed") | paste -sd ' ' || true)
	echo "# porttrace: inside ${nsafe} windows by default: ${safe:-no port}; with IOPORT_SCAN=full inside ${nfull}: $(wc -l <<<"$full") ports" >&2
	if [ "$nsafe" != ${#programs[@]} ] || [ "$nfull" != ${#programs[@]} ]; then
		echo "FAIL porttrace/windows: ${#programs[@]} programs, $nsafe windows in the default trace, $nfull with IOPORT_SCAN=full"
	elif [ -n "$bad" ]; then
		echo "FAIL porttrace/safe-by-default: by default the selftests reached ports beyond $allowed: $(cut -c1-200 <<<"$bad")"
	elif ! grep -qw 0x80 <<<"$safe"; then
		echo "FAIL porttrace/sees-reads: no access to 0x80 inside the windows by default: the trace misses the selftests"
	elif ! grep -qx 0x64 <<<"$full" || [ "$(wc -l <<<"$full")" -le 1024 ]; then
		echo "FAIL porttrace/sees-reads: with IOPORT_SCAN=full $(wc -l <<<"$full") ports inside the windows${full:+, 0x64 $(grep -qx 0x64 <<<"$full" && echo among them || echo not among them)}: the trace misses permitted reads"
	else
		echo "PASS porttrace/safe-by-default: $safe inside the windows (IOPORT_SCAN=full: $(wc -l <<<"$full") ports)"
	fi
}

if [ "${1:-}" = --judge ]; then
	[ $# = 3 ] || die "usage: porttrace.sh --judge SAFE-TRACE FULL-TRACE"
	judged porttrace judge "$2" "$3" || exit 1
	exit 0
fi

kernel=${1:-patched}
logs=$build/logs
"$lib/tree.sh"
[ "$kernel" != patched ] || "$lib/kbuild.sh" patched
"$lib/guest.sh" "$build/tree" "${selftests[@]}"
mode=$(default_mode "$kernel")

# boot NAME SCAN: a traced boot; its verdict lines go to stdout. The trace
# cannot tell the kernel's accesses from the tests': i8042.nokbd and
# i8042.noaux keep the keyboard controller's ports from being probed for
# a keyboard and a mouse, which serio does asynchronously and once did
# inside the first window (0x60, 0x64: tests/harness/porttrace/kernel-probe).
boot() {
	local name=$1 scan=$2 trace=$logs/porttrace-$1.trace status=0
	step "porttrace: boot $name (IOPORT_SCAN=$scan, log: $logs/porttrace-$name.log)"
	rm -f "$trace"
	"$lib/boot.sh" --scan "$scan" --qemu-arg -debugcon --qemu-arg "file:$logs/porttrace-$name.markers" \
		--qemu-arg -trace --qemu-arg memory_region_ops_read \
		--qemu-arg -trace --qemu-arg memory_region_ops_write --qemu-arg -D --qemu-arg "$trace" \
		"$build/$kernel/bzImage" "$logs/porttrace-$name.log" "$(list "${programs[@]}")" \
		IOPL_EXPECT_MODE="$mode" IOPORT_MARKER=$marker i8042.nokbd i8042.noaux || status=$?
	verdict "porttrace-$name" "$logs/porttrace-$name.log" "$status" --allow-skip "$default_skips" |
		grep -v '^PASS ' || true
}

boot safe default
boot full full
judge "$logs/porttrace-safe.trace" "$logs/porttrace-full.trace"
