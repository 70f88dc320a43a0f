#!/bin/bash
# The two series carry the same features and the same tests: every patch
# subject is in both patches/6.1 and patches/6.12, and every file that the
# series adds has the same contents in both trees, except what
# patches/parity names with a reason. Each tree must hold as many commits
# as its series lists, and at least one. Prints PASS/FAIL lines.
#   parity.sh              build/T/tree for both trees, then judge them
#   parity.sh --root DIR   judge DIR/patches and the trees DIR/build/T/tree
#                          as they are (the host tests)
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
. "$(dirname "$0")/lib/common.sh"

root=$top
if [ $# = 2 ] && [ "$1" = --root ]; then
	root=$(readlink -f -- "$2")
elif [ $# = 0 ]; then
	for t in 6.1 6.12; do
		TREE=$t "$lib/tree.sh"
	done
else
	die "usage: parity.sh [--root DIR]"
fi
fail=0
bad() {
	echo "FAIL host/parity/$1"
	fail=1
}

# The excuses of patches/parity, "KIND: VALUE | REASON"; a line that
# starts with "#", after blanks or not, is a comment. An excuse without a
# reason excuses nothing.
excuses=$(awk '!/^[[:space:]]*(#|$)/' "$root/patches/parity")
while IFS= read -r e; do
	[ -z "$e" ] || [[ $e =~ ^(subject|file):\ .+\ \|\ *[^\ ] ]] ||
		bad "excuse: not \"subject: SUBJECT | reason\" or \"file: PATH | reason\": $e"
done <<<"$excuses"
# listed KIND VALUE: does an excuse with a reason name it?
listed() {
	awk -F ' [|] ' -v want="$1: $2" '$1 == want && $2 ~ /[^ ]/ { found = 1 } END { exit !found }' <<<"$excuses"
}

# Per tree: the subjects of base..HEAD, and the files the series adds under
# their 6.1 names (6.12 keeps the x86 documentation in
# Documentation/arch/x86/). Read into variables, not through a process
# substitution, whose failing git went unseen.
declare -A subjects added
trees_ok=1
for t in 6.1 6.12; do
	tree=$root/build/$t/tree
	n=$(series_patches "$root/patches/$t" | wc -l)
	if ! subjects[$t]=$(git -C "$tree" log --reverse --format=%s base..HEAD) ||
		! added[$t]=$(git -C "$tree" diff --name-only --diff-filter=A base HEAD |
			sed 's#^Documentation/arch/x86/#Documentation/x86/#'); then
		bad "git: git failed in ${tree#"$root/"}"
		trees_ok=0
		continue
	fi
	m=$(grep -c . <<<"${subjects[$t]}" || true)
	[ "$n" -gt 0 ] || { bad "series: patches/$t/series lists no patch"; trees_ok=0; }
	[ "$m" = "$n" ] || { bad "series: patches/$t/series lists $n patches, ${tree#"$root/"} has $m commits"; trees_ok=0; }
done
# Nothing to compare without both trees
[ $trees_ok = 1 ] || exit 0

while IFS= read -r s; do
	[ -z "$s" ] || listed subject "$s" || bad "subject: only in one series: $s"
done <<<"$(comm -3 <(sort <<<"${subjects[6.1]}") <(sort <<<"${subjects[6.12]}") | tr -d '\t')"

while IFS= read -r f; do
	[ -n "$f" ] || continue
	listed file "$f" && continue
	cmp -s "$root/build/6.1/tree/$f" "$root/build/6.12/tree/${f/#Documentation\/x86\//Documentation/arch/x86/}" ||
		bad "file: $f differs between the trees or is in one only"
done <<<"$(sort -u <<<"${added[6.1]}"$'\n'"${added[6.12]}")"
[ $fail = 1 ] || echo "PASS host/parity: $(grep -c . <<<"${subjects[6.12]}") patches and $(grep -c . <<<"${added[6.12]}" || true) new files in both trees, differences as listed in patches/parity"
