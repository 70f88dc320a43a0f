#!/bin/bash
# Unpack Debian's linux-source-$TREE tarball into build/$TREE/src, pristine.
# Reused as long as the tarball is the same file (checked by sha256).
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
. "$(dirname "$0")/common.sh"

src=$build/src
stamp=$build/src.stamp

[ -f "$tarball" ] || die "unpack: $tarball not found (apt-get install $source_package)"
version=$(dpkg-query -W -f='${Version}' "$source_package" 2>/dev/null || echo unknown)
sum=$(sha256sum "$tarball" | cut -d' ' -f1)

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$sum $version" ] && [ -f "$src/Makefile" ]; then
	exit 0
fi

step "unpack: $tarball (Debian $source_package $version)"
rm -rf "$src" "$src.tmp" "$stamp"
mkdir -p "$src.tmp"
tar -xf "$tarball" -C "$src.tmp" --strip-components=1 ||
	die "unpack: tar failed on $tarball"
[ -f "$src.tmp/arch/x86/kernel/ioport.c" ] ||
	die "unpack: $tarball does not look like a Linux tree (no arch/x86/kernel/ioport.c)"
mv "$src.tmp" "$src"
echo "$sum $version" > "$stamp"
