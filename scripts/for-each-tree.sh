#!/bin/bash
# Run a check script on every tree and architecture, one after the other,
# and end with one summary over all of them.
# for-each-tree.sh [--trees LIST] [--arches LIST] SCRIPT [ARGS...]
#   SCRIPT (in scripts/) on every tree of LIST (default: 6.1 6.12) with
#   every architecture of LIST (default: x86_64)
# for-each-tree.sh --job "LABEL SCRIPT [ARGS...]" [--job ...]
#   the jobs as given, in order; LABEL is a tree, with -i386 at the end
#   for the 32-bit kernels (6.12, 6.12-i386); words split on spaces
# Every PASS/FAIL/SKIP/CHANGED line gets the label in front of its name,
# so that the two trees' results can be told apart; each job ends with
# its summary line and time, the run with the summary of all.
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
. "$(dirname "$0")/lib/common.sh"

usage="usage: for-each-tree.sh [--trees LIST] [--arches LIST] SCRIPT [ARGS...] | --job \"LABEL SCRIPT [ARGS...]\"..."
trees=("${all_trees[@]}") arches=(x86_64) jobs=()
while [ $# -gt 0 ]; do
	case $1 in
	--trees) read -r -a trees <<<"${2-}" ;;
	--arches) read -r -a arches <<<"${2-}" ;;
	--job) jobs+=("${2-}") ;;
	--*) die "$usage" ;;
	*) break ;;
	esac
	[ $# -ge 2 ] || die "$usage"
	shift 2
done
if [ ${#jobs[@]} -gt 0 ]; then
	[ $# = 0 ] || die "$usage"
else
	[ $# -ge 1 ] || die "$usage"
	for t in "${trees[@]}"; do
		for a in "${arches[@]}"; do
			label=$t
			[ "$a" = x86_64 ] || label=$t-$a
			jobs+=("$label $*")
		done
	done
fi

read -r -a first <<<"${jobs[0]}"
script=${first[1]}
all=$top/build/logs/results-${script%.sh}${first[2]:+-${first[2]}}.txt
mkdir -p "$(dirname "$all")"
: >"$all"
summaries=()
for job in "${jobs[@]}"; do
	read -r -a words <<<"$job"
	label=${words[0]} script=${words[1]}
	t=${label%-i386} a=x86_64
	[ "$t" = "$label" ] || a=i386
	step "$script ${words[*]:2}: tree $t, $a"
	SECONDS=0
	out=$(mktemp)
	rc=0
	TREE=$t KARCH=$a "$top/scripts/$script" "${words[@]:2}" |
		sed -u -E "s#^(PASS|FAIL|SKIP|CHANGED) #\1 $label/#" | tee "$out" ||
		rc=${PIPESTATUS[0]}
	# A script that stopped without saying what failed (a build, say)
	# is a failure too.
	[ "$rc" = 0 ] || grep -q '^FAIL ' "$out" ||
		echo "FAIL $label/${script%.sh}: stopped with status $rc, see the messages above" | tee -a "$out"
	grep -E '^(PASS|FAIL|SKIP|CHANGED) ' "$out" >>"$all" || true
	summaries+=("$label ${script%.sh}: $(tail -n1 "$out") ($((SECONDS / 60)) min $((SECONDS % 60)) s)")
	rm -f "$out"
done

printf '%s\n' "${summaries[@]}"
summarize "$all"
