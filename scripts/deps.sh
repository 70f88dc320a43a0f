#!/bin/bash
# Install the Debian packages the harness needs; do nothing when all are there.
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
. "$(dirname "$0")/lib/common.sh"

packages=(linux-source-6.1 linux-source-6.12 linux-config-6.1 linux-config-6.12
	qemu-system-x86 gcc gcc-multilib make flex bison bc libelf-dev
	libssl-dev cpio xz-utils ccache busybox-static libc6-dev perl python3
	gnuplot-nox
	shellcheck	# make check runs it on every shell script (tests/harness/run.sh)
	util-linux pciutils ioport coreboot-utils stress-ng	# make programs runs these
	python3-sphinx python3-sphinx-rtd-theme	# make docs
	trinity	# make fuzz
	mmdebstrap e2fsprogs dpkg-dev debhelper rsync kmod fdisk)	# make check-debian, make deb

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

[ "$(id -u)" = 0 ] ||
	die "deps: missing packages, install them as root: apt-get install ${missing[*]}"
step "deps: apt-get install ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null || die "deps: apt-get update failed"
apt-get install -y -q "${missing[@]}" >/dev/null || die "deps: apt-get install ${missing[*]} failed"
