#!/bin/bash
# Read a guest console log and print one line per result:
#   PASS name | FAIL name: reason | SKIP name: reason
# verdict.sh LOG BOOT [QEMU-STATUS]
# Exit status 1 when anything failed. A SKIP counts as a failure unless its
# name matches the extended regex $ALLOW_SKIP.
#
# The log holds an outer KTAP document written by guest/init.c: a plan, then
# per program "# init: run NAME", its output indented by four spaces, and
# "ok N NAME" or "not ok N NAME # reason". A program that prints KTAP itself
# (kselftest_harness.h) yields one result per test case, a failed one with
# the diagnostics the case printed (its "# " lines); any other program
# yields one result, failed by "[FAIL]" or by the lines with which the
# upstream x86 selftests "pass" while testing nothing (not root, syscall
# missing, setresuid failed).
#
# Kernel reports (BUG:, WARNING:, ...) fail the boot wherever they are: on
# their own line, or spliced into a line of test output, where they start
# at the kernel's timestamp "[    1.234567] ". So does a kernel line that
# matches the extended regex $FORBID (a message that this boot must not
# print). The boot must bring up $EXPECT_CPUS CPUs (default: $SMP, or 4).
# KUnit results in the log become results too; with $EXPECT_KUNIT set, a
# log without any fails.
set -euo pipefail
. "$(dirname "$0")/common.sh"

[ $# -ge 2 ] || { echo "usage: verdict.sh LOG BOOT [QEMU-STATUS]" >&2; exit 2; }
log=$1 boot=$2 status=${3:-0}
[ -f "$log" ] || { echo "FAIL $boot: no console log $log"; exit 1; }

tr -d '\r' <"$log" | awk -v boot="$boot" -v status="$status" \
	-v allow_skip="${ALLOW_SKIP:-}" -v expect_kunit="${EXPECT_KUNIT:-}" \
	-v forbid="${FORBID:-}" -v cpus="${EXPECT_CPUS:-$cpus}" '
function result(kind, name, reason) {
	if (kind == "SKIP" && (allow_skip == "" || name !~ allow_skip))
		kind = "FAIL"
	if (kind == "FAIL")
		failed = 1
	print kind " " name (reason != "" ? ": " reason : "")
}
function finish_prog(outer_ok, reason,   name) {
	name = boot "/" prog
	if (nested) {
		if (!outer_ok && !nested_failed)
			result("FAIL", name, reason)
	} else if (!outer_ok)
		result("FAIL", name, reason)
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

kline ~ /BUG:|WARNING:|Oops|Kernel panic|Call Trace|general protection fault, probably|kernel BUG|UBSAN:|KFENCE:|ODEBUG:|suspected memory leak|unreferenced object|possible circular locking|suspicious RCU usage|sleeping function called from invalid context|detected stalls|INFO: task .* blocked/ ||
    (forbid != "" && kline ~ forbid) {
	if (!(boot in kernel_reported))
		result("FAIL", boot "/kernel", kline)
	kernel_reported[boot] = 1
}

# KUnit suites built into the kernel report at boot, behind timestamps:
# "    # Subtest: SUITE", then "    ok N case" or, after the "# " lines
# and "Expected" lines of the case, "    not ok N case".
kline ~ /^\[ *[0-9]+\.[0-9]+\]     / {
	ktext = kline
	sub(/^\[ *[0-9]+\.[0-9]+\]     /, "", ktext)
	if (ktext ~ /^# Subtest: /) {
		suite = substr(ktext, 12)
		kdiag = ""
	} else if (suite != "" && match(ktext, /^(not )?ok [0-9]+ /)) {
		name = boot "/kunit/" suite "/" substr(ktext, RLENGTH + 1)
		kunit++
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

/^# init: run / { prog = substr($0, 13); nested = 0; nested_failed = 0; legacy_fail = ""; next }

/^# init: done/ { done = 1; next }

prog != "" && /^    / {
	line = substr($0, 5)
	if (match(line, /^(not )?ok [0-9]+ /)) {
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
	if (status == 124)
		result("FAIL", boot, "timeout: QEMU killed")
	else if (plan < 0)
		result("FAIL", boot, "no KTAP plan in the log (the guest did not start)")
	else if (n < plan)
		result("FAIL", boot, "plan says " plan " programs, " n + 0 " reported")
	else if (!done)
		result("FAIL", boot, "init did not finish")
	if (expect_kunit && !kunit)
		result("FAIL", boot "/kunit", "no KUnit results in the log")
	if (plan >= 0 && brought == "")
		result("FAIL", boot "/cpus", "no \"smp: Brought up\" line; asked for " cpus " CPUs")
	else if (plan >= 0 && brought != cpus)
		result("FAIL", boot "/cpus", "asked for " cpus " CPUs, the kernel brought up " brought)
	exit failed
}
'
