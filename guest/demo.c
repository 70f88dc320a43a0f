// SPDX-License-Identifier: GPL-2.0
/*
 * The demo of `make run`: one line per claim about user-space I/O-port
 * access on the running kernel, each checked here and now. Exits 0 when
 * every claim holds.
 *
 * Ports are only read, except 0x80 (POST) which is written; the console
 * UART and the PIT are never touched.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>
#include <sys/wait.h>
#include <unistd.h>

#define EFLAGS_IF 0x200

static sigjmp_buf jmp;
static volatile sig_atomic_t faults;
static int failed;

static void on_segv(int sig)
{
	faults++;
	siglongjmp(jmp, 1);
}

static void claim(const char *what, bool holds, const char *detail)
{
	printf("%s: %s%s%s\n", what, holds ? "yes" : "NO", detail ? ", " : "",
	       detail ? detail : "");
	if (!holds)
		failed++;
}

static bool avoid(unsigned int port)
{
	return (port >= 0x40 && port <= 0x43) || (port >= 0x3f8 && port <= 0x3ff);
}

/* true when inb(port) does not fault */
static bool can_inb(unsigned int port)
{
	if (sigsetjmp(jmp, 1))
		return false;
	inb(port);
	return true;
}

static bool can_outb_80(void)
{
	if (sigsetjmp(jmp, 1))
		return false;
	outb(0, 0x80);
	return true;
}

static unsigned long flags(void)
{
	unsigned long f;

	asm volatile("pushf; pop %0" : "=r"(f));
	return f;
}


/* Count ports in [from, to] that can (want=true) or cannot be read. */
static unsigned int count(unsigned int from, unsigned int to, bool want)
{
	unsigned int n = 0;

	for (unsigned int p = from; p <= to; p++)
		if (!avoid(p) && can_inb(p) == want)
			n++;
	return n;
}

static unsigned int probed(unsigned int from, unsigned int to)
{
	unsigned int n = 0;

	for (unsigned int p = from; p <= to; p++)
		n += !avoid(p);
	return n;
}

/*
 * The iopl= mode the kernel runs in, and where that comes from: the last
 * valid iopl= word of the command line, else compat, the default and
 * what a stock kernel does. The kernel logs no mode.
 */
static const char *kernel_mode(const char **source)
{
	static char cmdline[4096];
	static char mode[8];
	FILE *f = fopen("/proc/cmdline", "r");
	char *w;

	*source = "the default";
	snprintf(mode, sizeof(mode), "compat");
	if (f && fgets(cmdline, sizeof(cmdline), f)) {
		for (w = strtok(cmdline, " \n"); w; w = strtok(NULL, " \n")) {
			if (!strcmp(w, "iopl=strict") || !strcmp(w, "iopl=compat") ||
			    !strcmp(w, "iopl=off")) {
				snprintf(mode, sizeof(mode), "%s", w + 5);
				*source = "iopl= on the command line";
			}
		}
	}
	if (f)
		fclose(f);
	return mode;
}

/*
 * A child without a SIGSEGV handler executes CLI after iopl(3), where the
 * mode grants it: it must die by SIGSEGV in strict and off mode and exit
 * normally in compat mode. In strict mode its death is the one kernel
 * line about this program, which names strict mode as the cause.
 */
static void demo_cli_unhandled(bool compat, bool off)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		signal(SIGSEGV, SIG_DFL);
		if (!off && iopl(3))
			_exit(2);
		asm volatile("cli" ::: "memory");
		_exit(0);
	}
	waitpid(pid, &status, 0);
	if (compat)
		claim("CLI under iopl(3) without a SIGSEGV handler: the program goes on",
		      WIFEXITED(status) && WEXITSTATUS(status) == 0, NULL);
	else
		claim("CLI without a SIGSEGV handler: the program dies by SIGSEGV",
		      WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV, NULL);
}

static void demo_iopl(const char *mode)
{
	bool strict = !strcmp(mode, "strict");
	char detail[128];
	unsigned long f;
	int caught;

	if (!strcmp(mode, "off")) {
		claim("iopl=off: iopl(3) fails with EPERM",
		      iopl(3) == -1 && errno == EPERM, NULL);
		claim("iopl=off: no port opened by it", count(0, 0xffff, true) == 0, NULL);
		claim("iopl=off: iopl(1) and iopl(2), which grant nothing, still succeed",
		      iopl(1) == 0 && iopl(2) == 0 && count(0, 0xffff, true) == 0, NULL);
		claim("iopl=off: iopl(0) still succeeds", iopl(0) == 0, NULL);
		return;
	}
	claim("iopl(4) is refused with EINVAL", iopl(4) == -1 && errno == EINVAL, NULL);
	if (iopl(3)) {
		snprintf(detail, sizeof(detail), "iopl(3) failed: %s", strerror(errno));
		claim("iopl(3) opens all 65536 ports", false, detail);
		return;
	}
	snprintf(detail, sizeof(detail), "%u of %u probed ports readable",
		 count(0, 0xffff, true), probed(0, 0xffff));
	claim("iopl(3) opens all 65536 ports", count(0, 0xffff, false) == 0, detail);
	claim("outb to 0x80 works under iopl(3)", can_outb_80(), NULL);

	caught = faults;
	if (!sigsetjmp(jmp, 1))
		asm volatile("cli");
	f = flags();
	if (faults != caught)
		claim("CLI under iopl(3)", strict && (f & EFLAGS_IF),
		      "raises #GP, SIGSEGV (interrupts stay on)");
	else
		claim("CLI under iopl(3)", !strict && (f & EFLAGS_IF),
		      "skipped as NOP (interrupts stay on)");

	/* Clear IF in a register, so that it builds with -m32 too. */
	asm volatile("pushf; pop %0; and $~0x200, %0; push %0; popf"
		     : "=&r"(f) : : "cc", "memory");
	claim("popf with IF clear leaves interrupts on", flags() & EFLAGS_IF, NULL);

	iopl(0);
	claim("iopl(0) closes them all again", count(0, 0xffff, true) == 0 && !can_outb_80(),
	      NULL);
}

static void demo_ioperm(void)
{
	unsigned int open;
	char detail[128];
	int status;
	pid_t pid;

	if (ioperm(0x2e0, 8, 1)) {
		snprintf(detail, sizeof(detail), "ioperm failed: %s", strerror(errno));
		claim("ioperm(0x2e0, 8) opens exactly 0x2e0-0x2e7", false, detail);
		return;
	}
	open = count(0, 0xffff, true);
	snprintf(detail, sizeof(detail), "%u ports readable", open);
	claim("ioperm(0x2e0, 8) opens exactly 0x2e0-0x2e7",
	      open == 8 && count(0x2e0, 0x2e7, true) == 8, detail);

	pid = fork();
	if (pid == 0) {
		bool inherited = can_inb(0x2e0);

		ioperm(0x2e0, 8, 0);
		_exit(inherited && !can_inb(0x2e0) ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	claim("a child inherits ioperm() and its changes stay in the child",
	      WIFEXITED(status) && !WEXITSTATUS(status) && can_inb(0x2e7), NULL);

	ioperm(0x2e0, 8, 0);
	claim("ioperm(0x2e0, 8, 0) closes them again", count(0, 0xffff, true) == 0, NULL);
}

static void demo_unprivileged(void)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		if (setresuid(65534, 65534, 65534))
			_exit(2);
		_exit(iopl(3) == -1 && errno == EPERM && iopl(0) == 0 &&
		      ioperm(0x80, 1, 1) == -1 && errno == EPERM ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	claim("without CAP_SYS_RAWIO iopl(3) and ioperm() fail with EPERM, iopl(0) works",
	      WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      WIFEXITED(status) && WEXITSTATUS(status) == 2 ? "setresuid failed" : NULL);
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_segv, .sa_flags = SA_NODEFER };
	const char *source, *mode = kernel_mode(&source);

	sigaction(SIGSEGV, &sa, NULL);
	if (ioperm(0x80, 1, 0) && errno == ENOSYS) {
		printf("iopl() and ioperm() are not built in (ENOSYS): nothing to show\n");
		return 4;	/* KSFT_SKIP */
	}
	printf("iopl() mode: %s (%s)\n", mode, source);
	claim("before any call no port is readable", count(0, 0xffff, true) == 0, NULL);
	demo_iopl(mode);
	demo_cli_unhandled(!strcmp(mode, "compat"), !strcmp(mode, "off"));
	demo_ioperm();
	demo_unprivileged();
	printf("%s\n", failed ? "Some claims do NOT hold." : "Every claim holds.");
	return failed ? 1 : 0;
}
