#!/bin/bash
# The cycles of each patch on its own: make bench-cycles compares stock
# with the whole series; a changelog credits each effect to its patch.
#
#   per-patch.sh [--tree T] [--out DIR]
#
# --tree: 6.1 or 6.12 (default 6.12). --out: where the results go
# (default build/bench/per-patch).
#
# For each commit of build/T/tree that changes the code bench/cycles.sh
# extracts (the TSS update, ksys_ioperm() and their structures) and whose
# subject starts with "x86/ioperm:", bench/cycles.sh times the commit's
# code (--series-src, those files at the commit) against its parent's
# (--stock-src), in one program. Writes per-patch.txt: per commit its
# subject, the four rows its changelog quotes, and all rows, "stock"
# being the parent.
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
. "$(dirname "$0")/../scripts/lib/common.sh"

tree=6.12 out=$top/build/bench/per-patch
while [ $# -gt 0 ]; do
	case $1 in
	--tree) tree=$2; shift 2 ;;
	--out) out=$(mkdir -p "$2" && cd "$2" && pwd); shift 2 ;;
	*) die "usage: per-patch.sh [--tree T] [--out DIR]" ;;
	esac
done
t=$top/build/$tree/tree
[ -d "$t/.git" ] || TREE=$tree "$lib/tree.sh"
mkdir -p "$out"
# The rows a changelog quotes
rows=(high/low low/low ISA/ISA dense/low)
files=(arch/x86/include/asm/processor.h arch/x86/include/asm/io_bitmap.h
	arch/x86/kernel/process.c arch/x86/kernel/ioport.c)

{
	echo "Each patch against its parent, $tree, user space on $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
	echo "(bench/per-patch.sh; the columns \"stock\" are the parent's code)"
} >"$out/per-patch.txt"
for c in $(git -C "$t" rev-list --reverse base..HEAD -- "${files[@]}"); do
	subject=$(git -C "$t" log -1 --format=%s "$c")
	[[ $subject = x86/ioperm:* ]] || continue
	for w in parent:"$c^" patch:"$c"; do
		rm -rf "${out:?}/${w%%:*}"
		mkdir -p "$out/${w%%:*}"
		git -C "$t" archive "${w#*:}" "${files[@]}" | tar -x -C "$out/${w%%:*}"
	done
	"$top/bench/cycles.sh" --tree "$tree" --stock-src "$out/parent" --series-src "$out/patch" \
		--out "$out/run" >"$out/run.log" 2>&1 ||
		grep -q '^FAIL bench-cycles' "$out/run.log" || { cat "$out/run.log" >&2; die "per-patch: $subject failed"; }
	{
		echo
		echo "== $subject"
		echo
		echo "$tree, the changelog's rows (min/median, parent -> patch):"
		echo
		echo "| A/B       | hot, parent |  hot, patch |  cold, parent |   cold, patch |"
		echo "|-----------|-------------|-------------|---------------|---------------|"
		for row in "${rows[@]}"; do
			awk -v t="$tree" -v r="$row" '$1 == t && $2 == r {
				printf "| %-9s | %11s | %11s | %13s | %13s |\n", r,
					$3 "/" $4, $5 "/" $6, $7 "/" $8, $9 "/" $10 }' "$out/run/cycles/results.txt"
		done
		echo
		sed -n '/^[0-9.]*, hot:/,$p' "$out/run/cycles.txt"
	} >>"$out/per-patch.txt"
done
cat "$out/per-patch.txt"
