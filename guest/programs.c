// SPDX-License-Identifier: GPL-2.0
/*
 * Run Debian's own port-I/O programs, as packaged, and print what each did:
 *   # prog NAME: exit N        (or: signal N)
 *   # out NAME: LINE           (each line it printed, stdout and stderr)
 * The host (scripts/programs.sh) decides from these lines whether a program
 * worked and compares with tests/programs.expect. Exits 0 when every
 * program could be started, whatever it did.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct prog {
	const char *name;
	const char *argv[6];
};

/* Ports: 0x71 is the CMOS data port, 0x80 the POST code port. */
static const struct prog progs[] = {
	{ "hwclock", { "/usr/sbin/hwclock", "--directisa", "--get" } },
	{ "lspci", { "/usr/bin/lspci", "-A", "intel-conf1", "-n" } },
	{ "inb", { "/usr/bin/inb", "0x71" } },
	{ "outb", { "/usr/bin/outb", "0x80", "0x42" } },
	{ "superiotool", { "/usr/sbin/superiotool", "-d" } },
};

static int run(const struct prog *p)
{
	char line[512];
	int fds[2], status;
	pid_t pid;
	FILE *out;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		alarm(60);	/* survives execve: a hung program is killed */
		execv(p->argv[0], (char **)p->argv);
		printf("cannot execute %s: %s\n", p->argv[0], strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	out = fdopen(fds[0], "r");
	while (out && fgets(line, sizeof(line), out)) {
		line[strcspn(line, "\n")] = '\0';
		printf("# out %s: %s\n", p->name, line);
	}
	if (out)
		fclose(out);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFSIGNALED(status))
		printf("# prog %s: signal %d\n", p->name, WTERMSIG(status));
	else
		printf("# prog %s: exit %d\n", p->name, WEXITSTATUS(status));
	return 0;
}

int main(void)
{
	int failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		fflush(stdout);
		if (run(&progs[i])) {
			printf("# prog %s: could not run: %s\n", progs[i].name, strerror(errno));
			failed = 1;
		}
	}
	return failed;
}
