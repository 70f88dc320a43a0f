#!/bin/bash
# make bench: instructions per context switch (and per ioperm() call) on the
# stock and the patched kernel of each tree (6.1 and 6.12, or those of
# icount.sh [--tree T]...),
# booted one after the other with QEMU -icount shift=0, where 1 ns of guest
# time is one guest instruction.
# Writes build/bench/bench.csv, build/bench/bench.png and prints a table.
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
. "$(dirname "$0")/../scripts/lib/common.sh"

out=$top/build/bench
mkdir -p "$out"
trees=()
while [ $# -gt 0 ]; do
	case $1 in
	--tree) [ $# -ge 2 ] || die "usage: icount.sh [--tree T]..."; trees+=("$2"); shift 2 ;;
	*) die "usage: icount.sh [--tree T]..." ;;
	esac
done
[ ${#trees[@]} -gt 0 ] || trees=("${all_trees[@]}")

for t in "${trees[@]}"; do
	export TREE=$t
	b=$top/build/$t
	"$lib/tree.sh"
	# Both kernels from the same config: the patched kernel of make check
	# also has the KUnit suite, and with KUnit the series' copy of the
	# bitmap is a global function (VISIBLE_IF_KUNIT) that stock inlines.
	"$lib/kbuild.sh" stock "$b/src" "${base_config[@]}"
	"$lib/kbuild.sh" patched-bench "$b/tree" "${base_config[@]}"
	"$lib/guest.sh" --out "$b/guest" "$b/tree"
	for kernel in stock patched-bench; do
		k=${kernel%-bench}
		log=$b/logs/bench-$k.log
		step "bench: boot $t $k under -icount (log: $log, about 2 min)"
		status=0
		"$lib/boot.sh" --smp 1 --initrd "$b/guest/initramfs.cpio" \
			--qemu-arg -icount --qemu-arg shift=0,align=off,sleep=off \
			"$b/$kernel/bzImage" "$log" bench || status=$?
		passed "bench-$t-$k" "$log" "$status" --cpus 1 ||
			die "bench: the benchmark failed on the $t $k kernel, see $log"
		console "$log" | sed -n 's/^    BENCH \([^ ]*\) \([0-9]*\)$/\1 \2/p' |
			sort >"$out/$t-$k.txt"
		[ -s "$out/$t-$k.txt" ] || die "bench: no BENCH lines in $log"
	done
done

# One line per scenario, in the order the benchmark ran them: per tree the
# stock and the patched count, each with its ratio to its own plain/plain
# (empty for the ioperm() call), then patched/stock.
joined=$out/joined.txt
cp "$out/${trees[0]}-stock.txt" "$joined"
for t in "${trees[@]}"; do
	for k in stock patched; do
		[ "$t-$k" = "${trees[0]}-stock" ] && continue
		join "$joined" "$out/$t-$k.txt" >"$joined.tmp" && mv "$joined.tmp" "$joined"
	done
done
order=$(console "$top/build/${trees[0]}/logs/bench-stock.log" |
	sed -n 's/^    BENCH \([^ ]*\) [0-9]*$/\1/p' | tr '\n' ' ')
awk -v order="$order" -v trees="${trees[*]}" '
	function over(v, plain, k) {
		return k ~ /^ioperm-call/ ? "" : sprintf("%+.1f%%", (v / plain - 1) * 100)
	}
	{ for (i = 2; i <= NF; i++) v[$1, i - 1] = $i }
	END {
		nt = split(trees, tr, " ")
		head = "scenario"
		for (t = 1; t <= nt; t++)
			head = head sprintf(",%s_stock,vs_plain,%s_patched,vs_plain,patched/stock", tr[t], tr[t])
		print head
		cnt = split(order, names, " ")
		for (i = 1; i <= cnt; i++) {
			k = names[i]
			line = k
			for (t = 1; t <= nt; t++) {
				s = v[k, 2 * t - 1]; p = v[k, 2 * t]
				line = line sprintf(",%d,%s,%d,%s,%.3f", s,
					over(s, v["plain/plain", 2 * t - 1], k),
					p, over(p, v["plain/plain", 2 * t], k), p / s)
			}
			print line
		}
	}' "$joined" >"$out/bench.csv"

{
	echo "Guest instructions per context switch (per call for ioperm-call-*),"
	echo "QEMU TCG -icount shift=0, one CPU: instruction counts under emulation,"
	echo "not hardware time. Stock and patched Debian trees:"
	for t in "${trees[@]}"; do
		echo "linux-source-$t $(cut -d' ' -f2 "$top/build/$t/src.stamp")"
	done
	echo
	row='| %-16s' sep='|------------------' head=(scenario)
	for t in "${trees[@]}"; do
		row+=' | %10s | %8s | %12s | %8s | %13s'
		sep+='|------------|----------|--------------|----------|---------------'
		head+=("$t stock" "vs plain" "$t patched" "vs plain" "patched/stock")
	done
	# shellcheck disable=SC2059 # the format is built above
	printf "$row |\n" "${head[@]}"
	echo "$sep|"
	tail -n +2 "$out/bench.csv" | while IFS=, read -r -a f; do
		# shellcheck disable=SC2059
		printf "$row |\n" "${f[@]}"
	done
} | tee "$out/table.md"

if command -v gnuplot >/dev/null; then
	plot="plot "
	col=2
	for t in "${trees[@]}"; do
		plot+="\"$out/bench.csv\" every ::1 using $col:xtic(1) title \"$t stock\", "
		plot+="\"\" every ::1 using $((col + 2)) title \"$t patched\", "
		col=$((col + 5))
	done
	gnuplot <<-GP || die "bench: gnuplot failed"
		set terminal pngcairo size 1100,500
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
		${plot%, }
	GP
	step "bench: $out/bench.csv, $out/bench.png, $out/table.md"
fi
