# Shared helpers for the harness scripts. Sourced, not run.
# shellcheck shell=bash
# shellcheck disable=SC2034 # the variables are for the scripts that source this file

die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

step() {
	printf '==> %s\n' "$*" >&2
}

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
lib=$top/scripts/lib	# the building blocks
# The Debian kernel tree: TREE=6.1 (Debian 12) or TREE=6.12 (Debian 13).
# Each has its own series (patches/$TREE) and build directory.
tree_version=${TREE:-6.1}
case $tree_version in
6.1 | 6.12) ;;
*) die "TREE=$tree_version: the trees are 6.1 and 6.12" ;;
esac
build=$top/build/$tree_version
patches=$top/patches/$tree_version
source_package=linux-source-$tree_version
tarball=${TARBALL:-/usr/src/$source_package.tar.xz}
# KARCH=i386 builds and boots 32-bit kernels and selftests; the kernels'
# names then end in -i386.
karch=${KARCH:-x86_64}
case $karch in
x86_64) ksuffix= ;;
i386) ksuffix=-i386 ;;
*) die "KARCH=$karch: the architectures are x86_64 and i386" ;;
esac
guest=${GUEST_DIR:-$build/guest$ksuffix}	# the guest's root and initramfs
# The selftests built into the guest, from tools/testing/selftests/x86
selftests=(iopl ioperm iopl_mode ioport_access ioport_inherit ioport_switch ioport_stress ioport_nomem ioport_smp)
# The test config (32-bit on i386), and the patched kernel's: the test
# config plus the KUnit suite.
base_config=("$top/config/test.config")
[ "$karch" = x86_64 ] || base_config+=("$top/config/i386.config")
patched_config=("${base_config[@]}" "$top/config/kunit.config")
cpus=${SMP:-4}	# CPUs per boot; scripts/boot.sh and scripts/verdict.sh

# summarize RESULTS: the summary line of a file of PASS/FAIL/SKIP/CHANGED
# lines; fails when anything failed or nothing passed.
summarize() {
	local pass fail skip changed summary
	pass=$(grep -c '^PASS ' "$1" || true)
	fail=$(grep -c '^FAIL ' "$1" || true)
	skip=$(grep -c '^SKIP ' "$1" || true)
	changed=$(grep -c '^CHANGED ' "$1" || true)
	summary="$pass passed, $fail failed"
	[ "$skip" = 0 ] || summary+=", $skip skipped"
	[ "$changed" = 0 ] || summary+=", $changed changed by the series"
	echo "$summary"
	[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
}
