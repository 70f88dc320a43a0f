#!/bin/bash
# make programs: Debian's own port-I/O programs, as packaged, on the stock
# kernel and on the patched kernel in every iopl= mode. Prints the table
# program x kernel (works / fails, with the program's own words), writes
# it to build/logs/programs.md, and one PASS/FAIL line per cell against
# tests/programs.expect: a change of behaviour fails until that file is
# changed on purpose.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
. "$lib/initramfs.sh"

expect=$top/tests/programs.expect
root=$build/guest-programs/root
initrd=$build/guest-programs/initramfs.cpio
table=$build/logs/programs.md
binaries=(/usr/sbin/hwclock /usr/bin/lspci /usr/bin/inb /usr/bin/outb /usr/sbin/superiotool
	/usr/bin/stress-ng)
kernels=(stock patched:iopl=strict patched:iopl=compat patched:iopl=off)

"$lib/tree.sh"
"$lib/kbuild.sh" stock
"$lib/kbuild.sh" patched
"$lib/guest.sh"

step "programs: initramfs with ${binaries[*]##*/} and their libraries"
initramfs_root "$root"
mkdir -p "$root/tmp"	# stress-ng wants a writable temp-path
gcc -static -O2 -Wall -o "$root/bin/programs" "$top/guest/programs.c" ||
	die "programs: compiling guest/programs.c failed"
initramfs_binary "$root" "${binaries[@]}"
initramfs_pack "$root" "$initrd"

# judge PROG LOG: "works|fails<TAB>message" from the guest's lines for PROG.
# A program works when it exits 0 and prints what it is for. hwclock is run
# again (at most twice) only when it failed its clock-tick synchronization,
# and the cell says so.
judge() {
	local prog=$1 log=$2 status out want msg retries
	status=$(sed -n "s/^    # prog $prog: //p" "$log" | tr -d '\r')
	out=$(sed -n "s/^    # out $prog: //p" "$log" | tr -d '\r')
	retries=$(grep -c "^    # retry $prog: " "$log" || true)
	case $prog in
	hwclock) want='^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:.]+' ;;
	lspci) want='^00:00\.0 0600: 8086:1237' ;;
	inb) want='^(0x)?[0-9a-fA-F]+$' ;;
	outb) want='' ;;
	superiotool) want='No Super I/O found|Found' ;;
	stress-ng) want='metrc: \[[0-9]+\] ioport +[1-9][0-9]*' ;;
	esac
	# The message: the line that shows it worked, or the last line (the
	# error) when it failed.
	if [ "$status" = "exit 0" ] && { [ -z "$want" ] || grep -Eq "$want" <<<"$out"; }; then
		msg=$(grep -Em1 "${want:-.}" <<<"$out" || true)
		[ "$prog" != stress-ng ] ||	# bogo ops of the ioport stressor
			msg=$(awk '/metrc: \[[0-9]+\] (ioport|switch) +[0-9]+ +[0-9.]+ / { n[$4] = $5 }
				END { printf "ioport %s bogo ops (4 workers), switch %s, in 5 s", n["ioport"], n["switch"] }' <<<"$out")
		[ "$retries" = 0 ] || msg+=" (after $retries clock-tick synchronization failure(s), run again)"
		printf 'works\t%s\n' "${msg:-(no output)}"
	else
		printf 'fails\t%s (%s)\n' "$(tail -n1 <<<"$out")" "${status:-no result}"
	fi
}

results=()
declare -A cell
for k in "${kernels[@]}"; do
	kernel=${k%%:*} mode=${k#*:}
	[ "$mode" = "$k" ] && mode=
	col=${mode#iopl=}
	col=${col:-$kernel}
	log=$build/logs/boot-programs-$col.log
	step "programs: boot $kernel ${mode:-(no iopl=)} (log: $log)"
	status=0
	"$lib/boot.sh" --initrd "$initrd" "$build/$kernel/bzImage" "$log" programs $mode || status=$?
	results+=("$("$lib/verdict.sh" "$log" "programs/$col" "$status" || true)")
	for b in "${binaries[@]}"; do
		cell[${b##*/}:$col]=$(judge "${b##*/}" "$log")
	done
done

cols=(stock strict compat off)
{
	printf '| program | %s |\n' "$(IFS='|'; echo "${cols[*]}" | sed 's/|/ | /g')"
	printf '|---|---|---|---|---|\n'
	for b in "${binaries[@]}"; do
		row="| \`${b##*/}\` |"
		for c in "${cols[@]}"; do
			v=${cell[${b##*/}:$c]}
			row+=" ${v%%$'\t'*}: ${v#*$'\t'} |"
		done
		printf '%s\n' "$row"
	done
} >"$table"
cat "$table" >&2

printf '%s\n' "${results[@]}" | grep -v '^PASS programs/[a-z]*/programs$' || true
while read -r prog col want; do
	case $prog in '#'* | '') continue ;; esac
	v=${cell[$prog:$col]:-}
	[ -n "$v" ] || { echo "FAIL programs/$col/$prog: no result"; continue; }
	got=${v%%$'\t'*}
	if [ "$got" = "$want" ]; then
		echo "PASS programs/$col/$prog"
	else
		echo "FAIL programs/$col/$prog: expected $want, got $got: ${v#*$'\t'}"
	fi
done <"$expect"
