#!/bin/bash
# The selftests must be safe on a real machine: they may let reads through
# to no port but 0x80-0x8f and 0xed. QEMU traces every port access that reaches
# a device, the kernel's (its console's UART, for one) as well as the
# tests'; guest/init.c marks a window around each program (IOPORT_MARKER:
# 'S' and 'E' written to the harness's debugcon port) and holds the
# console output while it is open. One boot of the patched kernel with the
# tree's ioperm selftest (without --sweep) and ours: inside the windows
# at most 0x80-0x8f and 0xed, and both 0x80 and 0xed, or the trace misses
# the selftests' accesses (0x80 is written, 0xed only ever read: its
# presence shows that reads are traced).
# Prints PASS/FAIL lines.
#   porttrace.sh [--selftests TREE] [KERNEL-NAME]
#                                      boot and judge (default: patched);
#                                      --selftests: the selftests of the
#                                      kernel tree TREE instead of
#                                      build/$TREE/tree's (a broken
#                                      variant, to see the check fail)
#   porttrace.sh --judge WINDOWS TRACE judge a recorded trace of a boot
#                                      that ran WINDOWS programs (exit 1
#                                      on a FAIL)
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
. "$(dirname "$0")/lib/common.sh"

marker=0xe9		# QEMU's -debugcon port: the harness's own
# The ports the selftests may read by default: 0x80-0x8f (DMA page
# registers, latches) and 0xed, the kernel's I/O delay ports among them;
# 0x80 and 0xed are read or written by every run
allowed="$(printf '0x%x ' {128..143})0xed"
required="0x80 0xed"
programs=(iopl ioperm "${ours[@]}")

# ports TRACE: the ports accessed inside the windows, one per line, sorted;
# prints "windows N" to fd 3
ports() {
	awk -v marker=$((marker)) -f "$lib/porttrace.awk" "$1" |
		awk '/^windows / { print $2 >"/dev/fd/3"; next } { print }' | sort -u
}

# judge WINDOWS TRACE
judge() {
	local windows=$1 trace=$2 ports n bad tmp
	[ -s "$trace" ] || { echo "FAIL porttrace/trace: no trace in ${trace#"$top/"}"; return 0; }
	tmp=$(mktemp)
	ports=$(ports "$trace" 3>"$tmp" | paste -sd ' ')
	n=$(cat "$tmp")
	rm -f "$tmp"
	bad=$(tr ' ' '\n' <<<"$ports" | grep -vxF -f <(tr ' ' '\n' <<<"$allowed") | paste -sd ' ' || true)
	if [ "$n" != "$windows" ]; then
		echo "FAIL porttrace/windows: $windows programs, $n windows in the trace"
	elif [ -n "$bad" ]; then
		echo "FAIL porttrace/safe-by-default: the selftests reached ports beyond 0x80-0x8f and 0xed: $(cut -c1-200 <<<"$bad")"
	elif [ "$(grep -xF -f <(tr ' ' '\n' <<<"$required") <<<"${ports// /$'\n'}" | paste -sd ' ')" != "$required" ]; then
		echo "FAIL porttrace/sees-accesses: only ${ports:-no port} inside the windows, not both of $required: the trace misses the selftests' accesses"
	else
		echo "PASS porttrace/safe-by-default: $ports inside the windows"
	fi
}

if [ "${1:-}" = --judge ]; then
	[ $# = 3 ] || die "usage: porttrace.sh --judge WINDOWS TRACE"
	judged porttrace judge "$2" "$3" || exit 1
	exit 0
fi

# The guest of the other boots, or one of its own for another tree's selftests
selftests_tree=$build/tree guest_dir=$guest
if [ "${1:-}" = --selftests ]; then
	[ $# -ge 2 ] || die "usage: porttrace.sh [--selftests TREE] [KERNEL-NAME]"
	selftests_tree=$2 guest_dir=$build/guest-porttrace
	shift 2
fi
kernel=${1:-patched}
logs=$build/logs
"$lib/tree.sh"
[ "$kernel" != patched ] || "$lib/kbuild.sh" patched
"$lib/guest.sh" --out "$guest_dir" "$selftests_tree" "${selftests[@]}"

# The trace cannot tell the kernel's accesses from the tests', so the
# boot keeps the kernel's own away from the windows:
# - i8042.nokbd and i8042.noaux keep the keyboard controller's ports from
#   being probed for a keyboard and a mouse, which serio does
#   asynchronously and once did inside the first window (0x60, 0x64:
#   tests/harness/porttrace/kernel-probe).
# - 8250.share_irqs=1 keeps the 8250 driver from polling the console's
#   UART (0x3f9, 0x3fa, 0x3fd every 200 ms: tests/harness/porttrace/
#   backup-timer). The first open of the console tests whether the UART
#   reasserts THRE; under TCG the UART's interrupt, which that test
#   raises, can be handled on another vCPU, whose handler reads IIR
#   without the port lock and takes the THRE the test then misses. The
#   driver concludes that the UART is buggy and starts its backup timer.
#   With IRQF_SHARED the driver disables the interrupt around the test,
#   so no handler runs inside it (docs/porttrace.md).
trace=$logs/porttrace.trace status=0
step "porttrace: boot (log: $logs/porttrace.log)"
rm -f "$trace"
"$lib/boot.sh" --initrd "$guest_dir/initramfs.cpio" --qemu-arg -debugcon --qemu-arg "file:$logs/porttrace.markers" \
	--qemu-arg -trace --qemu-arg memory_region_ops_read \
	--qemu-arg -trace --qemu-arg memory_region_ops_write --qemu-arg -D --qemu-arg "$trace" \
	"$build/$kernel/bzImage" "$logs/porttrace.log" "$(list "${programs[@]}")" \
	IOPORT_MARKER=$marker i8042.nokbd i8042.noaux 8250.share_irqs=1 || status=$?
verdict porttrace "$logs/porttrace.log" "$status" --allow-skip "$default_skips" | sed '/^PASS /d'
judge ${#programs[@]} "$trace"
