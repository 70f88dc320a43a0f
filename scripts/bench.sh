#!/bin/bash
# make bench: instructions per context switch (and per ioperm() call) on the
# stock kernel, the previous series (BENCH_PREV, a commit of this repository)
# and the patched kernel, booted one after the other with QEMU -icount
# shift=0, where 1 ns of guest time is one guest instruction.
# Writes build/bench/bench.csv, build/bench/bench.png and prints a table.
set -euo pipefail
. "$(dirname "$0")/common.sh"

out=$build/bench
mkdir -p "$out"

# The previous series: patches/ of an earlier commit of this repository
# (the one-range-per-bitmap design), applied in a worktree of build/tree.
prev=${BENCH_PREV:-13d242f}
prev_tree=$build/prev-tree

"$top/scripts/tree.sh"
if [ ! -e "$prev_tree/.git" ] || [ "$(cat "$prev_tree.ref" 2>/dev/null)" != "$prev" ]; then
	step "bench: previous series from $prev:patches in $prev_tree"
	rm -rf "$prev_tree" "$prev_tree.ref"
	git -C "$build/tree" worktree prune
	git -C "$build/tree" worktree add -q --detach "$prev_tree" base ||
		die "bench: could not create the worktree $prev_tree"
	git -C "$top" show "$prev:patches/series" >/dev/null 2>&1 ||
		die "bench: no patches/series at $prev (BENCH_PREV)"
	git -C "$top" show "$prev:patches/series" | grep -v '^[[:space:]]*\(#\|$\)' |
		while read -r p _; do
			git -C "$top" show "$prev:patches/$p" |
				git -C "$prev_tree" -c user.name=bench -c user.email=bench@localhost am -q ||
				die "bench: $p of $prev does not apply"
		done
	echo "$prev" >"$prev_tree.ref"
fi
"$top/scripts/kbuild.sh" stock "$build/src" "$top/config/test.config"
"$top/scripts/kbuild.sh" prev "$prev_tree" "${patched_config[@]}"
"$top/scripts/kbuild.sh" patched "$build/tree" "${patched_config[@]}"
"$top/scripts/guest.sh" "$build/tree"

kernels=(stock prev patched)
for k in "${kernels[@]}"; do
	log=$build/logs/bench-$k.log
	step "bench: boot $k under -icount (log: $log, about 2 min)"
	status=0
	SMP=1 QEMU_EXTRA="-icount shift=0,align=off,sleep=off" \
		"$top/scripts/boot.sh" "$build/$k/bzImage" "$log" bench || status=$?
	EXPECT_CPUS=1 "$top/scripts/verdict.sh" "$log" "bench-$k" "$status" >/dev/null ||
		die "bench: the benchmark failed on the $k kernel, see $log"
	tr -d '\r' <"$log" | sed -n 's/^    BENCH \([^ ]*\) \([0-9]*\)$/\1 \2/p' >"$out/$k.txt"
	[ -s "$out/$k.txt" ] || die "bench: no BENCH lines in $log"
done

# scenario, then per kernel: instructions and the ratio to its plain/plain
# (empty for the ioperm() call), then new/stock and new/previous
join <(sort "$out/stock.txt") <(sort "$out/prev.txt") |
	join - <(sort "$out/patched.txt") >"$out/joined.txt"
awk -v order="$(cut -d' ' -f1 "$out/stock.txt" | tr '\n' ' ')" '
	function over(v, plain, k) {
		return k ~ /^ioperm-call/ ? "" : sprintf("%+.1f%%", (v / plain - 1) * 100)
	}
	{ s[$1] = $2; p[$1] = $3; n[$1] = $4 }
	END {
		cnt = split(order, names, " ")
		print "scenario,stock,stock_vs_plain,previous,previous_vs_plain,new,new_vs_plain,new/stock,new/previous"
		for (i = 1; i <= cnt; i++) {
			k = names[i]
			printf "%s,%d,%s,%d,%s,%d,%s,%.3f,%.3f\n", k,
				s[k], over(s[k], s["plain/plain"], k),
				p[k], over(p[k], p["plain/plain"], k),
				n[k], over(n[k], n["plain/plain"], k),
				n[k] / s[k], n[k] / p[k]
		}
	}' "$out/joined.txt" >"$out/bench.csv"

{
	echo "Guest instructions per context switch (per call for ioperm-call-*),"
	echo "QEMU TCG -icount shift=0, one CPU: instruction counts under emulation,"
	echo "not hardware time. Debian linux-source-6.1 $(cut -d' ' -f2 "$build/src.stamp");"
	echo "previous = the series at $prev, new = patches/ now."
	echo
	printf '| %-16s | %6s | %8s | %8s | %8s | %6s | %8s | %9s | %12s |\n' scenario \
		stock "vs plain" previous "vs plain" new "vs plain" new/stock new/previous
	printf '|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n' ------------------ -------- ---------- \
		---------- ---------- -------- ---------- ----------- --------------
	tail -n +2 "$out/bench.csv" | while IFS=, read -r k s os p op n on ns np; do
		printf '| %-16s | %6s | %8s | %8s | %8s | %6s | %8s | %9s | %12s |\n' \
			"$k" "$s" "$os" "$p" "$op" "$n" "$on" "$ns" "$np"
	done
} | tee "$out/table.md"

if command -v gnuplot >/dev/null; then
	gnuplot <<-GP || die "bench: gnuplot failed"
		set terminal pngcairo size 1000,500
		set output "$out/bench.png"
		set datafile separator ","
		set title "Guest instructions per context switch, per call for ioperm-call-* (QEMU -icount, not hardware time)"
		set rmargin 10
		set style data histograms
		set style histogram clustered gap 1
		set style fill solid 0.8 border -1
		set xtics rotate by -30 noenhanced
		set ylabel "instructions"
		set yrange [0:*]
		set key top left
		plot "$out/bench.csv" every ::1 using 2:xtic(1) title "stock", \
		     "" every ::1 using 4 title "previous series", \
		     "" every ::1 using 6 title "new series"
	GP
	step "bench: $out/bench.csv, $out/bench.png, $out/table.md"
fi
