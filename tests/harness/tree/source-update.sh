#!/bin/bash
# scripts/lib/tree.sh when Debian's linux-source changes under a tree, on
# small fake source trees: the series goes onto the new source; a patch
# that no longer applies stops with its name and file; a tree with
# commits that are not in patches/ is never remade. Prints one PASS/FAIL
# line per step; exit 1 on a FAIL.
set -euo pipefail
scripts=$(cd "$(dirname "$0")/../../../scripts" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bad=0

# source DIR VERSION LINE...: a fake pristine tree, one file of LINEs
source_tree() {
	local dir=$work/$1 version=$2
	shift 2
	rm -rf "$dir"
	mkdir -p "$dir/arch/x86/kernel"
	printf '%s\n' "$@" >"$dir/arch/x86/kernel/ioport.c"
	echo "fakesum $version" >"$dir.stamp"
}

# The series: one patch that changes line "e" (of a-i: context both sides)
lines=(a b c d e f g h i)
source_tree scratch 0 "${lines[@]}"
git -C "$work/scratch" init -q
git -C "$work/scratch" add -A
git -C "$work/scratch" -c user.name=t -c user.email=t@t commit -q -m base
sed -i 's/^e$/e patched/' "$work/scratch/arch/x86/kernel/ioport.c"
git -C "$work/scratch" -c user.name=t -c user.email=t@t commit -q -am "x86/iopl: Patch e"
mkdir "$work/patches"
git -C "$work/scratch" format-patch -q -o "$work/patches" HEAD^..HEAD
(cd "$work/patches" && ls -- *.patch) >"$work/patches/series"

tree() { "$scripts/lib/tree.sh" --src "$work/src" --tree "$work/tree" --patches "$work/patches"; }
# result NAME WHY: PASS when the last test succeeded, else FAIL NAME: WHY
result() {
	if [ "$rc_test" = 0 ]; then
		echo "PASS host/tree/$1"
	else
		echo "FAIL host/tree/$1: $2"
		bad=1
	fi
}
file() { cat "$work/tree/arch/x86/kernel/ioport.c"; }
base() { git -C "$work/tree" log -1 --format=%s base; }

patched=$(printf '%s\n' "${lines[@]}" | sed 's/^e$/e patched/')
source_tree src 1.0-1 "${lines[@]}"
out=$(tree 2>&1)
rc_test=0
{ grep -q "applied 1 patch" <<<"$out" && [ "$(base)" = "Debian linux-source-6.12 1.0-1" ] && [ "$(file)" = "$patched" ]; } || rc_test=1
result first "want the patch on 1.0-1: $out"

source_tree src 1.1-1 z "${lines[@]}"
out=$(tree 2>&1)
rc_test=0
{ grep -q "changed from 1.0-1 to 1.1-1" <<<"$out" && [ "$(base)" = "Debian linux-source-6.12 1.1-1" ] && [ "$(file)" = "$(printf "z\n%s" "$patched")" ]; } || rc_test=1
result new-source "want the patch on 1.1-1: $out"

out=$(tree 2>&1)
rc_test=0
{ [ -z "$out" ]; } || rc_test=1
result unchanged "want nothing done: $out"

source_tree src 1.2-1 a b c d E f g h i
rc=0
out=$(tree 2>&1) || rc=$?
rc_test=0
{ [ $rc != 0 ] && grep -q "patch 0001-x86-iopl-Patch-e.patch does not apply" <<<"$out" && grep -q "arch/x86/kernel/ioport.c" <<<"$out"; } || rc_test=1
result conflict "want a stop naming the patch and the file (exit $rc): $out"

source_tree src 1.3-1 "${lines[@]}"
tree >/dev/null 2>&1
echo d >>"$work/tree/arch/x86/kernel/ioport.c"
git -C "$work/tree" -c user.name=t -c user.email=t@t commit -q -am "work not exported"
source_tree src 1.4-1 "${lines[@]}"
rc=0
out=$(tree 2>&1) || rc=$?
rc_test=0
{ [ $rc != 0 ] && grep -q "holds commits that are not in" <<<"$out" && [ "$(git -C "$work/tree" log -1 --format=%s)" = "work not exported" ]; } || rc_test=1
result own-commits-kept "want a stop that keeps the commit (exit $rc): $out"

exit $bad
