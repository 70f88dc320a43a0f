#!/bin/bash
# make check-debian: the series as a Debian admin installs it. make deb
# (lib/debkbuild.sh) builds the patched tree with Debian's own cloud config
# and packages it with the kernel's make bindeb-pkg. A Debian 12 system
# made by mmdebstrap from Debian's archive gets the image and headers
# packages with dpkg -i (their maintainer scripts make the initrd with
# initramfs-tools), Debian's own signed kernel of the same version as the
# baseline, Debian's port-I/O programs and the series' selftests. QEMU
# boots it from a virtio disk (TCG, 4 CPUs) with each kernel and its
# initrd from the image's /boot; systemd reaches multi-user.target, the
# service iopl-tests runs the selftests and the programs (KTAP on ttyS0)
# and powers off.
#
# debian.sh [--full] [--no-xen|--install-only|--xen-only]
#                                build what is missing, boot, judge; the
#                                modules Debian's kernel loads here
#                                (config/debian-lsmod-$TREE.txt), or with
#                                --full every module of the flavour;
#                                without the Xen PV part, or only the
#                                install steps, or only the Xen PV part
# debian.sh --judge LOG NAME [QEMU-STATUS] [VERDICT-OPTION...]
#                                judge one recorded console log (host tests)
# debian.sh --judge-install LOG STEP KERNEL [QEMU-STATUS] [TEXT...]
#                                judge one recorded boot of the install steps
#
# Boots: Debian's kernel (what the series adds is CHANGED), the patched
# kernel without iopl= (compat) with pti=on, iopl=strict, iopl=off. Then
# the install steps of docs/install-debian.md, one boot each, in a second
# system that boots through GRUB.
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

# judge_install LOG STEP KERNEL STATUS [TEXT...]: the result line of one
# boot of the install steps: the boot ended by itself, ran STEP on KERNEL
# to its end, and its console shows each TEXT (a fixed string)
judge_install() {
	local log=$1 step=$2 kernel=$3 status=$4 text con why=""
	shift 4
	con=$(console "$log")
	if [ "$status" != 0 ]; then
		why="QEMU stopped with status $status (124: timeout)"
	elif ! grep -qxF "# install: $step, kernel $kernel" <<<"$con"; then
		why="no step $step on kernel $kernel (booted: $(sed -n 's/^# install: [a-z]*, kernel //p' <<<"$con" | head -n 1))"
	elif ! grep -qxF "# install: $step ok" <<<"$con"; then
		why="step $step did not finish: $(grep '^+ ' <<<"$con" | tail -n 1)"
	else
		for text in "$@"; do
			grep -qF -- "$text" <<<"$con" || { why="no \"$text\" on the console"; break; }
		done
	fi
	if [ -n "$why" ]; then
		echo "FAIL debian/install/$step: $why"
	else
		echo "PASS debian/install/$step"
	fi
}

if [ "${1-}" = --judge-install ]; then
	[ $# -ge 4 ] || die "usage: debian.sh --judge-install LOG STEP KERNEL [QEMU-STATUS] [TEXT...]"
	out=$(judge_install "$2" "$3" "$4" "${5:-0}" "${@:6}")
	echo "$out"
	[[ $out = PASS* ]]
	exit
fi
if [ "${1-}" = --judge ]; then
	[ $# -ge 3 ] || die "usage: debian.sh --judge LOG NAME [QEMU-STATUS] [VERDICT-OPTION...]"
	log=$2 name=$3 status=${4:-0}
	shift $(($# < 4 ? $# : 4))
	judged "$name" judge "$log" "$name" "$status" "$@" || exit 1
	exit 0
fi
parts="boots install xen" lsmod=$top/config/debian-lsmod-$tree_version.txt
while [ $# -gt 0 ]; do
	case $1 in
	--full) lsmod="" ;;
	--no-xen) parts="boots install" ;;
	--install-only) parts=install ;;
	--xen-only) parts=xen ;;
	*) die "usage: debian.sh [--full] [--no-xen|--install-only|--xen-only] | --judge LOG NAME [QEMU-STATUS] [VERDICT-OPTION...] | --judge-install LOG STEP KERNEL [QEMU-STATUS] [TEXT...]" ;;
	esac
	shift
done
command -v mmdebstrap >/dev/null || die "debian: mmdebstrap not found (make deps installs it)"
mkdir -p "$build/logs" "$img"
: >"$results"
"$lib/tree.sh"

if [[ $parts = *boots* || $parts = *install* ]]; then
# 1. The kernel packages, as make deb FLAVOUR=cloud-amd64 [LSMOD=] leaves them
if [ -n "$lsmod" ]; then
	step "debian: only the modules of ${lsmod#"$top/"}, those Debian's kernel loads in this guest, not every module of the flavour: build time on 2 cores (docs/debian.md); --full installs them all"
fi
mapfile -t debs < <("$lib/debkbuild.sh" --flavour cloud-amd64 ${lsmod:+--lsmod "$lsmod"})
names=("${debs[@]##*/}")
if [ ${#debs[@]} != 2 ] || [[ ${names[0]} != linux-image-* || ${names[1]} != linux-headers-* ]]; then
	die "debian: make deb left not one image and one headers package: ${debs[*]}"
fi

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
	"stock: $stock_package=$source_version" "kernel: $(cat "${debs[@]}" | sha256sum | cut -c1-16) ${names[*]}" \
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
	step "debian: mmdebstrap $suite with ${packages[*]} $stock_package=$source_version, dpkg -i ${names[*]} (log: $build/logs/mmdebstrap.log)"
	if ! mmdebstrap --variant=important --include="$(list "${packages[@]}" "$stock_package=$source_version")" \
		--customize-hook="copy-in ${debs[*]} /tmp" \
		--customize-hook="chroot \"\$1\" dpkg -i $(printf '/tmp/%s ' "${names[@]}")" \
		--customize-hook="rm \"\$1\"/tmp/*.deb" \
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

# kernel_of KIND [ROOT]: the release of the stock or patched kernel in
# the system ROOT (the image's)
kernel_of() {
	local r boot=${2:-$img/root}/boot
	case $1 in
	patched) r=$(cd "$boot" && ls vmlinuz-*-iopl-cloud-amd64 2>/dev/null) ;;
	stock) r=$(cd "$boot" && for f in vmlinuz-*-cloud-amd64; do
		[[ ! -f $f || $f = *-iopl-* ]] || echo "$f"
	done) ;;
	esac
	[ "$(wc -w <<<"$r")" = 1 ] || die "debian: not one $1 kernel in $boot: ${r:-none}"
	[ -f "$boot/initrd.img-${r#vmlinuz-}" ] ||
		die "debian: no initrd for $r in $boot: the package's initramfs-tools hook did not run"
	echo "${r#vmlinuz-}"
}

fi

if [[ $parts = *boots* ]]; then
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

if [[ $parts = *install* ]]; then
# 5. The admin's steps of docs/install-debian.md, run once on a Debian 12
# machine that boots through GRUB from a partitioned BIOS disk: Debian's
# own kernel, grub-pc, the packages of make deb in /root/deb. One boot per
# step (guest/debian-install), each keeping what the one before wrote.
inst=$build/debian-install
rm -rf "$inst"
mkdir -p "$inst/payload/root/deb" "$inst/payload/root/tests" \
	"$inst/payload/var/lib/iopl-install" "$inst/payload/etc/systemd/system/multi-user.target.wants"
cp "${debs[@]}" "$inst/payload/root/deb/"
for b in demo "${selftests[@]}"; do
	cp "$guest/root/bin/$b" "$inst/payload/root/tests/"
done
echo prepare >"$inst/payload/var/lib/iopl-install/next"
cp -r "$top/guest/debian-install/." "$inst/payload/"
ln -sf /etc/systemd/system/iopl-install.service "$inst/payload/etc/systemd/system/multi-user.target.wants/"
ln -sf /dev/null "$inst/payload/etc/systemd/system/serial-getty@ttyS0.service"
step "debian: mmdebstrap $suite with grub-pc and $stock_package=$source_version for the install steps (log: $build/logs/mmdebstrap-install.log)"
mmdebstrap --variant=important \
	--include="$(list systemd systemd-sysv udev initramfs-tools kmod grub-pc "$stock_package=$source_version")" \
	--customize-hook="sync-in $inst/payload /" \
	--customize-hook="echo 'LABEL=root / ext4 rw 0 1' >\"\$1\"/etc/fstab" \
	"$suite" "$inst/root" >"$build/logs/mmdebstrap-install.log" 2>&1 ||
	die "debian: mmdebstrap for the install steps failed, see $build/logs/mmdebstrap-install.log"
# A BIOS disk with one partition from 1 MiB, GRUB's room before it
truncate -s 4G "$inst/disk.img"
echo 'start=2048, type=83' | sfdisk -q "$inst/disk.img" >/dev/null || die "debian: sfdisk failed"
mkfs.ext4 -q -F -d "$inst/root" -L root -E offset=$((2048 * 512)) "$inst/disk.img" $((4 * 1024 * 1024 - 1024))k ||
	die "debian: mkfs.ext4 -d $inst/root failed"
debian_rel=$(kernel_of stock "$inst/root")
patched_rel=$(dpkg-deb -f "${debs[0]}" Package) patched_rel=${patched_rel#linux-image-}
entry="Advanced options for Debian GNU/Linux>Debian GNU/Linux, with Linux"
# install_boot STEP KERNEL [TEXT...]: boot the step, judge it; after a
# step that failed, the others are SKIPped (the disk is not what they need)
failed_step=""
install_boot() {
	local step=$1 kernel=$2 log=$build/logs/boot-debian-install-$1.log status=0
	shift 2
	if [ -n "$failed_step" ]; then
		echo "SKIP debian/install/$step: step $failed_step failed"
		return
	fi
	step "debian: install step $step (log: $log)"
	if [ "$step" = prepare ]; then
		"$lib/boot.sh" --disk-rw "$inst/disk.img" --root /dev/vda1 --mem 1G --initrd "$inst/root/boot/initrd.img-$debian_rel" \
			"$inst/root/boot/vmlinuz-$debian_rel" "$log" - || status=$?
	else
		"$lib/boot.sh" --disk-rw "$inst/disk.img" --mem 1G - "$log" - || status=$?
	fi
	judge_install "$log" "$step" "$kernel" "$status" "$@" | tee "$inst/verdict"
	grep -q '^PASS ' "$inst/verdict" || failed_step=$step
}
{
	install_boot prepare "$debian_rel" "Installation finished. No error reported."
	install_boot install "$debian_rel" "Setting up linux-image-$patched_rel" "saved_entry=$entry $patched_rel"
	install_boot check "$patched_rel" "iopl=strict" "iopl() mode: strict" "Every claim holds." \
		"saved_entry=$entry $debian_rel"
	install_boot remove "$debian_rel" "Removing linux-image-$patched_rel"
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
xen_patched=$("$lib/debkbuild.sh" --flavour amd64 --bzimage | tail -n 1)
collect debian/xen "$top/scripts/xen.sh" --kernels "$(ls "$xen_dir/stock/boot"/vmlinuz-*)" "$xen_patched" debian/xen |
	sed -n '/^\(PASS\|FAIL\|SKIP\|CHANGED\) /p' | tee -a "$results"
fi

[[ $parts != *boots* ]] ||
	echo "debian $tree_version: $(for d in "${debs[@]}"; do printf '%s %s, ' "$(du -h "$d" | cut -f1)" "${d##*/}"; done)bzImage $(du -h "$img/root/boot/vmlinuz-$(kernel_of patched)" | cut -f1)"
summarize "$results"
