#!/bin/bash
# fuzz-count.sh LOG NAME TRINITY-CALLS OWN-CALLS: did a make fuzz boot make
# the calls it was asked for? One PASS or FAIL line per check (NAME/...):
#  - trinity skipped none of the calls asked for (it skips the ones it
#    marks AVOID_SYSCALL, such as ioperm, with a line and goes on),
#  - trinity ran TRINITY-CALLS calls and, per its --stats, attempted each
#    64-bit call that guest/fuzz.c asked for (its -c words on the line
#    "# fuzz: run .../trinity ..." that fuzz.c prints) at least once,
#  - ioport_fuzz ran OWN-CALLS calls and each kind of call it made (its
#    line "ioport_fuzz: N syscalls (KIND N, ...)") succeeded at least once
#    (its line "ioport_fuzz: succeeded: KIND N, ..."),
#  - the boot ended with a kmemleak scan (guest/kmemleak.c's line
#    "kmemleak: N unreferenced objects"; verdict.sh fails N > 0).
# Then "# NAME: trinity N syscalls, ioport_fuzz M syscalls" on stderr.
# Exit status 1 when a check fails. scripts/lib/verdict.sh judges the rest of
# the log (kernel reports, the program's exit status). The log is read as
# verdict.sh reads it (common.sh's console): a kernel line spliced into
# fuzz.c's line hid the calls after it.
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
. "$(dirname "$0")/lib/common.sh"

[ $# = 4 ] || { echo "usage: fuzz-count.sh LOG NAME TRINITY-CALLS OWN-CALLS" >&2; exit 2; }
log=$1 name=$2 want_trinity=$3 want_own=$4
[ -f "$log" ] || { echo "fuzz-count: $log not found" >&2; exit 2; }
text=$(console "$log")
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

# What guest/fuzz.c asked for, not what trinity says it enabled: a call
# missing from trinity's log must fail.
asked=$(awk '/^ *# fuzz: run [^ ]*\/trinity / {
	for (i = 1; i < NF; i++) if ($i == "-c") print $(i + 1) }' <<<"$text" | sort -u)
# --stats: "64bit:" then "    NAME: (attempted:N. ..." per call
missing=
for call in $asked; do
	awk -v c="$call" '/^ *64bit:$/ { s = 1; next } /^ *32bit:$/ { s = 0 }
		s && $1 == c ":" && match($0, /attempted:[0-9]+/) &&
		substr($0, RSTART + 10, RLENGTH - 10) + 0 > 0 { found = 1 }
		END { exit !found }' <<<"$text" || missing+="$call "
done
missing=${missing% }
if [ -z "$asked" ]; then
	check 0 trinity-calls "no call asked for: no \"# fuzz: run .../trinity -c ...\" line of guest/fuzz.c"
else
	check "$([ -z "$missing" ] && echo 1)" trinity-calls "trinity attempted no 64-bit $missing"
fi

own=$(sed -n 's/^ *ioport_fuzz: \([0-9]*\) syscalls.*/\1/p' <<<"$text" | tail -n 1)
check "$([ -n "$own" ] && [ "$own" -ge "$want_own" ] && echo 1)" own-count \
	"ioport_fuzz ran ${own:-no} syscalls, expected $want_own"

# "ioport_fuzz: succeeded: ioperm N, iopl N, ...": calls that only failed
# tested nothing. Every kind made ("ioport_fuzz: N syscalls (ioperm N,
# ...)") must be there, not only the kinds the line names.
ok=$(sed -n 's/^ *ioport_fuzz: succeeded: //p' <<<"$text" | tail -n 1)
made=$(sed -n 's/^ *ioport_fuzz: [0-9]* syscalls (\([^)]*\)).*/\1/p' <<<"$text" | tail -n 1)
never=$(awk -v made="$made" -v ok="$ok" 'BEGIN {
	n = split(ok, kv, /, */)
	for (i = 1; i <= n; i++)
		if (split(kv[i], w, " ") == 2 && w[2] ~ /^[1-9][0-9]*$/)
			good[w[1]] = 1
	n = split(made ", " ok, kv, /, */)
	for (i = 1; i <= n; i++)
		if (split(kv[i], w, " ") && !(w[1] in good) && !(w[1] in named)) {
			named[w[1]] = 1
			printf "%s ", w[1]
		}
}')
never=${never% }
if [ -z "$ok" ]; then
	check 0 own-calls "no \"ioport_fuzz: succeeded:\" line"
else
	check "$([ -z "$never" ] && echo 1)" own-calls "ioport_fuzz never succeeded in $never"
fi

check "$(grep -q '^ *kmemleak: [0-9]* unreferenced objects$' <<<"$text" && echo 1)" kmemleak-scan \
	"no kmemleak scan: no \"kmemleak: N unreferenced objects\" line"

echo "# $name: trinity ${ran:-no} syscalls, ioport_fuzz ${own:-no} syscalls" >&2
exit $bad
