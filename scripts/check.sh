#!/bin/bash
# The boot matrix of make check on tree $TREE and KARCH: build the kernel
# and the guest, boot once per iopl= mode, print every result and one
# summary line. The host-only checks are scripts/host-checks.sh.
# check.sh [patched|stock|debug] [--hotplug] [--as-is] [--boots NAME,...]
#   patched: the series, booted once per iopl= mode, plus a kernel built
#            without X86_IOPL_IOPERM (default)
#   stock:   Debian's kernel unchanged; what the series changes is CHANGED
#   debug:   the series on the sanitizer config (config/debug.config), every
#            mode, fault injection and a kmemleak scan at the end
#   --hotplug      also the CPU hotplug boot at scale (patched)
#   --as-is        the build tree (build/$TREE/tree) as it stands: no
#                  tree.sh, which stops on commits not exported to
#                  patches/, and uncommitted changes built too (kbuild.sh
#                  --as-is); the output says so
#   --boots LIST   only these boots (comma-separated): default, strict,
#                  compat, off, bogus, no-ioperm (the kernel without
#                  X86_IOPL_IOPERM), hotplug
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
. "$(dirname "$0")/lib/common.sh"

usage="usage: check.sh [patched|stock|debug] [--hotplug] [--as-is] [--boots NAME,...]"
all_boots=(default strict compat off bogus no-ioperm hotplug)
kind=patched hotplug=0 as_is=() boots=
while [ $# -gt 0 ]; do
	case $1 in
	patched | stock | debug) kind=$1 ;;
	--hotplug) hotplug=1 ;;
	--as-is) as_is=(--as-is) ;;
	--boots)
		[ $# -ge 2 ] || die "$usage"
		boots=$2
		shift ;;
	*) die "$usage" ;;
	esac
	shift
done
# picked NAME: whether the boot NAME runs (all of them without --boots)
picked() {
	[ -z "$boots" ] || [[ ",$boots," = *",$1,"* ]]
}
for b in ${boots//,/ }; do
	[[ " ${all_boots[*]} " = *" $b "* ]] || die "check.sh: no boot $b; the boots are ${all_boots[*]}"
done
if [ -n "$boots" ]; then	# they say whether hotplug runs, not --hotplug
	hotplug=0
	! picked hotplug || hotplug=1
fi
# The kernel without X86_IOPL_IOPERM: an x86_64 test kernel, when picked
no_ioperm=0
[ "$karch" != x86_64 ] || [ "$kind" != patched ] || ! picked no-ioperm || no_ioperm=1
boot_opts=()	# boot.sh options for every boot
extra=()	# kernel command-line words for every boot
results=$build/logs/results-$kind$ksuffix.txt
mkdir -p "$build/logs"
: >"$results"

if [ ${#as_is[@]} = 0 ]; then
	"$lib/tree.sh"
else
	# Said in the output, which is the results file too: these results
	# are of no exported series
	echo "check: ${build#"$top/"}/tree as it stands, at $(git -C "$build/tree" describe --always --dirty 2>/dev/null || echo "no commit"), not ${patches#"$top/"} (--as-is)" |
		tee -a "$results"
	step "check: --as-is: no tree.sh, uncommitted changes built"
fi
"$lib/kbuild.sh" "${as_is[@]}" "$kind"
# A kernel without ioperm()/iopl() at all, booted once below.
[ $no_ioperm = 0 ] || "$lib/kbuild.sh" "${as_is[@]}" patched-no-ioperm "$build/tree" \
	"$top/config/test.config" "$top/config/no-ioperm.config"
if [ "$kind" = debug ]; then
	# KASAN, lockdep and friends under TCG are slow: more memory and time.
	boot_opts=(--mem 1G --prog-timeout 1800 --timeout 3600)
	extra=("$fault_injection")
fi
"$lib/guest.sh" "$build/tree" "${selftests[@]}"

kernel=$kind$ksuffix
[ "$kind" = debug ] && kernel=patched-debug$ksuffix

# boot NAME RUNLIST [VERDICT-OPTION...] [-- CMDLINE...]: one boot of
# build/$TREE/$kernel, its verdict (common.sh's verdict) into $results.
boot() {
	local name=$kernel/$1 runlist=$2 log status=0 opts=()
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	[ $# = 0 ] || shift
	log=$build/logs/boot-${name//\//-}.log
	step "check: boot $name (log: $log)"
	"$lib/boot.sh" "${boot_opts[@]}" "$build/$kernel/bzImage" "$log" "$runlist" "$@" "${extra[@]}" ||
		status=$?
	verdict "$name" "$log" "$status" "${opts[@]}"
}

# Without fault injection built in, the nomem_* cases skip by design.
[ "$kind" = debug ] && nomem_skips='^$'
# The debug boot ends with a kmemleak scan.
last=()
[ "$kind" = debug ] && last=(kmemleak)

{
if [ "$kind" = stock ]; then
	# Stock behaves like compat and knows no iopl=; nothing of the
	# series may fail but what tests/stock-changes lists for it.
	! picked default || boot default "$(list demo iopl "$ioperm_vm" "${ours[@]}" ioport_fuzz)" \
		--allow-skip "$nomem_skips" --changed "stock/default" -- "$hotplug_opt_in"
else
	# The KUnit suite (config/kunit.config) runs at boot; all its cases'
	# results must be in this boot's log.
	! picked default || boot default "$(list demo iopl "$ioperm_vm" "${ours[@]}" ioport_fuzz "${last[@]}")" \
		--expect-kunit "$kunit_suites" --allow-skip "$nomem_skips" -- "$hotplug_opt_in"
	# Skipping CLI/STI as a NOP would betray a broken strict mode; the
	# kernel's one line about demo is the SIGSEGV of its child that
	# executes CLI without a handler, naming strict mode (.../report).
	! picked strict || boot strict "$(list demo iopl ioperm_bitmap ioport_fuzz)" \
		--forbid "pretending it.s a NOP" --strict-kill demo --allow-skip "$nomem_skips" -- \
		iopl=strict "$hotplug_opt_in"
	! picked compat || boot compat "$(list demo iopl ioperm_bitmap)" \
		--allow-skip "$nomem_skips|$hotplug_skip" -- iopl=compat
	! picked off || boot off "$(list demo iopl "$ioperm_vm" "${ours[@]}" ioport_fuzz "${last[@]}")" \
		--allow-skip "$off_skips|$nomem_skips" -- iopl=off "$hotplug_opt_in"
	# An unknown word leaves the default, compat.
	! picked bogus || boot bogus "$(list demo iopl)" -- iopl=bogus
	# Without X86_IOPL_IOPERM every test skips; none may fail.
	[ $no_ioperm = 0 ] || kernel=patched-no-ioperm boot default \
		"$(list demo iopl "$ioperm_vm" "${ours[@]}")" --allow-skip "$no_ioperm_skips"
fi

# CPU hotplug at scale: CPUs 1-3 offline and online 34 times each, tasks
# with bitmaps, iopl(3) and none leaving their TSS state there before and
# checking their ports there after: at least 100 cycles (.../cycles).
if [ $hotplug = 1 ] && [ "$kind" = patched ]; then
	boot hotplug ioperm_bitmap --allow-skip "$nomem_skips" --hotplug-cycles 100 -- \
		IOPORT_HOTPLUG_ROUNDS=34
fi
} | tee -a "$results"

summarize "$results"
