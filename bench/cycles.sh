#!/bin/bash
# make bench-cycles: TSC cycles of one TSS bitmap update on this machine's
# CPU, stock against series, per tree, and the bound the series must keep.
#
#   cycles.sh [--tree T]... [--stock-src DIR] [--series-src DIR] [--out DIR]
#
# --tree: 6.1 and/or 6.12 (default both). --series-src: take the series'
# code from DIR instead of build/T/tree (one tree only; used to plant a
# regression and see the bound fail, and to time one patch: DIR a
# worktree at the patch, --stock-src one at its parent). --stock-src:
# take the stock code from DIR instead of build/T/src (one tree only).
# --out: where the results go (default build/bench).
#
# The update (tss_copy_io_bitmap(), its helpers and its call condition)
# and ksys_ioperm(), which builds the bitmaps, are extracted from each
# tree's own source and compiled for user space with the kernel's x86_64
# code generation flags (bench/variant.c, bench/shim.h); bench/cycles.c
# times them, linked statically (build/bench/cycles/cycles-T runs as built
# on another machine). Nothing runs in a kernel. Writes cycles.csv
# (medians) and cycles.txt (min and median) in the output directory.
#
# The bound, per row: hot min and median, series <= stock * 1.05 + 3;
# cold min and median, series <= stock * 1.10 + 100; rows of maps with
# one or two blocks (low, high, wide, wide2), series hot min <= stock's
# low/low hot min + 5. A row that breaks it is measured again (medians
# move by up to 20% on a shared host); a row that breaks it again fails.
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
. "$(dirname "$0")/../scripts/lib/common.sh"

trees=() stock_src='' series_src='' out=$top/build/bench
while [ $# -gt 0 ]; do
	case $1 in
	--tree) trees+=("$2"); shift 2 ;;
	--stock-src) stock_src=$(cd "$2" && pwd); shift 2 ;;
	--series-src) series_src=$(cd "$2" && pwd); shift 2 ;;
	--out) out=$(mkdir -p "$2" && cd "$2" && pwd); shift 2 ;;
	*) die "usage: cycles.sh [--tree T]... [--stock-src DIR] [--series-src DIR] [--out DIR]" ;;
	esac
done
[ ${#trees[@]} -gt 0 ] || trees=(6.1 6.12)
[ -z "$stock_src$series_src" ] || [ ${#trees[@]} = 1 ] || die "cycles: --stock-src and --series-src need exactly one --tree"
work=$out/cycles
mkdir -p "$work"
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)

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
		grep -h '^#define IO_BITMAP_[A-Z_]*[[:space:]]' "$inc/processor.h" "$inc/io_bitmap.h" "$ksrc/ioport.c" |
			grep -v 'OFFSET\|\\$'
		extract "$inc/processor.h" '^struct io_bitmap_run \{'
		need "$inc/processor.h" '^struct x86_io_bitmap \{'
		# The hardware TSS comes first, as in the kernel's struct tss_struct
		echo 'struct tss_struct { char x86_tss[104]; struct x86_io_bitmap io_bitmap; } __attribute__((aligned(4096)));'
		need "$inc/io_bitmap.h" '^struct io_bitmap \{'
		# The update lives in process.c (stock) or ioport.c (series)
		copy=$(grep -l '^[A-Za-z_ ]*void tss_copy_io_bitmap(' "$ksrc/process.c" "$ksrc/ioport.c") ||
			die "cycles: no tss_copy_io_bitmap() in $ksrc/process.c or ioport.c"
		# Its static helpers (tss_copy_io_*()) first, in the file's order
		while read -r f; do
			[ "$f" = tss_copy_io_bitmap ] || need "$copy" "^static [a-z ]*$f\\("
		done < <(sed -n 's/^static [a-z ]*\(tss_copy_io_[a-z_]*\)(.*/\1/p' "$copy")
		need "$copy" '^[A-Za-z_ ]*void tss_copy_io_bitmap\('
		# ksys_ioperm()'s static helpers, then ksys_ioperm() itself
		while read -r f; do
			need "$ksrc/ioport.c" "^static [a-z ]*$f\\("
		done < <(sed -n 's/^static [a-z ]*\(io_bitmap_[a-z_]*\)(.*/\1/p' "$ksrc/ioport.c")
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
	b=$top/build/$t
	[ -d "$b/tree/.git" ] || TREE=$t "$lib/tree.sh"
	extract_tree "${stock_src:-$b/src}" "$work/$t-stock.h"
	extract_tree "${series_src:-$b/tree}" "$work/$t-series.h"
	objs=()
	for k in stock series; do
		gcc "${kflags[@]}" -c -I"$top/bench" -DEXTRACTED="\"$work/$t-$k.h\"" -DPFX=$k \
			-Wno-unused-function -o "$work/$t-$k.o" "$top/bench/variant.c" ||
			die "cycles: the $t $k code does not build for user space"
		objs+=("$work/$t-$k.o")
	done
	gcc -O2 -Wall -static -o "$work/cycles-$t" "$top/bench/cycles.c" "${objs[@]}" ||
		die "cycles: bench/cycles.c does not build"
	step "cycles: $t, stock against series, on $cpu (about a minute)"
	"$work/cycles-$t" | sed "s/^/$t /" >>"$work/results.txt" ||
		die "cycles: the measurement of $t failed"
done

# over RESULTS: "TREE SCENARIO: why" for each row of RESULTS (cycles-T
# output, tree first) above the bound, and for each row of
# bench/scenarios.h that RESULTS lacks, repeats or cuts short
# (bench/cycles-bound.awk)
over() {
	awk -v trees="${trees[*]}" -f "$top/bench/cycles-bound.awk" "$top/bench/scenarios.h" "$1"
}

# Measure the rows above the bound once more; low/low with the rows of
# one- and two-block maps, whose bound is low/low's.
over "$work/results.txt" >"$work/over.txt"
for t in "${trees[@]}"; do
	again=$(awk -v t="$t" '$1 == t { sub(":", "", $2); print $2 }' "$work/over.txt" | sort -u)
	[ -n "$again" ] || continue
	grep -q "^$t \(low\|high\|wide\|wide2\)/\(low\|high\|wide\|wide2\):" "$work/over.txt" &&
		again=$(printf '%s\nlow/low\n' "$again" | sort -u)
	step "cycles: $t, above the bound, measured again: ${again//$'\n'/ }"
	# shellcheck disable=SC2086 # one argument per scenario
	"$work/cycles-$t" $again | sed "s/^/$t /" >"$work/again.txt" ||
		die "cycles: the measurement of $t failed"
	awk 'NR == FNR { if (!/#/) again[$1 " " $2] = $0; next }
		($1 " " $2) in again { print again[$1 " " $2]; next } { print }' \
		"$work/again.txt" "$work/results.txt" >"$work/results.new"
	mv "$work/results.new" "$work/results.txt"
done
over "$work/results.txt" >"$work/over.txt"

{
	echo "tree,scenario,stock_hot,series_hot,stock_cold,series_cold"
	awk '!/#/ { print $1 "," $2 "," $4 "," $6 "," $8 "," $10 }' "$work/results.txt"
} >"$out/cycles.csv"
{
	echo "TSC cycles per TSS bitmap update (the copy on a switch to the task),"
	echo "min/median of $(sed -n 's/^#define ROUNDS[[:space:]]*//p' "$top/bench/cycles.c") updates,"
	echo "user space on $cpu:"
	echo
	# Per tree, hot and cold, narrow enough for a changelog (which quotes
	# the rows word for word: scripts/figures.sh)
	for t in "${trees[@]}"; do
		for k in hot cold; do
			echo "$t, $k:"
			echo
			printf '| %-19s | %6s | %6s | %6s | %6s |\n' scenario "stock" "series" "stock" "series"
			printf '| %-19s | %6s | %6s | %6s | %6s |\n' "" "min" "min" "median" "median"
			echo "|---------------------|--------|--------|--------|--------|"
			awk -v t="$t" -v k="$k" '!/#/ && $1 == t {
				o = k == "hot" ? 3 : 7	# stock min, stock median, series min, series median
				printf "| %-19s | %6s | %6s | %6s | %6s |\n", $2, $(o), $(o + 2), $(o + 1), $(o + 3) }' "$work/results.txt"
			echo
		done
	done
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

if [ -s "$work/over.txt" ]; then
	sed 's|^\([^ ]*\) \([^:]*\): |FAIL bench-cycles/\1/\2: |' "$work/over.txt"
	exit 1
fi
for t in "${trees[@]}"; do
	echo "PASS bench-cycles/$t: every row within the bound"
done
