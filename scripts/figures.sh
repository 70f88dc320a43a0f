#!/bin/bash
# The tables of the changelogs and cover letters come from results/: every
# table of a commit message in patches/*/*.patch (above its "---") and of
# a letter in patches/ (patches/*.txt, patches/*/*.txt), with or without
# outer pipes, must stand row for row, in one piece, in one table of a
# results/*.md file that the same message or letter names (a changelog
# names none: the files its set's cover letter names): a table of
# its tree (patches/TREE/, cover-letter-TREE-*), of the run it names
# ("run 1 of three"), under its caption ("Hot:"), where the results file
# says a tree, a run or a caption (scripts/lib/figures.py). A message
# with a table and no results file named, or naming one that does not
# exist, fails too.
#
#   figures.sh [--root DIR]   check DIR's patches/ against DIR/results/
#                             (the host tests plant broken copies)
set -euo pipefail
# shellcheck source=scripts/lib/common.sh
. "$(dirname "$0")/lib/common.sh"

root=$top
if [ $# = 2 ] && [ "$1" = --root ]; then
	root=$(readlink -f -- "$2")
elif [ $# != 0 ]; then
	die "usage: figures.sh [--root DIR]"
fi

python3 -B "$lib/figures.py" "$root"
