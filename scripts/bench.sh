#!/bin/bash
# make bench: instructions per context switch (and per ioperm() call) on the
# stock and the patched kernel, booted one after the other with QEMU
# -icount shift=0, where 1 ns of guest time is one guest instruction.
# Writes build/bench/bench.csv, build/bench/bench.png and prints a table.
set -euo pipefail
. "$(dirname "$0")/common.sh"

out=$build/bench
mkdir -p "$out"

"$top/scripts/tree.sh"
"$top/scripts/kbuild.sh" stock "$build/src" "$top/config/test.config"
"$top/scripts/kbuild.sh" patched "$build/tree" "${patched_config[@]}"
"$top/scripts/guest.sh" "$build/tree"

for k in stock patched; do
	log=$build/logs/bench-$k.log
	step "bench: boot $k under -icount (log: $log)"
	status=0
	SMP=1 QEMU_EXTRA="-icount shift=0,align=off,sleep=off" \
		"$top/scripts/boot.sh" "$build/$k/bzImage" "$log" bench || status=$?
	EXPECT_CPUS=1 "$top/scripts/verdict.sh" "$log" "bench-$k" "$status" >/dev/null ||
		die "bench: the benchmark failed on the $k kernel, see $log"
	tr -d '\r' <"$log" | sed -n 's/^    BENCH \([^ ]*\) \([0-9]*\)$/\1 \2/p' >"$out/$k.txt"
	[ -s "$out/$k.txt" ] || die "bench: no BENCH lines in $log"
done

# scenario,stock,patched,ratio,stock_over_plain,patched_over_plain
join <(sort "$out/stock.txt") <(sort "$out/patched.txt") >"$out/joined.txt"
awk -v order="$(cut -d' ' -f1 "$out/stock.txt" | tr '\n' ' ')" '
	{ s[$1] = $2; p[$1] = $3 }
	END {
		n = split(order, names, " ")
		print "scenario,stock,patched,patched/stock,stock_over_plain,patched_over_plain"
		for (i = 1; i <= n; i++) {
			k = names[i]
			over_s = k ~ /^ioperm-call/ ? "" : sprintf("%+.1f%%", (s[k] / s["plain/plain"] - 1) * 100)
			over_p = k ~ /^ioperm-call/ ? "" : sprintf("%+.1f%%", (p[k] / p["plain/plain"] - 1) * 100)
			printf "%s,%d,%d,%.3f,%s,%s\n", k, s[k], p[k], p[k] / s[k], over_s, over_p
		}
	}' "$out/joined.txt" >"$out/bench.csv"

{
	echo "Guest instructions per context switch (per call for ioperm-call-*),"
	echo "QEMU TCG -icount shift=0, one CPU: instruction counts under emulation,"
	echo "not hardware time. Debian linux-source-6.1 $(cut -d' ' -f2 "$build/src.stamp")."
	echo
	printf '| %-18s | %8s | %8s | %13s | %16s | %18s |\n' scenario stock patched patched/stock "stock vs plain" "patched vs plain"
	printf '|%s|%s|%s|%s|%s|%s|\n' -------------------- ---------- ---------- --------------- ------------------ --------------------
	tail -n +2 "$out/bench.csv" | while IFS=, read -r k s p r os op; do
		printf '| %-18s | %8s | %8s | %13s | %16s | %18s |\n' "$k" "$s" "$p" "$r" "$os" "$op"
	done
} | tee "$out/table.md"

if command -v gnuplot >/dev/null; then
	gnuplot <<-GP || die "bench: gnuplot failed"
		set terminal pngcairo size 1000,500
		set output "$out/bench.png"
		set datafile separator ","
		set title "Guest instructions per context switch (QEMU -icount, not hardware time)"
		set style data histograms
		set style histogram clustered gap 1
		set style fill solid 0.8 border -1
		set xtics rotate by -30 noenhanced
		set ylabel "instructions"
		set yrange [0:*]
		set key top left
		plot "$out/bench.csv" every ::1 using 2:xtic(1) title "stock", \
		     "" every ::1 using 3 title "patched"
	GP
	step "bench: $out/bench.csv, $out/bench.png, $out/table.md"
fi
