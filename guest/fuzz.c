// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz: what init runs in make fuzz (scripts/fuzz.sh). Trinity and
 * ioport_fuzz at the same time, on the same CPUs: trinity makes
 * FUZZ_TRINITY_SYSCALLS random calls among the ones below (the ones that
 * reach the I/O bitmap and that trinity agrees to make), ioport_fuzz the
 * calls that trinity refuses (ioperm, clone, fork, exit, ptrace) with
 * FUZZ_OWN_SYSCALLS. Fails when either fails.
 *
 * Prints "# fuzz: run ARGV..." for each program before it starts:
 * scripts/fuzz-count.sh takes the calls trinity was asked for (-c) from
 * that line, so they are checked against this list and no other.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>

static pid_t start(char *const argv[])
{
	pid_t pid;

	printf("# fuzz: run");
	for (int i = 0; argv[i]; i++)
		printf(" %s", argv[i]);
	printf("\n");
	fflush(stdout);	/* before fork(), or the child prints it again */
	pid = fork();

	if (!pid) {
		execv(argv[0], argv);
		perror(argv[0]);
		_exit(2);
	}
	return pid;
}

/* Waits for PID; false when NAME exited 0 */
static int finished(pid_t pid, const char *name)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			perror("fuzz: waitpid");
			return 1;
		}
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	printf("# fuzz: %s failed (status 0x%x)\n", name, status);
	return 1;
}

int main(void)
{
	const char *n = getenv("FUZZ_TRINITY_SYSCALLS");
	char *const trinity[] = {
		"/usr/bin/trinity", "--dangerous", "-q", "--stats", "-C", "4",
		"-N", (char *)(n ? n : "50000"),
		/* none of these calls takes a descriptor: skip trinity's slow set-up of them */
		"--disable-fds=sockets", "--disable-fds=pipes", "--disable-fds=perf",
		"--disable-fds=epoll", "--disable-fds=eventfd", "--disable-fds=pseudo",
		"--disable-fds=timerfd", "--disable-fds=testfile", "--disable-fds=memfd",
		"--disable-fds=drm",
		"-c", "iopl", "-c", "execve", "-c", "wait4",
		"-c", "sched_yield", NULL
	};
	char *const own[] = { "/bin/ioport_fuzz", NULL };
	int failed;
	pid_t t, o;

	if (chdir("/tmp"))
		return 2;
	o = start(own);
	t = start(trinity);
	if (o < 0 || t < 0) {
		perror("fuzz: fork");
		return 2;
	}
	failed = finished(t, "trinity") | finished(o, "ioport_fuzz");
	return failed;
}
