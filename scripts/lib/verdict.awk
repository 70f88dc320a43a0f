# The awk program of verdict.sh: reads a guest console log (without \r)
# and prints one PASS/FAIL/SKIP/CHANGED line per result; exits 1 when
# anything failed. Variables (awk -v): boot (the boot's name), status
# (QEMU's exit status), allow_skip, forbid and changed (extended regexes,
# may be empty), expect_kunit (SUITE:CASES,... : the KUnit suites the log
# must hold and the number of case results of each; may be empty), cpus
# (the number of CPUs the kernel must bring up). See verdict.sh.

# skipped(REASON): a KTAP directive "SKIP ..." (any case, as TAP has it)
function skipped(reason) {
	return toupper(reason) ~ /^SKIP/
}
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
# join(A, N): A[1],...,A[N]
function join(a, n,   k, s) {
	for (k = 1; k <= n; k++)
		s = s (k > 1 ? "," : "") a[k]
	return s
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
		else if (totals != "" && (wrong = totals_wrong()) != "")
			result("FAIL", name, wrong)
	} else if (!outer_ok)
		result("FAIL", name, reason)
	else if (nested_plan > 0)	# planned tests, reported none
		result("FAIL", name, "plan says " nested_plan " tests, 0 reported")
	else if (legacy_fail != "")
		result("FAIL", name, legacy_fail)
	else if (skipped(reason) || (nested_plan == 0 && skipped(plan_reason)))
		result("SKIP", name, skipped(reason) ? reason : plan_reason)
	else if (nested_plan == 0)	# every case compiled out, say
		result("FAIL", name, "plan 1..0: the program tests nothing")
	else
		result("PASS", name, "")
	prog = ""
}
# totals_wrong(): "" when the program's "# Totals: pass:P fail:F xfail:X
# xpass:XP skip:S error:E" line agrees with its results, else what differs
function totals_wrong(   t, k, v, got) {
	split("", t)
	k = split(totals, v, /[ :]+/)
	for (; k > 1; k -= 2)
		t[v[k - 1]] = v[k] + 0
	got = "pass:" npass " fail:" nfail " skip:" nskip
	if (t["pass"] + t["xfail"] != npass || t["fail"] + t["xpass"] + t["error"] != nfail || t["skip"] != nskip)
		return "# Totals: " totals " disagrees with the results, " got
	return ""
}
BEGIN { prog = ""; plan = -1; done = 0 }

# The kernel part of a line: all of an unindented line, or what follows
# a timestamp spliced into a line of test output (unsplice.awk has put
# those on lines of their own). A report spliced into a program's line
# without a timestamp (printk.time=0) is looked for in the whole line, by
# the kernel's own report headers only: programs print "WARNING:" and
# "Out of memory" of their own (stress-ng, lspci).
{
	kline = $0 !~ /^    / ? $0 : ""
	if (match($0, /\[ *[0-9]+\.[0-9]+\] /))
		kline = substr($0, RSTART)
	rline = kline
	if (kline == "" && $0 ~ /BUG: [A-Za-z]|WARNING: CPU: [0-9]+ PID: |Oops: |Kernel panic - not syncing|Call Trace:|general protection fault, probably|: [0-9a-f]+ \[#[0-9]+\]|kernel BUG at|refcount_t: |hard LOCKUP|rcu: INFO: |printk messages dropped|list_(add|del) corruption|Out of memory: Killed process|INFO: task .* blocked/)
		rline = substr($0, 5)
}

# Kernel reports. Most come with a Call Trace, but not all: refcount_t,
# the hard-lockup watchdog, RCU stalls and 6.1's die() header
# ("general protection fault: 0000 [#1] ...") can stand alone, and the
# console's "** N printk messages dropped **" may have lost one.
rline ~ /BUG:|WARNING:|Oops|Kernel panic|Call Trace|general protection fault, probably|: [0-9a-f]+ \[#[0-9]+\]|kernel BUG|UBSAN:|KFENCE:|ODEBUG:|suspected memory leak|unreferenced object 0x|possible circular locking|suspicious RCU usage|sleeping function called from invalid context|detected (expedited )?stalls|self-detected stall|kernel messages lost|printk messages dropped|list_(add|del) corruption|Out of memory|INFO: task .* blocked|refcount_t: |hard LOCKUP/ ||
    (forbid != "" && kline ~ forbid) {
	if (!(boot in kernel_reported))
		result("FAIL", boot "/kernel", rline)
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
		kdiag = ""; ksub = ""
	} else if (suite != "" && ktext ~ /^1\.\.[0-9]+/ && !(suite in kplan)) {
		kplan[suite] = substr(ktext, 4) + 0
	} else if (suite != "" && match(ktext, /^(not )?ok [0-9]+ /)) {
		name = boot "/kunit/" suite "/" substr(ktext, RLENGTH + 1)
		kcases[suite]++
		seen["kunit/" suite, number(ktext)]++
		if (ktext ~ /^not /)
			result("FAIL", name, kdiag != "" ? kdiag : "not ok")
		else if (ksub != "")
			result("FAIL", name, "ok, but its subtest failed: " ksub)
		else if (toupper(ktext) ~ / # SKIP/)
			result("SKIP", name, "")
		else
			result("PASS", name, "")
		kdiag = ""; ksub = ""
	} else if (suite != "" && ktext ~ /^(    )+not ok [0-9]+ / && toupper(ktext) !~ / # SKIP/) {
		# a parameterised case's failed subtest: its case must fail too
		if (ksub == "")
			ksub = substr(ktext, index(ktext, "not ok"))
	} else if (suite != "" && ktext !~ /^(1\.\.|KTAP)/) {
		kdiag = kdiag (kdiag != "" ? " | " : "") ktext
	}
}

kline ~ /smp: Brought up [0-9]+ nodes?, [0-9]+ CPUs?$/ {
	brought = kline
	sub(/.*, /, "", brought)
	brought += 0
}

# The programs the command line asks init to run (run=a,b,c): the outer
# plan must count them, and init must run them in that order.
kline ~ /Command line: / && nrun == "" && match(kline, / run=[^ ]*/) {
	nrun = split(substr(kline, RSTART + 5, RLENGTH - 5), runs, ",")
}

/^1\.\.[0-9]+$/ && plan < 0 { plan = substr($0, 4) + 0; next }

/^# init: run / {
	prog = substr($0, 13)
	if (nrun != "" && prog != runs[++nran])
		result("FAIL", boot "/" prog, "init ran " prog " where the command line asks for " (nran <= nrun ? runs[nran] : "no more programs"))
	nested = 0; nested_failed = 0; nested_plan = -1; legacy_fail = ""
	plan_reason = ""; totals = ""; sub_failed = ""; npass = nfail = nskip = 0
	next
}

/^# init: done/ { done = 1; next }

prog != "" && /^    / {
	line = substr($0, 5)
	# A program's own KTAP plan, "1..N" (or "1..0 # SKIP why"), maybe
	# with a kernel line spliced in after the number. Checked against
	# the program's results when it ends well (a program that fails
	# already fails); legacy programs print none: nothing to check.
	if (match(line, /^1\.\.[0-9]+( # |\[ *[0-9]+\.[0-9]+\] |$)/) && nested_plan < 0) {
		nested_plan = substr(line, 4) + 0
		if (i = index(line, " # "))
			plan_reason = substr(line, i + 3)
	} else if (match(line, /^(    )+not ok [0-9]+ /) && !skipped(substr(line, index(line, " # ") + 3))) {
		# a failed subtest: its parent result must not pass
		if (sub_failed == "")
			sub_failed = substr(line, index(line, "not ok"))
	} else if (match(line, /^(not )?ok [0-9]+ /)) {
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
		if (ok && sub_failed != "") {
			ok = 0
			reason = "ok, but its subtest failed: " sub_failed
		}
		if (!ok) {	# "not ok N # SKIP" is a failure, not a skip
			nested_failed = 1
			nfail++
			if (skipped(reason))
				reason = "not ok # " reason (diag != "" ? ": " diag : "")
			else if (reason == "")
				reason = diag != "" ? "not ok: " diag : "not ok"
			result("FAIL", boot "/" prog "/" name, reason)
		} else if (skipped(reason)) {
			nskip++
			result("SKIP", boot "/" prog "/" name, reason)
		} else {
			npass++
			result("PASS", boot "/" prog "/" name, "")
		}
		diag = ""; sub_failed = ""
	} else if (match(line, /^#  RUN +/)) {
		last_run = substr(line, RLENGTH + 1, length(line) - RLENGTH - 4)
		diag = ""
	} else if (line ~ /^# Totals: /)
		totals = substr(line, 11)
	else if (line ~ /^# / && line !~ /^# +(OK|FAIL|SKIP) +/)
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
	# "ok N NAME": the result must name the program init ran
	rname = substr($0, $0 ~ /^not / ? 8 : 4)
	sub(/^[0-9]+ /, "", rname)
	if (i = index(rname, " # "))
		rname = substr(rname, 1, i - 1)
	if (rname != prog) {
		result("FAIL", boot "/" prog, "init ran " prog ", its result names " rname ": " $0)
		prog = ""
		next
	}
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
	else if (nrun != "" && plan != nrun)
		result("FAIL", boot, "plan says " plan " programs, the command line asks for " nrun " (run=" join(runs, nrun) ")")
	else if (!done)
		result("FAIL", boot, "init did not finish")
	# Each suite's cases against its plan; then the suites asked for,
	# each with its number of cases.
	for (i = 1; i <= nsuites; i++) {
		s = suites[i]
		if (!(s in kplan))
			result("FAIL", boot "/kunit/" s, "no plan line: " kcases[s] " cases reported, none can be missing or reported twice")
		else if ((wrong = numbering("kunit/" s, kplan[s], kcases[s], "case")) != "")
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
