// SPDX-License-Identifier: GPL-2.0
/*
 * PID 1 of the test guest. Mounts /proc, /sys and /dev, then runs the
 * programs named by run=a,b,c on the kernel command line, one after the
 * other, each bounded by timeout=SECONDS (default 300). A name may carry
 * one argument after a colon: run=ioperm:--sweep runs "ioperm --sweep",
 * reported as ioperm. The output is an
 * outer KTAP document on the console: each program's own output, indented
 * by four spaces, followed by "ok N name" or "not ok N name # reason".
 * run=shell starts busybox sh instead. The guest reboots at the end, which
 * ends QEMU (-no-reboot).
 *
 * Run as "init DIR" by a service of a booted system (scripts/debian.sh),
 * it takes the programs from DIR, leaves the mounts and the console to
 * that system, and exits at the end instead of rebooting.
 *
 * A program's stdout is a pty so that stdio is line buffered, as on a
 * terminal: a pipe would make programs that fork print buffered lines twice.
 *
 * IOPORT_MARKER=PORT (scripts/porttrace.sh) opens a window around each
 * program: 'S' written to PORT before it starts, 'E' after it ended. In
 * between the console output is held, the kernel's too (its console is
 * off, and its messages are read back from /dev/kmsg and written out
 * after the window), so that a trace of the port accesses inside the
 * windows holds those of the programs and not those of the console,
 * whose UART is ports too.
 *
 * faultinject=sleeping (the sanitizer kernel's boots) mounts debugfs and
 * sets failslab and fail_page_alloc to fail sleeping allocations too,
 * quietly, so that ioperm_bitmap's nomem_* cases can make ioperm() and
 * fork() fail; a selftest leaves such global knobs alone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static int marker = -1;		/* IOPORT_MARKER, or -1 */
static char *held;		/* the console output held in a window */
static size_t held_len;
static int holding;
static int kmsg = -1;		/* /dev/kmsg, read from the window's start */
static const char *bindir = "/bin";	/* where the programs are */

static void say(const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 1)
		n = sizeof(buf) - 1;
	if (holding) {
		char *more = realloc(held, held_len + n);

		if (more) {
			held = more;
			memcpy(held + held_len, buf, n);
			held_len += n;
			return;
		}
	}
	/* One write per line keeps lines whole on the console. */
	if (write(1, buf, n) < 0)
		_exit(1);
}

static void mark(char c)
{
	if (ioperm(marker, 1, 1)) {
		say("# init: ioperm(%#x) for the marker failed: %s\n", marker, strerror(errno));
		return;
	}
	outb(c, marker);
	ioperm(marker, 1, 0);
}

/*
 * Before the window opens, the console must be quiet: written out, and
 * the UART's last transmit interrupt handled.
 */
static void window_open(void)
{
	if (marker < 0)
		return;
	tcdrain(1);
	usleep(200 * 1000);
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (kmsg >= 0)
		lseek(kmsg, 0, SEEK_END);
	klogctl(6, NULL, 0);	/* SYSLOG_ACTION_CONSOLE_OFF: but for panics */
	mark('S');
	holding = 1;
}

/* The kernel's messages of the window, as its console would print them */
static void window_kmsg(void)
{
	char rec[8192];
	unsigned long long usec;
	ssize_t n;
	int text;

	while (kmsg >= 0) {
		n = read(kmsg, rec, sizeof(rec) - 1);
		/* The ring buffer overran what the window had not read yet */
		if (n < 0 && errno == EPIPE) {
			say("# init: kernel messages lost in the window\n");
			continue;
		}
		if (n <= 0)
			break;
		rec[n] = 0;
		text = 0;
		if (sscanf(rec, "%*u,%*u,%llu,%*[^;];%n", &usec, &text) < 1 || !text)
			continue;
		rec[strcspn(rec, "\n")] = 0;
		say("[%5llu.%06llu] %s\n", usec / 1000000, usec % 1000000, rec + text);
	}
	if (kmsg >= 0)
		close(kmsg);
	kmsg = -1;
}

static void window_close(void)
{
	size_t off;

	if (marker < 0)
		return;
	mark('E');
	klogctl(7, NULL, 0);	/* SYSLOG_ACTION_CONSOLE_ON */
	holding = 0;
	window_kmsg();
	for (off = 0; off < held_len; ) {
		ssize_t n = write(1, held + off, held_len - off);

		if (n <= 0)
			_exit(1);
		off += n;
	}
	held_len = 0;
}

static void mount_fs(const char *src, const char *dir, const char *type)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, 0, NULL) && errno != EBUSY)
		say("# init: mount %s on %s failed: %s\n", type, dir, strerror(errno));
}

/* faultinject=sleeping: see the top of the file */
static void fault_injection_sleeping(void)
{
	static const char * const knobs[] = {
		"failslab/ignore-gfp-wait", "failslab/verbose",
		"fail_page_alloc/ignore-gfp-wait", "fail_page_alloc/verbose",
	};
	char path[128];

	mount_fs("debugfs", "/sys/kernel/debug", "debugfs");
	for (int i = 0; i < 4; i++) {
		int fd;

		snprintf(path, sizeof(path), "/sys/kernel/debug/%s", knobs[i]);
		fd = open(path, O_WRONLY);
		if (fd < 0 || write(fd, i % 2 ? "0" : "N", 1) != 1)
			say("# init: %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int open_pty(int *slave)
{
	struct termios tio;
	int master = posix_openpt(O_RDWR | O_NOCTTY);

	if (master < 0 || grantpt(master) || unlockpt(master))
		return -1;
	*slave = open(ptsname(master), O_RDWR | O_NOCTTY);
	if (*slave < 0)
		return -1;
	tcgetattr(*slave, &tio);
	cfmakeraw(&tio);
	tcsetattr(*slave, TCSANOW, &tio);
	return master;
}

/* Copy the program's output to the console, indented; stop at EOF or deadline. */
static int relay(int fd, double deadline)
{
	char line[4096], buf[1024];
	size_t len = 0;

	for (;;) {
		int left = (int)((deadline - now()) * 1000);
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (left <= 0 || poll(&p, 1, left) == 0)
			return -1;
		n = read(fd, buf, sizeof(buf));
		if (n <= 0)	/* EIO: every writer closed the pty */
			break;
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] == '\r')
				continue;
			if (buf[i] != '\n' && len < sizeof(line) - 1) {
				line[len++] = buf[i];
				continue;
			}
			say("    %.*s\n", (int)len, line);
			len = 0;
		}
	}
	if (len)
		say("    %.*s\n", (int)len, line);
	return 0;
}

static void run(int nr, char *name, int timeout)
{
	double deadline = now() + timeout;
	int master, slave, status = 0;
	char path[256], *arg = strchr(name, ':');
	pid_t pid;

	if (arg)
		*arg++ = '\0';
	snprintf(path, sizeof(path), "%s/%s", bindir, name);
	say("# init: run %s\n", name);
	master = open_pty(&slave);
	if (master < 0) {
		say("not ok %d %s # init: no pty: %s\n", nr, name, strerror(errno));
		return;
	}
	window_open();
	pid = fork();
	if (pid == 0) {
		setsid();
		dup2(slave, 0);
		dup2(slave, 1);
		dup2(slave, 2);
		close(master);
		close(slave);
		execl(path, name, arg, (char *)NULL);
		printf("init: exec %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	close(slave);
	if (relay(master, deadline)) {
		kill(-pid, SIGKILL);
		waitpid(pid, &status, 0);
		window_close();
		say("not ok %d %s # timeout after %d s\n", nr, name, timeout);
		close(master);
		return;
	}
	close(master);
	waitpid(pid, &status, 0);
	kill(-pid, SIGKILL);	/* leftovers of the program's session */
	window_close();
	if (WIFSIGNALED(status))
		say("not ok %d %s # killed by signal %d\n", nr, name, WTERMSIG(status));
	else if (WEXITSTATUS(status) == 4)	/* KSFT_SKIP */
		say("ok %d %s # SKIP whole program\n", nr, name);
	else if (WEXITSTATUS(status))
		say("not ok %d %s # exit status %d\n", nr, name, WEXITSTATUS(status));
	else
		say("ok %d %s\n", nr, name);
}

static void reap(int sig)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

int main(int argc, char **argv)
{
	const char *list = getenv("run");
	const char *t = getenv("timeout");
	const char *m = getenv("IOPORT_MARKER");
	const char *fi = getenv("faultinject");
	int timeout = t ? atoi(t) : 300;
	char *names, *name, *save;
	int nr = 0, count = 1, pid1 = getpid() == 1;

	if (argc > 1)
		bindir = argv[1];
	if (pid1) {
		mount_fs("devtmpfs", "/dev", "devtmpfs");
		int fd = open("/dev/console", O_RDWR);

		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		mount_fs("proc", "/proc", "proc");
		mount_fs("sysfs", "/sys", "sysfs");
		mount_fs("devpts", "/dev/pts", "devpts");
	}

	if (list && !strcmp(list, "shell")) {
		pid_t pid = fork();

		if (pid == 0) {
			execl("/bin/busybox", "busybox", "setsid", "cttyhack", "sh", (char *)NULL);
			_exit(127);
		}
		waitpid(pid, NULL, 0);
		sync();
		reboot(RB_AUTOBOOT);
	}

	if (m)
		marker = strtol(m, NULL, 0);
	if (fi && !strcmp(fi, "sleeping"))
		fault_injection_sleeping();
	if (!list || !*list)
		list = "";
	for (const char *p = list; *p; p++)
		count += *p == ',';
	if (!*list)
		count = 0;

	say("KTAP version 1\n1..%d\n", count);
	names = strdup(list);
	for (name = strtok_r(names, ",", &save); name; name = strtok_r(NULL, ",", &save))
		run(++nr, name, timeout);
	signal(SIGCHLD, reap);
	reap(0);
	say("# init: done\n");
	if (!pid1)
		return 0;
	sync();
	reboot(RB_AUTOBOOT);
	return 0;
}
