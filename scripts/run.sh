#!/bin/bash
# make run and make shell: boot the patched kernel of $TREE with the guest.
# run.sh demo [CMDLINE...]   run the demo, print its claims in plain words;
#                            fails when one does not hold
# run.sh shell [CMDLINE...]  an interactive busybox shell on this terminal
#                            (Ctrl-A X quits QEMU)
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
. "$(dirname "$0")/lib/common.sh"

[ $# -ge 1 ] || die "usage: run.sh demo|shell [CMDLINE...]"
what=$1
shift
"$lib/tree.sh"
"$lib/kbuild.sh" patched
"$lib/guest.sh"
kernel=$build/patched$ksuffix/bzImage
case $what in
shell) exec "$lib/boot.sh" "$kernel" - shell "$@" ;;
demo) ;;
*) die "usage: run.sh demo|shell [CMDLINE...]" ;;
esac
log=$build/logs/run.log
status=0
"$lib/boot.sh" "$kernel" "$log" demo "$@" || status=$?
console "$log" | sed -n 's/^    //p'
passed run "$log" "$status" ||
	die "run: the demo failed, see ${log#"$top/"}"
