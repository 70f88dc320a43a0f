#!/bin/bash
# Host-side tests of the harness: feed scripts/verdict.sh recorded console
# logs and compare what it says with the expectation beside each log.
# logs/NAME.log is read as boot "t" with QEMU status from logs/NAME.status
# (0 when absent), the kernel lines forbidden by the regex in logs/NAME.forbid
# (none when absent) and the SKIPs allowed by the regex in logs/NAME.allow
# (none when absent), expecting the CPUs in logs/NAME.cpus (1 when absent)
# and, when logs/NAME.kunit exists, KUnit results (EXPECT_KUNIT=1);
# logs/NAME.expect is verdict.sh's exact expected output.
# The exit status must be 1 exactly when a FAIL line is expected.
set -euo pipefail
dir=$(cd "$(dirname "$0")" && pwd)
verdict=$dir/../../scripts/verdict.sh
bad=0

for log in "$dir"/logs/*.log; do
	name=$(basename "$log" .log)
	expect=$dir/logs/$name.expect
	status=0
	[ -f "$dir/logs/$name.status" ] && status=$(cat "$dir/logs/$name.status")
	allow=
	[ -f "$dir/logs/$name.allow" ] && allow=$(cat "$dir/logs/$name.allow")
	cpus=1
	[ -f "$dir/logs/$name.cpus" ] && cpus=$(cat "$dir/logs/$name.cpus")
	forbid=
	[ -f "$dir/logs/$name.forbid" ] && forbid=$(cat "$dir/logs/$name.forbid")
	kunit=
	[ -f "$dir/logs/$name.kunit" ] && kunit=1
	rc=0
	out=$(ALLOW_SKIP=$allow EXPECT_CPUS=$cpus FORBID=$forbid EXPECT_KUNIT=$kunit \
		"$verdict" "$log" t "$status") || rc=$?
	want_rc=0
	grep -q '^FAIL ' "$expect" && want_rc=1
	if [ "$out" = "$(cat "$expect")" ] && [ "$rc" = "$want_rc" ]; then
		echo "PASS host/verdict/$name"
	else
		echo "FAIL host/verdict/$name: verdict.sh said (exit $rc):"
		printf '%s\n' "$out" | sed 's/^/    /'
		bad=1
	fi
done
exit $bad
