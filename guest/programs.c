// SPDX-License-Identifier: GPL-2.0
/*
 * Run Debian's own port-I/O programs, as packaged, and print what each did:
 *   # prog NAME: exit N        (or: signal N)
 *   # out NAME: LINE           (each line it printed, stdout and stderr)
 *   # retry NAME: LINE         (a known transient failure, run again)
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
	const char *argv[10];
	const char *transient;	/* a failure worth up to two more runs */
};

/* Ports: 0x71 is the CMOS data port, 0x80 the POST code port. */
static const struct prog progs[] = {
	/*
	 * hwclock waits for the RTC's update-ended flag; on a loaded
	 * emulator it misses it now and then, on stock kernels too. Only
	 * --verbose says so: without it hwclock exits 1 and prints nothing.
	 */
	{ "hwclock", { "/usr/sbin/hwclock", "--directisa", "--get", "--verbose" },
	  "synchronization failed" },
	{ "lspci", { "/usr/bin/lspci", "-A", "intel-conf1", "-n" } },
	{ "inb", { "/usr/bin/inb", "0x71" } },
	{ "outb", { "/usr/bin/outb", "0x80", "0x42" } },
	{ "superiotool", { "/usr/sbin/superiotool", "-d" } },
	/* ioperm() and in/out on 0x80 in 4 workers, next to task switches */
	{ "stress-ng", { "/usr/bin/stress-ng", "--ioport", "4", "--switch", "1",
			 "--timeout", "5s", "--metrics-brief", "--temp-path", "/tmp" } },
};

/* Run @p once: its output into @out (NUL-separated lines, an empty line
 * ends them), its status into @status */
static int run_once(const struct prog *p, char *out, size_t size, int *status)
{
	size_t len = 0;
	char line[512];
	int fds[2];
	pid_t pid;
	FILE *f;

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
	f = fdopen(fds[0], "r");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!line[0])
			strcpy(line, " ");	/* an empty line would end the list */
		if (len + strlen(line) + 2 < size) {
			strcpy(out + len, line);
			len += strlen(line) + 1;
		}
	}
	out[len] = '\0';
	if (f)
		fclose(f);
	return waitpid(pid, status, 0) == pid ? 0 : -1;
}

static int run(const struct prog *p)
{
	static char out[16384];
	int status, tries = 0;
	const char *l;

	for (;;) {
		if (run_once(p, out, sizeof(out), &status))
			return -1;
		tries++;
		if (!p->transient || tries == 3 || (WIFEXITED(status) && !WEXITSTATUS(status)))
			break;
		for (l = out; *l && !strstr(l, p->transient); l += strlen(l) + 1)
			;
		if (!*l)
			break;
		printf("# retry %s: %s\n", p->name, l);
	}
	for (l = out; *l; l += strlen(l) + 1)
		printf("# out %s: %s\n", p->name, l);
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
