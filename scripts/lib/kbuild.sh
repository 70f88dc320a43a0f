#!/bin/bash
# Build one kernel variant: kbuild.sh [--as-is] NAME SRCDIR FRAGMENT...
# or one of the three kernels of the tree and KARCH, with their sources and
# fragments: kbuild.sh [--as-is] stock|patched|debug (build/$TREE/stock,
# patched, patched-debug; -i386 at the end for KARCH=i386).
# A git tree with uncommitted changes is refused, unless --as-is: then it
# is built as it stands, its changes part of what the build depends on.
# The config is tinyconfig plus the fragments, checked option by option;
# the result is build/$TREE/NAME/bzImage. Nothing is rebuilt when the sources
# (tarball or build/tree commit) and the fragments are unchanged.
# ccache sees paths relative to build/, so variants of one source share
# its cache for the files their options do not change.
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
. "$(dirname "$0")/common.sh"

as_is=0
[ "${1-}" != --as-is ] || { as_is=1; shift; }
case $#:${1:-} in
1:stock) set -- "stock$ksuffix" "$build/src" "${base_config[@]}" ;;
1:patched) set -- "patched$ksuffix" "$build/tree" "${patched_config[@]}" ;;
1:debug) set -- "patched-debug$ksuffix" "$build/tree" "${debug_config[@]}" ;;
[012]:*) die "usage: kbuild.sh NAME SRCDIR FRAGMENT... | kbuild.sh stock|patched|debug" ;;
esac
name=$1 srcdir=$2
shift 2
obj=$build/$name
log=$build/logs/kbuild-$name.log
mkdir -p "$obj" "$build/logs"

# What the build depends on: the source (a git commit or the tarball
# stamp) and the fragments' contents.
if [ -e "$srcdir/.git" ] && [ $as_is = 1 ]; then	# the commit and what changed since
	srcid="$(git -C "$srcdir" rev-parse HEAD) $( { git -C "$srcdir" diff HEAD
		git -C "$srcdir" ls-files -z --others --exclude-standard | (cd "$srcdir" && xargs -0r sha256sum)
		} | sha256sum)"
elif [ -e "$srcdir/.git" ]; then	# a repository or a worktree
	[ -z "$(git -C "$srcdir" status --porcelain --untracked-files=no)" ] ||
		die "kbuild $name: $srcdir has uncommitted changes; commit them (and make export), or check.sh --as-is"
	srcid=$(git -C "$srcdir" rev-parse HEAD)
else
	srcid=$(cat "$build/src.stamp")
fi
fingerprint=$(printf '%s\n' "$srcid" && cat "$@" | sha256sum)
if [ -f "$obj/bzImage" ] && [ -f "$obj/.fingerprint" ] &&
	[ "$(cat "$obj/.fingerprint")" = "$fingerprint" ]; then
	exit 0
fi
rm -f "$obj/bzImage" "$obj/.fingerprint"

kbuild_env "$srcdir" "$obj"

step "kbuild $name: configure (tinyconfig + $*)"
{
	"${kmake[@]}" tinyconfig &&
		"$srcdir/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$@" &&
		"${kmake[@]}" olddefconfig
} >"$log" 2>&1 || die "kbuild $name: configuration failed, see $log"

# merge_config.sh only warns when an option does not survive; we stop.
# A later fragment overrides an earlier one, as in merge_config.sh.
declare -A want=()
order=()
for frag in "$@"; do
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) opt=${line%%=*} ;;
		"# CONFIG_"*" is not set") opt=${line#\# } opt=${opt%% *} ;;
		*) continue ;;
		esac
		[ -n "${want[$opt]+set}" ] || order+=("$opt")
		want[$opt]=$line
	done <"$frag"
done
missing=()
for opt in "${order[@]}"; do
	line=${want[$opt]}
	case $line in
	CONFIG_*) grep -qxF -- "$line" "$obj/.config" || missing+=("$line") ;;
	*) ! grep -q "^$opt=" "$obj/.config" || missing+=("$line") ;;
	esac
done
[ ${#missing[@]} -eq 0 ] ||
	die "kbuild $name: not in the final .config: ${missing[*]} (see $obj/.config)"

step "kbuild $name: build bzImage (log: $log)"
"${kmake[@]}" bzImage >>"$log" 2>&1 ||
	{ tail -n 20 "$log" >&2; die "kbuild $name: build failed, see $log"; }
cp "$obj/arch/x86/boot/bzImage" "$obj/bzImage"
printf '%s\n' "$fingerprint" >"$obj/.fingerprint"
