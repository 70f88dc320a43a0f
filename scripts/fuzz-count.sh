#!/bin/bash
# fuzz-count.sh LOG NAME TRINITY-CALLS OWN-CALLS: did a make fuzz boot make
# the calls it was asked for? The judge's (scripts/lib/judge/fuzz.py,
# which says what is checked): one PASS or FAIL line per check
# (NAME/...), then "# NAME: trinity N syscalls, ioport_fuzz M syscalls"
# on stderr; exit status 1 when a check fails, 2 on a usage error.
# scripts/lib/verdict.sh judges the rest of the log (kernel reports, the
# programs' exit statuses).
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
. "$(dirname "$0")/lib/common.sh"

exec python3 "$lib/judge" fuzz "$@"
