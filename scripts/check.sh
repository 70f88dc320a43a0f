#!/bin/bash
# make check: build what is needed, run the host tests of the harness, boot
# the kernels, print every result and one summary line.
# check.sh [patched|stock|debug]   (default: patched), on tree $TREE; with
# KARCH=i386 the 32-bit kernel and selftests, boots only (the host tests,
# checkpatch, docs, build variants and Debian's amd64 programs are the
# x86_64 run's).
#   patched: the series, booted once per iopl= mode, plus build tests of
#            the non-default Kconfig choices
#   stock:   Debian's kernel unchanged; what the series changes is CHANGED
#   debug:   the series on the sanitizer config (config/debug.config), every
#            mode, fault injection and a kmemleak scan at the end
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

kind=${1:-patched}
extra=()	# kernel command-line words for every boot
results=$build/logs/results-$kind$ksuffix.txt
native=1	# the x86_64 run, which also does the host-side checks
[ -z "$ksuffix" ] || native=0
# BRIEF_TREES (make check without TREE=): trees run without the build
# variants, so that both trees fit in CI's time.
variants=$native
case " ${BRIEF_TREES:-} " in *" $tree_version "*) variants=0 ;; esac
[ $variants = $native ] ||
	step "check: tree $tree_version without the build variants (make check TREE=$tree_version runs them)"
mkdir -p "$build/logs"
: >"$results"

"$lib/tree.sh"
case $kind in
patched)
	"$lib/kbuild.sh" "patched$ksuffix" "$build/tree" "${patched_config[@]}"
	# Build tests of the non-default Kconfig choices, booted once below,
	# and of a kernel without ioperm()/iopl() at all (build only).
	[ $variants = 0 ] || for m in mode-strict mode-off no-ioperm; do
		"$lib/kbuild.sh" "patched-${m#mode-}" "$build/tree" \
			"$top/config/test.config" "$top/config/$m.config"
	done
	;;
stock) "$lib/kbuild.sh" "stock$ksuffix" "$build/src" "${base_config[@]}" ;;
debug)
	debug_config=("$top/config/debug.config")
	[ ! -f "$top/config/debug-$tree_version.config" ] ||
		debug_config+=("$top/config/debug-$tree_version.config")
	"$lib/kbuild.sh" "patched-debug$ksuffix" "$build/tree" \
		"${patched_config[@]}" "${debug_config[@]}"
	# KASAN, lockdep and friends under TCG are slow: more memory and time.
	# Full port scans are too slow there; scan every 13th port and the edges.
	export MEM=1G PROG_TIMEOUT=1800 BOOT_TIMEOUT=3600
	extra=(IOPORT_SCAN_STEP=13)
	;;
*) die "check: unknown kernel kind $kind (patched, stock or debug)" ;;
esac
"$lib/guest.sh" "$build/tree" "${selftests[@]}"

if [ $native = 1 ]; then
	step "check: host tests of the harness"
	"$top/tests/harness/run.sh" | tee -a "$results" || true
fi
if [ "$kind" = patched ] && [ $native = 1 ]; then
	step "check: checkpatch --strict on ${patches#"$top/"}/"
	if "$top/scripts/checkpatch.sh" >"$build/logs/checkpatch.log" 2>&1; then
		echo "PASS host/checkpatch"
	else
		grep '^FAIL ' "$build/logs/checkpatch.log" | sed 's/^FAIL */FAIL host\/checkpatch: /'
	fi | tee -a "$results"
fi

if [ "$kind" = patched ] && [ $native = 1 ]; then
	"$top/scripts/docs.sh" | tee -a "$results"
	# Once, in the 6.12 run: the two series against each other.
	[ "$tree_version" != 6.12 ] || "$top/scripts/parity.sh" | tee -a "$results"
fi

# boot NAME RUNLIST [CMDLINE...]: one boot of the $kind kernel
boot() {
	KERNEL=$kernel boot_kernel "$@"
}

# boot_kernel NAME RUNLIST [CMDLINE...]: one boot of build/$KERNEL/bzImage
boot_kernel() {
	local name=$KERNEL/$1 runlist=$2 log status=0
	shift 2
	log=$build/logs/boot-${name//\//-}.log
	step "check: boot $name (log: $log)"
	"$lib/boot.sh" "$build/$KERNEL/bzImage" "$log" "$runlist" "$@" "${extra[@]}" || status=$?
	verdict "$log" "$name" "$status" | tee -a "$results"
}

# FAIL lines whose name matches the regex $CHANGED become CHANGED lines.
relabel_changed() {
	local line name
	while IFS= read -r line; do
		name=${line#FAIL }
		name=${name%%: *}
		if [[ $line == "FAIL "* && $name =~ $CHANGED ]]; then
			line="CHANGED $name: behaviour the series changes"
		fi
		printf '%s\n' "$line"
	done
}

# verdict LOG NAME STATUS: verdict.sh's lines into $results; a verdict.sh
# that fails without saying what failed is itself a failure.
verdict() {
	local out rc=0
	out=$("$lib/verdict.sh" "$@") || rc=$?
	if [ -n "${CHANGED:-}" ]; then
		out=$(relabel_changed <<<"$out")
		grep -q '^FAIL ' <<<"$out" || rc=0
	fi
	[ -z "$out" ] || printf '%s\n' "$out"
	[ $rc = 0 ] || grep -q '^FAIL ' <<<"$out" ||
		echo "FAIL $2: verdict.sh exited $rc on $1"
}

# list A B...: comma-separated, as run= wants it
list() { (IFS=,; echo "$*"); }

kernel=$kind$ksuffix
[ "$kind" = debug ] && kernel=patched-debug$ksuffix

# The Kconfig default mode, for the boot without iopl= (the tests are told
# what to expect; they never accept whatever they see).
default_mode=$(sed -n 's/^CONFIG_X86_IOPL_MODE_\([A-Z]*\)=y$/\1/p' "$build/$kernel/.config" | tr A-Z a-z)
ours=(iopl_mode ioport_access ioport_inherit ioport_switch ioport_stress ioport_smp ioport_nomem)
# Without fault injection built in, ioport_nomem skips by design.
nomem_skips='/ioport_nomem/'
[ "$kind" = debug ] && nomem_skips='^$'
# The debug boot ends with a kmemleak scan.
last=()
[ "$kind" = debug ] && last=(kmemleak)
# With iopl=off these test cases skip by design; any other SKIP fails.
off_skips='[/.](iopl_levels|iopl_privilege|iopl_restores_ioperm_bitmap|fork_inherits_iopl|threads_iopl_per_thread|execve_keeps_iopl|pair\.iopl_and_(bitmap|none)\.switch_back_and_forth|each_cpu_invalidates_its_own_tss_iopl)$'

if [ "$kind" = stock ]; then
	# Stock behaves like compat and knows no iopl=. What it lacks of
	# the series is reported as CHANGED, not as a failure.
	CHANGED='/iopl_mode/global\.boot_line_states_mode$' ALLOW_SKIP=$nomem_skips \
		boot default "$(list demo iopl ioperm "${ours[@]}" ioport_fuzz)" IOPL_EXPECT_MODE=compat
else
	[ -n "$default_mode" ] || die "check: no CONFIG_X86_IOPL_MODE_* in $build/$kernel/.config"
	# The KUnit suite (config/kunit.config) runs at boot; its results
	# must be in this boot's log.
	EXPECT_KUNIT=1 ALLOW_SKIP=$nomem_skips \
		boot default "$(list demo iopl ioperm "${ours[@]}" ioport_fuzz "${last[@]}")" IOPL_EXPECT_MODE="$default_mode"
	# iopl_mode first: it checks the rate-limited log line of a CLI kill,
	# and skipping CLI/STI as a NOP would betray a broken strict mode.
	FORBID="pretending it.s a NOP" boot strict \
		"$(list iopl_mode demo iopl ioport_access ioport_inherit ioport_switch ioport_smp ioport_fuzz)" iopl=strict
	boot compat "$(list demo iopl iopl_mode ioport_access)" iopl=compat
	# The upstream iopl test "passes" on ENOSYS while testing nothing.
	ALLOW_SKIP="$off_skips|$nomem_skips" boot off "$(list demo ioperm "${ours[@]}" ioport_fuzz "${last[@]}")" iopl=off
	boot bogus "$(list iopl_mode)" iopl=bogus IOPL_EXPECT_MODE="$default_mode"
	if [ "$kind" = patched ] && [ $variants = 1 ]; then
		for m in strict off; do
			KERNEL=patched-$m boot_kernel default iopl_mode IOPL_EXPECT_MODE=$m
		done
	fi
fi

# Once, in the 6.12 run (the selftests are the same in both series): run
# without IOPORT_SCAN=full, they let reads through to 0x80 and 0xed only;
# and CPU hotplug at scale, CPUs 1-3 offline and online 34 times each
# while tasks with bitmaps and iopl(3) probe on every CPU.
if [ "$kind" = patched ] && [ $native = 1 ] && [ "$tree_version" = 6.12 ]; then
	"$top/scripts/porttrace.sh" | tee -a "$results"
	boot hotplug ioport_smp IOPL_EXPECT_MODE="$default_mode" IOPORT_HOTPLUG_ROUNDS=34
	n=$(tr -d '\r' <"$build/logs/boot-patched-hotplug.log" |
		sed -n 's/.*# hotplug cycles: \([0-9]*\).*/\1/p' | tail -n 1)
	if [ "${n:-0}" -ge 100 ]; then
		echo "PASS patched/hotplug/cycles: $n offline/online cycles"
	else
		echo "FAIL patched/hotplug/cycles: ${n:-no} cycles reported, expected at least 100"
	fi | tee -a "$results"
fi

# Debian's own port-I/O programs on the stock and the patched kernel.
if [ "$kind" = patched ] && [ $native = 1 ]; then
	"$top/scripts/programs.sh" | tee -a "$results"
fi

summarize "$results"
