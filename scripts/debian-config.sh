#!/bin/bash
# make check-debcfg: the tree $TREE, stock and patched, configured with
# Debian's own config.amd64_none_amd64 (package linux-config-$TREE) and
# olddefconfig. Checks that the options the series relies on are set, and
# builds the directories the series touches (arch/x86/kernel,
# arch/x86/xen, arch/x86/entry) with W=1 on both: a warning of the patched
# build that the stock build does not have fails. Warnings are compared
# without line and column numbers, which the patches move, and counted:
# a second warning of the same text in the same file is a new one.
#   debian-config.sh --compare STOCK-LOG PATCHED-LOG   only the W=1
#   comparison of two recorded build logs (the host tests); exit 1 on a FAIL
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
. "$(dirname "$0")/lib/common.sh"

config=/usr/src/linux-config-$tree_version/config.amd64_none_amd64.xz
dirs=(arch/x86/kernel/ arch/x86/xen/ arch/x86/entry/)

# w1_warnings LOG SRCDIR: the W=1 warnings of a build log of SRCDIR as
# "file: warning text", sorted. Each place once (a header's warning comes
# once per file that includes it); line and column numbers are dropped only
# after that, so that two places with the same text stay two (sort -u
# made them one, and a second one that the series added was not seen).
w1_warnings() {
	{ grep -E '^[^ ]+:[0-9]+:[0-9]+: warning: ' "$1" || true; } |
		sed -E "s#^($2/|\.\./(src|tree)/)##" | sort -u |
		sed -E 's#^([^:]+):[0-9]+:[0-9]+: warning: #\1: #' | sort
}

# w1_judge STOCK PATCHED STOCK-LOG: the W=1 results from the two lists
w1_judge() {
	local n_stock n_new
	n_stock=$(wc -l <"$1")
	n_new=$(comm -13 "$1" "$2" | wc -l)
	comm -13 "$1" "$2" | sed 's/^/FAIL debcfg\/w1-new-warning: /'
	# Both trees have W=1 warnings on stock; none at all means the build or
	# the parsing saw nothing, and "none new" would prove nothing.
	if [ "$n_stock" = 0 ]; then
		echo "FAIL debcfg/w1-parsed: no W=1 warning found on stock, see ${3#"$top/"}"
	elif [ "$n_new" = 0 ]; then
		echo "PASS debcfg/w1-no-new-warnings: $n_stock W=1 warnings on stock, none new"
	fi
}

# w1_compare STOCK-LOG PATCHED-LOG: w1_judge on two recorded build logs
w1_compare() {
	local tmp
	tmp=$(mktemp -d)
	w1_warnings "$1" "$build/src" >"$tmp/stock"
	w1_warnings "$2" "$build/tree" >"$tmp/patched"
	w1_judge "$tmp/stock" "$tmp/patched" "$1"
	rm -rf "$tmp"
}

if [ "${1-}" = --compare ]; then
	[ $# = 3 ] || die "usage: debian-config.sh [--compare STOCK-LOG PATCHED-LOG]"
	judged debcfg w1_compare "$2" "$3" || exit 1
	exit 0
fi
[ $# = 0 ] || die "usage: debian-config.sh [--compare STOCK-LOG PATCHED-LOG]"
mkdir -p "$build/logs"
[ -f "$config" ] || die "debcfg: $config not found (apt-get install linux-config-$tree_version)"

"$lib/tree.sh"

# warnings KIND SRCDIR: configure and build build/$TREE/debcfg-KIND, print
# its W=1 warnings (w1_warnings)
warnings() {
	local kind=$1 srcdir=$2 obj=$build/debcfg-$1 log=$build/logs/debcfg-$1.log
	local kmake
	kbuild_env "$srcdir" "$obj" x86_64
	mkdir -p "$obj"
	step "debcfg $kind: Debian's config.amd64_none_amd64 + olddefconfig"
	xz -dc "$config" >"$obj/.config"
	"${kmake[@]}" olddefconfig >"$log" 2>&1 ||
		die "debcfg $kind: olddefconfig failed, see $log"
	step "debcfg $kind: W=1 build of ${dirs[*]} (log: $log, several minutes)"
	# W=1 warnings come only from files that are compiled: build from scratch
	# (ccache makes the second run cheap).
	rm -rf "${dirs[@]/#/$obj/}"
	"${kmake[@]}" W=1 "${dirs[@]}" >>"$log" 2>&1 ||
		{ tail -n 20 "$log" >&2; die "debcfg $kind: W=1 build failed, see $log"; }
	w1_warnings "$log" "$srcdir"
}

warnings stock "$build/src" >"$build/logs/debcfg-stock.warnings"
warnings patched "$build/tree" >"$build/logs/debcfg-patched.warnings"

results=$build/logs/results-debcfg.txt
{
	# What makes the Debian config worth checking: the bitmap updates are
	# paravirt ops there.
	for opt in CONFIG_X86_IOPL_IOPERM=y CONFIG_PARAVIRT_XXL=y CONFIG_XEN_PV=y; do
		if grep -qx "$opt" "$build/debcfg-patched/.config"; then
			echo "PASS debcfg/${opt%=y}"
		else
			echo "FAIL debcfg/${opt%=y}: not in Debian's config after olddefconfig"
		fi
	done
	w1_judge "$build/logs/debcfg-stock.warnings" "$build/logs/debcfg-patched.warnings" \
		"$build/logs/debcfg-stock.log"
} >"$results"
n_stock=$(wc -l <"$build/logs/debcfg-stock.warnings")
n_new=$(grep -c '^FAIL debcfg/w1-new-warning' "$results" || true)
n_gone=$(comm -23 "$build/logs/debcfg-stock.warnings" "$build/logs/debcfg-patched.warnings" | wc -l)
cat "$results"
echo "debcfg $tree_version, W=1: $n_stock warnings on stock, $n_new new, $n_gone gone"
summarize "$results"
