#!/bin/bash
# Build the patched tree of $TREE with Debian's own cloud config and package
# it as Debian users get a kernel: debkbuild.sh writes
# build/$TREE/debian-kernel/linux-image-RELEASE_*.deb (with its modules)
# and prints its path.
# debkbuild.sh --xen: Debian's generic amd64 flavour instead, the one that
# can be Xen dom0 (the cloud flavour has no XEN_DOM0), built as
# build/$TREE/debian-xen/obj/arch/x86/boot/bzImage only (no modules, no
# package; make check-xen's way), whose path it prints.
#   - Debian's config.amd64_none_cloud-amd64 (package linux-config-$TREE),
#     the changes of config/debian.config, olddefconfig;
#   - the modules: those of config/debian-lsmod-$TREE.txt only (make
#     localmodconfig; see docs/debian.md for why and for the time);
#   - make bindeb-pkg, the kernel's own Debian packaging, LOCALVERSION=-iopl
#     so that the package installs beside Debian's own kernel.
# Every built-in option that olddefconfig leaves different from Debian's is
# listed in build/$TREE/logs/debian-config-changes-FLAVOUR.txt, and one that is not
# explained below fails the build; those that localmodconfig drops are in
# debian-config-localmodconfig.txt.
# Nothing is rebuilt while the tree's HEAD, Debian's config and the two
# files of config/ are unchanged.
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
. "$(dirname "$0")/common.sh"

flavour=cloud-amd64 out=$build/debian-kernel
case $#:${1-} in
0:) ;;
1:--xen) flavour=amd64 out=$build/debian-xen ;;
*) die "usage: debkbuild.sh [--xen]" ;;
esac
debcfg=/usr/src/linux-config-$tree_version/config.amd64_none_$flavour.xz
changes=$top/config/debian.config
lsmod=$top/config/debian-lsmod-$tree_version.txt
srcdir=$build/tree
obj=$out/obj
log=$build/logs/debkbuild-$flavour.log
mkdir -p "$obj" "$build/logs"
[ -f "$debcfg" ] || die "debkbuild: $debcfg not found (apt-get install linux-config-$tree_version)"
[ -f "$lsmod" ] || die "debkbuild: $lsmod not found: boot Debian's own kernel and record its lsmod (docs/debian.md)"
[ -z "$(git -C "$srcdir" status --porcelain --untracked-files=no)" ] ||
	die "debkbuild: $srcdir has uncommitted changes; commit them (and make export)"

fingerprint=$({ git -C "$srcdir" rev-parse HEAD; cat "$debcfg" "$changes" "$lsmod" "$0"; } | sha256sum)
# product: what this build makes (the package, or the bzImage for Xen)
product() {
	if [ $flavour = amd64 ]; then
		ls "$obj/arch/x86/boot/bzImage" 2>/dev/null || true
	else
		local deb
		for deb in "$out"/linux-image-*-iopl_*.deb; do
			[[ ! -f $deb || $deb = *-dbg_* ]] || echo "$deb"
		done
	fi
}
if [ -n "$(product)" ] && [ -f "$out/.fingerprint" ] && [ "$(cat "$out/.fingerprint")" = "$fingerprint" ]; then
	product
	exit 0
fi
rm -f "$out"/*.deb "$out"/*.buildinfo "$out"/*.changes "$out/.fingerprint" "$obj/arch/x86/boot/bzImage"

kbuild_env "$srcdir" "$obj" x86_64
kmake+=(LOCALVERSION=-iopl)

# builtins CONFIG: the options of CONFIG that are not modules, sorted
builtins() { grep -E '^CONFIG_[A-Z0-9_]+=[^m]' "$1" | sort; }

step "debkbuild: Debian's config.amd64_none_$flavour + ${changes#"$top/"}, olddefconfig"
{
	xz -dc "$debcfg" >"$obj/.config.debian"
	cp "$obj/.config.debian" "$obj/.config"
	"$srcdir/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$changes" &&
		"${kmake[@]}" olddefconfig
} >"$log" 2>&1 || die "debkbuild: configuration failed, see $log"
# Every built-in option that differs from Debian's here must be explained:
# debug info's own options go with CONFIG_DEBUG_INFO_NONE; the signing
# options that Debian's file leaves out (Debian signs in its own
# packaging) take their defaults, a key this build makes; the compiler's
# and rustc's version strings and the build salt are the build machine's.
explained='^(CONFIG_DEBUG_INFO[A-Z0-9_]*|CONFIG_PAHOLE_[A-Z0-9_]+|CONFIG_MODULE_SIG_ALL|CONFIG_MODULE_SIG_KEY|CONFIG_SYSTEM_TRUSTED_KEYS|CONFIG_SYSTEM_REVOCATION_KEYS|CONFIG_CC_VERSION_TEXT|CONFIG_RUSTC_[A-Z0-9_]+|CONFIG_BUILD_SALT|CONFIG_MODULE_ALLOW_BTF_MISMATCH|CONFIG_PROBE_EVENTS_BTF_ARGS)$'
changed=$build/logs/debian-config-changes-$flavour.txt
diff <(builtins "$obj/.config.debian") <(builtins "$obj/.config") | grep '^[<>] ' >"$changed" || true
unexplained=$(sed 's/^[<>] //; s/=.*//' "$changed" | sort -u | grep -Ev "$explained" || true)
[ -z "$unexplained" ] ||
	die "debkbuild: built-in options changed that config/debian.config does not explain: ${unexplained//$'\n'/ } (see $changed)"

if [ $flavour = amd64 ]; then
	step "debkbuild: make bzImage (log: $log)"
	"${kmake[@]}" bzImage >>"$log" 2>&1 ||
		{ tail -n 20 "$log" >&2; die "debkbuild: make bzImage failed, see $log"; }
	printf '%s\n' "$fingerprint" >"$out/.fingerprint"
	product
	exit 0
fi

# The modules: only those Debian's kernel loads in this guest. Turning
# the others off also drops the built-in options that only they selected
# (listed in the log); those that the series runs on must stay Debian's.
step "debkbuild: localmodconfig from ${lsmod#"$top/"}"
cp "$obj/.config" "$obj/.config.olddefconfig"
grep -v '^#' "$lsmod" >"$obj/lsmod.txt"
"${kmake[@]}" LSMOD="$obj/lsmod.txt" localmodconfig </dev/null >>"$log" 2>&1 ||
	die "debkbuild: localmodconfig failed, see $log"
dropped=$build/logs/debian-config-localmodconfig.txt
diff <(builtins "$obj/.config.olddefconfig") <(builtins "$obj/.config") | grep '^[<>] ' >"$dropped" || true
for opt in X86_IOPL_IOPERM PARAVIRT_XXL XEN_PV XEN_DOM0 SMP ACPI NR_CPUS RANDOMIZE_BASE X86_KERNEL_IBT \
	PREEMPT_DYNAMIC PREEMPT_VOLUNTARY RETPOLINE MITIGATION_RETPOLINE PAGE_TABLE_ISOLATION \
	MITIGATION_PAGE_TABLE_ISOLATION; do
	[ "$(grep "^CONFIG_$opt=" "$obj/.config.debian")" = "$(grep "^CONFIG_$opt=" "$obj/.config.olddefconfig")" ] ||
		die "debkbuild: CONFIG_$opt differs from Debian's"
	[ "$(grep "^CONFIG_$opt=" "$obj/.config.olddefconfig")" = "$(grep "^CONFIG_$opt=" "$obj/.config")" ] ||
		die "debkbuild: localmodconfig changed CONFIG_$opt"
done
step "debkbuild: $(grep -c '=m$' "$obj/.config") modules (Debian's: $(grep -c '=m$' "$obj/.config.debian"))"

step "debkbuild: make bindeb-pkg (log: $log; packages beside obj/)"
"${kmake[@]}" bindeb-pkg >>"$log" 2>&1 ||
	{ tail -n 20 "$log" >&2; die "debkbuild: make bindeb-pkg failed, see $log"; }
[ -n "$(product)" ] || die "debkbuild: make bindeb-pkg made no linux-image package in $out"
printf '%s\n' "$fingerprint" >"$out/.fingerprint"
product
