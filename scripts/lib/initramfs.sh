# Initramfs helpers. Sourced, after common.sh, not run.
# shellcheck shell=bash
# shellcheck disable=SC2154 # guest and die come from common.sh

# initramfs_root ROOT: ROOT becomes a fresh copy of the guest's root
# (lib/guest.sh builds it), for a guest with more programs in it
initramfs_root() {
	rm -rf "$1"
	mkdir -p "$(dirname "$1")"
	cp -a "$guest/root" "$1"

}

# initramfs_binary ROOT BINARY...: each host binary at its own path under
# ROOT, with the shared libraries that ldd names
initramfs_binary() {
	local root=$1 b lib
	shift
	for b; do
		[ -x "$b" ] || die "$b is missing (make deps installs it)"
		install -D "$b" "$root$b"
		ldd "$b" | grep -o '/[^ ]*' | while read -r lib; do
			install -D "$(readlink -f "$lib")" "$root$lib"
		done
	done
}

# initramfs_pack ROOT OUT: the newc cpio archive of ROOT, sorted, into OUT
initramfs_pack() {
	(cd "$1" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) >"$2.tmp" ||
		die "cpio of $1 failed"
	mv "$2.tmp" "$2"
}
