#!/bin/bash
# Read a guest console log and print one line per result:
#   PASS name | FAIL name: reason | SKIP name: reason | CHANGED name: reason
# verdict.sh [OPTION...] LOG BOOT [QEMU-STATUS]
#   --allow-skip RE   a SKIP whose name matches the extended regex RE is a
#                     SKIP; any other SKIP is a FAIL
#   --forbid RE       a kernel line that matches RE fails the boot (a
#                     message this boot must not print)
#   --changed KEY     the cases that tests/stock-changes lists for the
#                     boot KEY may fail, each as CHANGED with its reason:
#                     behaviour that the series changes, on the stock
#                     kernel; any other failure fails
#   --changes FILE    that list in FILE instead (the host tests)
#   --expect-kunit SUITE:CASES[,SUITE:CASES...]
#                     the log must hold the KUnit suite SUITE with CASES
#                     case results (repeatable)
#   --cpus N          the kernel must bring up N CPUs (4)
#   --strict-kill PROG  the kernel logs exactly one line about PROG: the
#                     report of its kill by CLI under iopl=strict, naming
#                     strict mode (BOOT/report)
#   --hotplug-cycles N  ioperm_bitmap's cpu.hotplug reported at least N
#                     offline/online cycles (BOOT/cycles)
#   --modules LSMOD   every module the "system" program says the kernel
#                     loaded is in the recorded lsmod LSMOD (BOOT/modules)
#   --leak-shown      only one line, BOOT/leak-shown: a case found a port
#                     open that must fault (the stock kernel under Xen)
#   --system          the log is a whole system's (make check-debian):
#                     systemd must reach multi-user.target and start the
#                     test service once, which must report its end, and
#                     no unit may fail
# Exit status 1 when anything failed.
#
# The judge is scripts/lib/judge (Python): it reads the log into a tree
# of results, guest/init.c's programs with their cases and the kernel's
# KUnit suites, each KTAP document read by the tree's own
# tools/testing/kunit/kunit_parser.py, the kernel reports attached where
# they occurred; then judges the tree. docs/harness.md (Verdicts) has the
# rules.
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
. "$(dirname "$0")/common.sh"

usage="usage: verdict.sh [--allow-skip RE] [--forbid RE] [--changed KEY [--changes FILE]] [--expect-kunit SUITE:CASES] [--cpus N] [--strict-kill PROG] [--hotplug-cycles N] [--modules LSMOD] [--leak-shown] [--system] LOG BOOT [QEMU-STATUS]"
opts=() n=$default_cpus changes=$top/tests/stock-changes
while [ $# -gt 0 ]; do
	if [ "$1" = --system ] || [ "$1" = --leak-shown ]; then
		opts+=("$1")
		shift
		continue
	fi
	case $1 in
	--expect-kunit)
		[[ ${2-} =~ ^[^,:]+:[0-9]+(,[^,:]+:[0-9]+)*$ ]] || { echo "$usage" >&2; exit 2; }
		opts+=("$1" "$2") ;;
	--allow-skip | --forbid | --changed | --strict-kill | --hotplug-cycles | --modules) opts+=("$1" "${2-}") ;;
	--changes) changes=${2-} ;;
	--cpus) n=${2-} ;;
	--*) echo "$usage" >&2; exit 2 ;;
	*) break ;;
	esac
	[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
	shift 2
done
[ $# -ge 2 ] || { echo "$usage" >&2; exit 2; }
tool=$(kunit_tool)
exec python3 "$lib/judge" boot --kunit-tool "$tool" --changes "$changes" --cpus "$n" \
	"${opts[@]}" "$@"
