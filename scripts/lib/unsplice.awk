# unsplice.awk: a guest console log without \r, every kernel line on a
# line of its own. The kernel writes to the console while a line of a
# program's output is half written: "    ok 7[    4.448970] traps: ...",
# and the rest of the program's line, " global.cli", follows on the next
# line. This prints the kernel line on its own, then the program's line
# whole ("    ok 7 global.cli"); kernel lines that come in between are
# printed as they come. Used by verdict.sh and x86-selftests.sh.
function split_off(line) {
	if (match(line, /\[ *[0-9]+\.[0-9]+\] /) && RSTART > 1) {
		print substr(line, RSTART)
		held = substr(line, 1, RSTART - 1)
		return 1
	}
	return 0
}
# CONFIG_PRINTK_CALLER puts the caller after the timestamp,
# "[    4.448970][   T45] "; it is dropped, so that every reader sees the
# plain timestamp "[    4.448970] " in front of each kernel line.
{
	sub(/\r$/, "")
	while (match($0, /[0-9]\]\[ *[CT][0-9]+\] /))
		$0 = substr($0, 1, RSTART + 1) " " substr($0, RSTART + RLENGTH)
}
held != "" && /^\[ *[0-9]+\.[0-9]+\] / { print; next }
held != "" { $0 = held $0; held = "" }
!split_off($0) { print }
END { if (held != "") print held }
