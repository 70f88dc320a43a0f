#!/bin/bash
# make x86-selftests: the tree's whole tools/testing/selftests/x86 (Debian's
# unpatched source, so the same binaries on both kernels) on the stock and
# the patched kernel, 4 CPUs, default mode; 64-bit binaries on the x86_64
# kernels, 32-bit ones on the i386 kernels (KARCH=i386). Results per test as
# KTAP lines in build/$TREE/logs/x86-selftests-{stock,patched}$ksuffix.txt.
# Fails when a test that passes on stock fails on patched; prints every
# difference either way.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
. "$lib/initramfs.sh"

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
mapfile -t built < <(cd "$work/bin" 2>/dev/null && ls -- *_"$bits" 2>/dev/null | sort)
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

for k in stock patched; do
	log=$logs/boot-x86-selftests-$k$ksuffix.log
	step "x86-selftests: boot $k$ksuffix with ${#built[@]} tests (log: $log)"
	status=0
	"$lib/boot.sh" --initrd "$work/initramfs.cpio" --prog-timeout 120 \
		"$build/$k$ksuffix/bzImage" "$log" "$runlist" \
		IOPL_EXPECT_MODE=compat || status=$?
	# verdict.sh's PASS/FAIL/SKIP lines as KTAP (it exits 1 on a FAIL)
	{ "$lib/verdict.sh" --allow-skip . "$log" x86 "$status" || true; } |
		awk '{ kind = $1; name = $2; sub(/^x86\//, "", name); sub(/:$/, "", name) }
		name ~ /^kunit\// { next }	# KUnit results belong to make check
		{	n++
			if (kind == "PASS") print "ok " n " " name
			else if (kind == "SKIP") print "ok " n " " name " # SKIP"
			else print "not ok " n " " name
		}' >"$logs/x86-selftests-$k$ksuffix.txt"
done

# Compare by name: FAIL for a test that passes on stock and not on patched
outcomes() {
	awk '{ if ($1 == "not") print $4, "fails"; else if ($NF == "SKIP") print $3, "skips"; else print $3, "passes" }' \
		"$1" | sort -u -k1,1
}
join -a 1 -a 2 -e missing -o 0,1.2,2.2 \
	<(outcomes "$logs/x86-selftests-stock$ksuffix.txt") \
	<(outcomes "$logs/x86-selftests-patched$ksuffix.txt") |
	while read -r name stock patched; do
		if [ "$stock" = "$patched" ] && [ "$stock" = passes ]; then
			echo "PASS x86-selftests$ksuffix/$name"
		elif [ "$stock" = "$patched" ]; then
			echo "SKIP x86-selftests$ksuffix/$name: $stock on both kernels"
		elif [ "$stock" = passes ]; then
			echo "FAIL x86-selftests$ksuffix/$name: passes on stock, $patched on patched"
		else
			echo "CHANGED x86-selftests$ksuffix/$name: $stock on stock, $patched on patched"
		fi
	done | tee "$logs/x86-selftests-compare$ksuffix.txt"
summarize "$logs/x86-selftests-compare$ksuffix.txt"
