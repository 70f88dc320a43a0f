# The awk program of porttrace.sh: reads a QEMU trace of memory region
# accesses (-trace memory_region_ops_read/_write) and prints the I/O ports
# (below 0x10000) that CPUs accessed inside the windows that guest/init.c
# marks around each program with IOPORT_MARKER: between the write of 'S'
# (0x53) and the write of 'E' (0x45) to the port `marker` (awk -v, a
# number); any other access to `marker` inside a window counts as a port.
# One line per access, "0xPORT"; and at the end "windows N", the number of
# windows closed.
function hex(s,   v, i) {
	v = 0
	s = tolower(s)
	for (i = 3; i <= length(s); i++)
		v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}
$2 == "cpu" && $3 ~ /^[0-9]+$/ {
	addr = -1
	for (i = 4; i < NF; i++) {
		if ($i == "addr") addr = hex($(i + 1))
		if ($i == "value") value = hex($(i + 1))
		if ($i == "size") size = $(i + 1)
	}
	# The marks open and close the windows; any other access to the
	# marker port inside a window is a port access like any other
	if (addr == marker && $1 == "memory_region_ops_write") {
		if (value == 83 && !inside) {
			inside = 1
			next
		}
		if (value == 69 && inside) {
			inside = 0
			windows++
			next
		}
	}
	if (inside && addr >= 0 && addr < 65536)
		for (p = addr; p < addr + size; p++)
			printf "0x%x\n", p
}
END { print "windows " windows + 0 }
