#!/bin/bash
# Run the tree's checkpatch.pl --strict on every patch of the series.
# A finding is accepted only when the patch's commit message, or its notes
# below the "---" line (git notes, see scripts/export.sh), names its type
# (for example "FILE_PATH_CHANGES: ...") and so says why; any other finding
# fails.
# The patch is given as an absolute path from outside any git repository:
# checkpatch treats a path that `git ls-files` knows as a source file, not
# a patch, and reports the patch's blank context lines as trailing
# whitespace.
# checkpatch.sh [--checkpatch FILE] [--patches DIR]: another checkpatch.pl,
# or another directory of patches and its series (the host tests).
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
. "$(dirname "$0")/lib/common.sh"

cp=$build/tree/scripts/checkpatch.pl pdir=$patches
# Absolute paths: checkpatch.pl runs from / (see above).
while [ $# -ge 2 ]; do
	case $1 in
	--checkpatch) cp=$(readlink -f -- "$2") ;;
	--patches) pdir=$(readlink -f -- "$2") ;;
	*) break ;;
	esac
	shift 2
done
[ $# = 0 ] || die "usage: checkpatch.sh [--checkpatch FILE] [--patches DIR]"
[ -f "$cp" ] || die "checkpatch: $cp not found (run make tree)"
list=$(series_patches "$pdir")
[ -n "$list" ] || die "checkpatch: no patch in ${pdir#"$top/"}/series"
status=0
while read -r patch; do
	p=${patch##*/}
	message=$(sed '/^diff --git /q' "$patch")
	# checkpatch exits 1 when it reports findings; anything else (perl
	# died, no perl) means it did not check the patch.
	rc=0
	findings=$(cd / && perl "$cp" --strict --no-tree --terse --show-types \
		--no-summary "$patch") || rc=$?
	if [ $rc -gt 1 ] || { [ $rc = 1 ] && [ -z "$findings" ]; }; then
		echo "FAIL       checkpatch.pl exited $rc on $p without reporting findings"
		status=1
		continue
	fi
	while IFS= read -r f; do
		[ -n "$f" ] || continue
		# file:line: LEVEL:TYPE: text
		type=$(sed -E 's/^[^ ]+ [A-Z]+:([A-Z_]+):.*/\1/' <<<"$f")
		if grep -qw -- "$type" <<<"$message"; then
			echo "explained  ${f#"$top/"}"
		else
			echo "FAIL       ${f#"$top/"}"
			status=1
		fi
	done <<<"$findings"
done <<<"$list"
[ $status = 0 ] && echo "checkpatch: clean (every finding explained in its commit message)" ||
	echo "checkpatch: findings above not explained in their commit messages" >&2
exit $status
