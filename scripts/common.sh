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

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$top/build
tarball=${TARBALL:-/usr/src/linux-source-6.1.tar.xz}
guest=${GUEST_DIR:-$build/guest}	# the guest's root and initramfs
# The selftests built into the guest, from tools/testing/selftests/x86
selftests=(iopl ioperm iopl_mode ioport_access ioport_inherit ioport_switch ioport_stress ioport_nomem ioport_smp)
# The patched kernel's config: the test config plus the KUnit suite.
patched_config=("$top/config/test.config" "$top/config/kunit.config")
cpus=${SMP:-4}	# CPUs per boot; scripts/boot.sh and scripts/verdict.sh
