#!/bin/bash
# make deb: the patched tree of $TREE built with Debian's own config of a
# flavour and packaged by the kernel's make bindeb-pkg, as a Debian admin
# installs it. Prints the paths of the image and headers packages.
# debkbuild.sh [--flavour amd64|cloud-amd64] [--lsmod FILE] [--bzimage]
#   --flavour  Debian's config.amd64_none_FLAVOUR (package
#              linux-config-$TREE); amd64, the generic flavour, by default:
#              the one that can be Xen dom0 and drives most hardware
#   --lsmod    only the modules FILE lists (an lsmod of the machine, as
#              make localmodconfig takes it); without it every module of
#              the flavour, as Debian builds it
#   --bzimage  the kernel image alone, no modules, no package (make
#              check-debian's Xen part); prints the bzImage's path
# What it changes in Debian's config: config/debian.config, olddefconfig.
# Every built-in option that olddefconfig leaves different from Debian's is
# listed in build/$TREE/logs/debian-config-changes-FLAVOUR.txt, and one that
# is not explained below fails the build; those that localmodconfig drops
# are in debian-config-localmodconfig-FLAVOUR.txt.
# The packages: release VERSION-iopl-FLAVOUR, so that they install beside
# Debian's kernels; package version Debian's source version +iopl1, so that
# they sort after Debian's kernel of the same source. Modules are signed
# with a key that the build makes, obj/certs/signing_key.pem beside the
# packages (not Debian's key).
# Output: build/$TREE/deb/FLAVOUR-full or FLAVOUR-lsmod, the packages
# beside obj/. Nothing is rebuilt while the tree's HEAD, Debian's config,
# config/debian.config, the lsmod file and this script are unchanged.
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
. "$(dirname "$0")/common.sh"

usage="usage: debkbuild.sh [--flavour amd64|cloud-amd64] [--lsmod FILE] [--bzimage]"
flavour=amd64 lsmod="" bzimage=""
while [ $# -gt 0 ]; do
	case $1 in
	--flavour) [ $# -ge 2 ] || die "$usage"; flavour=$2; shift ;;
	--lsmod) [ $# -ge 2 ] || die "$usage"; lsmod=$(realpath -e "$2") || die "debkbuild: no lsmod file $2"; shift ;;
	--bzimage) bzimage=1 ;;
	*) die "$usage" ;;
	esac
	shift
done
case $flavour in
amd64 | cloud-amd64) ;;
*) die "debkbuild: FLAVOUR=$flavour: Debian's flavours here are amd64 and cloud-amd64" ;;
esac
[ -z "$bzimage" ] || [ -z "$lsmod" ] || die "debkbuild: --bzimage builds no modules; --lsmod makes no sense with it"
debcfg=/usr/src/linux-config-$tree_version/config.amd64_none_$flavour.xz
changes=$top/config/debian.config
variant=full
[ -z "$lsmod" ] || variant=lsmod
out=$build/deb/$flavour-$variant
srcdir=$build/tree
obj=$out/obj
log=$build/logs/debkbuild-${out##*/}${bzimage:+-bzimage}.log
source_version=$(dpkg-query -W -f='${Version}' "$source_package")
mkdir -p "$obj" "$build/logs"
[ -f "$debcfg" ] || die "debkbuild: $debcfg not found (apt-get install linux-config-$tree_version)"
[ -z "$(git -C "$srcdir" status --porcelain --untracked-files=no)" ] ||
	die "debkbuild: $srcdir has uncommitted changes; commit them (and make export)"

stamp=$out/.fingerprint${bzimage:+-bzimage}
fingerprint=$({ git -C "$srcdir" rev-parse HEAD; echo "$source_version"; cat "$debcfg" "$changes" ${lsmod:+"$lsmod"} "$0"; } | sha256sum)
# product: what this build makes, the image and headers packages or the bzImage
product() {
	local deb
	if [ -n "$bzimage" ]; then
		ls "$obj/arch/x86/boot/bzImage" 2>/dev/null || true
		return
	fi
	for deb in "$out"/linux-image-*_*.deb "$out"/linux-headers-*_*.deb; do
		[[ ! -f $deb || $deb = *-dbg_* ]] || echo "$deb"
	done
}
if [ -n "$(product)" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$fingerprint" ]; then
	product
	exit 0
fi
# obj is configured again: no product of it is current any more
rm -f "$out"/.fingerprint*
[ -n "$bzimage" ] || rm -f "$out"/*.deb "$out"/*.buildinfo "$out"/*.changes
start=$SECONDS

kbuild_env "$srcdir" "$obj" x86_64
kmake+=(LOCALVERSION="-iopl-$flavour" KDEB_PKGVERSION="$source_version+iopl1")

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

if [ -n "$bzimage" ]; then
	step "debkbuild: make bzImage (log: $log)"
	"${kmake[@]}" bzImage >>"$log" 2>&1 ||
		{ tail -n 20 "$log" >&2; die "debkbuild: make bzImage failed, see $log"; }
	printf '%s\n' "$fingerprint" >"$stamp"
	product
	exit 0
fi

# The modules of the lsmod file only. Turning the others off also drops
# the built-in options that only they selected (listed in the log); those
# that the series runs on must stay Debian's.
if [ -n "$lsmod" ]; then
	step "debkbuild: localmodconfig from $lsmod"
	cp "$obj/.config" "$obj/.config.olddefconfig"
	grep -v '^#' "$lsmod" >"$obj/lsmod.txt"
	"${kmake[@]}" LSMOD="$obj/lsmod.txt" localmodconfig </dev/null >>"$log" 2>&1 ||
		die "debkbuild: localmodconfig failed, see $log"
	dropped=$build/logs/debian-config-localmodconfig-$flavour.txt
	diff <(builtins "$obj/.config.olddefconfig") <(builtins "$obj/.config") | grep '^[<>] ' >"$dropped" || true
	for opt in X86_IOPL_IOPERM PARAVIRT_XXL XEN_PV XEN_DOM0 SMP ACPI NR_CPUS RANDOMIZE_BASE X86_KERNEL_IBT \
		PREEMPT_DYNAMIC PREEMPT_VOLUNTARY RETPOLINE MITIGATION_RETPOLINE PAGE_TABLE_ISOLATION \
		MITIGATION_PAGE_TABLE_ISOLATION; do
		[ "$(grep "^CONFIG_$opt=" "$obj/.config.debian")" = "$(grep "^CONFIG_$opt=" "$obj/.config.olddefconfig")" ] ||
			die "debkbuild: CONFIG_$opt differs from Debian's"
		[ "$(grep "^CONFIG_$opt=" "$obj/.config.olddefconfig")" = "$(grep "^CONFIG_$opt=" "$obj/.config")" ] ||
			die "debkbuild: localmodconfig changed CONFIG_$opt"
	done
fi
step "debkbuild: $(grep -c '=m$' "$obj/.config") modules (Debian's: $(grep -c '=m$' "$obj/.config.debian"))"

step "debkbuild: make bindeb-pkg (log: $log; packages in $out)"
"${kmake[@]}" bindeb-pkg >>"$log" 2>&1 ||
	{ tail -n 20 "$log" >&2; die "debkbuild: make bindeb-pkg failed, see $log"; }
[ "$(product | wc -l)" = 2 ] || die "debkbuild: make bindeb-pkg did not make one image and one headers package in $out"
# The modules are signed, with the build's own key
signer=$(modinfo -F signer "$(find "$obj"/debian/linux-image*/ -name '*.ko*' -path '*/lib/modules/*' ! -path '*-dbg/*' | head -n 1)" 2>/dev/null || true)
[ -n "$signer" ] || die "debkbuild: the packaged modules carry no signature"
step "debkbuild: modules signed by \"$signer\" (key: $obj/certs/signing_key.pem); built in $(((SECONDS - start) / 60)) min $(((SECONDS - start) % 60)) s"
printf '%s\n' "$fingerprint" >"$stamp"
product
