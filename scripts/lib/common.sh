# Shared helpers for the harness scripts. Sourced, not run.
# shellcheck shell=bash
# shellcheck disable=SC2034 # the variables are for the scripts that source this file
#
# The environment knobs of the harness are read here and in boot.sh only:
#   TREE   the Debian kernel tree, 6.1 (Debian 12) or 6.12 (Debian 13);
#          the default, 6.12, is set here and nowhere else
#   KARCH  x86_64, or i386 for 32-bit kernels and selftests
#   ACCEL  QEMU's accelerator (boot.sh; tcg)
# Everything else a script needs it takes as options or arguments.

die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

step() {
	printf '==> %s\n' "$*" >&2
}

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
lib=$top/scripts/lib	# the building blocks

# judged NAME CMD [ARG...]: run CMD and print its result lines; status 1
# when one is a FAIL or CMD failed. A CMD that stops (a die) without a
# FAIL line gets one, NAME's: `judged "$(CMD)"` lost that status.
judged() {
	local name=$1 out rc=0
	shift
	out=$("$@") || rc=$?
	[ -z "$out" ] || printf '%s\n' "$out"
	if grep -q '^FAIL ' <<<"$out"; then
		return 1
	elif [ $rc != 0 ]; then
		echo "FAIL $name: stopped with status $rc without a result"
		return 1
	fi
}

# collect NAME CMD [ARG...]: judged's lines, for a suite that gathers
# its results in a file: CMD's result lines, and a FAIL line of NAME's
# when CMD stopped without one. A failure is always a FAIL line there,
# which summarize counts, so its status (judged's 1) is not the suite's.
collect() {
	judged "$@" || [ $? = 1 ]
}

# console LOG: the guest console log LOG as the judge reads it: without
# \r, each kernel line spliced into a program's line on a line of its own
# (scripts/lib/judge/console.py), for the scripts that show or mine a log
console() {
	python3 "$lib/judge" console "$1"
}

# verdict NAME LOG QEMU-STATUS [VERDICT-OPTION...]: verdict.sh's result
# lines for the boot NAME of console log LOG. A verdict.sh that fails
# without a FAIL line (it died: a usage error, awk killed) is itself a
# FAIL. Always status 0: the lines say what failed. The one way the
# suites run verdict.sh ($verdict_sh: the host tests plant a dying one).
verdict_sh=$lib/verdict.sh
verdict() {
	local out rc=0
	out=$("$verdict_sh" "${@:4}" "$2" "$1" "$3") || rc=$?
	[ -z "$out" ] || printf '%s\n' "$out"
	[ $rc = 0 ] || grep -q '^FAIL ' <<<"$out" ||
		echo "FAIL $1: verdict.sh exited $rc on $2 without a FAIL line"
}

# passed NAME LOG QEMU-STATUS [VERDICT-OPTION...]: status 0 when verdict
# finds no FAIL in the boot (its lines are not printed)
passed() {
	! verdict "$@" | grep '^FAIL ' >/dev/null
}

all_trees=(6.1 6.12)
tree_version=${TREE:-6.12}
case " ${all_trees[*]} " in
*" $tree_version "*) ;;
*) die "TREE=$tree_version: the trees are ${all_trees[*]}" ;;
esac
# Each tree has its own series (patches/$TREE) and build directory.
build=$top/build/$tree_version
patches=$top/patches/$tree_version
source_package=linux-source-$tree_version
tarball=/usr/src/$source_package.tar.xz
# KARCH=i386 builds and boots 32-bit kernels and selftests; the kernels'
# names then end in -i386.
karch=${KARCH:-x86_64}
case $karch in
x86_64) ksuffix= ;;
i386) ksuffix=-i386 ;;
*) die "KARCH=$karch: the architectures are x86_64 and i386" ;;
esac
guest=$build/guest$ksuffix	# the guest's root and initramfs (lib/guest.sh)
# Our own test programs beside the tree's selftests (guest/), in the
# order the boots run them, and the selftests built into the guest from
# the tree's tools/testing/selftests/x86
ours=(ioperm_bitmap)
selftests=(iopl ioperm)
# The tree's ioperm selftest as a VM runs it: with its wide sweep of
# must-fault probes (--sweep), which are not inert on real hardware
ioperm_vm=ioperm:--sweep
# ioperm_bitmap's CPU hotplug runs only when asked for; the boots that
# run it ask for three rounds. Without that, and its allocation failure
# cases without fault injection of sleeping allocations, it skips by
# design.
hotplug_opt_in=IOPORT_HOTPLUG_ROUNDS=3
nomem_skips='/ioperm_bitmap/global\.nomem_[a-z_]+$'
hotplug_skip='/ioperm_bitmap/cpu\.hotplug$'
default_skips="$nomem_skips|$hotplug_skip"
# On a kernel built without X86_IOPL_IOPERM the programs and every case of
# ioperm_bitmap skip.
no_ioperm_skips='/(demo|iopl|ioperm|ioperm_bitmap(/.*)?)$'
# With iopl=off these test cases skip by design; any other SKIP fails.
off_skips='/ioperm_bitmap/(global\.(iopl_levels|iopl_privilege|iopl_restores_ioperm_bitmap|fork_inherits_iopl|threads_iopl_per_thread|execve_keeps_iopl)|pair\.iopl_and_(bitmap|none)\.switch_back_and_forth)$'
# guest/init.c's word that sets failslab and fail_page_alloc to fail
# sleeping allocations too, for ioperm_bitmap's nomem_* cases
fault_injection=faultinject=sleeping
# The test config (32-bit on i386), and the patched kernel's: the test
# config plus the KUnit suite; the sanitizer kernel's adds debug.config.
base_config=("$top/config/test.config")
[ "$karch" = x86_64 ] || base_config+=("$top/config/i386.config")
patched_config=("${base_config[@]}" "$top/config/kunit.config")
debug_config=("${patched_config[@]}" "$top/config/debug.config")
[ ! -f "$top/config/debug-$tree_version.config" ] ||
	debug_config+=("$top/config/debug-$tree_version.config")
# The KUnit suite of the series (config/kunit.config) and its number of
# cases, the same in both trees; a boot of a patched kernel must report
# exactly these (verdict.sh --expect-kunit). Change the number when a
# KUNIT_CASE is added or removed in patches/*/*-Test-the-open-block-*.
kunit_suites=x86_ioport_blocks:12
default_cpus=4	# CPUs per boot (boot.sh --smp, verdict.sh --cpus)

# series_patches DIR: the patches that DIR/series lists (DIR: $patches
# for the tree's own), one path per line, in order; blank and "#" lines
# skipped. The one reader of a series: a `while read` loop dropped a last
# line without a newline, which git am still applied.
series_patches() {
	local from=$1
	[ -f "$from/series" ] || return 0
	awk -v dir="$from" '!/^[[:space:]]*(#|$)/ { print dir "/" $1 }' "$from/series"
}

# patches_sum: the contents of the tree's series (patches/$TREE), commit
# messages and notes included; line 2 of build/$TREE/tree.applied, so
# that tree.sh knows whether the tree holds what patches/ says
patches_sum() {
	series_patches "$patches" | xargs -d '\n' cat | sha256sum | cut -d' ' -f1
}

# series_sets DIR: the sets of DIR/sets, one line each: NAME, the sets it
# applies on (comma-separated, "-" for none), FIRST and LAST, its patches'
# numbers in DIR/series. The one reader of a sets file; it fails on a
# set that does not follow the previous one or on a patch left out.
series_sets() {
	local from=$1 n
	n=$(series_patches "$from" | wc -l)
	[ -f "$from/sets" ] || die "no ${from#"$top/"}/sets"
	awk -v n="$n" -v file="${from#"$top/"}/sets" '
		!/^[[:space:]]*(#|$)/ {
			if (NF != 3 || split($3, r, "-") != 2 || r[1] != next_first + 1 || r[2] < r[1]) {
				printf "error: %s: line %d: not NAME PREREQS FIRST-LAST after patch %d\n", file, FNR, next_first > "/dev/stderr"
				bad = 1; exit 1
			}
			known[$1] = 1
			m = split($2, pre, ",")
			for (i = 1; i <= m; i++) if ($2 != "-" && !(pre[i] in known)) {
				printf "error: %s: set %s needs %s, which no set before it is\n", file, $1, pre[i] > "/dev/stderr"
				bad = 1; exit 1
			}
			print $1, $2, r[1], r[2]
			next_first = r[2]
		}
		END { if (!bad && next_first != n) {
			printf "error: %s: the sets end at patch %d, series has %d\n", file, next_first, n > "/dev/stderr"
			exit 1 } }' "$from/sets"
}

# list A B...: comma-separated, as the guest's run= wants it
list() { (IFS=,; echo "$*"); }

# kbuild_env: the fixed KBUILD_BUILD_* variables of every kernel build,
# and ccache with paths relative to build/$TREE; sets kmake to the make
# command line for SRCDIR into OBJ: kbuild_env SRCDIR OBJ [ARCH]
kbuild_env() {
	export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026'
	export KBUILD_BUILD_USER=iopl KBUILD_BUILD_HOST=qemu
	kmake=(make -C "$1" O="$2" ARCH="${3:-$karch}" -j"$(nproc)")
	if command -v ccache >/dev/null; then
		kmake+=(CC="ccache gcc")
		export CCACHE_BASEDIR=$build CCACHE_NOHASHDIR=1
	fi
}

# kunit_tool: the directory of tree $TREE's tools/testing/kunit, whose
# kunit_parser.py the judge imports for the KTAP layer: build/$TREE/tree's
# or build/$TREE/src's, else the directory taken once from Debian's
# linux-source tarball into build/$TREE/kunit-tool (a fresh clone's host
# tests, which build nothing)
kunit_tool() {
	local d tmp
	for d in "$build/tree" "$build/src" "$build/kunit-tool"; do
		if [ -f "$d/tools/testing/kunit/kunit_parser.py" ]; then
			echo "$d/tools/testing/kunit"
			return
		fi
	done
	[ -f "$tarball" ] || die "no $tarball, whose tools/testing/kunit the judge needs (make deps installs $source_package)"
	mkdir -p "$build"
	tmp=$(mktemp -d "$build/kunit-tool.XXXXXX")
	tar -xJf "$tarball" -C "$tmp" --strip-components=1 --wildcards '*/tools/testing/kunit/*.py' ||
		{ rm -rf "$tmp"; die "cannot take tools/testing/kunit out of $tarball"; }
	mv -T "$tmp" "$build/kunit-tool" 2>/dev/null || rm -rf "$tmp"
	echo "$build/kunit-tool/tools/testing/kunit"
}

# summarize RESULTS [PREFIX]: the summary line of a file of
# PASS/FAIL/SKIP/CHANGED lines, PREFIX in front; fails when anything
# failed or nothing passed.
summarize() {
	local pass fail skip changed summary
	pass=$(grep -c '^PASS ' "$1" || true)
	fail=$(grep -c '^FAIL ' "$1" || true)
	skip=$(grep -c '^SKIP ' "$1" || true)
	changed=$(grep -c '^CHANGED ' "$1" || true)
	summary="${2:-}$pass passed, $fail failed"
	[ "$skip" = 0 ] || summary+=", $skip skipped"
	[ "$changed" = 0 ] || summary+=", $changed changed by the series"
	echo "$summary"
	[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
}
