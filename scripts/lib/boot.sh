#!/bin/bash
# Boot a kernel with the guest initramfs and run programs in it.
# boot.sh [OPTION...] KERNEL LOG RUNLIST [KERNEL-CMDLINE-WORDS...]
# RUNLIST is a comma-separated list of /bin programs, or "shell" for an
# interactive shell on this terminal (LOG is then not written). Returns
# QEMU's status (124: timeout).
#   --smp N           CPUs (4)
#   --mem SIZE        memory (512M)
#   --timeout S       seconds for the whole boot (900)
#   --prog-timeout S  seconds per program, the guest's timeout= (300)
#   --initrd FILE     the initramfs (build/$TREE/guest/initramfs.cpio)
#   --disk IMAGE      a raw disk image on virtio, the root file system
#                     (root=/dev/vda): a whole system, whose own init
#                     runs the programs (scripts/debian.sh); the boot
#                     writes to a temporary copy
#   --disk-rw IMAGE   the same, its writes kept; KERNEL "-" boots the
#                     image's own boot loader through the firmware (no
#                     -kernel, no command line: RUNLIST is "-")
#   --root DEV        the root file system on the disk (/dev/vda)
#   --qemu-arg ARG    one more QEMU argument (repeatable)
#   --xen XEN         boot the hypervisor XEN with KERNEL as PV dom0, on
#                     as many vCPUs, its console on hvc0
# Environment: KARCH (x86_64, or i386 for qemu-system-i386), ACCEL (tcg).
# SeaBIOS lists one CPU per socket in its MP table and the test kernels have
# no ACPI: each CPU is a socket, or -smp 4 brings up one; verdict.sh
# --cpus checks the number in the log.
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
. "$(dirname "$0")/common.sh"

usage="usage: boot.sh [--smp N] [--mem SIZE] [--timeout S] [--prog-timeout S] [--initrd FILE] [--disk IMAGE | --disk-rw IMAGE] [--root DEV] [--qemu-arg ARG]... [--xen XEN] KERNEL|- LOG RUNLIST|- [CMDLINE...]"
cpus=$default_cpus mem=512M timeout=900 prog_timeout=300 initrd=$guest/initramfs.cpio
xen='' disk='' snapshot=(-snapshot) root=/dev/vda extra=()
while [ $# -gt 0 ]; do
	case $1 in
	--smp) cpus=$2 ;;
	--mem) mem=$2 ;;
	--timeout) timeout=$2 ;;
	--prog-timeout) prog_timeout=$2 ;;
	--initrd) initrd=$2 ;;
	--disk) disk=$2 ;;
	--disk-rw) disk=$2 snapshot=() ;;
	--root) root=$2 ;;
	--qemu-arg) extra+=("$2") ;;
	--xen) xen=$2 ;;
	--*) die "$usage" ;;
	*) break ;;
	esac
	[ $# -ge 2 ] || die "$usage"
	shift 2
done
[ $# -ge 3 ] || die "$usage"
kernel=$1 log=$2 runlist=$3
shift 3
# Before anything can fail: a verdict must never read an earlier boot's log
[ "$runlist" = shell ] || rm -f "$log"
if [ "$kernel" = - ]; then
	if [ -z "$disk" ] || [ ${#snapshot[@]} != 0 ] || [ -n "$xen" ]; then
		die "boot: KERNEL - boots the boot loader of a --disk-rw image"
	fi
else
	[ -f "$kernel" ] || die "boot: kernel $kernel not found"
	[ -f "$initrd" ] || die "boot: $initrd not found"
fi

guest_args="panic=-1 run=$runlist timeout=$prog_timeout $*"
smp=("-smp" "$cpus,sockets=$cpus,cores=1,threads=1")
if [ -n "$disk" ]; then
	[ -f "$disk" ] || die "boot: disk image $disk not found"
	guest_args="root=$root rw $guest_args"
	# -snapshot: the boot writes to a temporary copy; the image stays as built
	extra+=(-drive "file=$disk,if=virtio,format=raw" "${snapshot[@]}")
fi
if [ "$kernel" = - ]; then
	qemu=("qemu-system-$karch" -accel "${ACCEL:-tcg}" -nodefaults -no-reboot
		-display none -m "$mem" "${smp[@]}")
elif [ -z "$xen" ]; then
	qemu=("qemu-system-$karch" -accel "${ACCEL:-tcg}" -nodefaults -no-reboot
		-display none -m "$mem" "${smp[@]}" -kernel "$kernel" -initrd "$initrd"
		-append "console=ttyS0 $guest_args")
else
	[ -f "$xen" ] || die "boot: hypervisor $xen not found"
	# Multiboot: Xen is the kernel, dom0's kernel with its command line
	# and the initramfs are modules; QEMU splits -initrd at commas, and
	# ",," is one comma.
	dom0="$kernel console=hvc0 earlyprintk=xen $guest_args"
	qemu=(qemu-system-x86_64 -accel "tcg,thread=single" -cpu max "${smp[@]}" -m "$mem"
		-nodefaults -no-reboot -display none -kernel "$xen"
		-append "console=com1 com1=115200,8n1 dom0_mem=1024M,max:1024M dom0_max_vcpus=$cpus dom0=pv smap=0"
		-initrd "${dom0//,/,,},$initrd")
fi
qemu+=("${extra[@]}")

if [ "$runlist" = shell ]; then
	exec "${qemu[@]}" -serial mon:stdio
fi

mkdir -p "$(dirname "$log")"
status=0
timeout -k 10 "$timeout" "${qemu[@]}" \
	-chardev "file,id=con,path=$log" -serial chardev:con </dev/null || status=$?
exit $status
