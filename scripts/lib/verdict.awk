# The awk program of verdict.sh: reads a guest console log (without \r)
# and prints one PASS/FAIL/SKIP/CHANGED line per result; exits 1 when
# anything failed. Variables (awk -v): boot (the boot's name), status
# (QEMU's exit status), allow_skip, forbid and changed (extended regexes,
# may be empty), expect_kunit (SUITE:CASES,... : the KUnit suites the log
# must hold and the number of case results of each; may be empty), cpus
# (the number of CPUs the kernel must bring up). See verdict.sh.

function result(kind, name, reason) {
	if (kind == "SKIP" && (allow_skip == "" || name !~ allow_skip))
		kind = "FAIL"
	if (kind == "FAIL" && changed != "" && name ~ changed) {
		kind = "CHANGED"
		reason = "behaviour the series changes"
	}
	if (kind == "FAIL")
		failed = 1
	print kind " " name (reason != "" ? ": " reason : "")
}
# number(RESULT): N of a KTAP result line "ok N ..." or "not ok N ..."
function number(line) {
	return substr(line, line ~ /^not / ? 8 : 4) + 0
}
# numbering(KEY, PLAN, COUNT, UNIT): "" when the COUNT results of KEY
# (seen[KEY, N]: times N was reported) are 1..PLAN once each, else what is
# wrong, in UNITs ("test", "case")
function numbering(key, plan, count, unit,   k) {
	if (count != plan)
		return "plan says " plan " " unit "s, " count " reported"
	for (k = 1; k <= plan; k++)
		if (seen[key, k] != 1)
			return "plan says " plan " " unit "s, " unit " " k " reported " (seen[key, k] + 0) " times"
	return ""
}
function finish_prog(outer_ok, reason,   name, wrong) {
	name = boot "/" prog
	if (nested) {
		if (!outer_ok) {
			if (!nested_failed)
				result("FAIL", name, reason)
		} else if (nested_plan >= 0 && (wrong = numbering(prog, nested_plan, nested, "test")) != "")
			result("FAIL", name, wrong)
	} else if (!outer_ok)
		result("FAIL", name, reason)
	else if (nested_plan > 0)	# planned tests, reported none
		result("FAIL", name, "plan says " nested_plan " tests, 0 reported")
	else if (legacy_fail != "")
		result("FAIL", name, legacy_fail)
	else if (reason ~ /SKIP/)
		result("SKIP", name, reason)
	else
		result("PASS", name, "")
	prog = ""
}
BEGIN { prog = ""; plan = -1; done = 0 }

# The kernel part of a line: all of an unindented line, or what follows
# a timestamp spliced into a line of test output.
{
	kline = $0 !~ /^    / ? $0 : ""
	if (match($0, /\[ *[0-9]+\.[0-9]+\] /))
		kline = substr($0, RSTART)
}

kline ~ /BUG:|WARNING:|Oops|Kernel panic|Call Trace|general protection fault, probably|kernel BUG|UBSAN:|KFENCE:|ODEBUG:|suspected memory leak|unreferenced object|possible circular locking|suspicious RCU usage|sleeping function called from invalid context|detected stalls|self-detected stall|kernel messages lost|list_(add|del) corruption|Out of memory|INFO: task .* blocked/ ||
    (forbid != "" && kline ~ forbid) {
	if (!(boot in kernel_reported))
		result("FAIL", boot "/kernel", kline)
	kernel_reported[boot] = 1
}

# KUnit suites built into the kernel report at boot, behind timestamps:
# "    # Subtest: SUITE", its plan "    1..N", then "    ok N case" or,
# after the "# " lines and "Expected" lines of the case, "    not ok N
# case". The cases of each suite are counted against its plan (at the end).
kline ~ /^\[ *[0-9]+\.[0-9]+\]     / {
	ktext = kline
	sub(/^\[ *[0-9]+\.[0-9]+\]     /, "", ktext)
	if (ktext ~ /^# Subtest: /) {
		suite = substr(ktext, 12)
		if (!(suite in kcases))
			suites[++nsuites] = suite
		kcases[suite] += 0
		kdiag = ""
	} else if (suite != "" && ktext ~ /^1\.\.[0-9]+/ && !(suite in kplan)) {
		kplan[suite] = substr(ktext, 4) + 0
	} else if (suite != "" && match(ktext, /^(not )?ok [0-9]+ /)) {
		name = boot "/kunit/" suite "/" substr(ktext, RLENGTH + 1)
		kcases[suite]++
		seen["kunit/" suite, number(ktext)]++
		if (ktext ~ / # SKIP/)
			result("SKIP", name, "")
		else if (ktext ~ /^ok/)
			result("PASS", name, "")
		else
			result("FAIL", name, kdiag != "" ? kdiag : "not ok")
		kdiag = ""
	} else if (suite != "" && ktext !~ /^(1\.\.|KTAP)/) {
		kdiag = kdiag (kdiag != "" ? " | " : "") ktext
	}
}

kline ~ /smp: Brought up [0-9]+ nodes?, [0-9]+ CPUs?$/ {
	brought = kline
	sub(/.*, /, "", brought)
	brought += 0
}

/^1\.\.[0-9]+$/ && plan < 0 { plan = substr($0, 4) + 0; next }

/^# init: run / {
	prog = substr($0, 13)
	nested = 0; nested_failed = 0; nested_plan = -1; legacy_fail = ""
	next
}

/^# init: done/ { done = 1; next }

prog != "" && /^    / {
	line = substr($0, 5)
	# A program's own KTAP plan, "1..N" (or "1..0 # SKIP why"), maybe
	# with a kernel line spliced in after the number. Checked against
	# the program's results when it ends well (a program that fails
	# already fails); legacy programs print none: nothing to check.
	if (match(line, /^1\.\.[0-9]+( # |\[ *[0-9]+\.[0-9]+\] |$)/) && nested_plan < 0)
		nested_plan = substr(line, 4) + 0
	else if (match(line, /^(not )?ok [0-9]+ /)) {
		ok = line !~ /^not /
		name = substr(line, RLENGTH + 1)
		reason = ""
		if (name ~ /^# /) {	# "ok 3 # SKIP why": the harness omits the name
			reason = substr(name, 3)
			name = last_run
		} else if (i = index(name, " # ")) {
			reason = substr(name, i + 3)
			name = substr(name, 1, i - 1)
		}
		nested++
		seen[prog, number(line)]++
		if (reason ~ /^SKIP/)
			result("SKIP", boot "/" prog "/" name, reason)
		else if (ok)
			result("PASS", boot "/" prog "/" name, "")
		else {
			nested_failed = 1
			if (reason == "")
				reason = diag != "" ? "not ok: " diag : "not ok"
			result("FAIL", boot "/" prog "/" name, reason)
		}
		diag = ""
	} else if (match(line, /^#  RUN +/)) {
		last_run = substr(line, RLENGTH + 1, length(line) - RLENGTH - 4)
		diag = ""
	} else if (line ~ /^# / && line !~ /^# +(OK|FAIL|SKIP) +/)
		diag = diag (diag != "" ? " | " : "") substr(line, 3)
	else if (legacy_fail == "" && line ~ /\[FAIL\]/)
		legacy_fail = line
	else if (legacy_fail == "" &&
		 line ~ /^\[(OK|WARN)\].*(try running as root|Dropping privileges failed|nor supported)/)
		legacy_fail = "tested nothing: " line
	next
}

/^(not )?ok [0-9]+ / && prog != "" {
	n++
	reason = ""
	if (i = index($0, " # "))
		reason = substr($0, i + 3)
	finish_prog($0 !~ /^not /, reason)
	next
}

END {
	if (prog != "")
		result("FAIL", boot "/" prog, "no result (guest stopped while it ran)")
	if (status == 124 || status == 137)
		result("FAIL", boot, "timeout: QEMU killed")
	else if (status != 0)
		result("FAIL", boot, "QEMU exited with status " status)
	else if (plan < 0)
		result("FAIL", boot, "no KTAP plan in the log (the guest did not start)")
	else if (n != plan)
		result("FAIL", boot, "plan says " plan " programs, " n + 0 " reported")
	else if (!done)
		result("FAIL", boot, "init did not finish")
	# Each suite's cases against its plan; then the suites asked for,
	# each with its number of cases.
	for (i = 1; i <= nsuites; i++) {
		s = suites[i]
		if (s in kplan && (wrong = numbering("kunit/" s, kplan[s], kcases[s], "case")) != "")
			result("FAIL", boot "/kunit/" s, wrong)
	}
	nexp = split(expect_kunit, wanted, ",")
	for (i = 1; i <= nexp; i++) {
		s = wanted[i]
		sub(/:[^:]*$/, "", s)
		want = substr(wanted[i], length(s) + 2)
		if (!(s in kcases))
			result("FAIL", boot "/kunit/" s, "suite not in the log (expected " want " cases)")
		else if (kcases[s] != want + 0)
			result("FAIL", boot "/kunit/" s, "expected " want " cases, " kcases[s] " reported")
	}
	if (plan >= 0 && brought == "")
		result("FAIL", boot "/cpus", "no \"smp: Brought up\" line; asked for " cpus " CPUs")
	else if (plan >= 0 && brought != cpus)
		result("FAIL", boot "/cpus", "asked for " cpus " CPUs, the kernel brought up " brought)
	exit failed
}
