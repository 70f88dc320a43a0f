#!/bin/bash
# Boot a kernel with the guest initramfs and run programs in it.
# boot.sh KERNEL LOG RUNLIST [KERNEL-CMDLINE-WORDS...]
# RUNLIST is a comma-separated list of /bin programs, or "shell" for an
# interactive shell on this terminal. Returns QEMU's status (124: timeout).
# Environment: KARCH (x86_64, or i386 for qemu-system-i386), ACCEL (tcg),
# SMP (4 CPUs), MEM (512M), INITRD (the guest's initramfs), QEMU_EXTRA
# (more QEMU options, split on spaces), BOOT_TIMEOUT (900 s), PROG_TIMEOUT
# (300 s per program), IOPORT_SCAN (full: the selftests also read the open
# ports that they leave alone by default, see porttrace.sh).
# SeaBIOS lists one CPU per socket in its MP table and the test kernels have
# no ACPI: each CPU is a socket, or -smp 4 brings up one. The guest learns
# the number as IOPORT_EXPECT_CPUS; verdict.sh checks it in the log.
set -euo pipefail
. "$(dirname "$0")/common.sh"

[ $# -ge 3 ] || die "usage: boot.sh KERNEL LOG RUNLIST [CMDLINE...]"
kernel=$1 log=$2 runlist=$3
shift 3
initrd=${INITRD:-$guest/initramfs.cpio}
[ -f "$kernel" ] || die "boot: kernel $kernel not found"
[ -f "$initrd" ] || die "boot: $initrd not found"

qemu=("qemu-system-$karch" -accel "${ACCEL:-tcg}" -nodefaults -no-reboot
	-display none -m "${MEM:-512M}" -smp "$cpus,sockets=$cpus,cores=1,threads=1" -kernel "$kernel" -initrd "$initrd")
# shellcheck disable=SC2206 # split on purpose
qemu+=(${QEMU_EXTRA:-})
append="console=ttyS0 panic=-1 run=$runlist timeout=${PROG_TIMEOUT:-300} IOPORT_EXPECT_CPUS=$cpus IOPORT_SCAN=${IOPORT_SCAN:-full} $*"

if [ "$runlist" = shell ]; then
	exec "${qemu[@]}" -serial mon:stdio -append "$append"
fi

mkdir -p "$(dirname "$log")"
rm -f "$log"
status=0
timeout -k 10 "${BOOT_TIMEOUT:-900}" "${qemu[@]}" -append "$append" \
	-chardev "file,id=con,path=$log" -serial chardev:con </dev/null || status=$?
exit $status
