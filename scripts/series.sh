#!/bin/bash
# make check-series: every patch of the series builds and boots on its own.
# Each commit base..HEAD of build/tree is checked out in its own worktree
# (build/series/tree), built with the test config (build/series-kernel)
# and booted with the demo and the selftests that exist at that commit.
# Prints PASS/FAIL lines as make check does and one summary line.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

wt=$build/series/tree
results=$build/logs/results-series.txt
mkdir -p "$build/series" "$build/logs"
: >"$results"

"$lib/tree.sh"
git -C "$build/tree" worktree prune
[ -d "$wt" ] || git -C "$build/tree" worktree add -q --detach "$wt" base ||
	die "series: cannot create the worktree $wt"

guest_dir=$build/series/guest
n=0
for commit in $(git -C "$build/tree" rev-list --reverse base..HEAD); do
	n=$((n + 1))
	subject=$(git -C "$build/tree" log -1 --format=%s "$commit")
	name=$(printf 'series/%02d' "$n")
	step "series: $name $subject"
	git -C "$wt" checkout -q --detach "$commit" || die "series: checkout of $commit failed"
	if ! "$lib/kbuild.sh" series-kernel "$wt" "$top/config/test.config"; then
		echo "FAIL $name/build: $subject" | tee -a "$results"
		continue
	fi
	present=()
	for t in "${selftests[@]}"; do
		[ -f "$wt/tools/testing/selftests/x86/$t.c" ] && present+=("$t")
	done
	"$lib/guest.sh" --out "$guest_dir" "$wt" "${present[@]}"
	log=$build/logs/boot-series-$n.log
	status=0
	"$lib/boot.sh" --initrd "$guest_dir/initramfs.cpio" "$build/series-kernel/bzImage" "$log" \
		"$(list demo "${present[@]}")" IOPL_EXPECT_MODE=compat || status=$?
	# Without fault injection ioport_nomem skips by design.
	verdict "$name" "$log" "$status" --allow-skip "$default_skips" | tee -a "$results"
done

# The commits must be the patches of the series (common.sh's reader)
want=$(series_patches "$patches" | wc -l)
[ "$n" = "$want" ] && [ "$n" -gt 0 ] ||
	echo "FAIL series/count: ${patches#"$top/"}/series lists $want patches, build/$tree_version/tree has $n commits" |
	tee -a "$results"
summarize "$results" "$n patches: "
