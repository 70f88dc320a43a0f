#!/bin/bash
# The boot matrix of make check on tree $TREE and KARCH: build the kernel
# and the guest, boot once per iopl= mode, print every result and one
# summary line. The host-only checks are scripts/host-checks.sh.
# check.sh [patched|stock|debug] [--no-variants] [--hotplug]
#   patched: the series, booted once per iopl= mode, plus a kernel built
#            without X86_IOPL_IOPERM (default)
#   stock:   Debian's kernel unchanged; what the series changes is CHANGED
#   debug:   the series on the sanitizer config (config/debug.config), every
#            mode, fault injection and a kmemleak scan at the end
#   --no-variants  patched on x86_64 without the kernel without
#                  X86_IOPL_IOPERM
#   --hotplug      also the CPU hotplug boot at scale (patched)
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

kind=patched variants=1 hotplug=0
for arg; do
	case $arg in
	patched | stock | debug) kind=$arg ;;
	--no-variants) variants=0 ;;
	--hotplug) hotplug=1 ;;
	*) die "usage: check.sh [patched|stock|debug] [--no-variants] [--hotplug]" ;;
	esac
done
# The kernel without X86_IOPL_IOPERM is an x86_64 kernel
[ "$karch" = x86_64 ] && [ "$kind" = patched ] || variants=0
[ "$karch" != x86_64 ] || [ "$kind" != patched ] || [ $variants = 1 ] ||
	step "check: tree $tree_version without the kernel without X86_IOPL_IOPERM"
boot_opts=()	# boot.sh options for every boot
extra=()	# kernel command-line words for every boot
results=$build/logs/results-$kind$ksuffix.txt
mkdir -p "$build/logs"
: >"$results"

"$lib/tree.sh"
"$lib/kbuild.sh" "$kind"
# A kernel without ioperm()/iopl() at all, booted once below.
[ $variants = 0 ] || "$lib/kbuild.sh" patched-no-ioperm "$build/tree" \
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

# strict_report NAME LOG: demo's child without a SIGSEGV handler is
# killed by CLI in the strict boot LOG; the kernel logs exactly one line
# about demo, the report of that SIGSEGV: it names strict mode as the
# cause and no way to weaken it.
strict_report() {
	local lines
	lines=$(console "$2" | grep 'demo\[[0-9]*\]' || true)
	if [ "$(grep -c . <<<"$lines")" = 1 ] &&
		grep -q 'general protection fault on CLI/STI with iopl(3) in iopl=strict mode ip:' <<<"$lines" &&
		! grep -q compat <<<"$lines"; then
		echo "PASS $1: one line per kill, the SIGSEGV of CLI under iopl(3) names strict mode"
	else
		echo "FAIL $1: want one kernel line about demo, its SIGSEGV report naming strict mode; got $(grep -c . <<<"$lines")"
	fi
}

# Without fault injection built in, the nomem_* cases skip by design.
[ "$kind" = debug ] && nomem_skips='^$'
# The debug boot ends with a kmemleak scan.
last=()
[ "$kind" = debug ] && last=(kmemleak)

{
if [ "$kind" = stock ]; then
	# Stock behaves like compat and knows no iopl=. What it lacks of
	# the series is reported as CHANGED, not as a failure.
	boot default "$(list demo iopl ioperm "${ours[@]}" ioport_fuzz)" \
		--allow-skip "$nomem_skips" -- "$hotplug_opt_in"
else
	# The KUnit suite (config/kunit.config) runs at boot; all its cases'
	# results must be in this boot's log.
	boot default "$(list demo iopl ioperm "${ours[@]}" ioport_fuzz "${last[@]}")" \
		--expect-kunit "$kunit_suites" --allow-skip "$nomem_skips" -- "$hotplug_opt_in"
	# Skipping CLI/STI as a NOP would betray a broken strict mode.
	boot strict "$(list demo iopl ioperm_bitmap ioport_fuzz)" \
		--forbid "pretending it.s a NOP" --allow-skip "$nomem_skips" -- iopl=strict "$hotplug_opt_in"
	strict_report "$kernel/strict/report" "$build/logs/boot-$kernel-strict.log"
	boot compat "$(list demo iopl ioperm_bitmap)" --allow-skip "$nomem_skips|$hotplug_skip" -- iopl=compat
	boot off "$(list demo iopl ioperm "${ours[@]}" ioport_fuzz "${last[@]}")" \
		--allow-skip "$off_skips|$nomem_skips" -- iopl=off "$hotplug_opt_in"
	# An unknown word leaves the default, compat.
	boot bogus "$(list demo iopl)" -- iopl=bogus
	# Without X86_IOPL_IOPERM every test skips; none may fail.
	[ $variants = 0 ] || kernel=patched-no-ioperm boot default \
		"$(list demo iopl ioperm "${ours[@]}")" --allow-skip "$no_ioperm_skips"
fi

# CPU hotplug at scale: CPUs 1-3 offline and online 34 times each, tasks
# with bitmaps, iopl(3) and none leaving their TSS state there before and
# checking their ports there after.
if [ $hotplug = 1 ] && [ "$kind" = patched ]; then
	boot hotplug ioperm_bitmap --allow-skip "$nomem_skips" -- IOPORT_HOTPLUG_ROUNDS=34
	n=$(console "$build/logs/boot-$kernel-hotplug.log" |
		sed -n 's/.*# hotplug cycles: \([0-9]*\).*/\1/p' | tail -n 1)
	if [ "${n:-0}" -ge 100 ]; then
		echo "PASS $kernel/hotplug/cycles: $n offline/online cycles"
	else
		echo "FAIL $kernel/hotplug/cycles: ${n:-no} cycles reported, expected at least 100"
	fi
fi
} | tee -a "$results"

summarize "$results"
