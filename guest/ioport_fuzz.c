// SPDX-License-Identifier: GPL-2.0
/*
 * ioport_fuzz: random sequences of the system calls that reach the I/O
 * bitmap code and that trinity never makes. Trinity marks ioperm, clone,
 * fork, vfork, exit, exit_group and ptrace AVOID_SYSCALL and skips them
 * even when asked for by name (-c); scripts/fuzz.sh runs this program next
 * to trinity on the sanitizer kernel.
 *
 * FUZZ_WORKERS (4) workers, and the children and threads they make, pick
 * operations at random until FUZZ_OWN_SYSCALLS (20000) system calls were
 * made in total: ioperm() on random ranges (biased to 64-port block edges),
 * iopl() at random levels, fork(), vfork() and execve() of this program,
 * threads (clone), exit, wait4(), ptrace() stops of a child, sched_yield()
 * and moves to a random CPU. Unlike a blind fuzzer it also checks what the
 * kernel granted: every task keeps a shadow of whether port 0x80 must be
 * reachable (ioperm or iopl(3)) and probes it with inb(); it executes
 * CLI/STI, which must be skipped only under iopl(3) in compat mode and
 * fault otherwise. The mode is FUZZ_MODE, else iopl= on the kernel command
 * line, else compat (the default). Port 0x80 is the POST diagnostic port
 * that the kernel itself uses for I/O delays; no other port is touched.
 *
 * Every child must end by exit(0): one killed by a signal (a fault outside
 * a probe) or exiting with another status is a mismatch too.
 *
 * Prints "ioport_fuzz: N syscalls (CALL N, ...), P probes, M mismatches"
 * (the calls made) and "ioport_fuzz: succeeded: CALL N, ..." (those that
 * succeeded: returned 0 or a child, an execve() whose program started, an
 * exit its parent saw as exit status 0, a thread joined), and exits 1 on
 * any mismatch or when one of the calls never succeeded.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/io.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>

#define PROBE_PORT	0x80
#define MAX_CHILDREN	4
#define MAX_DEPTH	2	/* children, threads and exec'ed programs nest no deeper */
#define COUNTERS	"/tmp/ioport_fuzz.counters"
/* this program, wherever it is installed (/bin in the initramfs) */
#define SELF		"/proc/self/exe"

enum { C_IOPERM, C_IOPL, C_CLONE, C_FORK, C_VFORK, C_EXECVE, C_EXIT, C_WAIT4,
       C_PTRACE, C_YIELD, C_AFFINITY, C_NR };
static const char *const names[C_NR] = {
	"ioperm", "iopl", "clone", "fork", "vfork", "execve", "exit", "wait4",
	"ptrace", "sched_yield", "sched_setaffinity",
};

struct counters {
	long calls[C_NR], ok[C_NR];
	long total, target, probes, mismatches;
};
static struct counters *cnt;
static int strict, ncpus;

/* What this task must be able to do: the shadow of the kernel's state. */
struct task {
	unsigned long long rng;
	int port_open;		/* ioperm() bit of PROBE_PORT */
	int level;		/* iopl() level */
	int depth;
	pid_t children[MAX_CHILDREN];
	int nr_children;
};

static __thread sigjmp_buf fault_jmp;
static __thread volatile int armed;

static void on_fault(int sig)
{
	if (armed)
		siglongjmp(fault_jmp, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

static unsigned int rnd(struct task *t, unsigned int n)
{
	t->rng ^= t->rng << 13;
	t->rng ^= t->rng >> 7;
	t->rng ^= t->rng << 17;
	return (unsigned int)(t->rng >> 11) % n;
}

/* Counts one call; false once the run has made enough of them. */
static int count(int c)
{
	__atomic_fetch_add(&cnt->calls[c], 1, __ATOMIC_RELAXED);
	return __atomic_add_fetch(&cnt->total, 1, __ATOMIC_RELAXED) < cnt->target;
}

static void succeeded(int c)
{
	__atomic_fetch_add(&cnt->ok[c], 1, __ATOMIC_RELAXED);
}

static int done(void)
{
	return __atomic_load_n(&cnt->total, __ATOMIC_RELAXED) >= cnt->target;
}

/* Counts a mismatch; true for the first 10, the ones worth printing */
static int new_mismatch(void)
{
	return __atomic_fetch_add(&cnt->mismatches, 1, __ATOMIC_RELAXED) < 10;
}

static void mismatch(struct task *t, const char *what, int expected)
{
	if (new_mismatch())
		printf("# mismatch: pid %d tid %ld %s: expected %s (ioperm bit %d, iopl %d)\n",
		       getpid(), syscall(SYS_gettid), what,
		       expected ? "success" : "a fault", t->port_open, t->level);
}

/*
 * Child PID ended with STATUS, as wait4() said. Every task here ends by
 * exit(0); a signal (a fault outside a probe) or another status is a
 * mismatch.
 */
static void ended(pid_t pid, int status)
{
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		succeeded(C_EXIT);
	else if (!new_mismatch())
		return;
	else if (WIFSIGNALED(status))
		printf("# mismatch: pid %d child %d killed by signal %d (%s), expected exit status 0\n",
		       getpid(), pid, WTERMSIG(status), strsignal(WTERMSIG(status)));
	else if (WIFEXITED(status))
		printf("# mismatch: pid %d child %d exited with status %d, expected 0\n",
		       getpid(), pid, WEXITSTATUS(status));
	else
		printf("# mismatch: pid %d child %d reported status 0x%x, expected exit status 0\n",
		       getpid(), pid, status);
}

static void probe_port(struct task *t)
{
	int expected = t->port_open || t->level == 3;
	volatile int ok = 0;	/* set between sigsetjmp() and a possible siglongjmp() */

	armed = 1;
	if (!sigsetjmp(fault_jmp, 1)) {
		inb(PROBE_PORT);
		ok = 1;
	}
	armed = 0;
	__atomic_fetch_add(&cnt->probes, 1, __ATOMIC_RELAXED);
	if (ok != expected)
		mismatch(t, "inb(0x80)", expected);
}

/* CLI/STI: a NOP under iopl(3) in compat mode, #GP in every other case */
static void probe_cli(struct task *t)
{
	int expected = t->level == 3 && !strict;
	volatile int ok = 0;

	armed = 1;
	if (!sigsetjmp(fault_jmp, 1)) {
		asm volatile("cli; sti" ::: "memory");
		ok = 1;
	}
	armed = 0;
	__atomic_fetch_add(&cnt->probes, 1, __ATOMIC_RELAXED);
	if (ok != expected)
		mismatch(t, "cli/sti", expected);
}

/* Random port ranges, most of them near a 64-port block edge or 0x80 */
static void do_ioperm(struct task *t)
{
	static const unsigned int edges[] = { 0, 0x40, 0x80, 0xc0, 0x3c0, 0x400, 0xcf8,
					      0x1000, 0x8000, 0xffc0, 0xffff };
	unsigned int from, num;
	int on = rnd(t, 2);

	switch (rnd(t, 4)) {
	case 0:
		from = rnd(t, 65536);
		num = 1 + rnd(t, 65536);
		break;
	case 1:
		from = PROBE_PORT - rnd(t, 3);
		num = 1 + rnd(t, 4);
		break;
	default:
		from = edges[rnd(t, sizeof(edges) / sizeof(edges[0]))] + rnd(t, 3) - 1;
		num = 1 + rnd(t, 130);
		break;
	}
	if (!ioperm(from, num, on)) {
		succeeded(C_IOPERM);
		if (from <= PROBE_PORT && PROBE_PORT < from + num)
			t->port_open = on;
	}
	count(C_IOPERM);
}

static void do_iopl(struct task *t)
{
	int level = rnd(t, 4);

	if (!iopl(level)) {
		succeeded(C_IOPL);
		t->level = level;
	}
	count(C_IOPL);
}

static void do_affinity(struct task *t)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(rnd(t, ncpus), &set);
	if (!sched_setaffinity(0, sizeof(set), &set))
		succeeded(C_AFFINITY);
	count(C_AFFINITY);
}

static void reap(struct task *t, pid_t pid)
{
	int i;

	for (i = 0; i < t->nr_children; i++)
		if (t->children[i] == pid)
			t->children[i] = t->children[--t->nr_children];
}

static void do_wait(struct task *t, int block)
{
	pid_t pid, r;
	int status;

	if (!t->nr_children)
		return;
	/*
	 * Never wait4(-1): the threads of a process share their children, and
	 * a thread would reap a child that another thread is tracking.
	 */
	pid = t->children[rnd(t, t->nr_children)];
	count(C_WAIT4);
	r = wait4(pid, &status, block ? __WALL : WNOHANG | __WALL, NULL);
	if (r >= 0)
		succeeded(C_WAIT4);
	if (r > 0)
		ended(pid, status);
	if (r)
		reap(t, pid);
}

/* Stop a child with PTRACE_INTERRUPT, read its registers, let it go. */
static void do_ptrace(struct task *t)
{
	struct user_regs_struct regs;
	pid_t pid, r;
	int status;

	if (!t->nr_children)
		return;
	pid = t->children[rnd(t, t->nr_children)];
	count(C_PTRACE);
	if (ptrace(PTRACE_SEIZE, pid, 0, 0))
		return;
	succeeded(C_PTRACE);
	count(C_PTRACE);
	if (!ptrace(PTRACE_INTERRUPT, pid, 0, 0))
		succeeded(C_PTRACE);
	count(C_WAIT4);
	r = waitpid(pid, &status, __WALL);
	if (r == pid)
		succeeded(C_WAIT4);
	if (r != pid || !WIFSTOPPED(status)) {
		if (r == pid)	/* it ended before it stopped */
			ended(pid, status);
		reap(t, pid);
		return;
	}
	count(C_PTRACE);
	if (!ptrace(PTRACE_GETREGS, pid, 0, &regs))
		succeeded(C_PTRACE);
	count(C_PTRACE);
	/* a signal-delivery stop (the child's own probe faulted) keeps its signal */
	if (!ptrace(PTRACE_DETACH, pid, 0,
		    (void *)(long)(status >> 16 == PTRACE_EVENT_STOP ? 0 : WSTOPSIG(status))))
		succeeded(C_PTRACE);
}

static void run(struct task *t, int budget);

static char *const *exec_args(struct task *t, char *buf, size_t len)
{
	static __thread char *argv[3];

	snprintf(buf, len, "%d,%d,%d,%llu", t->port_open, t->level, t->depth + 1, t->rng);
	argv[0] = SELF;
	argv[1] = buf;
	argv[2] = NULL;
	return argv;
}

static void reap_all(struct task *t)
{
	while (t->nr_children)
		do_wait(t, 1);
}

static void child_exit(struct task *t)
{
	reap_all(t);
	count(C_EXIT);
	syscall(SYS_exit_group, 0);
}

static void start_child(struct task *t, pid_t pid)
{
	int status;

	if (pid > 0 && t->nr_children < MAX_CHILDREN)
		t->children[t->nr_children++] = pid;
	else if (pid > 0 && waitpid(pid, &status, __WALL) == pid)
		ended(pid, status);
}

static void do_fork(struct task *t)
{
	char buf[64];
	pid_t pid;

	if (t->nr_children == MAX_CHILDREN)
		do_wait(t, 1);
	count(C_FORK);
	pid = fork();
	if (!pid) {
		t->nr_children = 0;
		t->depth++;
		t->rng += getpid();
		run(t, 1 + rnd(t, 16));
		if (!done() && rnd(t, 2)) {
			reap_all(t);
			t->depth--;
			count(C_EXECVE);
			execv(SELF, exec_args(t, buf, sizeof(buf)));
		}
		child_exit(t);
	}
	if (pid > 0)
		succeeded(C_FORK);
	start_child(t, pid);
}

/* vfork() and execve() at once: the child shares the parent's memory */
static void do_vfork(struct task *t)
{
	char buf[64];
	char *const *argv = exec_args(t, buf, sizeof(buf));
	pid_t pid;

	if (t->nr_children == MAX_CHILDREN)
		do_wait(t, 1);
	count(C_VFORK);
	count(C_EXECVE);
	pid = vfork();
	if (!pid) {
		execv(SELF, argv);
		_exit(127);	/* a mismatch: see ended() */
	}
	if (pid > 0)
		succeeded(C_VFORK);
	start_child(t, pid);
}

static void *thread_main(void *arg)
{
	struct task t = *(struct task *)arg;

	t.nr_children = 0;
	t.depth++;
	t.rng += syscall(SYS_gettid);
	run(&t, 1 + rnd(&t, 16));
	reap_all(&t);
	count(C_EXIT);
	return NULL;
}

static void do_thread(struct task *t)
{
	pthread_t th;

	count(C_CLONE);
	if (!pthread_create(&th, NULL, thread_main, t)) {
		succeeded(C_CLONE);
		if (!pthread_join(th, NULL))
			succeeded(C_EXIT);
	}
}

static void run(struct task *t, int budget)
{
	while (budget-- && !done()) {
		unsigned int op = rnd(t, 16);

		if (t->depth >= MAX_DEPTH && op >= 7 && op <= 9)
			op = 12;
		switch (op) {
		case 0 ... 2:
			do_ioperm(t);
			break;
		case 3:
			do_iopl(t);
			break;
		case 4 ... 5:
			probe_port(t);
			break;
		case 6:
			probe_cli(t);
			break;
		case 7:
			do_fork(t);
			break;
		case 8:
			do_vfork(t);
			break;
		case 9:
			do_thread(t);
			break;
		case 10:
			do_wait(t, rnd(t, 2));
			break;
		case 11:
			do_ptrace(t);
			break;
		case 12 ... 13:
			if (!sched_yield())
				succeeded(C_YIELD);
			count(C_YIELD);
			break;
		default:
			do_affinity(t);
			break;
		}
	}
}

static const char *iopl_mode(void)
{
	static char cmdline[4096];
	const char *mode = getenv("FUZZ_MODE");
	char *p;
	FILE *f;

	if (mode)
		return mode;
	f = fopen("/proc/cmdline", "r");
	if (f && fgets(cmdline, sizeof(cmdline), f)) {
		for (p = strtok(cmdline, " \n"); p; p = strtok(NULL, " \n"))
			if (!strncmp(p, "iopl=", 5))
				mode = p + 5;
	}
	if (f)
		fclose(f);
	return mode ? mode : "compat";
}

static void setup(int create)
{
	struct sigaction sa = { .sa_handler = on_fault, .sa_flags = SA_NODEFER };
	int fd;

	if (create)
		mkdir("/tmp", 01777);	/* the test guest has none */
	fd = open(COUNTERS, O_RDWR | (create ? O_CREAT | O_TRUNC : 0), 0600);

	if (fd < 0 || (create && ftruncate(fd, sizeof(*cnt)))) {
		perror("ioport_fuzz: " COUNTERS);
		exit(2);
	}
	cnt = mmap(NULL, sizeof(*cnt), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (cnt == MAP_FAILED) {
		perror("ioport_fuzz: mmap");
		exit(2);
	}
	close(fd);
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	strict = !strcmp(iopl_mode(), "strict");
	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
}

/* The program re-executed by a child: go on with the inherited state. */
static int exec_child(const char *state)
{
	struct task t = { 0 };

	setup(0);
	if (sscanf(state, "%d,%d,%d,%llu", &t.port_open, &t.level, &t.depth, &t.rng) != 4)
		return 2;
	succeeded(C_EXECVE);	/* the execve() that started this program */
	t.rng += getpid();
	/* what execve() kept must still hold before anything changes it */
	probe_port(&t);
	run(&t, 1 + rnd(&t, 16));
	child_exit(&t);
	return 0;
}

int main(int argc, char **argv)
{
	const char *w = getenv("FUZZ_WORKERS"), *n = getenv("FUZZ_OWN_SYSCALLS");
	int workers = w ? atoi(w) : 4, i, status, bad = 0;
	pid_t pid;

	if (argc == 2)
		return exec_child(argv[1]);
	setup(1);
	/* orphans of exec'ed children come back here to be reaped */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	cnt->target = n ? atol(n) : 20000;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("# ioport_fuzz: %d workers, %ld system calls, iopl=%s, %d CPUs\n",
	       workers, cnt->target, iopl_mode(), ncpus);
	for (i = 0; i < workers; i++) {
		if (!fork()) {
			struct task t = { .rng = 0x9e3779b97f4a7c15ULL * (i + 1) };

			while (!done())
				run(&t, 64);
			reap_all(&t);
			count(C_EXIT);
			_exit(0);
		}
	}
	/* the workers, and the orphans of exec'ed children */
	while ((pid = wait(&status)) > 0 || errno == EINTR)
		if (pid > 0)
			ended(pid, status);
	printf("ioport_fuzz: %ld syscalls (", cnt->total);
	for (i = 0; i < C_NR; i++)
		printf("%s%s %ld", i ? ", " : "", names[i], cnt->calls[i]);
	printf("), %ld probes, %ld mismatches\n", cnt->probes, cnt->mismatches);
	printf("ioport_fuzz: succeeded:");
	for (i = 0; i < C_NR; i++) {
		printf("%s %s %ld", i ? "," : "", names[i], cnt->ok[i]);
		bad |= !cnt->ok[i];
	}
	printf("\n");
	if (bad)
		printf("# ioport_fuzz: a call that never succeeded (0 above) tested nothing\n");
	return bad || cnt->mismatches ? 1 : 0;
}
