# The bound of make bench-cycles (bench/cycles.sh):
#   awk -v trees="6.1 6.12" -f cycles-bound.awk bench/scenarios.h RESULTS
# RESULTS holds lines "TREE SCENARIO stock-hot-min stock-hot-median
# series-hot-min series-hot-median stock-cold-min stock-cold-median
# series-cold-min series-cold-median" and, per tree, "TREE # unit: TSC
# cycles", the unit that bench/cycles.c prints and the bound's offsets
# are in (other lines with "#" are ignored). A tree whose figures come
# in no unit, or in another, fails. Prints
# "TREE SCENARIO: why" for each row above the bound, and for each row that
# is not what it must be: the rows come from bench/scenarios.h (every
# scenario without iopl(3), which bench/cycles.c skips, once per tree of
# trees), not from the table judged, so that a row missing (low/low, whose
# hot min bounds the one- and two-block rows, among them), reported twice,
# cut short or not a number fails.

# bench/scenarios.h: the permission sets, 'static const struct perm VAR =
# { "NAME", ... .iopl = 3 };', then the table scenarios[] of { &A, &B }.
FNR == NR {
	if (match($0, /^static const struct perm [a-z0-9_]+ = \{ "[^"]*"/)) {
		split(substr($0, RSTART, RLENGTH), w, /"/)
		split(w[1], var, " ")
		pname[var[5]] = w[2]
		if ($0 ~ /\.iopl = [1-9]/)
			piopl[var[5]] = 1
	} else if ($0 ~ /^static const struct scenario scenarios\[\] = \{/)
		in_table = 1
	else if (in_table && $0 ~ /^\};/)
		in_table = 0
	else if (in_table) {
		line = $0
		while (match(line, /\{ *&[a-z0-9_]+, *&[a-z0-9_]+ *\}/)) {
			split(substr(line, RSTART, RLENGTH), w, /[{}&, ]+/)
			line = substr(line, RSTART + RLENGTH)
			if (!(w[2] in pname) || !(w[3] in pname))
				bad_header = "scenario of an unknown permission set: " w[2] ", " w[3]
			else if (!(w[2] in piopl) && !(w[3] in piopl))
				expected[++nexp] = pname[w[2]] "/" pname[w[3]]
		}
	}
	next
}

$2 == "#" && $3 == "unit:" {
	unit[$1] = substr($0, index($0, "unit:") + 6)
	next
}

!/#/ {
	r = $1 " " $2
	if (!(r in count))
		row[++n] = r
	if (++count[r] > 1)
		next
	ok = NF == 10
	for (i = 3; i <= 10; i++) {
		ok = ok && $i ~ /^[0-9]+(\.[0-9]+)?$/
		v[r, i] = $i
	}
	if (!ok)
		wrong[r] = "not a row of 8 numbers: " $0
}

function above(r, what, series, bound) {
	if (series > bound)
		printf "%s: %s %s > %.1f\n", r, what, series, bound
}

END {
	nt = split(trees, tree, " ")
	if (nexp == 0 && bad_header == "")
		bad_header = "no scenario found in bench/scenarios.h"
	for (t = 1; t <= nt; t++) {
		if (!(tree[t] in unit))
			printf "%s: no \"# unit:\" line, the bound is in TSC cycles\n", tree[t]
		else if (unit[tree[t]] != "TSC cycles")
			printf "%s: the figures are in %s, the bound is in TSC cycles\n", tree[t], unit[tree[t]]
		if (bad_header != "")
			printf "%s scenarios.h: %s\n", tree[t], bad_header
		for (k = 1; k <= nexp; k++) {
			want[tree[t] " " expected[k]] = 1
			if (!((tree[t] " " expected[k]) in count))
				printf "%s %s: no row, though bench/scenarios.h has the scenario\n", tree[t], expected[k]
		}
	}
	for (j = 1; j <= n; j++) {
		r = row[j]
		split(r, a, " ")
		if (!(r in want)) {
			printf "%s: a row of no scenario of bench/scenarios.h (trees: %s)\n", r, trees
			continue
		}
		if (count[r] > 1)
			printf "%s: %d rows\n", r, count[r]
		if (r in wrong) {
			printf "%s: %s\n", r, wrong[r]
			continue
		}
		above(r, "hot min", v[r, 5], v[r, 3] * 1.05 + 3)
		above(r, "hot median", v[r, 6], v[r, 4] * 1.05 + 3)
		above(r, "cold min", v[r, 9], v[r, 7] * 1.10 + 100)
		above(r, "cold median", v[r, 10], v[r, 8] * 1.10 + 100)
		ll = a[1] " low/low"
		if (a[2] ~ /^(low|high|wide|wide2)\/(low|high|wide|wide2)$/ && (ll in count) && !(ll in wrong))
			above(r, "hot min (stock low/low + 5)", v[r, 5], v[ll, 3] + 5)
	}
}
