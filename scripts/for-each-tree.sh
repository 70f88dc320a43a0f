#!/bin/bash
# Run a check script on every tree and architecture, one after the other,
# and end with one summary over all of them.
# trees.sh SCRIPT [ARGS...]
# Environment: TREES (default "6.1 6.12") and ARCHES (default "x86_64"),
# every tree with every architecture; or RUNS, a list of TREE:ARCH.
# Every PASS/FAIL/SKIP/CHANGED line gets the tree (and -i386) in front of
# its name, so that the two trees' results can be told apart.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

[ $# -ge 1 ] || die "usage: trees.sh SCRIPT [ARGS...]"
script=$1
shift
all=$top/build/logs/results-${script%.sh}${1:+-$1}.txt
mkdir -p "$(dirname "$all")"
: >"$all"
summaries=()
runs=${RUNS:-}
if [ -z "$runs" ]; then
	for t in ${TREES:-6.1 6.12}; do
		for a in ${ARCHES:-x86_64}; do
			runs+=" $t:$a"
		done
	done
fi
for run in $runs; do
	t=${run%%:*} a=${run#*:}
	label=$t
	[ "$a" = x86_64 ] || label=$t-$a
	step "$script $*: tree $t, $a"
	SECONDS=0
	out=$(mktemp)
	rc=0
	TREE=$t KARCH=$a "$top/scripts/$script" "$@" |
		sed -u -E "s#^(PASS|FAIL|SKIP|CHANGED) #\1 $label/#" | tee "$out" ||
		rc=${PIPESTATUS[0]}
	# A script that stopped without saying what failed (a build, say)
	# is a failure too.
	[ "$rc" = 0 ] || grep -q '^FAIL ' "$out" ||
		echo "FAIL $label/${script%.sh}: stopped with status $rc, see the messages above" | tee -a "$out"
	grep -E '^(PASS|FAIL|SKIP|CHANGED) ' "$out" >>"$all" || true
	summaries+=("$label: $(tail -n1 "$out") ($((SECONDS / 60)) min $((SECONDS % 60)) s)")
	rm -f "$out"
done

printf '%s\n' "${summaries[@]}"
summarize "$all"
