#!/bin/bash
# make check-debian: the series as a Debian user gets it. The patched tree
# of $TREE is built with Debian's own cloud config and packaged by the
# kernel's make bindeb-pkg (lib/debkbuild.sh). A Debian 12 system made by
# mmdebstrap from Debian's archive gets that package with dpkg -i (its
# maintainer scripts make the initrd with initramfs-tools), Debian's own
# signed kernel of the same version as the baseline, Debian's port-I/O
# programs and the series' selftests. QEMU boots it from a virtio disk
# (TCG, 4 CPUs) with each kernel and its initrd from the image's /boot;
# systemd reaches multi-user.target, the service iopl-tests runs the
# selftests and the programs (KTAP on ttyS0) and powers off.
#
# debian.sh [--no-xen|--xen-only] build what is missing, boot, judge;
#                                without the Xen PV part, or only it
# debian.sh --judge LOG NAME [QEMU-STATUS] [VERDICT-OPTION...]
#                                judge one recorded console log (host tests)
#
# Boots: Debian's kernel (what the series adds is CHANGED), the patched
# kernel without iopl= (compat) with pti=on, iopl=strict, iopl=off.
# docs/debian.md says what each proves and how to read a failure.
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
. "$(dirname "$0")/lib/common.sh"

img=$build/debian-image
results=$build/logs/results-debian.txt
suite=bookworm
# What the image holds besides the essential packages: systemd and udev,
# the initrd tools, and the port-I/O programs of make programs (isadump
# is lm-sensors', hwclock util-linux-extra's in bookworm).
packages=(systemd systemd-sysv udev initramfs-tools kmod util-linux util-linux-extra
	pciutils ioport coreboot-utils lm-sensors flashrom stress-ng)
# Debian's own kernel of the source's version: the meta-package of the
# cloud flavour pins it
source_version=$(dpkg-query -W -f='${Version}' "$source_package")
case $tree_version in
6.1) stock_package=linux-image-cloud-amd64 ;;
*) stock_package=linux-image-$tree_version-cloud-amd64 ;;
esac
prefix=/usr/local/lib/iopl	# the tests in the image
run_all=(system demo iopl "$ioperm_vm" "${ours[@]}" ioport_fuzz programs)

# judge LOG NAME STATUS [VERDICT-OPTION...]: the result lines of one boot
# of the system (verdict.sh --system: the steps before the tests are named
# when they did not happen)
judge() {
	verdict "$2" "$1" "$3" --system "${@:4}"
}

if [ "${1-}" = --judge ]; then
	[ $# -ge 3 ] || die "usage: debian.sh --judge LOG NAME [QEMU-STATUS] [VERDICT-OPTION...]"
	log=$2 name=$3 status=${4:-0}
	shift $(($# < 4 ? $# : 4))
	judged "$name" judge "$log" "$name" "$status" "$@" || exit 1
	exit 0
fi
parts="boots xen"
case $#:${1-} in
0:) ;;
1:--no-xen) parts=boots ;;
1:--xen-only) parts=xen ;;
*) die "usage: debian.sh [--no-xen|--xen-only] | --judge LOG NAME [QEMU-STATUS] [VERDICT-OPTION...]" ;;
esac
command -v mmdebstrap >/dev/null || die "debian: mmdebstrap not found (make deps installs it)"
mkdir -p "$build/logs" "$img"
: >"$results"
"$lib/tree.sh"

if [[ $parts = *boots* ]]; then
# 1. The kernel package
deb=$("$lib/debkbuild.sh" | tail -n 1)

# 2. What the service runs: the selftests and init (as lib/guest.sh builds
# them), guest/programs.c, and "system", the state of systemd
"$lib/guest.sh" "$build/tree" "${selftests[@]}"
payload=$img/payload
rm -rf "$payload"
mkdir -p "$payload$prefix/bin" "$payload/etc/systemd/system/multi-user.target.wants"
cp "$guest/root/init" "$payload$prefix/init"
for b in demo ioport_fuzz "${ours[@]}" "${selftests[@]}"; do
	cp "$guest/root/bin/$b" "$payload$prefix/bin/"
done
gcc -static -O2 -Wall -o "$payload$prefix/bin/programs" "$top/guest/programs.c" ||
	die "debian: compiling guest/programs.c failed"
cp -r "$top/guest/debian/." "$payload/"
ln -sf /etc/systemd/system/iopl-tests.service "$payload/etc/systemd/system/multi-user.target.wants/"
# The serial console is the test's: no login prompt on it
ln -sf /dev/null "$payload/etc/systemd/system/serial-getty@ttyS0.service"

# 3. The image, rebuilt whenever what goes into it differs from what it
# was built from (its manifest); never reused silently.
manifest=$(printf '%s\n' "suite: $suite" "packages: ${packages[*]}" \
	"stock: $stock_package=$source_version" "kernel: $(sha256sum <"$deb" | cut -c1-16) ${deb##*/}" \
	"payload: $(cd "$payload" && { find . -type f | LC_ALL=C sort | xargs -d '\n' sha256sum
		find . -type l -printf '%p -> %l\n' | LC_ALL=C sort; } | sha256sum | cut -c1-16)" \
	"script: $(sha256sum <"$0" | cut -c1-16)")
if [ -f "$img/disk.img" ] && [ "$(cat "$img/manifest" 2>/dev/null)" = "$manifest" ]; then
	step "debian: image $img/disk.img is up to date"
else
	if [ -f "$img/manifest" ]; then
		step "debian: image rebuilt, what goes into it changed:"
		diff <(cat "$img/manifest") <(echo "$manifest") | grep '^[<>]' | sed 's/^</    was:/; s/^>/    now:/' >&2 || true
	fi
	rm -rf "${img:?}/root" "$img/disk.img" "$img/manifest" "${img:?}/boot"
	step "debian: mmdebstrap $suite with ${packages[*]} $stock_package=$source_version, dpkg -i ${deb##*/} (log: $build/logs/mmdebstrap.log)"
	if ! mmdebstrap --variant=important --include="$(list "${packages[@]}" "$stock_package=$source_version")" \
		--customize-hook="copy-in $deb /tmp" \
		--customize-hook="chroot \"\$1\" dpkg -i /tmp/${deb##*/}" \
		--customize-hook="rm \"\$1\"/tmp/${deb##*/}" \
		--customize-hook="sync-in $payload /" \
		--customize-hook="echo '/dev/vda / ext4 rw 0 1' >\"\$1\"/etc/fstab" \
		"$suite" "$img/root" >"$build/logs/mmdebstrap.log" 2>&1; then
		rm -rf "$img/root"
		tail -n 5 "$build/logs/mmdebstrap.log" | sed 's/^/    /' >&2
		die "debian: mmdebstrap failed (archive unreachable, or a package or version missing there?), see $build/logs/mmdebstrap.log"
	fi
	step "debian: mkfs.ext4 -d (no loop mount)"
	mkfs.ext4 -q -F -d "$img/root" -L root "$img/disk.img.tmp" 3G ||
		{ rm -f "$img/disk.img.tmp"; die "debian: mkfs.ext4 -d $img/root failed"; }
	mv "$img/disk.img.tmp" "$img/disk.img"
	echo "$manifest" >"$img/manifest"
fi

# kernel_of KIND: the release of the image's stock or patched kernel
kernel_of() {
	local r
	case $1 in
	patched) r=$(cd "$img/root/boot" && ls vmlinuz-*-iopl 2>/dev/null) ;;
	stock) r=$(cd "$img/root/boot" && ls vmlinuz-*-cloud-amd64 2>/dev/null) ;;
	esac
	[ "$(wc -w <<<"$r")" = 1 ] || die "debian: not one $1 kernel in $img/root/boot: ${r:-none}"
	[ -f "$img/root/boot/initrd.img-${r#vmlinuz-}" ] ||
		die "debian: no initrd for $r in the image: the package's initramfs-tools hook did not run"
	echo "${r#vmlinuz-}"
}

# 4. The boots
off_skips_all="$off_skips|$nomem_skips"
boot() {
	local name=$1 kind=$2 runlist=$3 rel log status=0
	shift 3
	local opts=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
	[ $# = 0 ] || shift
	rel=$(kernel_of "$kind")
	log=$build/logs/boot-debian-$name.log
	step "debian: boot $name, kernel $rel (log: $log)"
	"$lib/boot.sh" --disk "$img/disk.img" --mem 1G --initrd "$img/root/boot/initrd.img-$rel" \
		"$img/root/boot/vmlinuz-$rel" "$log" "$runlist" "$@" || status=$?
	judge "$log" "debian/$name" "$status" "${opts[@]}"
}
{
	# Debian's kernel: what the series changes may differ, case by case
	# (tests/stock-changes), and in this boot nothing does. The patched
	# kernel has only the modules of the lsmod recorded from Debian's
	# kernel (lib/debkbuild.sh): Debian's kernel must load no other.
	boot stock stock "$(list "${run_all[@]}")" --allow-skip "$nomem_skips" \
		--changed debian/stock --modules "$top/config/debian-lsmod-$tree_version.txt" -- \
		"$hotplug_opt_in"
	# Debian's kernel knows no iopl=: asked for strict, it stays compat,
	# and the iopl test, which expects strict, shows what the series adds
	boot stock-strict stock "$(list system iopl)" \
		--changed debian/stock-strict -- iopl=strict
	boot compat-pti patched "$(list "${run_all[@]}")" --allow-skip "$nomem_skips" -- \
		pti=on "$hotplug_opt_in"
	boot strict patched "$(list "${run_all[@]}")" --allow-skip "$nomem_skips" \
		--forbid "pretending it.s a NOP" -- iopl=strict "$hotplug_opt_in"
	boot off patched "$(list "${run_all[@]}")" --allow-skip "$off_skips_all" -- \
		iopl=off "$hotplug_opt_in"
	# Debian's programs in each boot, against tests/programs.expect
	collect programs "$top/scripts/programs.sh" --judge --cells stock "$build/logs/boot-debian-stock.log" \
		compat "$build/logs/boot-debian-compat-pti.log" \
		strict "$build/logs/boot-debian-strict.log" off "$build/logs/boot-debian-off.log" |
		sed -u 's#^\(PASS\|FAIL\) programs#\1 debian/programs#'
} | tee -a "$results"
fi

if [[ $parts = *xen* ]]; then
# 5. Xen PV dom0 (docs/debian.md): the cloud flavour cannot be dom0, so
# Debian's generic amd64 flavour, its own signed kernel of the source's
# version against the patched tree with its config, as make check-xen
# boots them
case $tree_version in
6.1) xen_meta=linux-image-amd64 ;;
*) xen_meta=linux-image-$tree_version-amd64 ;;
esac
xen_dir=$build/debian-xen-stock
xen_package=$(apt-cache depends "$xen_meta=$source_version" 2>/dev/null |
	sed -n 's/^ *Depends: \(linux-image-[^ ]*-amd64\)$/\1/p' | head -n 1)
[ -n "$xen_package" ] || die "debian: $xen_meta $source_version is not in the archive (apt-get update?)"
if ! ls "$xen_dir/stock/boot"/vmlinuz-* >/dev/null 2>&1; then
	step "debian: apt-get download $xen_package (Debian's amd64 kernel, for Xen)"
	rm -rf "$xen_dir/stock" && mkdir -p "$xen_dir/stock"
	if ! { (cd "$xen_dir" && apt-get download -q "$xen_package=$source_version" >/dev/null) &&
		dpkg-deb -x "$xen_dir/${xen_package}_"*.deb "$xen_dir/stock"; }; then
		rm -rf "$xen_dir/stock"
		die "debian: apt-get download $xen_package=$source_version failed"
	fi
fi
xen_patched=$("$lib/debkbuild.sh" --xen | tail -n 1)
collect debian/xen "$top/scripts/xen.sh" --kernels "$(ls "$xen_dir/stock/boot"/vmlinuz-*)" "$xen_patched" debian/xen |
	sed -n '/^\(PASS\|FAIL\|SKIP\|CHANGED\) /p' | tee -a "$results"
fi

[[ $parts != *boots* ]] ||
	echo "debian $tree_version: $(du -h "$deb" | cut -f1) ${deb##*/}, bzImage $(du -h "$build/debian-kernel/obj/arch/x86/boot/bzImage" | cut -f1)"
summarize "$results"
