#!/bin/bash
# make bench, cycles part: TSC cycles of one TSS bitmap update on this
# machine's CPU, stock against series, per tree (6.1 and 6.12, or the
# trees given as arguments: cycles.sh [TREE...]).
# The update (tss_copy_io_bitmap() and its call condition) and
# ksys_ioperm(), which builds the bitmaps, are extracted from each tree's
# own source and compiled for user space with the kernel's x86_64 code
# generation flags (bench/variant.c, bench/shim.h); bench/cycles.c times
# them. Nothing runs in a kernel. Writes build/bench/cycles.csv (medians)
# and build/bench/cycles.txt (min and median).
set -euo pipefail
. "$(dirname "$0")/../scripts/lib/common.sh"

out=$top/build/bench
work=$out/cycles
mkdir -p "$work"
trees=("$@")
[ $# -gt 0 ] || trees=("${all_trees[@]}")

# The x86_64 kernel's code generation (arch/x86/Makefile, Makefile) at
# -O2, as distributions build it; -mcmodel=kernel only moves addresses.
kflags=(-O2 -mno-sse -mno-mmx -mno-sse2 -mno-3dnow -mno-avx -mno-80387
	-mskip-rax-setup -mtune=generic -mno-red-zone -fno-strict-aliasing
	-fno-delete-null-pointer-checks -fno-stack-protector -fno-jump-tables
	-fcf-protection=none -fno-omit-frame-pointer)

# extract FILE START: the lines from the first one matching START (an ERE)
# to the next line that is "}" or "};", or nothing.
extract() {
	awk -v start="$2" 'on || $0 ~ start { on = 1; print } on && /^};?$/ { exit }' "$1"
}

# need FILE START: extract, or fail naming what is missing
need() {
	local text
	text=$(extract "$1" "$2")
	[ -n "$text" ] || die "cycles: no match for /$2/ in $1: the extraction no longer fits the tree"
	printf '%s\n\n' "$text"
}

# The code of one kernel source tree $1 as one header, $2
extract_tree() {
	local src=$1 ksrc=$1/arch/x86/kernel inc=$1/arch/x86/include/asm copy
	{
		echo "/* Extracted from ${src#"$top/"} by bench/cycles.sh */"
		grep -h '^#define IO_BITMAP_[A-Z_]*[[:space:]]' "$inc/processor.h" "$inc/io_bitmap.h" |
			grep -v 'OFFSET\|\\$'
		extract "$inc/processor.h" '^struct io_bitmap_run \{'
		need "$inc/processor.h" '^struct x86_io_bitmap \{'
		# The hardware TSS comes first, as in the kernel's struct tss_struct
		echo 'struct tss_struct { char x86_tss[104]; struct x86_io_bitmap io_bitmap; } __attribute__((aligned(4096)));'
		need "$inc/io_bitmap.h" '^struct io_bitmap \{'
		# The update lives in process.c (stock) or ioport.c (series)
		copy=$(grep -l '^[a-z ]*void tss_copy_io_bitmap(' "$ksrc/process.c" "$ksrc/ioport.c") ||
			die "cycles: no tss_copy_io_bitmap() in $ksrc/process.c or ioport.c"
		need "$copy" '^[a-z ]*void tss_copy_io_bitmap\('
		# ksys_ioperm()'s static helpers, then ksys_ioperm() itself
		for f in $(sed -n 's/^static [a-z ]*\(io_bitmap_update_[a-z_]*\)(.*/\1/p' "$ksrc/ioport.c"); do
			need "$ksrc/ioport.c" "^static [a-z ]*$f\\("
		done
		need "$ksrc/ioport.c" '^long ksys_ioperm\('
		# How native_tss_update_io_bitmap() calls the copy
		if grep -q 'tss_copy_io_bitmap(&tss->io_bitmap, iobm);' "$ksrc/process.c"; then
			echo '#define TSS_COPY(tss, iobm) tss_copy_io_bitmap(&(tss)->io_bitmap, iobm)'
		elif grep -q 'tss_copy_io_bitmap(tss, iobm);' "$ksrc/process.c"; then
			echo '#define TSS_COPY(tss, iobm) tss_copy_io_bitmap(tss, iobm)'
		else
			die "cycles: no call of tss_copy_io_bitmap() in $ksrc/process.c"
		fi
	} >"$2"
}

: >"$work/results.txt"
for t in "${trees[@]}"; do
	export TREE=$t
	b=$top/build/$t
	[ -d "$b/tree/.git" ] || "$lib/tree.sh"
	extract_tree "$b/src" "$work/$t-stock.h"
	extract_tree "$b/tree" "$work/$t-series.h"
	objs=()
	for k in stock series; do
		gcc "${kflags[@]}" -c -I"$top/bench" -DEXTRACTED="\"$work/$t-$k.h\"" -DPFX=$k \
			-Wno-unused-function -o "$work/$t-$k.o" "$top/bench/variant.c" ||
			die "cycles: the $t $k code does not build for user space"
		objs+=("$work/$t-$k.o")
	done
	gcc -O2 -Wall -o "$work/cycles-$t" "$top/bench/cycles.c" "${objs[@]}" ||
		die "cycles: bench/cycles.c does not build"
	step "cycles: $t, stock against series, on $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1) (about a minute)"
	"$work/cycles-$t" | sed "s/^/$t /" >>"$work/results.txt" ||
		die "cycles: the measurement of $t failed"
done

{
	echo "tree,scenario,stock_hot,series_hot,stock_cold,series_cold"
	awk '!/#/ { print $1 "," $2 "," $4 "," $6 "," $8 "," $10 }' "$work/results.txt"
} >"$out/cycles.csv"
{
	echo "TSC cycles per TSS bitmap update (the copy on a switch to the task),"
	echo "min/median of $(sed -n 's/^#define ROUNDS[[:space:]]*//p' "$top/bench/cycles.c") updates,"
	echo "user space on $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1):"
	echo
	printf '| %-4s | %-24s | %11s | %11s | %11s | %11s |\n' tree scenario "stock hot" "series hot" "stock cold" "series cold"
	echo "|------|--------------------------|-------------|-------------|-------------|-------------|"
	awk '!/#/ { printf "| %-4s | %-24s | %11s | %11s | %11s | %11s |\n", $1, $2, $3 "/" $4, $5 "/" $6, $7 "/" $8, $9 "/" $10 }' "$work/results.txt"
	echo
	sed -n 's/^\([0-9.]*\) # /\1 /p' "$work/results.txt"
} | tee "$out/cycles.txt"

if command -v gnuplot >/dev/null; then
	plot="plot "
	col=3
	for t in "${trees[@]}"; do
		grep "^$t," "$out/cycles.csv" >"$work/$t.csv"
		plot+="\"$work/$t.csv\" using $col:xtic(2) title \"$t stock\", "
		plot+="\"\" using $((col + 1)) title \"$t series\", "
	done
	gnuplot <<-GP || die "cycles: gnuplot failed"
		set terminal pngcairo size 1100,500
		set output "$out/cycles.png"
		set datafile separator ","
		set title "TSC cycles per TSS bitmap update, hot caches, median (user space on the host CPU, not a whole switch)"
		set style data histograms
		set style histogram clustered gap 1
		set style fill solid 0.8 border -1
		set xtics rotate by -30 noenhanced
		set ylabel "cycles"
		set rmargin 10
		set yrange [0:*]
		set key top left
		${plot%, }
	GP
	step "cycles: $out/cycles.csv, $out/cycles.png, $out/cycles.txt"
fi
