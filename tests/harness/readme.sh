#!/bin/bash
# The README against what it describes (make test-harness, host/readme/*):
#   targets  the targets of README's table of targets (the `make X` of each
#            row's first cell) are those `make help` lists, no more, no less;
#   times    a time in that table (a last cell with a digit) names a file
#            in results/ that exists, and each time of it ("27 min", "9 min
#            51 s", "1 h 5 min": minutes, hours, seconds spelled out too)
#            stands whole in one of the files it names; so does each time
#            in a paragraph of prose, in the files that paragraph names
#            (one that names none fails);
#   paths    every link target, every backticked path (a word with a /, or
#            a file name with an extension of the project's files) and
#            every file the Layout block names exists; build/ (generated),
#            paths with $ and the kernel tree's tools/, arch/,
#            Documentation/ are not checked; a path with * must match;
#   links    a link's #anchor is a heading of the file it goes to, and a
#            link whose text is a path goes to that path.
# readme.sh                      the README of the repository against
#                                `make help`, then the planted READMEs
# readme.sh --check README HELP  one README against a recorded `make
#                                help` output, paths from the repository
#                                root; prints PASS/FAIL readme/... lines
# A planted README, readme/NAME.md with readme/NAME.help, must give
# exactly readme/NAME.expect (tests/harness/run.sh's rule: exit 1 exactly
# when a FAIL line is expected).
# shellcheck disable=SC2016 # the backticks in the patterns are Markdown's
set -euo pipefail
dir=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$dir/../.." && pwd)

# The times in a text, one a line, each whole: "27 min", "8 s", "64.5
# min", "9 min 51 s", "1 h 5 min" (minutes, hours and seconds written
# min, h and s), with the text's lines joined.
times() {
	tr '\n' ' ' | sed -E 's/[[:space:]]+/ /g; s/([0-9]) minutes?\b/\1 min/g; s/([0-9]) hours?\b/\1 h/g
		s/([0-9]) seconds?\b/\1 s/g' |
		grep -oE '(^|[^0-9.])[0-9]+(\.[0-9]+)? (h|min|s)( [0-9]+(\.[0-9]+)? (min|s))*\b' |
		sed -E 's/^[^0-9]//' || true
}

# paragraphs README: its paragraphs of prose, one a line: not the
# headings, tables, lists of targets, code blocks or indented blocks
paragraphs() {
	awk '/^```/ { code = !code; next }
		code || /^(#|\||    )/ { if (p != "") print p; p = ""; next }
		/^[[:space:]]*$/ { if (p != "") print p; p = ""; next }
		{ p = p (p != "" ? " " : "") $0 }
		END { if (p != "") print p }' "$1"
}

# check_times WHAT TEXT SHOWN: each time of TEXT stands whole in a
# results/ file that TEXT names (SHOWN: what to quote of a TEXT that names
# none); prints the FAIL lines, status 1 on one
check_times() {
	local what=$1 text=$2 shown=$3 files f n bad=0 have=() known
	files=$(grep -oE 'results/[A-Za-z0-9._-]+' <<<"$text" | sed 's/\.$//' | sort -u || true)
	if [ -z "$files" ]; then
		echo "FAIL readme/times: $what: \"$shown\" names no results/ file"
		return 1
	fi
	for f in $files; do
		if [ -f "$top/$f" ]; then
			have+=("$top/$f")
		else
			echo "FAIL readme/times: $what: names $f, which does not exist"
			bad=1
		fi
	done
	[ ${#have[@]} -gt 0 ] || return 1
	known=$(cat "${have[@]}" | times | sort -u)
	while read -r n; do
		[ -n "$n" ] || continue
		grep -qxF "$n" <<<"$known" && continue
		echo "FAIL readme/times: $what: \"$n\" is in none of $(tr '\n' ' ' <<<"$files" | sed 's/ $//')"
		bad=1
	done < <(sed -E 's/\]\([^)]*\)/]/g; s/results\/[A-Za-z0-9._-]+//g' <<<"$text" | times)
	return $bad
}

# anchors FILE: the anchors of FILE's headings, as GitHub makes them
anchors() {
	sed -n 's/^#\{1,6\} //p' "$1" | tr '[:upper:]' '[:lower:]' |
		sed -E 's/[^a-z0-9 _-]//g; s/ /-/g'
}

# check_links README: each link's #anchor is a heading of its file, and
# a link whose text is a path goes to that path
check_links() {
	local readme=$1 text target file anchor bad=0
	while IFS=$'\t' read -r text target; do
		file=${target%%#*} anchor=
		[[ $target != *#* ]] || anchor=${target#*#}
		if [ -n "$anchor" ]; then
			if [ -z "$file" ]; then file=$readme; else file=$top/$file; fi
			if [ -f "$file" ] && ! anchors "$file" | grep -qxF -- "$anchor"; then
				echo "FAIL readme/links: [$text]($target): no heading #$anchor in ${file#"$top/"}"
				bad=1
			fi
		fi
		text=${text//\`/}
		if [[ $text =~ ^[A-Za-z0-9._-]+(/[A-Za-z0-9._*-]*)+$|^[A-Za-z0-9_.*-]+\.[a-z]+$ ]] &&
			[ "${text%/}" != "${target%/}" ] && [ "${text%/}" != "${target%%#*}" ]; then
			echo "FAIL readme/links: [$text]($target): the text names $text, the link goes to $target"
			bad=1
		fi
	done < <(grep -oE '\[[^]]+\]\([^)]+\)' "$readme" | sed -E 's/^\[([^]]+)\]\(([^)]+)\)$/\1\t\2/' |
		grep -vP '\t(https?:|mailto:)' || true)
	[ $bad = 1 ] || echo "PASS readme/links"
	return $bad
}

# exists PATH: PATH, relative to the repository root, exists (a glob
# matches something).
exists() {
	local p
	for p in $top/$1; do
		[ -e "$p" ] && return 0
	done
	return 1
}

check() {
	local readme=$1 help=$2 bad=0 t row cell f missing n files
	# The rows of the table of targets: "targets<TAB>first cell<TAB>last cell".
	local rows
	rows=$(awk -F'|' '/^## / { in_t = ($0 ~ /^## Targets/) }
		in_t && /^\| *`make / { print $2 "\t" $(NF - 1) }' "$readme")

	# targets
	local table listed
	table=$(cut -f1 <<<"$rows" | grep -o '`make [^`]*`' | sed 's/^`make //; s/`$//' | sort -u)
	listed=$(awk '$1 == "make" { print $2 }' "$help" | sort -u)
	missing=$(comm -13 <(echo "$table") <(echo "$listed"))
	for t in $missing; do
		echo "FAIL readme/targets: make help lists $t, README's table of targets does not"
		bad=1
	done
	for t in $(comm -23 <(echo "$table") <(echo "$listed")); do
		echo "FAIL readme/targets: README's table of targets lists $t, make help does not"
		bad=1
	done
	[ $bad = 1 ] || echo "PASS readme/targets"

	# times: the table's, then the prose's
	local tbad=0 p
	while IFS=$'\t' read -r row cell; do
		grep -q '[0-9]' <<<"$cell" || continue
		row=$(grep -o '`make [^`]*`' <<<"$row" | head -1 | tr -d '`')
		check_times "$row" "$cell" "$(sed 's/^ *//; s/ *$//' <<<"$cell")" || tbad=1
	done <<<"$rows"
	while read -r p; do
		[ -n "$(times <<<"$p")" ] || continue
		check_times "prose \"$(cut -c1-40 <<<"$p")...\"" "$p" "$(times <<<"$p" | head -1)" || tbad=1
	done < <(paragraphs "$readme")
	[ $tbad = 1 ] || echo "PASS readme/times"
	[ $tbad = 0 ] || bad=1
	check_links "$readme" || bad=1

	# paths: link targets, backticked paths, the Layout block
	local pbad=0 p
	local paths
	paths=$(
		grep -oE '\]\([^)]+\)' "$readme" | sed 's/^](//; s/)$//; s/#.*//' |
			grep -vE '^(https?:|mailto:|$)' || true
		grep -oE '`[^`]+`' "$readme" | tr -d '`' |
			grep -E '^[A-Za-z0-9._-]+(/[A-Za-z0-9._*-]*)+$|^[A-Za-z0-9_.*-]+\.(md|sh|awk|txt|patch|config|csv|png|expect)$' |
			grep -vE '^(build|tools|arch|Documentation)/' || true
		awk '/^## / { in_l = ($0 ~ /^## Layout/) }
			in_l && /^    [^ ]/ { d = $1; if (d !~ /\/$/) d = ""; print $1 }
			in_l && /^    / {
				for (i = 1; i <= NF; i++) {
					w = $i; gsub(/[,():+]/, "", w)
					if (w ~ /^[A-Za-z0-9_-]+\.(sh|awk|c|h)$/) print d w
				}
			}' "$readme" | grep -vE '^build/' || true
	)
	while read -r p; do
		[ -n "$p" ] || continue
		exists "$p" && continue
		echo "FAIL readme/paths: README names $p, which does not exist"
		pbad=1
	done < <(sort -u <<<"$paths")
	[ $pbad = 1 ] || echo "PASS readme/paths"
	[ $pbad = 0 ] || bad=1
	return $bad
}

if [ "${1-}" = --check ]; then
	[ $# = 3 ] || { echo "usage: readme.sh [--check README HELP]" >&2; exit 2; }
	check "$2" "$3"
	exit
fi

bad=0 tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
make -s -C "$top" --no-print-directory help >"$tmp"
check "$top/README.md" "$tmp" | sed 's/^\(PASS\|FAIL\) /&host\//' || bad=1
for md in "$dir"/readme/*.md; do
	name=$(basename "$md" .md)
	rc=0
	out=$(check "$md" "$dir/readme/$name.help") || rc=$?
	want_rc=0
	grep -q '^FAIL ' "$dir/readme/$name.expect" && want_rc=1
	if [ "$out" = "$(cat "$dir/readme/$name.expect")" ] && [ $rc = $want_rc ]; then
		echo "PASS host/readme-planted/$name"
	else
		echo "FAIL host/readme-planted/$name: the check said (exit $rc):"
		printf '%s\n' "$out" | sed 's/^/    /'
		bad=1
	fi
done
exit $bad
