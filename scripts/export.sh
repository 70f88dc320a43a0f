#!/bin/bash
# Write patches/$TREE/NNNN-*.patch and its series from build/$TREE/tree base..HEAD.
# Notes for reviewers and tools (checkpatch findings, why they stay) are git
# notes on the commits: format-patch puts them below the "---" line, where
# git am drops them; scripts/lib/tree.sh puts them back on the commits.
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
. "$(dirname "$0")/lib/common.sh"

tree=$build/tree
[ -d "$tree/.git" ] || die "export: no $tree (run make tree)"
[ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ] ||
	die "export: $tree has uncommitted changes; commit them first"

mkdir -p "$patches"
rm -f "$patches"/*.patch
git -C "$tree" format-patch -q --zero-commit --no-signature --no-numbered --notes \
	--abbrev=12 -o "$patches" base..HEAD
shopt -s nullglob
for p in "$patches"/*.patch; do
	echo "${p##*/}"
done >"$patches/series"
{ git -C "$tree" rev-parse HEAD && patches_sum; } >"$build/tree.applied"
step "export: $(wc -l <"$patches/series") patch(es) written to ${patches#"$top/"}/"
