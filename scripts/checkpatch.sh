#!/bin/bash
# Run the tree's checkpatch.pl --strict on every patch of the series.
# The patch is given as an absolute path from outside any git repository:
# checkpatch treats a path that `git ls-files` knows as a source file, not
# a patch, and reports the patch's blank context lines as trailing
# whitespace.
set -euo pipefail
. "$(dirname "$0")/common.sh"

cp=$build/tree/scripts/checkpatch.pl
[ -f "$cp" ] || die "checkpatch: $cp not found (run make tree)"
status=0
while read -r p _; do
	case $p in '' | '#'*) continue ;; esac
	echo "== $p"
	(cd / && perl "$cp" --strict --no-tree --terse --show-types --no-summary \
		"$top/patches/$p") || status=1
done <"$top/patches/series"
exit $status
