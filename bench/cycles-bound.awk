# The bound of make bench-cycles (bench/cycles.sh): reads results lines
# "TREE SCENARIO stock-hot-min stock-hot-median series-hot-min
# series-hot-median stock-cold-min stock-cold-median series-cold-min
# series-cold-median" (lines with "#" are ignored) and prints
# "TREE SCENARIO: why" for each row above the bound.
!/#/ { row[++n] = $1 " " $2; for (i = 3; i <= 10; i++) v[$1 " " $2, i] = $i }
function above(r, what, series, bound) {
	if (series > bound)
		printf "%s: %s %s > %.1f\n", r, what, series, bound
}
END {
	for (j = 1; j <= n; j++) {
		r = row[j]
		split(r, a, " ")
		above(r, "hot min", v[r, 5], v[r, 3] * 1.05 + 3)
		above(r, "hot median", v[r, 6], v[r, 4] * 1.05 + 3)
		above(r, "cold min", v[r, 9], v[r, 7] * 1.10 + 100)
		above(r, "cold median", v[r, 10], v[r, 8] * 1.10 + 100)
		if (a[2] ~ /^(low|high|wide|wide2)\/(low|high|wide|wide2)$/ && (a[1] " low/low", 3) in v)
			above(r, "hot min (stock low/low + 5)", v[r, 5], v[a[1] " low/low", 3] + 5)
	}
}
