#!/bin/bash
# Read a guest console log and print one line per result:
#   PASS name | FAIL name: reason | SKIP name: reason
# verdict.sh [OPTION...] LOG BOOT [QEMU-STATUS]
#   --allow-skip RE   a SKIP whose name matches the extended regex RE is a
#                     SKIP; any other SKIP is a FAIL
#   --forbid RE       a kernel line that matches RE fails the boot (a
#                     message this boot must not print)
#   --changed RE      a FAIL whose name matches RE is CHANGED: behaviour
#                     that the series changes, on the stock kernel
#   --expect-kunit SUITE:CASES[,SUITE:CASES...]
#                     the log must hold the KUnit suite SUITE with CASES
#                     case results (repeatable)
#   --cpus N          the kernel must bring up N CPUs (4)
# Exit status 1 when anything failed. The rules are in verdict.awk.
#
# The log holds an outer KTAP document written by guest/init.c: a plan, then
# per program "# init: run NAME", its output indented by four spaces, and
# "ok N NAME" or "not ok N NAME # reason". A program that prints KTAP itself
# (kselftest_harness.h) yields one result per test case, a failed one with
# the diagnostics the case printed (its "# " lines), and its own plan
# ("1..N") must match the number of its results; any other program
# yields one result, failed by "[FAIL]" or by the lines with which the
# upstream x86 selftests "pass" while testing nothing (not root, syscall
# missing, setresuid failed).
#
# Kernel reports (BUG:, WARNING:, ...) fail the boot wherever they are: on
# their own line, or spliced into a line of test output, where they start
# at the kernel's timestamp "[    1.234567] " (or, without one, at the
# kernel's report header). So does a kernel line that matches --forbid.
# The outer plan must count the programs of the command line's run=.
# KUnit results in the log become results too, and each suite's cases are
# counted against its plan, which it must have.
set -euo pipefail
. "$(dirname "$0")/common.sh"

usage="usage: verdict.sh [--allow-skip RE] [--forbid RE] [--changed RE] [--expect-kunit SUITE:CASES] [--cpus N] LOG BOOT [QEMU-STATUS]"
allow_skip='' forbid='' changed='' expect_kunit='' n=$default_cpus
while [ $# -gt 0 ]; do
	case $1 in
	--expect-kunit)
		[[ ${2-} =~ ^[^,:]+:[0-9]+(,[^,:]+:[0-9]+)*$ ]] || { echo "$usage" >&2; exit 2; }
		expect_kunit+=${expect_kunit:+,}$2 ;;
	--allow-skip) allow_skip=${2-} ;;
	--forbid) forbid=${2-} ;;
	--changed) changed=${2-} ;;
	--cpus) n=${2-} ;;
	--*) echo "$usage" >&2; exit 2 ;;
	*) break ;;
	esac
	[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
	shift 2
done
[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
log=$1 boot=$2 status=${3:-0}
[ -f "$log" ] || { echo "FAIL $boot: no console log $log"; exit 1; }

console "$log" | awk -v boot="$boot" -v status="$status" \
	-v allow_skip="$allow_skip" -v forbid="$forbid" -v changed="$changed" \
	-v expect_kunit="$expect_kunit" -v cpus="$n" -f "$lib/verdict.awk"
