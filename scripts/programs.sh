#!/bin/bash
# make programs: Debian's own port-I/O programs, as packaged, on the stock
# kernel and on the patched kernel in every iopl= mode. Prints the table
# program x kernel (works / fails, with the program's own words), writes
# it to build/logs/programs.md, and one PASS/FAIL line per cell against
# tests/programs.expect: a change of behaviour fails until that file is
# changed on purpose. A cell expected to fail must fail as that file says
# (exit status and error message): a crash where a clean failure is
# expected is a change too.
#   programs.sh --judge [--cells] [--expect FILE] COLUMN LOG [COLUMN LOG]...
# only judges recorded boots (COLUMN: stock, strict, compat or off; the
# console log of that boot) against the lines of the columns given in
# tests/programs.expect (or FILE), and exits 1 on a FAIL; the host tests
# use it. --cells: the cells only, not the boots' own verdicts (a caller
# that judged the boots already: scripts/debian.sh).
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
. "$(dirname "$0")/lib/common.sh"
# shellcheck source=scripts/lib/initramfs.sh
. "$lib/initramfs.sh"

expect=$top/tests/programs.expect
root=$build/guest-programs/root
initrd=$build/guest-programs/initramfs.cpio
table=$build/logs/programs.md
binaries=(/usr/sbin/hwclock /usr/bin/lspci /usr/bin/inb /usr/bin/outb /usr/sbin/superiotool
	/usr/bin/stress-ng)
kernels=(stock patched:iopl=strict patched:iopl=compat patched:iopl=off)
columns=(stock strict compat off)	# the table's name of each kernel

# prog_status PROG LOG: how PROG ended ("exit N", "signal N"); prog_out
# PROG LOG: what it printed; prog_retries PROG LOG: how often it was run
# again (guest/programs.c prints these lines)
prog_status() { console "$2" | sed -n "s/^    # prog $1: //p"; }
prog_out() { console "$2" | sed -n "s/^    # out $1: //p"; }
prog_retries() { console "$2" | grep -c "^    # retry $1: " || true; }

# judge PROG LOG: "works|fails<TAB>message" from the guest's lines for PROG.
# A program works when it exits 0 and prints what it is for. hwclock is run
# again (at most twice) only when it failed its clock-tick synchronization,
# and the cell says so.
judge() {
	local prog=$1 log=$2 status out want msg retries
	status=$(prog_status "$prog" "$log")
	out=$(prog_out "$prog" "$log")
	retries=$(prog_retries "$prog" "$log")
	case $prog in
	hwclock) want='^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:.]+' ;;
	lspci) want='^00:00\.0 0600: 8086:1237' ;;
	inb) want='^(0x)?[0-9a-fA-F]+$' ;;
	outb) want='' ;;
	superiotool) want='No Super I/O found|Found' ;;
	stress-ng) want='metrc: \[[0-9]+\] ioport +[1-9][0-9]*' ;;
	esac
	# The message: the line that shows it worked, or, when it failed, its
	# last error in its own name ("PROG: ...", hwclock's before the rest
	# of its --verbose lines), else its last line.
	if [ "$status" = "exit 0" ] && { [ -z "$want" ] || grep -Eq "$want" <<<"$out"; }; then
		msg=$(grep -Em1 "${want:-.}" <<<"$out" || true)
		[ "$prog" != stress-ng ] ||	# bogo ops of the ioport stressor
			msg=$(awk '/metrc: \[[0-9]+\] (ioport|switch) +[0-9]+ +[0-9.]+ / { n[$4] = $5 }
				END { printf "ioport %s bogo ops (4 workers), switch %s, in 5 s", n["ioport"], n["switch"] }' <<<"$out")
		[ "$retries" = 0 ] || msg+=" (after $retries clock-tick synchronization failure(s), run again)"
		printf 'works\t%s\n' "${msg:-(no output)}"
	else
		msg=$(grep "^$prog: " <<<"$out" | tail -n1 || true)
		[ -n "$msg" ] || msg=$(tail -n1 <<<"$out")
		printf 'fails\t%s (%s)\n' "${msg:-(no output)}" "${status:-no result}"
	fi
}

# check_expect: one PASS/FAIL line per line of tests/programs.expect
# whose column was booted (log[COLUMN]), and a FAIL for each program of a
# booted column that has no line there. A "fails" line names the exit
# status and a text that one of the program's lines must hold (the
# strerror() of the errno, say): any other failure fails the cell.
check_expect() {
	local prog col want status text v got how b
	local -A listed=()
	while IFS=$'\t' read -r prog col want status text; do
		case $prog in '#'* | '') continue ;; esac
		[ -n "${log[$col]:-}" ] || continue
		listed[$prog:$col]=1
		if [ "$want" = fails ] && { [ -z "$status" ] || [ -z "$text" ]; }; then
			die "${expect#"$top/"}: a fails line names the exit status and the error: $prog $col"
		fi
		v=${cell[$prog:$col]:-}
		[ -n "$v" ] || { echo "FAIL programs/$col/$prog: no result"; continue; }
		got=${v%%$'\t'*}
		if [ "$got" != "$want" ]; then
			echo "FAIL programs/$col/$prog: expected $want, got $got: ${v#*$'\t'}"
			continue
		fi
		if [ "$want" = fails ]; then
			how="$status, \"$text\""
			if [ "$(prog_status "$prog" "${log[$col]}")" != "$status" ] ||
				! grep -Fq -- "$text" <<<"$(prog_out "$prog" "${log[$col]}")"; then
				echo "FAIL programs/$col/$prog: expected fails ($how), got fails: ${v#*$'\t'}"
				continue
			fi
		fi
		echo "PASS programs/$col/$prog"
	done <"$expect"
	for col in "${!log[@]}"; do
		for b in "${binaries[@]}"; do
			[ -n "${listed[${b##*/}:$col]:-}" ] ||
				echo "FAIL programs/$col/${b##*/}: no line in ${expect#"$top/"}"
		done
	done
}

results=()
cells_only=0
declare -A cell log
# judge_boot COLUMN LOG QEMU-STATUS: verdict.sh's lines of the boot into
# results, its cells into cell[PROG:COLUMN]
judge_boot() {
	log[$1]=$2
	[ $cells_only = 1 ] || results+=("$(verdict "programs/$1" "$2" "$3")")
	for b in "${binaries[@]}"; do
		cell[${b##*/}:$1]=$(judge "${b##*/}" "$2")
	done
}

# report: the results of the boots but their PASS, then the cells
report() {
	[ ${#results[@]} = 0 ] || printf '%s\n' "${results[@]}" | sed '/^PASS programs\/[a-z]*\/programs$/d'
	check_expect
}

# check_table: each line of the table names a program, a kernel's column
# and works or fails (check_expect reads the rest); a table that does not
# (its column of kernels left out, say) stops the judge, which then fails
check_table() {
	awk -F'\t' -v cols="${columns[*]}" -v file="${expect#"$top/"}" '
		/^(#|$)/ { next }
		!(NF >= 3 && index(" " cols " ", " " $2 " ") && $3 ~ /^(works|fails)$/) {
			printf "error: %s:%d: not PROGRAM<TAB>KERNEL (%s)<TAB>works|fails...: %s\n",
				file, NR, cols, $0 > "/dev/stderr"
			exit 1
		}' "$expect"
}

# judge_logs COLUMN LOG [COLUMN LOG]...: report on recorded boots
judge_logs() {
	check_table || exit 1
	while [ $# -gt 0 ]; do
		[[ " ${columns[*]} " = *" $1 "* ]] || die "programs.sh: no column $1 in ${expect#"$top/"}"
		judge_boot "$1" "$2" 0
		shift 2
	done
	report
}

if [ "${1-}" = --judge ]; then
	shift
	if [ "${1-}" = --cells ]; then
		cells_only=1
		shift
	fi
	if [ "${1-}" = --expect ] && [ $# -ge 2 ]; then
		expect=$2
		shift 2
	fi
	if [ $# = 0 ] || [ $(($# % 2)) != 0 ]; then
		die "usage: programs.sh [--judge [--cells] [--expect FILE] COLUMN LOG [COLUMN LOG]...]"
	fi
	judged programs judge_logs "$@" || exit 1
	exit 0
fi
[ $# = 0 ] || die "usage: programs.sh [--judge [--cells] [--expect FILE] COLUMN LOG [COLUMN LOG]...]"
check_table || die "programs: ${expect#"$top/"} is no table of the programs' cells"

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

for k in "${kernels[@]}"; do
	kernel=${k%%:*} mode=${k#*:}
	[ "$mode" = "$k" ] && mode=
	col=${mode#iopl=}
	col=${col:-$kernel}
	boot_log=$build/logs/boot-programs-$col.log
	step "programs: boot $kernel ${mode:-(no iopl=)} (log: $boot_log)"
	status=0
	"$lib/boot.sh" --initrd "$initrd" "$build/$kernel/bzImage" "$boot_log" programs ${mode:+"$mode"} || status=$?
	judge_boot "$col" "$boot_log" "$status"
done

{
	printf '| program |'
	printf ' %s |' "${columns[@]}"
	printf '\n'
	printf '|---|---|---|---|---|\n'
	for b in "${binaries[@]}"; do
		row="| \`${b##*/}\` |"
		for c in "${columns[@]}"; do
			v=${cell[${b##*/}:$c]}
			row+=" ${v%%$'\t'*}: ${v#*$'\t'} |"
		done
		printf '%s\n' "$row"
	done
} >"$table"
cat "$table" >&2

report
