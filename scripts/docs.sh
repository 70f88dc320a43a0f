#!/bin/bash
# make docs: the tree's own documentation build (Sphinx, from Debian's
# python3-sphinx) of Documentation/x86 (Documentation/arch/x86 on 6.12),
# where the series adds ioport.rst.
# Prints PASS host/docs, or FAIL with each Sphinx warning or error; the one
# warning allowed is the missing graphviz dot(1), which the page does not use.
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
. "$(dirname "$0")/lib/common.sh"

out=$build/docs
log=$build/logs/docs.log
mkdir -p "$out" "$build/logs"
dir=x86
[ -d "$build/tree/Documentation/arch/x86" ] && dir=arch/x86
step "docs: make SPHINXDIRS=$dir htmldocs (log: $log)"
status=0
make -s -C "$build/tree" O="$out" SPHINXDIRS="$dir" htmldocs >"$log" 2>&1 || status=$?
problems=$(grep -E 'WARNING|ERROR|CRITICAL' "$log" | grep -v 'dot(1) not found' || true)
if [ $status != 0 ]; then
	echo "FAIL host/docs: make htmldocs exited $status, see $log"
elif [ -n "$problems" ]; then
	while IFS= read -r p; do echo "FAIL host/docs: $p"; done <<<"$problems"
elif [ ! -f "$out/Documentation/output/$dir/ioport.html" ]; then
	echo "FAIL host/docs: no $dir/ioport.html in $out"
else
	echo "PASS host/docs"
fi
