#!/bin/bash
# make x86-selftests: the tree's whole tools/testing/selftests/x86 (Debian's
# unpatched source, so the same binaries on both kernels) on the stock and
# the patched kernel, 4 CPUs, default mode; 64-bit binaries on the x86_64
# kernels, 32-bit ones on the i386 kernels (KARCH=i386). Results per test as
# verdict.sh's lines in build/$TREE/logs/x86-selftests-{stock,patched}$ksuffix.txt.
# Fails when the patched kernel does worse than stock (the rules are the
# judge's, scripts/lib/judge/compare.py); prints every difference either
# way.
#   x86-selftests.sh --compare STOCK_LOG STOCK_STATUS PATCHED_LOG PATCHED_STATUS
# only compares two recorded boots (console logs and QEMU's statuses) and
# exits 1 on a FAIL; the host tests feed it crafted logs.
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
. "$(dirname "$0")/lib/common.sh"
# shellcheck source=scripts/lib/initramfs.sh
. "$lib/initramfs.sh"

# compare NAME STOCK_LOG STOCK_STATUS PATCHED_LOG PATCHED_STATUS: the
# comparison's result lines, sorted by name, each name under NAME (the
# judge's: scripts/lib/judge/compare.py says the rules)
compare() {
	python3 "$lib/judge" compare --kunit-tool "$(kunit_tool)" --cpus "$default_cpus" "$@"
}

if [ "${1-}" = --compare ]; then
	[ $# = 5 ] || die "usage: x86-selftests.sh --compare STOCK_LOG STOCK_STATUS PATCHED_LOG PATCHED_STATUS"
	judged x86-selftests compare x86-selftests "$2" "$3" "$4" "$5" || exit 1
	exit 0
fi
[ $# = 0 ] || die "usage: x86-selftests.sh [--compare STOCK_LOG STOCK_STATUS PATCHED_LOG PATCHED_STATUS]"

bits=64
[ "$karch" = x86_64 ] || bits=32
work=$build/x86-selftests$ksuffix
src=$build/src/tools/testing/selftests/x86
logs=$build/logs
mkdir -p "$work" "$logs"

"$lib/tree.sh"
"$lib/kbuild.sh" stock
"$lib/kbuild.sh" patched
"$lib/guest.sh"

# The UAPI headers of the tree, installed outside it (an O= build needs a
# clean source tree), then every target of the directory, statically.
step "x86-selftests: headers and ${bits}-bit selftests of ${src#"$top/"} (log: $logs/x86-selftests-build$ksuffix.log)"
{
	mkdir -p "$work/bin" &&
		make -C "$build/src" O="$work/headers" ARCH="$karch" headers &&
		make -k -C "$src" OUTPUT="$work/bin" KHDR_INCLUDES="-isystem $work/headers/usr/include" \
			EXTRA_CFLAGS=-static "all_$bits"
} >"$logs/x86-selftests-build$ksuffix.log" 2>&1 || true
mapfile -t built < <(shopt -s nullglob; cd "$work/bin" 2>/dev/null && printf '%s\n' *_"$bits" | sed '/^$/d' | sort)
[ ${#built[@]} -gt 0 ] || die "x86-selftests: no ${bits}-bit selftest built, see $logs/x86-selftests-build$ksuffix.log"
# What the Makefile lists but could not build here
mapfile -t wanted < <(make -s -C "$src" -f - "print_$bits" <<<"include Makefile
print_32:
	@echo \$(TARGETS_C_32BIT_ALL:%=%_32) | tr ' ' '\\n'
print_64:
	@echo \$(TARGETS_C_64BIT_ALL:%=%_64) | tr ' ' '\\n'" 2>/dev/null | sort -u)
missing=$(comm -23 <(printf '%s\n' "${wanted[@]}") <(printf '%s\n' "${built[@]}") | paste -sd ' ')
step "x86-selftests: ${#built[@]} built${missing:+, not built here: $missing}"

root=$work/root
initramfs_root "$root"
cp "${built[@]/#/$work/bin/}" "$root/bin/"
initramfs_pack "$root" "$work/initramfs.cpio"
runlist=$(IFS=,; echo "${built[*]}")

declare -A status
for k in stock patched; do
	log=$logs/boot-x86-selftests-$k$ksuffix.log
	step "x86-selftests: boot $k$ksuffix with ${#built[@]} tests (log: $log)"
	status[$k]=0
	"$lib/boot.sh" --initrd "$work/initramfs.cpio" --prog-timeout 120 \
		"$build/$k$ksuffix/bzImage" "$log" "$runlist" || status[$k]=$?
	verdict x86 "$log" "${status[$k]}" --allow-skip . >"$logs/x86-selftests-$k$ksuffix.txt"
done

compare "x86-selftests$ksuffix" "$logs/boot-x86-selftests-stock$ksuffix.log" "${status[stock]}" \
	"$logs/boot-x86-selftests-patched$ksuffix.log" "${status[patched]}" |
	tee "$logs/x86-selftests-compare$ksuffix.txt"
summarize "$logs/x86-selftests-compare$ksuffix.txt"
