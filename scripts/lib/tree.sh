#!/bin/bash
# build/tree: a git repository of the pristine tree, tagged `base`, with one
# commit per patch of patches/$TREE/series on top.
#
# The tree is (re)built from patches/ when it is missing or when patches/
# changed (a commit message alone, too) while nobody committed in the tree.
# Commits in the tree that are not in patches/ are never thrown away: that
# stops with a message.
# The base's subject names the Debian source version it was made from.
# When Debian's linux-source changes (a security update), the tree is made
# again on the new source and the series applied with git am; a patch
# that no longer applies stops the build with its name and the file.
# tree.sh [--force] [--src DIR --tree DIR --patches DIR]
#   --force    rebuild the tree from patches/ even so, and keep the old
#              HEAD as a branch saved-DATE
#   --src, --tree, --patches  the pristine source (its version in
#              DIR.stamp), the tree and the series (default build/$TREE/src,
#              build/$TREE/tree, patches/$TREE); with --src nothing is
#              unpacked (the host tests' fake sources)
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
. "$(dirname "$0")/common.sh"

usage="usage: tree.sh [--force] [--src DIR --tree DIR --patches DIR]"
force=0 src=$build/src tree=$build/tree unpack=1
while [ $# -gt 0 ]; do
	case $1 in
	--force) force=1; shift; continue ;;
	--src) src=${2-} unpack=0 ;;
	--tree) tree=${2-} ;;
	--patches) patches=${2-} ;;
	*) die "$usage" ;;
	esac
	[ $# -ge 2 ] || die "$usage"
	shift 2
done
applied=$tree.applied	# HEAD right after the last application
series=$patches/series

[ $unpack = 0 ] || "$lib/unpack.sh"
version=$(cut -d' ' -f2 "$src.stamp")

# patch-ids of patches/ and of base..HEAD, one per line, in order
ids_of_patches() {
	series_patches "$patches" | while read -r p; do
		git patch-id --stable <"$p" | cut -d' ' -f1
	done
}
ids_of_tree() {
	git -C "$tree" rev-list --reverse base..HEAD | while read -r c; do
		git -C "$tree" show "$c" | git patch-id --stable | cut -d' ' -f1
	done
}

make_base() {
	step "tree: create $tree from ${src#"$top/"} (Debian $version; about a minute)"
	rm -rf "$tree" "$tree.tmp" "$applied"
	cp -a "$src" "$tree.tmp"
	(
		cd "$tree.tmp"
		git init -q
		git config user.name "iopl harness"
		git config user.email "iopl@localhost"
		git config core.autocrlf false
		git config gc.auto 0
		git config notes.rewriteRef refs/notes/commits
		git add -f -A .
		GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' \
		GIT_COMMITTER_DATE='2026-01-01T00:00:00Z' \
			git commit -q -m "Debian $source_package $version"
		git tag base
	) || die "tree: could not create the base repository"
	mv "$tree.tmp" "$tree"
}

# The "Notes:" block that format-patch --notes wrote below the "---" line
# of patch $1 becomes the git note of HEAD again (git am drops it).
restore_notes() {
	local notes
	notes=$(awk '/^---$/ { below = 1; next }
		below && /^Notes:$/ { in_notes = 1; next }
		in_notes && /^(    |$)/ { print substr($0, 5); next }
		in_notes || /^diff --git / { exit }' "$1")
	[ -z "$notes" ] || git -C "$tree" notes add -f -m "$notes" HEAD
}

apply_series() {
	git -C "$tree" am --abort >/dev/null 2>&1 || true
	git -C "$tree" reset -q --hard base
	git -C "$tree" clean -q -fdx
	rm -f "$applied"
	series_patches "$patches" | while read -r p; do
		if ! git -C "$tree" am -q --keep-cr "$p" >/dev/null 2>&1; then
			git -C "$tree" am --abort >/dev/null 2>&1 || true
			echo "error: tree: patch $(basename "$p") does not apply:" >&2
			git -C "$tree" apply --check --verbose "$p" 2>&1 | grep -v '^Checking patch\|succeeded' >&2 || true
			git -C "$tree" reset -q --hard base
			exit 1
		fi
		restore_notes "$p"
	done || exit 1
	{ git -C "$tree" rev-parse HEAD && patches_sum; } >"$applied"
	step "tree: applied $(series_patches "$patches" | wc -l) patch(es) from ${series#"$top/"}"
}

for p in $(series_patches "$patches"); do
	[ -f "$p" ] || die "tree: $p is listed in ${series#"$top/"} but missing"
done

[ -d "$tree/.git" ] || make_base
made_from=$(git -C "$tree" log -1 --format=%s base | sed 's/.* //')

if [ $force = 1 ] && [ "$made_from" = "$version" ]; then
	old=$(git -C "$tree" rev-parse HEAD)
	git -C "$tree" branch -f "saved-$(date +%Y%m%d-%H%M%S)" "$old"
	step "tree: --force, old HEAD kept as branch saved-*"
	apply_series
	exit 0
fi

[ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ] ||
	die "tree: $tree has uncommitted changes; commit them and run make export"

head=$(git -C "$tree" rev-parse HEAD)
untouched=0	# HEAD is what the last application left
[ -f "$applied" ] && [ "$head" = "$(sed -n 1p "$applied")" ] && untouched=1

# Debian's source changed since the tree was made: the series onto a new
# base, unless the tree holds work that is not in patches/ (--force
# drops it).
if [ "$made_from" != "$version" ]; then
	[ $force = 1 ] || [ $untouched = 1 ] || [ "$head" = "$(git -C "$tree" rev-parse base)" ] ||
		[ "$(ids_of_tree)" = "$(ids_of_patches)" ] ||
		die "tree: Debian's source is $version now, $tree was made from $made_from and holds commits that are not in ${patches#"$top/"}/; make export TREE=$tree_version first, or tree.sh --force to drop them"
	step "tree: Debian's source changed from $made_from to $version: the series goes onto the new source"
	make_base
	apply_series
	exit 0
fi
if [ "$(ids_of_tree)" = "$(ids_of_patches)" ]; then
	# The same changes; a commit message may differ (patch-ids leave
	# them out). A tree nobody committed in takes patches/' messages.
	[ $untouched = 1 ] && [ "$(sed -n 2p "$applied")" != "$(patches_sum)" ] || exit 0
	step "tree: commit messages changed in ${patches#"$top/"}/"
	apply_series
	exit 0
fi

if [ "$head" = "$(git -C "$tree" rev-parse base)" ] || [ $untouched = 1 ]; then
	apply_series
else
	die "tree: $tree has commits that differ from ${patches#"$top/"}/; run make export TREE=$tree_version to keep them, or make tree TREE=$tree_version FORCE=1 (tree.sh --force) to rebuild it from there"
fi
