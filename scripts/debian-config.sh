#!/bin/bash
# make check-debcfg: the tree $TREE, stock and patched, configured with
# Debian's own config.amd64_none_amd64 (package linux-config-$TREE) and
# olddefconfig. Checks that the series' Kconfig choice lands on its default,
# compat, and builds the directories the series touches (arch/x86/kernel,
# arch/x86/xen, arch/x86/entry) with W=1 on both: a warning of the patched
# build that the stock build does not have fails. Warnings are compared
# without line and column numbers, which the patches move.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"

config=/usr/src/linux-config-$tree_version/config.amd64_none_amd64.xz
dirs=(arch/x86/kernel/ arch/x86/xen/ arch/x86/entry/)
mkdir -p "$build/logs"
[ -f "$config" ] || die "debcfg: $config not found (apt-get install linux-config-$tree_version)"

"$lib/tree.sh"

# warnings KIND SRCDIR: configure and build build/$TREE/debcfg-KIND, print
# its W=1 warnings as "file: warning text" (sorted, unique)
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
	grep -E '^[^ ]+:[0-9]+:[0-9]+: warning: ' "$log" |
		sed -E "s#^($srcdir/|\.\./(src|tree)/)?([^:]+):[0-9]+:[0-9]+: warning: #\3: #" | sort -u
}

warnings stock "$build/src" >"$build/logs/debcfg-stock.warnings"
warnings patched "$build/tree" >"$build/logs/debcfg-patched.warnings"

results=$build/logs/results-debcfg.txt
{
	mode=$(grep '^CONFIG_X86_IOPL_MODE_[A-Z]*=y' "$build/debcfg-patched/.config" || true)
	if [ "$mode" = CONFIG_X86_IOPL_MODE_COMPAT=y ]; then
		echo "PASS debcfg/default-mode-compat"
	else
		echo "FAIL debcfg/default-mode-compat: Debian's config gives ${mode:-no CONFIG_X86_IOPL_MODE_*}"
	fi
	# What makes the Debian config worth checking: the bitmap updates are
	# paravirt ops there.
	for opt in CONFIG_X86_IOPL_IOPERM=y CONFIG_PARAVIRT_XXL=y CONFIG_XEN_PV=y; do
		if grep -qx "$opt" "$build/debcfg-patched/.config"; then
			echo "PASS debcfg/${opt%=y}"
		else
			echo "FAIL debcfg/${opt%=y}: not in Debian's config after olddefconfig"
		fi
	done
	comm -13 "$build/logs/debcfg-stock.warnings" "$build/logs/debcfg-patched.warnings" |
		sed 's/^/FAIL debcfg\/w1-new-warning: /'
} >"$results"
n_stock=$(wc -l <"$build/logs/debcfg-stock.warnings")
n_new=$(grep -c '^FAIL debcfg/w1-new-warning' "$results" || true)
n_gone=$(comm -23 "$build/logs/debcfg-stock.warnings" "$build/logs/debcfg-patched.warnings" | wc -l)
# Both trees have W=1 warnings on stock; none at all means the build or
# the parsing above saw nothing, and "none new" would prove nothing.
if [ "$n_stock" = 0 ]; then
	echo "FAIL debcfg/w1-parsed: no W=1 warning found on stock, see $build/logs/debcfg-stock.log" >>"$results"
elif [ "$n_new" = 0 ]; then
	echo "PASS debcfg/w1-no-new-warnings: $n_stock distinct W=1 warnings on stock, none new" >>"$results"
fi
cat "$results"
echo "debcfg $tree_version, W=1: $n_stock warnings on stock, $n_new new, $n_gone gone"
summarize "$results"
