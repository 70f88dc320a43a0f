#!/bin/bash
# The two series carry the same features and the same tests: every patch
# subject is in both patches/6.1 and patches/6.12, and every file that the
# series adds has the same contents in both trees, except what
# patches/parity names with a reason. Prints PASS/FAIL lines.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

allowed=$top/patches/parity
for t in 6.1 6.12; do
	TREE=$t "$lib/tree.sh"
done

# listed KIND VALUE: does patches/parity excuse it?
listed() {
	grep -v '^#' "$allowed" | grep -qF -- "$1: $2 |"
}

subjects() {
	git -C "$top/build/$1/tree" log --reverse --format=%s base..HEAD
}
fail=0
while IFS= read -r s; do
	listed subject "$s" || { echo "FAIL host/parity/subject: only in one series: $s"; fail=1; }
done < <(diff <(subjects 6.1 | sort) <(subjects 6.12 | sort) | sed -n 's/^[<>] //p')

# Files the series adds, under their 6.1 names: 6.12 keeps the x86
# documentation in Documentation/arch/x86/.
added() {
	git -C "$top/build/$1/tree" diff --name-only --diff-filter=A base HEAD |
		sed 's#^Documentation/arch/x86/#Documentation/x86/#'
}
while IFS= read -r f; do
	listed file "$f" && continue
	if ! cmp -s "$top/build/6.1/tree/$f" "$top/build/6.12/tree/${f/#Documentation\/x86\//Documentation/arch/x86/}"; then
		echo "FAIL host/parity/file: $f differs between the trees or is in one only"
		fail=1
	fi
done < <(sort -u <(added 6.1) <(added 6.12))
[ $fail = 1 ] || echo "PASS host/parity: $(subjects 6.12 | wc -l) patches and $(added 6.12 | wc -l) new files in both trees, differences as listed in patches/parity"
