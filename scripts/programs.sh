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

# cells [--cells] [--table FILE] COLUMN LOG STATUS...: the judge's report
# of the boots (scripts/lib/judge/programs.py says the rules): each boot's
# own results but its PASS of the programs program (not with --cells),
# then one PASS/FAIL line per cell of the table; --table writes the table
# program x kernel to FILE. The table's name is relative to the top.
cells() {
	local opts=()
	while [[ ${1-} = --* ]]; do
		case $1 in
		--cells) opts+=("$1"); shift ;;
		--table) opts+=("$1" "$2"); shift 2 ;;
		esac
	done
	(cd "$top" && python3 "$lib/judge" programs --kunit-tool "$(kunit_tool)" \
		--expect "${expect#"$top/"}" --programs "$(list "${binaries[@]##*/}")" "${opts[@]}" "$@")
}

if [ "${1-}" = --judge ]; then
	shift
	opts=()
	if [ "${1-}" = --cells ]; then
		opts+=(--cells)
		shift
	fi
	if [ "${1-}" = --expect ] && [ $# -ge 2 ]; then
		expect=$(readlink -f -- "$2")
		shift 2
	fi
	if [ $# = 0 ] || [ $(($# % 2)) != 0 ]; then
		die "usage: programs.sh [--judge [--cells] [--expect FILE] COLUMN LOG [COLUMN LOG]...]"
	fi
	boots=()
	while [ $# -gt 0 ]; do
		boots+=("$1" "$(readlink -f -- "$2")" 0)
		shift 2
	done
	judged programs cells "${opts[@]}" "${boots[@]}" || exit 1
	exit 0
fi
[ $# = 0 ] || die "usage: programs.sh [--judge [--cells] [--expect FILE] COLUMN LOG [COLUMN LOG]...]"

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

boots=()
for k in "${kernels[@]}"; do
	kernel=${k%%:*} mode=${k#*:}
	[ "$mode" = "$k" ] && mode=
	col=${mode#iopl=}
	col=${col:-$kernel}
	boot_log=$build/logs/boot-programs-$col.log
	step "programs: boot $kernel ${mode:-(no iopl=)} (log: $boot_log)"
	status=0
	"$lib/boot.sh" --initrd "$initrd" "$build/$kernel/bzImage" "$boot_log" programs ${mode:+"$mode"} || status=$?
	boots+=("$col" "$boot_log" "$status")
done

collect programs cells --table "$table" "${boots[@]}"
cat "$table" >&2
