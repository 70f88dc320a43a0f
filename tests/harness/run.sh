#!/bin/bash
# Host-side tests of the harness: feed scripts/lib/verdict.sh recorded console
# logs and compare what it says with the expectation beside each log.
# logs/NAME.log is read as boot "t" with QEMU status from logs/NAME.status
# (0 when absent), the kernel lines forbidden by the regex in logs/NAME.forbid
# (none when absent) and the SKIPs allowed by the regex in logs/NAME.allow
# (none when absent), expecting the CPUs in logs/NAME.cpus (1 when absent)
# and, when logs/NAME.kunit exists, the KUnit suites and numbers of cases
# it names (its content is the argument of --expect-kunit, SUITE:CASES),
# and the other options of verdict.sh in logs/NAME.args (none when absent);
# logs/NAME.expect is verdict.sh's exact expected output. real-*: logs of
# real boots.
# The exit status must be 1 exactly when a FAIL line is expected.
# Then scripts/fuzz-count.sh on the recorded make fuzz logs in fuzz/:
# fuzz/NAME.log with the arguments in fuzz/NAME.args (trinity's and
# ioport_fuzz's numbers of calls), fuzz/NAME.expect its exact output.
set -euo pipefail
# The recorded logs hold both trees' output, and one kunit_parser.py reads
# them all, 6.12's: 6.1's takes no plan after the "# module:" line of
# 6.12's KUnit, which 6.1's KUnit never prints (make check TREE=6.1 runs
# these tests too).
export TREE=6.12
dir=$(cd "$(dirname "$0")" && pwd)
scripts=$dir/../../scripts
bad=0

# judge TEST EXPECT RC OUT: OUT and RC against the file EXPECT
judge() {
	local want_rc=0
	grep -q '^FAIL ' "$2" && want_rc=1
	if [ "$4" = "$(cat "$2")" ] && [ "$3" = "$want_rc" ]; then
		echo "PASS host/$1"
	else
		echo "FAIL host/$1: the script said (exit $3):"
		printf '%s\n' "$4" | sed 's/^/    /'
		bad=1
	fi
}

for log in "$dir"/logs/*.log; do
	name=$(basename "$log" .log)
	status=0
	[ -f "$dir/logs/$name.status" ] && status=$(cat "$dir/logs/$name.status")
	allow=
	[ -f "$dir/logs/$name.allow" ] && allow=$(cat "$dir/logs/$name.allow")
	cpus=1
	[ -f "$dir/logs/$name.cpus" ] && cpus=$(cat "$dir/logs/$name.cpus")
	forbid=
	[ -f "$dir/logs/$name.forbid" ] && forbid=$(cat "$dir/logs/$name.forbid")
	kunit=() args=()
	[ -f "$dir/logs/$name.kunit" ] && kunit=(--expect-kunit "$(cat "$dir/logs/$name.kunit")")
	[ ! -f "$dir/logs/$name.args" ] || read -r -a args <"$dir/logs/$name.args"
	rc=0
	out=$("$scripts/lib/verdict.sh" --allow-skip "$allow" --cpus "$cpus" --forbid "$forbid" \
		"${kunit[@]}" "${args[@]}" "$log" t "$status") || rc=$?
	judge "verdict/$name" "$dir/logs/$name.expect" "$rc" "$out"
done
# The list of kinds of kernel report (scripts/lib/judge/reports.py): each
# line of reports/lines, KIND and a recorded kernel line, is found as
# KIND, every kind has one, and the lines of kind "none" are no report.
rc=0
python3 "$scripts/lib/judge" kinds "$dir/reports/lines" || rc=$?
[ $rc = 0 ] || bad=1

# Where kunit_parser.py, which reads the KTAP documents for the judge, is
# unfit for our input (the judge does the rest): kunit-parser/NAME.ktap, a
# document, NAME.expect its reading by the tree's kunit_parser (judge
# kunit-parser): nameless-skip, 6.1's kselftest_harness.h skip result
# without a name, is no result to it; not-ok-skip, "not ok ... # SKIP",
# is SKIPPED; lower-skip, "# skip", a success; outer-cut, init's document
# fed whole: a program's document cut short takes init's results.
# shellcheck source=scripts/lib/common.sh
tool=$(. "$scripts/lib/common.sh" && kunit_tool)
for doc in "$dir"/kunit-parser/*.ktap; do
	name=$(basename "$doc" .ktap)
	rc=0
	out=$(python3 "$scripts/lib/judge" kunit-parser "$tool" "$doc" 2>&1) || rc=$?
	judge "kunit-parser/$name" "$dir/kunit-parser/$name.expect" "$rc" "$out"
done

for log in "$dir"/fuzz/*.log; do
	name=$(basename "$log" .log)
	read -r trinity own <"$dir/fuzz/$name.args"
	rc=0
	out=$("$scripts/fuzz-count.sh" "$log" t "$trinity" "$own" 2>/dev/null) || rc=$?
	judge "fuzz-count/$name" "$dir/fuzz/$name.expect" "$rc" "$out"
done

# make check-debian's judge (debian.sh --judge) on console logs of a
# Debian boot: debian/NAME.log with its QEMU status in NAME.status (0 when
# absent) and verdict.sh's options in NAME.args (none when absent),
# the stock changes of --changed in NAME.changes (tests/stock-changes
# when absent), the lsmod of --modules in NAME.lsmod (none when absent),
# NAME.expect its exact output. real-*: logs of real boots.
for log in "$dir"/debian/*.log; do
	name=$(basename "$log" .log)
	status=0 args=()
	[ ! -f "$dir/debian/$name.status" ] || status=$(cat "$dir/debian/$name.status")
	[ ! -f "$dir/debian/$name.args" ] || read -r -a args <"$dir/debian/$name.args"
	[ ! -f "$dir/debian/$name.changes" ] || args+=(--changes "$dir/debian/$name.changes")
	[ ! -f "$dir/debian/$name.lsmod" ] || args+=(--modules "$dir/debian/$name.lsmod")
	rc=0
	out=$("$scripts/debian.sh" --judge "$log" t "$status" "${args[@]}" 2>&1) || rc=$?
	judge "debian/$name" "$dir/debian/$name.expect" "$rc" "$out"
done

# The judge of make check-debian's install steps (debian.sh
# --judge-install) on console logs of one step's boot:
# debian-install/NAME.log, its arguments one a line in NAME.args (STEP,
# KERNEL, QEMU status, the texts), NAME.expect its exact output.
# real-*: logs of real boots.
for log in "$dir"/debian-install/*.log; do
	[ -e "$log" ] || continue
	name=$(basename "$log" .log)
	mapfile -t args <"$dir/debian-install/$name.args"
	rc=0
	out=$("$scripts/debian.sh" --judge-install "$log" "${args[@]}" 2>&1) || rc=$?
	judge "debian-install/$name" "$dir/debian-install/$name.expect" "$rc" "$out"
done

# The bound of make bench-cycles on crafted and recorded results of tree
# 6.12: bench/NAME.results, bench/NAME.expect the rows above the bound and
# the rows that are not what the scenarios say they must be. The
# scenarios are bench/scenarios.h of the day the results were recorded
# (a copy in tests/harness/bench/), so that a new row in the real one
# does not change what these tests see.
for res in "$dir"/bench/*.results; do
	name=$(basename "$res" .results)
	out=$(awk -v trees=6.12 -f "$dir/../../bench/cycles-bound.awk" "$dir/bench/scenarios.h" "$res")
	if [ "$out" = "$(cat "$dir/bench/$name.expect")" ]; then
		echo "PASS host/bench-bound/$name"
	else
		echo "FAIL host/bench-bound/$name: the bound said:"
		printf '%s\n' "$out" | sed 's/^/    /'
		bad=1
	fi
done

# The port trace's judge (scripts/porttrace.sh --judge) on traces of a boot
# that ran eight programs, the selftests of the series before they were
# folded into two (crafted from a real one, one real trace, and one window
# rebuilt from the lines that a report of a failure quoted):
# porttrace/NAME.trace; porttrace/NAME.expect is its exact output.
for trace in "$dir"/porttrace/*.trace; do
	name=$(basename "$trace" .trace)
	rc=0
	out=$("$scripts/porttrace.sh" --judge 8 "$trace" 2>/dev/null) || rc=$?
	judge "porttrace/$name" "$dir/porttrace/$name.expect" "$rc" "$out"
done

# make x86-selftests' comparison (x86-selftests.sh --compare) on crafted
# boots: x86-selftests/NAME.stock.log and NAME.patched.log, the console
# logs of the stock and the patched kernel (QEMU statuses 0), NAME.expect
# its exact output.
for log in "$dir"/x86-selftests/*.stock.log; do
	name=$(basename "$log" .stock.log)
	rc=0
	out=$("$scripts/x86-selftests.sh" --compare "$log" 0 \
		"$dir/x86-selftests/$name.patched.log" 0 2>&1) || rc=$?
	judge "x86-selftests/$name" "$dir/x86-selftests/$name.expect" "$rc" "$out"
done

# make programs' cells against tests/programs.expect (programs.sh --judge)
# on recorded boots: programs/NAME.COLUMN.log, the console log of the
# boot of that column (stock, strict, compat, off), NAME.expect the exact
# output for the columns given, against NAME.table instead of
# tests/programs.expect when there is one. real-*: the boots of the real
# runs.
for exp in "$dir"/programs/*.expect; do
	name=$(basename "$exp" .expect)
	args=()
	[ ! -f "$dir/programs/$name.table" ] || args=(--expect "$dir/programs/$name.table")
	for log in "$dir/programs/$name".*.log; do
		col=${log%.log}
		args+=("${col##*.}" "$log")
	done
	rc=0
	out=$("$scripts/programs.sh" --judge "${args[@]}" 2>&1) || rc=$?
	judge "programs/$name" "$exp" "$rc" "$out"
done

# A checkpatch.pl that dies must fail scripts/checkpatch.sh, not pass it
# with no findings.
rc=0
out=$("$scripts/checkpatch.sh" --checkpatch "$dir/fake/crashing-checkpatch.pl" 2>/dev/null) || rc=$?
if [ $rc != 0 ] && grep -q '^FAIL .*checkpatch.pl exited' <<<"$out"; then
	echo "PASS host/checkpatch-crash"
else
	echo "FAIL host/checkpatch-crash: checkpatch.sh exited $rc on a crashing checkpatch.pl"
	bad=1
fi

# A verdict.sh that dies without a word must fail the boot it judges, and
# every suite runs it through the one function that sees to that
# (common.sh's verdict): porttrace.sh, programs.sh, series.sh, xen.sh and
# fuzz.sh once passed such a boot.
# shellcheck source=scripts/lib/common.sh
out=$(. "$scripts/lib/common.sh" && verdict_sh=$dir/fake/dying-verdict.sh &&
	verdict t "$dir/logs/pass.log" 0 2>&1) || true
direct=$(grep -l 'verdict\.sh"' "$scripts"/*.sh "$scripts"/lib/*.sh "$dir"/../../bench/*.sh |
	grep -v '/common\.sh$' || true)
if [ "$out" = "FAIL t: verdict.sh exited 3 on $dir/logs/pass.log without a FAIL line" ] && [ -z "$direct" ]; then
	echo "PASS host/verdict-dies"
else
	echo "FAIL host/verdict-dies: a dying verdict.sh gave \"$out\"; run directly by: ${direct:-none}"
	bad=1
fi

# checkpatch.sh on crafted series, checkpatch/NAME/ (a series and its
# patches), with a checkpatch.pl that finds FAKE_FINDING in every patch:
# checkpatch/NAME.expect is its exact output.
for pdir in "$dir"/checkpatch/*/; do
	name=$(basename "$pdir")
	rc=0
	out=$("$scripts/checkpatch.sh" --checkpatch "$dir/fake/finding-checkpatch.pl" \
		--patches "$pdir" 2>/dev/null) || rc=$?
	judge "checkpatch/$name" "$dir/checkpatch/$name.expect" "$rc" "$out"
done

# figures.sh --root on crafted roots, figures/NAME/ (its patches/ and
# results/); figures/NAME.expect its exact output.
for case in "$dir"/figures/*/; do
	name=$(basename "$case")
	rc=0
	out=$("$scripts/figures.sh" --root "$case" 2>&1) || rc=$?
	judge "figures/$name" "$dir/figures/$name.expect" "$rc" "$out"
done

# parity.sh --root on crafted pairs of series, parity/NAME/: patches/parity
# is NAME/parity, patches/T/series NAME/series-T, and build/T/tree a git
# repository with a first commit, tagged base unless NAME/no-base-T exists,
# and one commit per line of NAME/subjects-T; parity/NAME.expect its output.
for case in "$dir"/parity/*/; do
	name=$(basename "$case")
	tmp=$(mktemp -d)
	mkdir -p "$tmp/patches"
	cp "$case/parity" "$tmp/patches/parity"
	for t in 6.1 6.12; do
		mkdir -p "$tmp/patches/$t" "$tmp/build/$t/tree"
		cp "$case/series-$t" "$tmp/patches/$t/series"
		(
			cd "$tmp/build/$t/tree"
			git init -q
			git config user.name harness
			git config user.email harness@localhost
			echo base >f
			git add f
			git commit -qm base
			[ -f "$case/no-base-$t" ] || git tag base
			while IFS= read -r subject; do
				echo "$subject" >>f
				git commit -qam "$subject"
			done <"$case/subjects-$t"
		)
	done
	rc=0
	out=$("$scripts/parity.sh" --root "$tmp" 2>/dev/null) || rc=$?
	# it says FAIL and exits 0, as host-checks.sh wants it
	[ $rc != 0 ] || ! grep -q '^FAIL ' <<<"$out" || rc=1
	judge "parity/$name" "$dir/parity/$name.expect" "$rc" "$out"
	rm -rf "$tmp"
done

# The W=1 comparison of make check-debcfg (debian-config.sh --compare) on
# crafted build logs: debcfg/NAME.stock.log and NAME.patched.log,
# NAME.expect its exact output.
for log in "$dir"/debcfg/*.stock.log; do
	name=$(basename "$log" .stock.log)
	rc=0
	out=$("$scripts/debian-config.sh" --compare "$log" "$dir/debcfg/$name.patched.log" 2>&1) || rc=$?
	judge "debcfg/$name" "$dir/debcfg/$name.expect" "$rc" "$out"
done

# boot.sh removes an old log before anything can fail, so that a verdict
# never reads the previous boot's log.
tmp=$(mktemp -d)
echo "PASS old/boot/result" >"$tmp/boot.log"
"$scripts/lib/boot.sh" "$tmp/no-such-bzImage" "$tmp/boot.log" demo >/dev/null 2>&1 || true
if [ ! -e "$tmp/boot.log" ]; then
	echo "PASS host/boot-stale-log"
else
	echo "FAIL host/boot-stale-log: boot.sh left the previous boot's log"
	bad=1
fi
rm -rf "$tmp"

# tree.sh when Debian's linux-source changes, on fake source trees.
"$dir/tree/source-update.sh" || bad=1

# Debian's shellcheck on every shell script of the repository (a .sh
# file, or one whose first line is #!/bin/sh or #!/bin/bash), from the
# top so that the "# shellcheck source=scripts/lib/common.sh" of a script
# that sources common.sh is followed: clean, each finding fixed or
# disabled on its line with the reason.
top=$(cd "$dir/../.." && pwd)
mapfile -t shells < <(cd "$top" && find . -path ./build -prune -o -path ./.git -prune -o -type f -print |
	while read -r f; do
		case $f in
		*.sh) echo "${f#./}" ;;
		*) head -c 20 "$f" | grep -qE '^#!/bin/(ba)?sh' && echo "${f#./}" ;;
		esac
	done | sort)
if ! command -v shellcheck >/dev/null; then
	echo "FAIL host/shellcheck: no shellcheck (make deps installs Debian's)"
	bad=1
elif out=$(cd "$top" && shellcheck -x "${shells[@]}" 2>&1); then
	echo "PASS host/shellcheck: ${#shells[@]} scripts"
else
	echo "FAIL host/shellcheck: its findings:"
	printf '%s\n' "$out" | sed 's/^/    /'
	bad=1
fi

# README against make help, results/ and the files it names (readme.sh);
# README and docs/ against references no reader can follow (hygiene.sh).
"$dir/readme.sh" || bad=1
"$dir/hygiene.sh" || bad=1
exit $bad
