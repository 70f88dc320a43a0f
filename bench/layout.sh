#!/bin/bash
# The layout matrix: how much of a TSS update's cost is the offset of
# the two bitmaps in their pages, and not the code that copies them.
#
#   layout.sh [--tree T] [--out DIR]
#
# --tree: 6.1 or 6.12 (default 6.12). --out: where the results go
# (default build/bench/layout).
#
# Each variant is one tree's code (stock: the Debian source; series: the
# patched tree) with the bitmaps moved to chosen offsets: bytes of
# padding in front of each bitmap, in struct x86_io_bitmap (the TSS is
# page aligned) and in struct io_bitmap (the kernel allocates it as
# whole pages), and the series' BUILD_BUG_ON() on their offsets out. bench/cycles.sh
# --series-src times each variant against the unmodified stock code in
# the same program. Writes layout.txt: per variant the offsets and the
# rows of bench/cycles.sh.
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
. "$(dirname "$0")/../scripts/lib/common.sh"

tree=6.12 out=$top/build/bench/layout
while [ $# -gt 0 ]; do
	case $1 in
	--tree) tree=$2; shift 2 ;;
	--out) out=$(mkdir -p "$2" && cd "$2" && pwd); shift 2 ;;
	*) die "usage: layout.sh [--tree T] [--out DIR]" ;;
	esac
done
b=$top/build/$tree
[ -d "$b/tree/.git" ] || TREE=$tree "$lib/tree.sh"
mkdir -p "$out"

# variant NAME CODE TSSPAD IOBMPAD: CODE's four files without the
# alignment, with padding in front of each bitmap, in $out/NAME
variant() {
	local dst=$out/$1 pad file struct n
	rm -rf "$dst"
	mkdir -p "$dst/arch/x86/include/asm" "$dst/arch/x86/kernel"
	cp "$2"/arch/x86/include/asm/{processor,io_bitmap}.h "$dst/arch/x86/include/asm/"
	cp "$2"/arch/x86/kernel/{process,ioport}.c "$dst/arch/x86/kernel/"
	# The copy's check that both bitmaps share their offset in a line
	sed -i '/BUILD_BUG_ON(/,/;$/d' "$dst/arch/x86/kernel/process.c"
	for pad in "processor.h:x86_io_bitmap:$3" "io_bitmap.h:io_bitmap:$4"; do
		IFS=: read -r file struct n <<<"$pad"
		sed -i "/^struct $struct {/,/^};/ {
			s/^\(\tunsigned long[[:space:]]*bitmap\[\)/\tchar pad[$n];\n&/
		}" "$dst/arch/x86/include/asm/$file"
		[ "$n" != 0 ] || sed -i '/^\tchar pad\[0\];$/d' "$dst/arch/x86/include/asm/$file"
	done
}

# Offsets of the bitmaps without padding: the TSS's after the 104-byte
# hardware TSS and 16 (stock) or 48 (series) bytes of struct
# x86_io_bitmap, io_bitmap's after 16 (stock) or 24 (series) bytes.
{
	echo "The layout matrix, $tree, user space on $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
	echo "(bench/layout.sh; offsets of the TSS bitmap and of io_bitmap::bitmap in their pages)"
} >"$out/layout.txt"
while read -r name code tss iobm what; do
	variant "$name" "$b/$code" "$tss" "$iobm"
	"$top/bench/cycles.sh" --tree "$tree" --series-src "$out/$name" --out "$out/run-$name" >"$out/run-$name.log" 2>&1 ||
		grep -q '^FAIL bench-cycles' "$out/run-$name.log" || { cat "$out/run-$name.log" >&2; die "layout: $name failed"; }
	{
		echo
		echo "== $name: $what; stock: TSS 120, io_bitmap 16"
		sed -n '/^[0-9.]*, hot:/,$p' "$out/run-$name/cycles.txt"
	} >>"$out/layout.txt"
done <<-EOF
	stock-as-series src 32 8 stock code, the series' offsets: TSS 152, io_bitmap 24 (the same offset in a line)
	stock-aligned src 72 48 stock code, both on a cache line: TSS 192, io_bitmap 64
	series-as-stock tree 32 56 series code, stock's offsets in a line: TSS 184, io_bitmap 80
	series-list-first tree 0 32 series code, io_bitmap's at 56 as with the list in front of it
	series-aligned tree 40 40 series code, both on a cache line: TSS 192, io_bitmap 64
	series tree 0 0 series code as it is: TSS 152, io_bitmap 24
EOF
cat "$out/layout.txt"
