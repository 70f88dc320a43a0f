#!/bin/bash
# The selftests must be safe on a real machine: run without IOPORT_SCAN=full
# they may let reads through to no port but 0x80 and 0xed. QEMU traces every
# port access that reaches a device; three boots of the patched kernel:
#   base: the tree's ioperm selftest only (what the kernel's own boot and
#         an upstream test touch)
#   safe: ioperm and our selftests, as they run by default
#   full: the same with IOPORT_SCAN=full, as every other boot runs them
# safe minus base must be at most {0x80, 0xed}; full minus base must be
# more, or the trace sees nothing and this check proves nothing.
# Prints PASS/FAIL lines; porttrace.sh [KERNEL-NAME] (default: patched).
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

kernel=${1:-patched}
logs=$build/logs
"$lib/tree.sh"
[ "$kernel" != patched ] || "$lib/kbuild.sh" patched
"$lib/guest.sh" "$build/tree" "${selftests[@]}"
mode=$(default_mode "$kernel")
allowed="0x80 0xed"

# ports LOG: the I/O ports (below 0x10000) that CPUs accessed, one per line
ports() {
	awk 'function hex(s,   v, i) {
		v = 0
		for (i = 3; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	$2 == "cpu" && $3 ~ /^[0-9]+$/ {
		for (i = 4; i < NF; i++) {
			if ($i == "addr") addr = hex($(i + 1))
			if ($i == "size") size = $(i + 1)
		}
		if (addr < 65536)
			for (p = addr; p < addr + size; p++)
				printf "0x%x\n", p
	}' "$1" | sort -u
}

# boot NAME SCAN RUNLIST: a traced boot; its verdict lines go to stdout
boot() {
	local name=$1 scan=$2 runlist=$3 trace=$logs/porttrace-$1.trace status=0
	step "porttrace: boot $name (IOPORT_SCAN=$scan, log: $logs/porttrace-$name.log)"
	rm -f "$trace"
	"$lib/boot.sh" --scan "$scan" --qemu-arg -trace --qemu-arg memory_region_ops_read \
		--qemu-arg -trace --qemu-arg memory_region_ops_write --qemu-arg -D --qemu-arg "$trace" \
		"$build/$kernel/bzImage" "$logs/porttrace-$name.log" "$runlist" \
		IOPL_EXPECT_MODE="$mode" || status=$?
	"$lib/verdict.sh" --allow-skip "$default_skips" "$logs/porttrace-$name.log" \
		"porttrace-$name" "$status" | grep -v '^PASS ' || true
	[ -s "$trace" ] || { echo "FAIL porttrace/$name: QEMU wrote no trace to $trace"; return 0; }
	ports "$trace" >"$logs/porttrace-$name.ports"
}

boot base default ioperm
boot safe default "$(list ioperm "${ours[@]}")"
boot full full "$(list ioperm "${ours[@]}")"

extra() { comm -23 "$logs/porttrace-$1.ports" "$logs/porttrace-base.ports"; }
safe=$(extra safe | paste -sd ' ')
full=$(extra full | wc -l)
bad=$(extra safe | grep -vxF -f <(tr ' ' '\n' <<<"$allowed") | paste -sd ' ' || true)
echo "# porttrace: by default our selftests let reads through to ${safe:-no port} beyond the base boot; with IOPORT_SCAN=full to $full ports" >&2
if [ -n "$bad" ]; then
	echo "FAIL porttrace/safe-by-default: reads reached ports beyond $allowed: $(cut -c1-200 <<<"$bad")"
elif [ "$full" -le 2 ]; then
	echo "FAIL porttrace/sees-reads: with IOPORT_SCAN=full only $full ports beyond the base boot: the trace misses permitted reads"
else
	echo "PASS porttrace/safe-by-default: ${safe:-none} beyond the base boot (IOPORT_SCAN=full: $full ports)"
fi
