#!/bin/bash
# The checks of make check that are not the boot matrix, on tree $TREE:
# checkpatch --strict on patches/$TREE, the Sphinx build of its
# documentation and Debian's port-I/O programs on its kernels; and, when
# asked, the checks that do not depend on the tree, run once per make check:
#   --harness    the harness's own tests (tests/harness/run.sh)
#   --parity     the two series against each other (parity.sh)
#   --porttrace  the selftests touch no port but 0x80-0x8f and 0xed by default
#                (porttrace.sh, two traced boots)
#   --figures    the tables of the changelogs and cover letters stand in
#                the results/ files they name (figures.sh)
# Prints every result and one summary line.
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
. "$(dirname "$0")/lib/common.sh"

harness=0 parity=0 porttrace=0 figures=0
for arg; do
	case $arg in
	--harness) harness=1 ;;
	--parity) parity=1 ;;
	--porttrace) porttrace=1 ;;
	--figures) figures=1 ;;
	*) die "usage: host-checks.sh [--harness] [--parity] [--porttrace] [--figures]" ;;
	esac
done
results=$build/logs/results-host.txt
mkdir -p "$build/logs"
: >"$results"

"$lib/tree.sh"
{
	if [ $harness = 1 ]; then
		step "host-checks: tests of the harness"
		rc=0
		"$top/tests/harness/run.sh" || rc=$?
		[ $rc = 0 ] || echo "FAIL host/harness: tests/harness/run.sh exited $rc"
	fi
	step "host-checks: checkpatch --strict on ${patches#"$top/"}/"
	if "$top/scripts/checkpatch.sh" >"$build/logs/checkpatch.log" 2>&1; then
		echo "PASS host/checkpatch"
	else
		grep '^FAIL ' "$build/logs/checkpatch.log" | sed 's/^FAIL */FAIL host\/checkpatch: /'
	fi
	"$top/scripts/docs.sh"
	[ $parity = 0 ] || "$top/scripts/parity.sh"
	[ $figures = 0 ] || collect host/figures "$top/scripts/figures.sh"
	[ $porttrace = 0 ] || "$top/scripts/porttrace.sh"
	# Debian's own port-I/O programs on the stock and the patched kernel.
	"$top/scripts/programs.sh"
} | tee -a "$results"

summarize "$results"
