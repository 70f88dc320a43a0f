#!/bin/bash
# Write build/$TREE/outgoing/SET/ for each set of patches/$TREE/sets. Nothing
# is sent: a person signs each set and sends it. A set is one of three kinds,
# by the template that patches/ holds for it:
#   patches/security-SET.txt           a security report (the Xen PV fix): the
#       report as cover letter and the set's commits, addressed to the Linux
#       and Xen security teams with the maintainers on Cc and no public list,
#       to be sent with git send-email --suppress-cc=all (SEND says so);
#   patches/stable-request-$TREE-SET.txt  a mail asking stable@ to pick an
#       upstream commit (the set's patch is its backport, carried here);
#   patches/cover-letter-$TREE-SET.txt  an ordinary posting: the set's
#       commits as mails, with To:/Cc: from the tree's get_maintainer.pl.
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
. "$(dirname "$0")/lib/common.sh"

tree=$build/tree
outdir=$build/outgoing

[ -d "$tree/.git" ] || die "outgoing: no $tree (run make tree TREE=$tree_version)"
for state in rebase-merge rebase-apply CHERRY_PICK_HEAD; do
	[ ! -e "$(git -C "$tree" rev-parse --git-path "$state")" ] ||
		die "outgoing: $tree is in the middle of a rebase or cherry-pick ($state)"
done
# One commit for the whole run: someone may commit in the tree meanwhile.
head=$(git -C "$tree" rev-parse HEAD)
[ -z "$(GIT_OPTIONAL_LOCKS=0 git -C "$tree" status --porcelain --untracked-files=no)" ] ||
	step "outgoing: warning: ${tree#"$top/"} has uncommitted changes; they are not in the mails"
[ "$head" = "$(sed -n 1p "$build/tree.applied" 2>/dev/null)" ] ||
	step "outgoing: warning: ${tree#"$top/"} has commits not exported to ${patches#"$top/"}/ (make export)"

base_version=$(cut -d' ' -f2 "$build/src.stamp") || die "outgoing: no $build/src.stamp (run make src)"
mapfile -t commits < <(git -C "$tree" rev-list --reverse "base..$head")
sets=$(series_sets "$patches") || exit 1
last=$(tail -n 1 <<<"$sets" | cut -d' ' -f4)
[ "${#commits[@]}" = "$last" ] ||
	die "outgoing: base..HEAD has ${#commits[@]} patches, ${patches#"$top/"}/sets describes $last"

# get_maintainer.pl from the tree: MAINTAINERS only, no git history, no
# network. Prints one address a line.
maintainers() {
	(cd "$tree" && perl scripts/get_maintainer.pl --no-git --no-git-fallback \
		--no-fixes --no-rolestats --no-roles "$@") ||
		die "outgoing: get_maintainer.pl $* failed"
}
# header NAME ADDRESS...: one folded To: or Cc: header, none without addresses
header() {
	local name=$1 a sep=
	shift
	for a; do
		[ -n "$a" ] || continue
		printf '%s%s' "${sep:-$name: }" "$a"
		sep=$',\n    '
	done
	[ -z "$sep" ] || printf '\n'
}
# insert_headers FILE TEXT: TEXT goes right after the Subject: header
insert_headers() {
	awk -v text="$2" 'in_subject && !/^[ \t]/ { printf "%s", text; in_subject = 0 }
		/^Subject: / { in_subject = 1 }
		{ print }' "$1" >"$1.tmp" || die "outgoing: could not add To:/Cc: to $1"
	mv "$1.tmp" "$1"
}
# unique: lines in order without repeats; "minus FILE" also drops FILE's lines
unique() { awk 'NF && !seen[tolower($0)]++'; }
minus() { awk 'NR == FNR { drop[tolower($0)] = 1; next } !drop[tolower($0)]' "$1" -; }

# cover_letter TEMPLATE NAME COUNT OUT: OUT's cover letter filled in from
# TEMPLATE, which must describe COUNT patches
cover_letter() {
	local template=$1 cover=$4/0000-cover-letter.patch
	local subject described
	shift
	[ -f "$template" ] || die "outgoing: no ${template#"$top/"}"
	subject=$(sed -n '1{s/^\[RFC\] //;p}' "$template")
	[ -n "$subject" ] || die "outgoing: ${template#"$top/"}: the first line must be the subject"
	[ -z "$(sed -n 2p "$template")" ] ||
		die "outgoing: ${template#"$top/"}: the second line must be blank"
	grep -q '@BASE@' "$template" || die "outgoing: ${template#"$top/"} does not name the base tree (@BASE@)"
	described=$(awk '/^ *[0-9]+\. / { n = $1 + 0 } END { print n + 0 }' "$template")
	[ "$2" = "$described" ] ||
		die "outgoing: set $1 has $2 patches, ${template#"$top/"} describes $described"
	step "outgoing: $1: cover letter from ${template#"$top/"} (base $base_version)"
	sed -n '3,$p' "$template" | sed "s/@BASE@/$base_version/g; s/@UPSTREAM@/${base_version%%-*}/g" >"$3/blurb.tmp"
	awk -v subject="$subject" -v blurb="$3/blurb.tmp" '
		$0 == "*** BLURB HERE ***" { while ((getline l < blurb) > 0) print l; next }
		/^Subject: / { i = index($0, "*** SUBJECT HERE ***")
			if (i) $0 = substr($0, 1, i - 1) subject }
		{ print }' "$cover" >"$cover.tmp" || die "outgoing: could not fill in the cover letter"
	mv "$cover.tmp" "$cover"
	rm "$3/blurb.tmp"
	! grep -q '\*\*\* \(SUBJECT\|BLURB\) HERE \*\*\*' "$cover" ||
		die "outgoing: the cover letter still has format-patch's placeholders"
}

# The security teams, and the public lists that a security report must not
# reach before they set the schedule.
security_to=(security@kernel.org security@xen.org)
public_lists='@vger\.kernel\.org|@lists\.|linux-kernel@'

# write_set NAME FIRST LAST: $outdir/NAME/, the mails of commits FIRST..LAST
write_set() {
	local name=$1 first=$2 last=$3 out=$outdir/$1 cover p to cc template private=0 prefix
	local to_list cc_list
	template=$top/patches/cover-letter-$tree_version-$name.txt
	if [ -f "$top/patches/security-$name.txt" ]; then
		template=$top/patches/security-$name.txt private=1
	elif [ -f "$top/patches/stable-request-$tree_version-$name.txt" ]; then
		stable_request "$name" "$top/patches/stable-request-$tree_version-$name.txt"
		return
	fi
	# A template whose subject starts with "[RFC] " asks for comments only.
	prefix=PATCH
	[ "$(head -c 6 "$template")" != "[RFC] " ] || prefix="RFC PATCH"
	step "outgoing: $name: format-patch of patches $first-$last into ${out#"$top/"}/ ($prefix)"
	mkdir -p "$out"
	# The cover letter's From: and the Message-Ids are the committer's:
	# use the series' author, not the tree's harness identity.
	GIT_COMMITTER_NAME=$(git -C "$tree" log -1 --format=%an "$head") \
	GIT_COMMITTER_EMAIL=$(git -C "$tree" log -1 --format=%ae "$head") \
		git -C "$tree" format-patch -q --cover-letter --cover-from-description=none \
		--thread --notes --numbered --subject-prefix="$prefix" -o "$out" \
		"${commits[first - 1]}^..${commits[last - 1]}" ||
		die "outgoing: git format-patch failed"
	cover=$out/0000-cover-letter.patch
	cover_letter "$template" "$name" $((last - first + 1)) "$out"

	: >"$out/to.all"
	: >"$out/cc.all"
	for p in "$out"/[0-9]*.patch; do
		[ "$p" != "$cover" ] || continue
		if [ $private = 1 ]; then
			# The security teams; the maintainers, people only, on Cc:
			# x86's, and Xen's for the Xen PV fix, which touches only
			# cpu/common.c.
			to=$(printf '%s\n' "${security_to[@]}")
			cc=$( { maintainers --no-l "$p"; echo x86@kernel.org
				maintainers --no-l -f arch/x86/xen/smp_pv.c; } | unique) || exit 1
		else
			to=$( { maintainers --no-l "$p"; echo x86@kernel.org; } | unique) || exit 1
			cc=$( { maintainers --no-m --no-r "$p"; echo linux-kernel@vger.kernel.org; } | unique) || exit 1
		fi
		printf '%s\n' "$to" >"$out/to.patch"
		cc=$(printf '%s\n' "$cc" | unique | minus "$out/to.patch")
		mapfile -t to_list <<<"$to"
		mapfile -t cc_list <<<"$cc"
		insert_headers "$p" "$(header To "${to_list[@]}"; header Cc "${cc_list[@]}")"$'\n'
		printf '%s\n' "$to" >>"$out/to.all"
		printf '%s\n' "$cc" >>"$out/cc.all"
	done
	mapfile -t to_list < <(unique <"$out/to.all")
	unique <"$out/to.all" >"$out/to.patch"
	mapfile -t cc_list < <(unique <"$out/cc.all" | minus "$out/to.patch")
	insert_headers "$cover" "$(header To "${to_list[@]}"; header Cc "${cc_list[@]}")"$'\n'
	rm -f "$out/to.all" "$out/cc.all" "$out/to.patch"
	[ $private = 1 ] || return 0
	# git send-email adds the Cc: tags of a patch (stable@vger.kernel.org)
	# unless told not to; a report must reach the security teams only.
	for p in "$out"/*.patch; do
		! awk '/^$/ { exit } { print }' "$p" | grep -Ei "^(To|Cc):.*($public_lists)|^ +.*($public_lists)" ||
			die "outgoing: $name: a public list in the headers of ${p#"$top/"}"
	done
	cat >"$out/SEND" <<-EOF
	A security report: the Linux and Xen security teams first, no public
	list, until they set the schedule. Send it exactly so, after signing:
	    git send-email --suppress-cc=all ${out#"$top/"}/*.patch
	EOF
}

# stable_request NAME TEMPLATE: $outdir/NAME/0000-stable-request.txt, a
# mail to stable@ from TEMPLATE (its first line the subject), asking to
# pick the upstream commit that the set's patch backports
stable_request() {
	local out=$outdir/$1 mail
	mail=$out/0000-stable-request.txt
	step "outgoing: $1: a request to stable@ from ${2#"$top/"} into ${out#"$top/"}/"
	mkdir -p "$out"
	{
		echo "From: $(git -C "$tree" log -1 --format='%an <%ae>' "$head")"
		echo "To: stable@vger.kernel.org"
		echo "Subject: $(sed -n 1p "$2")"
		echo
		sed -n '3,$p' "$2"
	} >"$mail"
}

rm -rf "$outdir"
while read -r name _ first last; do
	write_set "$name" "$first" "$last"
done <<<"$sets"
ls "$outdir"/*/SEND >/dev/null 2>&1 ||
	die "outgoing: no set is a security report (patches/security-SET.txt)"

step "outgoing: $(wc -l <<<"$sets") sets in ${outdir#"$top/"}/; a person signs and sends each"
for d in "$outdir"/*/; do
	echo "${d#"$top/"}: $(sed -n 's/^Subject: //p' "$d"/0000-* | head -1)"
	ls "$d"
done
