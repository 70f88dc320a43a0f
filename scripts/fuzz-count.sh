#!/bin/bash
# fuzz-count.sh LOG NAME TRINITY-CALLS OWN-CALLS: did a make fuzz boot make
# the calls it was asked for? One PASS or FAIL line per check (NAME/...):
#  - trinity skipped none of the calls asked for (it skips the ones it
#    marks AVOID_SYSCALL, such as ioperm, with a line and goes on),
#  - trinity ran TRINITY-CALLS calls and, per its --stats, attempted each
#    64-bit call asked for at least once,
#  - ioport_fuzz ran OWN-CALLS calls.
# Then "# NAME: trinity N syscalls, ioport_fuzz M syscalls" on stderr.
# Exit status 1 when a check fails. scripts/lib/verdict.sh judges the rest of
# the log (kernel reports, the program's exit status).
set -euo pipefail

[ $# = 4 ] || { echo "usage: fuzz-count.sh LOG NAME TRINITY-CALLS OWN-CALLS" >&2; exit 2; }
log=$1 name=$2 want_trinity=$3 want_own=$4
[ -f "$log" ] || { echo "fuzz-count: $log not found" >&2; exit 2; }
text=$(tr -d '\r' <"$log")
bad=0
check() {	# check OK NAME MESSAGE
	if [ "$1" = 1 ]; then
		echo "PASS $name/$2"
	else
		echo "FAIL $name/$2: $3"
		bad=1
	fi
}

avoided=$(sed -n 's/^ *\[main\] \([a-z0-9_]*\) is marked as AVOID. Skipping$/\1/p' <<<"$text" |
	sort -u | tr '\n' ' ')
check "$([ -z "$avoided" ] && echo 1)" trinity-avoid "trinity skipped ${avoided% }: it marks them AVOID_SYSCALL"

ran=$(sed -n 's/.*\[main\] Ran \([0-9]*\) syscalls.*/\1/p' <<<"$text" | tail -n 1)
check "$([ -n "$ran" ] && [ "$ran" -ge "$want_trinity" ] && echo 1)" trinity-count \
	"trinity ran ${ran:-no} syscalls, expected $want_trinity"

# --stats: "64bit:" then "    NAME: (attempted:N. ..." per call
asked=$(sed -n 's/.*Marking syscall \([a-z0-9_]*\) .* as to be enabled.*/\1/p' <<<"$text" | sort -u)
missing=
for call in $asked; do
	awk -v c="$call" '/^ *64bit:$/ { s = 1; next } /^ *32bit:$/ { s = 0 }
		s && $1 == c ":" && match($0, /attempted:[0-9]+/) &&
		substr($0, RSTART + 10, RLENGTH - 10) + 0 > 0 { found = 1 }
		END { exit !found }' <<<"$text" || missing+="$call "
done
missing=${missing% }
check "$([ -n "$asked" ] && [ -z "$missing" ] && echo 1)" trinity-calls \
	"trinity attempted no 64-bit ${missing:-call (no --stats table, or no call asked for)}"

own=$(sed -n 's/^ *ioport_fuzz: \([0-9]*\) syscalls.*/\1/p' <<<"$text" | tail -n 1)
check "$([ -n "$own" ] && [ "$own" -ge "$want_own" ] && echo 1)" own-count \
	"ioport_fuzz ran ${own:-no} syscalls, expected $want_own"

echo "# $name: trinity ${ran:-no} syscalls, ioport_fuzz ${own:-no} syscalls" >&2
exit $bad
