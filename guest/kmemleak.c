// SPDX-License-Identifier: GPL-2.0
/*
 * Run last on the sanitizer kernel: ask kmemleak for a scan and print what
 * it found. Exits 1 when it reports any unreferenced object, 4 (skip) when
 * the kernel has no kmemleak.
 *
 * kmemleak only reports objects older than 5 s (guest time) and advises
 * two scans, so wait, scan, wait, scan.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#define KMEMLEAK "/sys/kernel/debug/kmemleak"

static int scan(void)
{
	int fd = open(KMEMLEAK, O_WRONLY);
	int ok = fd >= 0 && write(fd, "scan", 4) == 4;

	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

int main(void)
{
	char buf[4096];
	int leaks = 0;
	FILE *f;

	if (access(KMEMLEAK, F_OK))
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	if (access(KMEMLEAK, F_OK)) {
		printf("no %s: kernel without kmemleak\n", KMEMLEAK);
		return 4;
	}
	for (int i = 0; i < 2; i++) {
		sleep(6);
		if (scan()) {
			printf("kmemleak scan failed: %s\n", strerror(errno));
			return 1;
		}
	}
	f = fopen(KMEMLEAK, "r");
	if (!f)
		return 1;
	while (fgets(buf, sizeof(buf), f)) {
		fputs(buf, stdout);
		leaks += strstr(buf, "unreferenced object") != NULL;
	}
	fclose(f);
	printf("kmemleak: %d unreferenced objects\n", leaks);
	return leaks ? 1 : 0;
}
