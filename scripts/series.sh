#!/bin/bash
# make check-series: every patch of the series builds and boots on its own,
# and so does every set of patches/$TREE/sets on its prerequisites alone.
# Each commit base..HEAD of build/tree is checked out in its own worktree
# (build/series/tree), built with the test config (build/series-kernel)
# and booted with the demo, the selftests that exist at that commit and
# guest/ioperm_bitmap.
# Each set is applied with git am on the base in a second worktree
# (build/series/set), after the sets it names, built with the test config
# and, when the set brings the KUnit suite, config/kunit.config, and
# booted the same way; its KUnit results must be in the log.
# Prints PASS/FAIL lines as make check does and one summary line.
#
#   series.sh [--sets]   --sets: only the sets, not every commit
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
. "$(dirname "$0")/lib/common.sh"

commits=1
case $#:${1-} in
0:) ;;
1:--sets) commits=0 ;;
*) die "usage: series.sh [--sets]" ;;
esac

wt=$build/series/tree
results=$build/logs/results-series.txt
mkdir -p "$build/series" "$build/logs"
: >"$results"

"$lib/tree.sh"
git -C "$build/tree" worktree prune
[ -d "$wt" ] || git -C "$build/tree" worktree add -q --detach "$wt" base ||
	die "series: cannot create the worktree $wt"

guest_dir=$build/series/guest
# boot_tree NAME WORKTREE KERNEL [VERDICT-OPTION...]: boot build/KERNEL
# with the demo, the selftests of WORKTREE and ours (guest/); its verdict into $results
boot_tree() {
	local name=$1 wt=$2 kernel=$3 t present=() log status=0
	shift 3
	for t in "${selftests[@]}"; do
		[ -f "$wt/tools/testing/selftests/x86/$t.c" ] && present+=("$t")
	done
	"$lib/guest.sh" --out "$guest_dir" "$wt" "${present[@]}"
	log=$build/logs/boot-${name//\//-}.log
	"$lib/boot.sh" --initrd "$guest_dir/initramfs.cpio" "$build/$kernel/bzImage" "$log" \
		"$(list demo "${present[@]/#ioperm/$ioperm_vm}" "${ours[@]}")" || status=$?
	# Without fault injection and the hotplug opt-in, cases skip by design.
	verdict "$name" "$log" "$status" --allow-skip "$default_skips" "$@" | tee -a "$results"
}

n=0
[ $commits = 1 ] || step "series: the sets only (--sets), not every commit"
for commit in $( [ $commits = 0 ] || git -C "$build/tree" rev-list --reverse base..HEAD); do
	n=$((n + 1))
	subject=$(git -C "$build/tree" log -1 --format=%s "$commit")
	name=$(printf 'series/%02d' "$n")
	step "series: $name $subject"
	git -C "$wt" checkout -q --detach "$commit" || die "series: checkout of $commit failed"
	if ! "$lib/kbuild.sh" series-kernel "$wt" "$top/config/test.config"; then
		echo "FAIL $name/build: $subject" | tee -a "$results"
		continue
	fi
	boot_tree "$name" "$wt" series-kernel
done

# Each set on the base with only the sets it names before it
mapfile -t files < <(series_patches "$patches")
swt=$build/series/set
sets=$(series_sets "$patches") || exit 1
declare -A set_range
while read -r set needs first last; do
	set_range[$set]="$first $last"
	name=series/set-$set
	step "series: $name (on ${needs/#-/the base alone})"
	rm -rf "$swt"
	git -C "$build/tree" worktree prune
	git -C "$build/tree" worktree add -q --detach "$swt" base ||
		die "series: cannot create the worktree $swt"
	apply=()
	for s in ${needs//,/ } $set; do
		[ "$s" != - ] || continue
		read -r f l <<<"${set_range[$s]}"
		apply+=("${files[@]:f - 1:l - f + 1}")
	done
	if ! git -C "$swt" am -q "${apply[@]}" >"$build/logs/series-set-$set-am.log" 2>&1; then
		echo "FAIL $name/apply: git am failed on the base (log: $build/logs/series-set-$set-am.log)" | tee -a "$results"
		git -C "$swt" am --abort 2>/dev/null || true
		continue
	fi
	config=("$top/config/test.config") kunit=()
	if [ -f "$swt/arch/x86/kernel/ioport_kunit.c" ]; then
		config+=("$top/config/kunit.config")
		kunit=(--expect-kunit "$kunit_suites")
	fi
	if ! "$lib/kbuild.sh" series-set-kernel "$swt" "${config[@]}"; then
		echo "FAIL $name/build: ${#apply[@]} patches on the base" | tee -a "$results"
		continue
	fi
	boot_tree "$name" "$swt" series-set-kernel "${kunit[@]}"
done <<<"$sets"

# The commits must be the patches of the series (common.sh's reader)
want=$(series_patches "$patches" | wc -l)
[ $commits = 0 ] || { [ "$n" = "$want" ] && [ "$n" -gt 0 ]; } ||
	echo "FAIL series/count: ${patches#"$top/"}/series lists $want patches, build/$tree_version/tree has $n commits" |
	tee -a "$results"
summarize "$results" "$n patches: "
