# The comparison of make x86-selftests (scripts/x86-selftests.sh
# --compare): the stock and the patched kernel's x86-selftests boots, one
# result line per test and per failed boot-level check. Variables (awk -v):
# name (the prefix of the result names), and per kernel K in stock,
# patched: K_verdict (the file of verdict.sh's lines for the boot, named
# "x86") and K_log (the console log). Reads no input.
#
# The patched kernel must do no worse than stock, test by test:
#   PASS NAME                 passes on both
#   SKIP NAME: ...            skips on both, or fails on both in the same way
#   FAIL NAME: ...            fails or is missing on patched and not so on
#                             stock, skips on patched where stock does not
#                             skip (a skip tests nothing), or fails on both
#                             but not in the same way
#   CHANGED NAME: ...         better on patched than on stock
# "In the same way": the program ends the same way (the reason of init's
# "not ok": the same exit status or signal; a timeout's seconds aside),
# prints no "[FAIL]" line that stock does not print, and a KTAP case
# fails with the same message. Numbers in those
# lines are compared as N: some failures count what a race did (ldt_gdt's
# "[FAIL] 3 of 5 iterations failed").
# A boot-level result of either kernel (a kernel report, the number of
# CPUs, QEMU's status, a short plan) is a FAIL of its own, NAME/K/kernel,
# NAME/K/cpus or NAME/K: no comparison stands on a boot that failed.
# Nor on no test: when none passes on both kernels, FAIL NAME says so.

# norm(S): S with every number N
function norm(s) {
	gsub(/0x[0-9a-fA-F]+|[0-9]+/, "N", s)
	return s
}

# end_norm(S): init's end reason S with a timeout's seconds as N; an exit
# status or a signal must be the same on both kernels
function end_norm(s) {
	sub(/timeout after [0-9]+ s/, "timeout after N s", s)
	return s
}

# read_verdict(K): outcome[K, TEST] from K's verdict lines; boot-level
# FAILs printed at once
function read_verdict(k, file,   line, kind, test, reason, i, rest, n) {
	while ((getline line < file) > 0) {
		kind = line
		sub(/ .*/, "", kind)
		rest = substr(line, length(kind) + 2)
		# "NAME" or "NAME: reason", and names may hold ": " (lam.c's
		# "MALLOC: LAM_U57. ..."): the longest name the log has that
		# the line starts with, else up to the first ": "
		test = ""
		for (n in named)
			if ((rest == n || index(rest, n ": ") == 1) && length(n) > length(test))
				test = n
		if (test == "")
			test = (i = index(rest, ": ")) > 0 ? substr(rest, 1, i - 1) : rest
		reason = substr(rest, length(test) + 3)
		if (test ~ /^x86\/kunit\//)	# KUnit results belong to make check
			continue
		if (test == "x86" || test ~ /^x86\/(kernel|cpus|kunit)$/) {
			if (kind != "PASS") {
				sub(/^x86/, name "/" k, test)
				print "FAIL " test ": " reason
			}
			continue
		}
		sub(/^x86\//, "", test)
		tests[test] = 1
		kind = kind == "PASS" ? "passes" : kind == "SKIP" ? "skips" : "fails"
		# Names repeat (test_vsyscall's cases, nameless SKIPs): the
		# worst outcome of a name stands for it
		if (!((k, test) in outcome) || rank[kind] < rank[outcome[k, test]]) {
			outcome[k, test] = kind
			why[k, test] = reason
		}
	}
	close(file)
}

# read_log(K): from K's console log, per program P: said[K, P], how init
# saw it end, and failed[K, P, LINE], each "[FAIL]" line it printed (a
# spliced kernel line cut off), keyed by the line with numbers as N; and
# named["x86/P/CASE"], the names of its KTAP cases
function read_log(k, file,   line, prog, end, c) {
	prog = ""
	while ((getline line < file) > 0) {
		if (line ~ /^# init: run /) {
			prog = substr(line, 13)
			said[k, prog] = "no result"
		} else if (prog != "" && match(line, /^    (not )?ok [0-9]+ /)) {
			c = substr(line, RLENGTH + 1)
			sub(/ # .*/, "", c)
			named["x86/" prog "/" c] = 1
		} else if (prog != "" && line ~ /^    / && line ~ /\[FAIL\]/) {
			line = substr(line, index(line, "[FAIL]"))
			sub(/\[ *[0-9]+\.[0-9]+\] .*/, "", line)
			gsub(/\t/, " ", line)
			sub(/ +$/, "", line)
			failed[k, prog, norm(line)] = line
		} else if (prog != "" && line ~ /^(not )?ok [0-9]+ /) {
			end = line
			sub(/^(not )?ok [0-9]+ [^ ]+/, "", end)
			sub(/^ # /, "", end)
			said[k, prog] = (line ~ /^not / ? "not ok" : "ok") (end != "" ? ": " end : "")
			prog = ""
		}
	}
	close(file)
}

# same_failure(T): "" when the test T (a program, or PROGRAM/CASE of a
# KTAP program) failed on patched as on stock, else how not: its program
# ended the same way, printed no new "[FAIL]" line, and a case failed
# with the same message (numbers as N)
function same_failure(t,   p, key, parts, news) {
	p = t
	sub(/\/.*/, "", p)
	if (t != p && norm(why["stock", t]) != norm(why["patched", t]))
		return "\"" why["stock", t] "\" on stock, \"" why["patched", t] "\" on patched"
	if (end_norm(said["stock", p]) != end_norm(said["patched", p]))
		return "\"" said["stock", p] "\" on stock, \"" said["patched", p] "\" on patched"
	news = ""
	for (key in failed) {
		split(key, parts, SUBSEP)
		if (parts[1] == "patched" && parts[2] == p && !(("stock", p, parts[3]) in failed))
			news = news (news != "" ? " | " : "") failed[key]
	}
	return news != "" ? "on patched only: " news : ""
}

BEGIN {
	rank["passes"] = 3; rank["skips"] = 2; rank["fails"] = 1; rank["missing"] = 0
	read_log("stock", stock_log)
	read_log("patched", patched_log)
	read_verdict("stock", stock_verdict)
	read_verdict("patched", patched_verdict)
	for (test in tests) {
		s = ("stock", test) in outcome ? outcome["stock", test] : "missing"
		p = ("patched", test) in outcome ? outcome["patched", test] : "missing"
		if (s == p && p == "passes") {
			print "PASS " name "/" test
			passes++
		}
		else if (s == p && p == "fails" && (how = same_failure(test)) != "")
			print "FAIL " name "/" test ": fails on both kernels, " how
		else if (s == p)
			print "SKIP " name "/" test ": " s " on both kernels"
		else if (rank[p] < rank[s] || p == "fails" || p == "missing" || p == "skips")
			print "FAIL " name "/" test ": " s " on stock, " p " on patched"
		else
			print "CHANGED " name "/" test ": " s " on stock, " p " on patched"
	}
	if (!passes)
		print "FAIL " name ": no test passed on both kernels"
}
