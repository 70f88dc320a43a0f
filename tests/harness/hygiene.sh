#!/bin/bash
# README.md and docs/ against references that no reader can follow: an
# issue, pull request or ticket by its number ("issue 33", "PR #12"), and
# the session a text was written in ("this session's AMD EPYC VM"). The
# docs say what they mean, not where it was asked for or by whom.
# hygiene.sh                 README.md and docs/*.md, then the planted
#                            files hygiene/NAME.md against NAME.expect
# hygiene.sh --check FILE... those files; one PASS or FAIL hygiene/FILE
#                            line each, a FAIL with each line it found
set -euo pipefail
dir=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$dir/../.." && pwd)

private='\b(issues?|PR|pull request|ticket|bug) #?[0-9]+\b|\b(this|that|a|the|our|previous|next|last|later|another|an earlier) session\b'

# check FILE...: paths shown from the repository's top
check() {
	local f found line bad=0
	for f; do
		found=$(grep -nEi "$private" "$f" || true)
		if [ -z "$found" ]; then
			echo "PASS hygiene/${f#"$top/"}"
		else
			echo "FAIL hygiene/${f#"$top/"}: a private reference:"
			while read -r line; do
				echo "    line $line"
			done <<<"$found"
			bad=1
		fi
	done
	return $bad
}

if [ "${1-}" = --check ]; then
	shift
	check "$@"
	exit
fi

bad=0
check "$top/README.md" "$top"/docs/*.md | sed 's/^\(PASS\|FAIL\) /&host\//' || bad=1
for md in "$dir"/hygiene/*.md; do
	name=$(basename "$md" .md)
	rc=0
	out=$(check "$md") || rc=$?
	if [ "$out" = "$(cat "$dir/hygiene/$name.expect")" ] && [ $rc = 1 ]; then
		echo "PASS host/hygiene-planted/$name"
	else
		echo "FAIL host/hygiene-planted/$name: the check said (exit $rc):"
		printf '%s\n' "$out" | sed 's/^/    /'
		bad=1
	fi
done
exit $bad
