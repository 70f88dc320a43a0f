#!/bin/bash
# Build the guest: init, the demo, the benchmark, kmemleak, ioport_fuzz,
# ioperm_bitmap and the tree's selftests (static), busybox, and the initramfs
# build/$TREE/guest/initramfs.cpio. With KARCH=i386 everything is built
# with -m32 into build/$TREE/guest-i386, without busybox (Debian's is
# 64-bit).
# guest.sh [--out DIR] [TREE [SELFTEST...]]
#   --out DIR  build the root and the initramfs in DIR instead
#   TREE       the kernel tree whose tools/testing/selftests/x86 has the
#              selftests (default build/$TREE/tree)
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
. "$(dirname "$0")/common.sh"
# shellcheck source=scripts/lib/initramfs.sh
. "$lib/initramfs.sh"

if [ "${1:-}" = --out ]; then
	[ $# -ge 2 ] || die "usage: guest.sh [--out DIR] [TREE [SELFTEST...]]"
	guest=$2
	shift 2
fi
tree=${1:-$build/tree}
[ $# = 0 ] || shift
root=$guest/root
cpio_out=$guest/initramfs.cpio
mkdir -p "$root/bin" "$build/logs"
log=$build/logs/guest.log
: >"$log"
changed=0
m32=()
[ "$karch" = x86_64 ] || m32=(-m32)

# compile OUT SRC [FLAGS...]: only when SRC or a header beside it (or the
# kselftest headers, for selftests) is newer than OUT
compile() {
	local out=$1 src=$2 dep stale=0
	shift 2
	[ -f "$src" ] || die "guest: $src not found"
	for dep in "$src" "$(dirname "$src")"/*.h "$(dirname "$src")"/../kselftest*.h; do
		[ -f "$dep" ] && [ ! "$out" -nt "$dep" ] && stale=1
	done
	[ $stale = 1 ] || return 0
	gcc "${m32[@]}" -static -O2 -g -std=gnu99 -pthread -Wall "$@" -o "$out" "$src" -lrt -ldl >>"$log" 2>&1 ||
		{ cat "$log" >&2; die "guest: compiling $src failed"; }
	changed=1
}

compile "$root/init" "$top/guest/init.c"
compile "$root/bin/demo" "$top/guest/demo.c"
compile "$root/bin/bench" "$top/bench/icount.c"
compile "$root/bin/kmemleak" "$top/guest/kmemleak.c"
compile "$root/bin/ioport_fuzz" "$top/guest/ioport_fuzz.c"
compile "$root/bin/ioperm_bitmap" "$top/guest/ioperm_bitmap.c" \
	-I"$tree/tools/testing/selftests" -I"$tree/usr/include"
for t in "$@"; do
	compile "$root/bin/$t" "$tree/tools/testing/selftests/x86/$t.c" \
		-I"$tree/tools/testing/selftests" -I"$tree/usr/include"
done
if [ "$karch" = x86_64 ] && [ ! "$root/bin/busybox" -nt /bin/busybox ]; then
	cp /bin/busybox "$root/bin/busybox"
	ln -sf busybox "$root/bin/sh"
	changed=1
fi

if [ $changed = 1 ] || [ ! -f "$cpio_out" ]; then
	initramfs_pack "$root" "$cpio_out"
fi
