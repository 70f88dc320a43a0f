#!/bin/bash
# The tables of the changelogs and cover letters come from results/: every
# table row of a commit message in patches/*/*.patch (above its "---") and
# of patches/cover-letter-*.txt, a line "| ... |", must stand word for
# word in one of the results/*.md files that the same message or letter
# names. A message with a table row and no results file named, or naming
# one that does not exist, fails too.
#
#   figures.sh [--root DIR]   check DIR's patches/ against DIR/results/
#                             (the host tests plant broken copies)
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

root=$top
if [ $# = 2 ] && [ "$1" = --root ]; then
	root=$(readlink -f -- "$2")
elif [ $# != 0 ]; then
	die "usage: figures.sh [--root DIR]"
fi

fail=0 checked=0
shopt -s nullglob
for f in "$root"/patches/*/*.patch "$root"/patches/cover-letter-*.txt; do
	name=${f#"$root/"}
	case $f in
	*.patch) text=$(awk '/^---$/ { exit } { print }' "$f") ;;
	*) text=$(cat "$f") ;;
	esac
	rows=$(grep -E '^[[:space:]]*\|.*\|[[:space:]]*$' <<<"$text" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//') || true
	[ -n "$rows" ] || continue
	checked=$((checked + 1))
	mapfile -t named < <(grep -oE 'results/[A-Za-z0-9._-]+\.md' <<<"$text" | sort -u)
	if [ ${#named[@]} = 0 ]; then
		echo "FAIL host/figures/$name: a table, and no results/ file named"
		fail=1
		continue
	fi
	sources=() gone=0
	for r in "${named[@]}"; do
		if [ -f "$root/$r" ]; then
			sources+=("$root/$r")
		else
			echo "FAIL host/figures/$name: names $r, which does not exist"
			fail=1 gone=1
		fi
	done
	[ $gone = 0 ] || continue
	missing=$(sed 's/^[[:space:]]*//; s/[[:space:]]*$//' "${sources[@]}" |
		awk 'NR == FNR { have[$0] = 1; next } !($0 in have)' - <(printf '%s\n' "$rows"))
	if [ -n "$missing" ]; then
		echo "FAIL host/figures/$name: rows in no file it names (${named[*]}):"
		sed 's/^/    /' <<<"$missing"
		fail=1
	else
		echo "PASS host/figures/$name: $(wc -l <<<"$rows") rows from ${named[*]}"
	fi
done
[ $checked -gt 0 ] || { echo "FAIL host/figures: no table in any changelog or cover letter"; fail=1; }
exit $fail
