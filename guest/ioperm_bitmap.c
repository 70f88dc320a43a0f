// SPDX-License-Identifier: GPL-2.0
/*
 * ioperm_bitmap.c - which I/O ports a task reaches through ioperm() and
 * iopl(3): exactly the ones asked for, in the task that asked, across
 * fork, threads, exec, context switches, CPUs and failed allocations.
 *
 * Each CPU's TSS holds one copy of an I/O bitmap, updated on the exit to
 * user mode of a task whose bitmap is not the one it holds. So tasks with
 * different ports take turns on one CPU, or move between CPUs, and check
 * after each step which ports they reach.
 *
 * The harness's own program, for a VM only (the upstreamable checks are
 * in the tree's ioperm selftest, whose probes are inert by default). On a
 * correct kernel only ports 0x80 and 0xed, which the kernel itself uses
 * for I/O delays, are ever let through (0x80 is also written), and every
 * other port is probed only where the read must fault. On a kernel with
 * the bug it hunts those reads reach devices, and reads are not inert on
 * real hardware (a keyboard byte at 0x60, a UART's received byte, the
 * 8237's flip-flop, an IDE interrupt acknowledged). A check probes every
 * 61st port (61 and 64 share no factor, so the probes fall at every
 * offset of a 64-port block) and the ports next to every edge of the
 * port sets in play: each probe of a closed port costs a #GP and a
 * signal, and a sanitizer kernel under emulation takes the harness's
 * 30 s per test for a few thousand of them.
 *
 * CPU hotplug runs only when IOPORT_HOTPLUG_ROUNDS=N asks for N rounds.
 * The tests of failed allocations need fault injection (fail-nth,
 * failslab, fail_page_alloc) and skip without it.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"	/* the tree's tools/testing/selftests */

#ifndef NT_386_IOPERM
#define NT_386_IOPERM	0x202
#endif

#define ALL		0x10000	/* the end of the port space */

static __thread sigjmp_buf jmp;

static void on_fault(int sig)
{
	siglongjmp(jmp, 1);
}

static void __attribute__((constructor)) catch_faults(void)
{
	struct sigaction sa = { .sa_handler = on_fault, .sa_flags = SA_NODEFER };

	sigaction(SIGSEGV, &sa, NULL);
}

/* Read @width (1, 2 or 4) bytes at @port; true when it did not fault. */
static bool io_read(unsigned int port, int width)
{
	if (sigsetjmp(jmp, 1))
		return false;
	if (width == 1)
		inb(port);
	else if (width == 2)
		inw(port);
	else
		inl(port);
	return true;
}

static bool outb_80(void)
{
	if (sigsetjmp(jmp, 1))
		return false;
	outb(0, 0x80);
	return true;
}

/* May a read that goes through touch [port, port + width)? */
static bool safe(unsigned int port, int width)
{
	for (unsigned int p = port; p < port + width; p++)
		if (p != 0x80 && p != 0xed)
			return false;
	return true;
}

/* Does a read at @port fault exactly when !@open? Read only if safe(). */
static bool port_is(unsigned int port, int width, bool open)
{
	if (open && !safe(port, width))
		return true;
	return io_read(port, width) == open;
}

/*
 * A permission set: up to three ranges [from, to) opened by ioperm(), or
 * iopl(3). With @step, only every step-th port of r[0], each by its own
 * call. @hole is opened with the ranges, then closed again.
 */
struct range { unsigned int from, to; };

struct perm {
	const char *name;
	struct range r[3];
	unsigned int step;
	struct range hole;
	bool iopl;
};

static bool perm_has(const struct perm *p, unsigned int port)
{
	if (p->iopl)
		return true;
	if (port >= p->hole.from && port < p->hole.to)
		return false;
	for (int i = 0; i < 3; i++) {
		if (port < p->r[i].from || port >= p->r[i].to)
			continue;
		if (i || !p->step || (port - p->r[0].from) % p->step == 0)
			return true;
	}
	return false;
}

static int ioperm_range(struct range r, int on)
{
	return r.to > r.from ? ioperm(r.from, r.to - r.from, on) : 0;
}

/* Drop what the caller has, then take @p. */
static int perm_apply(const struct perm *p)
{
	if (ioperm(0, ALL, 0) || iopl(0))
		return -1;
	if (p->iopl)
		return iopl(3);
	for (unsigned int port = p->r[0].from; p->step && port < p->r[0].to; port += p->step)
		if (ioperm(port, 1, 1))
			return -1;
	for (int i = !!p->step; i < 3; i++)
		if (ioperm_range(p->r[i], 1))
			return -1;
	return ioperm_range(p->hole, 0);
}

static void mark_around(uint8_t *map, unsigned int port)
{
	for (unsigned int q = port - 2; q != port + 3; q++)
		if (q < ALL)
			map[q / 8] |= 1 << (q % 8);
}

/* Mark in @map the ports next to an edge of @p: two on each side. */
static void mark_edges(uint8_t *map, const struct perm *p)
{
	const struct range r[] = { p->r[0], p->r[1], p->r[2], p->hole };

	for (unsigned int i = !!p->step; i < ARRAY_SIZE(r); i++) {
		if (r[i].to > r[i].from) {
			mark_around(map, r[i].from);
			mark_around(map, r[i].to);
		}
	}
	/* each port of a stepped range is a range of its own */
	for (unsigned int port = p->r[0].from; p->step && port < p->r[0].to; port += p->step)
		mark_around(map, port);
}

/*
 * Do the ports behave as @own says? Probes 0x80, 0xed, every @stride-th
 * port and the ports next to an edge of @own or of @others[0..n). Prints
 * the first port that does not, naming @who.
 */
static bool check(const struct perm *own, const struct perm *others, int n,
		  unsigned int stride, const char *who)
{
	uint8_t edges[ALL / 8] = { 0 };

	mark_edges(edges, own);
	for (int i = 0; i < n; i++)
		mark_edges(edges, &others[i]);
	for (unsigned int port = 0; port < ALL; port++) {
		bool want;

		if (!safe(port, 1) && port % stride && !(edges[port / 8] & 1 << (port % 8)))
			continue;
		want = perm_has(own, port);
		if (!port_is(port, 1, want)) {
			printf("# %s: port %#x %s\n", who, port,
			       want ? "faults, expected open" : "is open, expected a fault");
			return false;
		}
	}
	return true;
}

/* Are exactly the ports [from, to) open? */
static bool exact(unsigned int from, unsigned int to)
{
	struct perm p = { .r = { { from, to } } };

	return check(&p, NULL, 0, 61, "this task");
}

static bool privileged(struct __test_metadata *_metadata)
{
	if (geteuid())
		SKIP(return false, "must run as root");
	if (ioperm(0x80, 1, 0) && errno == ENOSYS)
		SKIP(return false, "ioperm(): ENOSYS (no CONFIG_X86_IOPL_IOPERM)");
	return true;
}

/* As root, iopl(3) fails only under iopl=off (EPERM) */
static bool iopl_usable(void)
{
	bool usable = !iopl(3);

	iopl(0);
	return usable;
}

static bool root_iopl(struct __test_metadata *_metadata)
{
	if (!privileged(_metadata))
		return false;
	if (!iopl_usable())
		SKIP(return false, "iopl(3): EPERM (iopl=off)");
	return true;
}

static bool child_ok(pid_t pid)
{
	int status;

	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0;
}

/* Pin the calling task to @cpu. */
static int pin_to_cpu(int cpu)
{
	cpu_set_t *set = CPU_ALLOC(cpu + 1);
	size_t size = CPU_ALLOC_SIZE(cpu + 1);
	int ret;

	if (!set)
		return -1;
	CPU_ZERO_S(size, set);
	CPU_SET_S(cpu, size, set);
	ret = sched_setaffinity(0, size, set);
	CPU_FREE(set);
	return ret;
}

/*
 * The CPU the caller runs on, from the getcpu system call: the vDSO's
 * answer can be wrong (a 6.1 Xen PV dom0 said 123 on every vCPU but 0).
 */
static int current_cpu(void)
{
	unsigned int cpu;

	return syscall(SYS_getcpu, &cpu, NULL, NULL) ? -1 : (int)cpu;
}

/*
 * The ids of the CPUs the test may use, its affinity mask at the start
 * (a taskset or a cpuset may narrow it; the ids need not be 0 to n - 1),
 * and their number.
 */
static int cpu_id[CPU_SETSIZE], ncpus;

static void __attribute__((constructor)) read_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		err(1, "sched_getaffinity");
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set))
			cpu_id[ncpus++] = cpu;
}

/* Access: what iopl() and ioperm() open, and for whom. */

TEST(iopl_levels)
{
	if (!root_iopl(_metadata))
		return;
	ASSERT_EQ(-1, iopl(4));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, syscall(SYS_iopl, UINT_MAX));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(0, iopl(1));
	ASSERT_TRUE(exact(0, 0));
	ASSERT_EQ(0, iopl(2));
	ASSERT_TRUE(exact(0, 0));
	ASSERT_EQ(0, iopl(3));
	ASSERT_TRUE(exact(0, ALL));
	ASSERT_TRUE(outb_80());
	/*
	 * Emulated IOPL 3 is an all-zero bitmap: an access reaching past
	 * port 0xffff checks the byte after the map, which is all ones.
	 */
	ASSERT_FALSE(io_read(0xffff, 2));
	ASSERT_FALSE(io_read(0xfffd, 4));
	ASSERT_EQ(0, iopl(0));
	ASSERT_TRUE(exact(0, 0));
	ASSERT_FALSE(outb_80());
}

TEST(iopl_privilege)
{
	if (!root_iopl(_metadata))
		return;
	ASSERT_EQ(0, iopl(3));
	ASSERT_EQ(0, setresuid(65534, 65534, 65534));
	ASSERT_EQ(0, iopl(3)) TH_LOG("keeping level 3 must not need privileges");
	ASSERT_TRUE(outb_80());
	ASSERT_EQ(0, iopl(1)) TH_LOG("lowering must not need privileges");
	ASSERT_FALSE(outb_80());
	ASSERT_EQ(-1, iopl(3));
	ASSERT_EQ(EPERM, errno);
	ASSERT_EQ(0, iopl(0));
	ASSERT_TRUE(exact(0, 0));
}

TEST(iopl_restores_ioperm_bitmap)
{
	if (!root_iopl(_metadata))
		return;
	ASSERT_EQ(0, ioperm(0x2e0, 8, 1));
	ASSERT_EQ(0, iopl(3));
	ASSERT_TRUE(exact(0, ALL));
	ASSERT_EQ(0, iopl(0));
	ASSERT_TRUE(exact(0x2e0, 0x2e8));
	/* A bitmap changed under iopl(3) is the one in force afterwards. */
	ASSERT_EQ(0, iopl(3));
	ASSERT_EQ(0, ioperm(0x2e0, 8, 0));
	ASSERT_EQ(0, ioperm(0xc000, 16, 1));
	ASSERT_EQ(0, iopl(0));
	ASSERT_TRUE(exact(0xc000, 0xc010));
}

/*
 * ioperm() opens exactly [from, from + num): DOSEMU relies on it. Ranges
 * from the start of the map to its end, small and large; accesses that
 * straddle an edge fault.
 */
TEST(ioperm_exact)
{
	static const struct range ranges[] = {
		{ 0x0, 0x1 }, { 0x0, 0x40 }, { 0x7, 0x9 }, { 0x80, 0x81 },
		{ 0xe8, 0xf0 }, { 0x2e0, 0x2e8 }, { 0x1fff, 0x2002 },
		{ 0x1000, 0x1800 }, { 0xc000, 0xc040 }, { 0xfff8, ALL },
		{ 0x8001, ALL },
	};

	if (!privileged(_metadata))
		return;
	for (unsigned int i = 0; i < ARRAY_SIZE(ranges); i++) {
		struct range r = ranges[i];

		ASSERT_EQ(0, ioperm_range(r, 1));
		ASSERT_TRUE(exact(r.from, r.to)) TH_LOG("[%#x, %#x)", r.from, r.to);
		if (r.from >= 3) {
			ASSERT_FALSE(io_read(r.from - 1, 2));
			ASSERT_FALSE(io_read(r.from - 3, 4));
		}
		if (r.to < ALL && r.to - r.from >= 4) {
			ASSERT_FALSE(io_read(r.to - 1, 2));
			ASSERT_FALSE(io_read(r.to - 2, 4));
		}
		ASSERT_EQ(0, ioperm_range(r, 0));
		ASSERT_TRUE(exact(0, 0));
	}
	/* The CPU also checks the bit of port 0x10000, past the map: set. */
	ASSERT_EQ(0, ioperm(0xffff, 1, 1));
	ASSERT_FALSE(io_read(0xffff, 2));
}

TEST(ioperm_bad_ranges)
{
	if (!privileged(_metadata))
		return;
	ASSERT_EQ(-1, ioperm(0x80, 0, 1));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, ioperm(0xffff, 2, 1));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, ioperm(0x10000, 1, 1));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, syscall(SYS_ioperm, ULONG_MAX, 2UL, 1));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-1, syscall(SYS_ioperm, 0x80UL, ULONG_MAX, 1));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_TRUE(exact(0, 0));
}

TEST(ioperm_privilege)
{
	if (!privileged(_metadata))
		return;
	ASSERT_EQ(0, ioperm(0x80, 2, 1));
	ASSERT_EQ(0, setresuid(65534, 65534, 65534));
	ASSERT_EQ(-1, ioperm(0x2e0, 1, 1));
	ASSERT_EQ(EPERM, errno);
	ASSERT_EQ(0, ioperm(0x81, 1, 0)) TH_LOG("turning off must not need privileges");
	ASSERT_TRUE(exact(0x80, 0x81));
	ASSERT_EQ(-1, ioperm(0x81, 1, 1));
	ASSERT_EQ(EPERM, errno);
}

TEST(ioperm_drop_all_then_regrant)
{
	if (!privileged(_metadata))
		return;
	ASSERT_EQ(0, ioperm(0x80, 1, 1));
	ASSERT_EQ(0, ioperm(0xfff0, 16, 1));
	ASSERT_EQ(0, ioperm(0x80, 1, 0));
	ASSERT_TRUE(exact(0xfff0, ALL));
	ASSERT_EQ(0, ioperm(0, ALL, 0));
	ASSERT_TRUE(exact(0, 0));
	ASSERT_EQ(0, ioperm(0, ALL, 0)) TH_LOG("dropping nothing is fine");
	ASSERT_EQ(0, ioperm(0xed, 4, 1));
	ASSERT_TRUE(exact(0xed, 0xf1));
}

/*
 * Inheritance: fork(), vfork() and clone3() children inherit the bitmap
 * and the iopl level, and a later change on either side does not reach
 * the other (the bitmap is shared copy-on-write). A new thread inherits
 * its creator's, per thread from then on. execve() keeps both (today's
 * ABI, pinned here so that a change is noticed).
 */

/* clone3() with no flags, like fork(); the struct is clone_args v0. */
static pid_t clone3_fork(void)
{
	uint64_t args[8] = { [4] = SIGCHLD };	/* exit_signal */

	return syscall(SYS_clone3, args, sizeof(args));
}

/*
 * Both start with [0x2e0, 0x2e8). The child moves to [0xc000, 0xc010)
 * and the parent checks that it kept its range, then moves to 0x80 and
 * the child checks that it kept its own. A pipe each way orders them;
 * each side closes the end it does not use, so a side that died is EOF.
 */
static void cow_both_ways(struct __test_metadata *_metadata, pid_t (*spawn)(void))
{
	int to_parent[2], to_child[2];
	char c = 0;
	pid_t pid;

	ASSERT_EQ(0, pipe(to_parent));
	ASSERT_EQ(0, pipe(to_child));
	ASSERT_EQ(0, ioperm(0x2e0, 8, 1));
	pid = spawn();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(to_parent[0]);
		close(to_child[1]);
		if (!exact(0x2e0, 0x2e8) || ioperm(0x2e0, 8, 0) || ioperm(0xc000, 16, 1) ||
		    write(to_parent[1], &c, 1) != 1 || read(to_child[0], &c, 1) != 1)
			_exit(1);
		_exit(exact(0xc000, 0xc010) ? 0 : 1);
	}
	close(to_parent[1]);
	close(to_child[0]);
	ASSERT_EQ(1, read(to_parent[0], &c, 1)) TH_LOG("the child failed before its change");
	ASSERT_TRUE(exact(0x2e0, 0x2e8)) TH_LOG("the child's change reached the parent");
	ASSERT_EQ(0, ioperm(0x2e0, 8, 0));
	ASSERT_EQ(0, ioperm(0x80, 1, 1));
	ASSERT_EQ(1, write(to_child[1], &c, 1));
	ASSERT_TRUE(child_ok(pid)) TH_LOG("the child lost its ports or saw the parent's change");
	ASSERT_TRUE(exact(0x80, 0x81));
}

TEST(fork_copies_bitmap_both_ways)
{
	if (!privileged(_metadata))
		return;
	cow_both_ways(_metadata, fork);
}

TEST(clone3_copies_bitmap_both_ways)
{
	if (!privileged(_metadata))
		return;
	cow_both_ways(_metadata, clone3_fork);
}

/*
 * After fork() both share one bitmap, with ports in three blocks. One
 * side changes one port: it gets a copy, which must keep the ports of the
 * other blocks open (0x80 and 0xed among them, so that reads check it).
 */
TEST(shared_map_one_port_changed)
{
	static const struct perm both = {
		.r = { { 0x80, 0x81 }, { 0xed, 0xee }, { 0xc000, 0xc008 } } };
	static const struct perm dropped = {
		.r = { { 0x80, 0x81 }, { 0xed, 0xee }, { 0xc001, 0xc008 } } };
	static const struct perm added = {
		.r = { { 0x80, 0x81 }, { 0xe0, 0xee }, { 0xc000, 0xc008 } },
		.hole = { 0xe1, 0xed } };
	pid_t pid;

	if (!privileged(_metadata))
		return;
	ASSERT_EQ(0, perm_apply(&both));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(!ioperm(0xc000, 1, 0) && check(&dropped, &both, 1, 61, "child") ? 0 : 1);
	ASSERT_TRUE(child_ok(pid)) TH_LOG("the child that dropped 0xc000 lost other ports");
	ASSERT_TRUE(check(&both, &dropped, 1, 61, "parent"));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(!ioperm(0xe0, 1, 1) && check(&added, &both, 1, 61, "child") ? 0 : 1);
	ASSERT_TRUE(child_ok(pid)) TH_LOG("the child that added 0xe0 lost other ports");
	ASSERT_TRUE(check(&both, &added, 1, 61, "parent"));
	ASSERT_EQ(0, ioperm(0xc000, 1, 0));
	ASSERT_TRUE(check(&dropped, &both, 1, 61, "parent"));
}

TEST(fork_inherits_iopl)
{
	pid_t pid;

	if (!root_iopl(_metadata))
		return;
	ASSERT_EQ(0, ioperm(0x2e0, 8, 1));
	ASSERT_EQ(0, iopl(3));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)	/* lowering in the child must not reach the parent */
		_exit(exact(0, ALL) && !iopl(0) && exact(0x2e0, 0x2e8) ? 0 : 1);
	ASSERT_TRUE(child_ok(pid));
	ASSERT_TRUE(exact(0, ALL));
	ASSERT_TRUE(outb_80());
}

/* The thread checks what it inherited, then moves to [0xc000, 0xc010). */
static void *thread_fn(void *arg)
{
	pthread_barrier_t *turn = arg;
	bool ok = exact(0x2e0, 0x2e8) && !ioperm(0x2e0, 8, 0) && !ioperm(0xc000, 16, 1);

	pthread_barrier_wait(turn);	/* main checks its own */
	pthread_barrier_wait(turn);	/* main changed its own */
	return (void *)(long)(ok && exact(0xc000, 0xc010));
}

TEST(threads_inherit_then_own)
{
	pthread_barrier_t turn;
	pthread_t thread;
	void *ok;

	if (!privileged(_metadata))
		return;
	ASSERT_EQ(0, pthread_barrier_init(&turn, NULL, 2));
	ASSERT_EQ(0, ioperm(0x2e0, 8, 1));
	ASSERT_EQ(0, pthread_create(&thread, NULL, thread_fn, &turn));
	pthread_barrier_wait(&turn);
	ASSERT_TRUE(exact(0x2e0, 0x2e8)) TH_LOG("the thread's change reached the main thread");
	ASSERT_EQ(0, ioperm(0x2e0, 8, 0));
	ASSERT_EQ(0, ioperm(0x80, 1, 1));
	pthread_barrier_wait(&turn);
	ASSERT_EQ(0, pthread_join(thread, &ok));
	ASSERT_EQ(1, (long)ok) TH_LOG("the thread did not inherit, or saw the other's change");
	ASSERT_TRUE(exact(0x80, 0x81));
}

static void *iopl_thread_fn(void *arg)
{
	return (void *)(long)(exact(0, ALL) && !iopl(0) && exact(0, 0));
}

TEST(threads_iopl_per_thread)
{
	pthread_t thread;
	void *ok;

	if (!root_iopl(_metadata))
		return;
	ASSERT_EQ(0, iopl(3));
	ASSERT_EQ(0, pthread_create(&thread, NULL, iopl_thread_fn, NULL));
	ASSERT_EQ(0, pthread_join(thread, &ok));
	ASSERT_EQ(1, (long)ok) TH_LOG("the new thread did not inherit iopl(3)");
	ASSERT_TRUE(exact(0, ALL)) TH_LOG("the thread's iopl(0) reached the main thread");
	ASSERT_TRUE(outb_80());
}

/* Run this program again as "exec-child FROM TO": main() checks. */
static void exec_self(unsigned int from, unsigned int to)
{
	char f[16], t[16];

	snprintf(f, sizeof(f), "%#x", from);
	snprintf(t, sizeof(t), "%#x", to);
	execl("/proc/self/exe", "ioperm_bitmap", "exec-child", f, t, (char *)NULL);
	_exit(4);
}

TEST(execve_keeps_bitmap)
{
	pid_t pid;

	if (!privileged(_metadata))
		return;
	ASSERT_EQ(0, ioperm(0x2e0, 8, 1));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		exec_self(0x2e0, 0x2e8);
	ASSERT_TRUE(child_ok(pid));
}

TEST(execve_keeps_iopl)
{
	pid_t pid;

	if (!root_iopl(_metadata))
		return;
	ASSERT_EQ(0, iopl(3));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		exec_self(0, ALL);
	ASSERT_TRUE(child_ok(pid));
}

TEST(vfork_inherits_bitmap)
{
	pid_t pid;

	if (!privileged(_metadata))
		return;
	ASSERT_EQ(0, ioperm(0xfff8, 8, 1));
	pid = vfork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		exec_self(0xfff8, ALL);
	ASSERT_TRUE(child_ok(pid));
	ASSERT_TRUE(exact(0xfff8, ALL));
}

/* PTRACE_GETREGSET NT_386_IOPERM: the tracee's bitmap, or ENXIO */
TEST(ptrace_regset)
{
	static const unsigned int ports[] = { 0x0, 0x31, 0x37, 0xfff0 };
	unsigned char buf[8192 + 64];
	struct iovec iov = { buf, sizeof(buf) };
	int status;

	if (!privileged(_metadata))
		return;
	for (int with = 0; with < 2; with++) {
		pid_t pid = fork();

		ASSERT_LE(0, pid);
		if (pid == 0) {
			for (unsigned int i = 0; with && i < ARRAY_SIZE(ports); i++)
				if (ioperm(ports[i], 1, 1))
					_exit(1);
			if (ptrace(PTRACE_TRACEME, 0, 0, 0) || raise(SIGSTOP))
				_exit(1);
			_exit(0);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, WUNTRACED));
		ASSERT_TRUE(WIFSTOPPED(status));
		memset(buf, 0x55, sizeof(buf));
		iov.iov_len = sizeof(buf);
		if (!with) {
			ASSERT_EQ(-1, ptrace(PTRACE_GETREGSET, pid, NT_386_IOPERM, &iov));
			ASSERT_EQ(ENXIO, errno);
		} else {
			ASSERT_EQ(0, ptrace(PTRACE_GETREGSET, pid, NT_386_IOPERM, &iov));
			ASSERT_EQ(8192, iov.iov_len);
			for (unsigned int byte = 0; byte < 8192; byte++) {
				unsigned char want = 0xff;

				for (unsigned int i = 0; i < ARRAY_SIZE(ports); i++)
					if (ports[i] / 8 == byte)
						want &= ~(1 << (ports[i] % 8));
				ASSERT_EQ(want, buf[byte]) TH_LOG("byte %u", byte);
			}
		}
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
}

/*
 * Switches: tasks pinned to @cpu take turns in a ring. Task i waits for
 * the token on pipe i, checks its ports against its own set and the edges
 * of the others', and passes the token on. Task i is the only writer of
 * pipe i + 1: when it exits early, the next one reads EOF and exits too.
 * Returns the number of tasks that saw a wrong port or exited early.
 */
static int ring(const struct perm *sets, int n, int rounds, int cpu)
{
	int pipes[8][2], failed = 0;
	pid_t pids[8];

	for (int i = 0; i < n; i++)
		if (pipe(pipes[i]))
			return n;
	for (int i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			return n;
		if (pids[i] == 0) {
			char who[32], token;

			snprintf(who, sizeof(who), "task %d (%s)", i, sets[i].name);
			for (int j = 0; j < n; j++) {
				if (j != i)
					close(pipes[j][0]);
				if (j != (i + 1) % n)
					close(pipes[j][1]);
			}
			if (pin_to_cpu(cpu) || perm_apply(&sets[i]))
				_exit(2);
			for (int r = 0; r < rounds; r++) {
				if (read(pipes[i][0], &token, 1) != 1)
					_exit(3);
				if (!check(&sets[i], sets, n, 251, who))
					_exit(1);
				if (write(pipes[(i + 1) % n][1], &token, 1) != 1)
					_exit(3);
			}
			_exit(0);
		}
	}
	if (write(pipes[0][1], "t", 1) != 1)
		return n;
	for (int i = 0; i < n; i++)
		close(pipes[i][1]);
	for (int i = 0; i < n; i++)
		failed += !child_ok(pids[i]);
	/* Only now: the last token may be written after its reader left. */
	for (int i = 0; i < n; i++)
		close(pipes[i][0]);
	return failed;
}

/* on each CPU in turn: each CPU invalidates and updates its own TSS */
TEST(ring_of_six_tasks_on_each_cpu)
{
	struct perm sets[] = {
		{ "none" },
		{ "low", { { 0x80, 0x88 } } },
		{ "high", { { 0xfff0, ALL } } },
		{ "iopl3", .iopl = true },
		{ "dosemu", { { 0x2e0, 0x2e8 }, { 0xed, 0xee } } },
		{ "kilobyte", { { 0x1000, 0x3000 } } },
	};

	if (!privileged(_metadata))
		return;
	sets[3].iopl = iopl_usable();	/* iopl=off: that task has nothing */
	for (int k = 0; k < ncpus; k++) {
		ASSERT_EQ(0, ring(sets, 6, 5, cpu_id[k])) TH_LOG("CPU %d", cpu_id[k]);
	}
}

/* Two tasks on one CPU, switching back and forth: r1 -> r2 -> r1 ... */
FIXTURE(pair) {};
FIXTURE_SETUP(pair) {}
FIXTURE_TEARDOWN(pair) {}

FIXTURE_VARIANT(pair) {
	struct perm r1, r2;
};

FIXTURE_VARIANT_ADD(pair, adjacent) {
	.r1 = { "r1", { { 0x80, 0xc0 } } }, .r2 = { "r2", { { 0xc0, 0x100 } } },
};

FIXTURE_VARIANT_ADD(pair, overlapping) {
	.r1 = { "r1", { { 0x60, 0xe0 } } }, .r2 = { "r2", { { 0x80, 0x100 } } },
};

FIXTURE_VARIANT_ADD(pair, nested) {
	.r1 = { "r1", { { 0x40, 0x400 } } }, .r2 = { "r2", { { 0xe8, 0xf0 } } },
};

/* block 0, then blocks 2 and 3 above a copy of [0, 8) */
FIXTURE_VARIANT_ADD(pair, byte_0) {
	.r1 = { "r1", { { 0x0, 0x8 } } }, .r2 = { "r2", { { 0x80, 0x81 }, { 0xed, 0xee } } },
};

/* two dense blocks, then a listed map whose first block is just above them */
FIXTURE_VARIANT_ADD(pair, block_above_copy) {
	.r1 = { "r1", { { 0x0, 0x80 } } }, .r2 = { "r2", { { 0x80, 0x81 }, { 0xfff0, 0xfff1 } } },
};

FIXTURE_VARIANT_ADD(pair, byte_8191) {
	.r1 = { "r1", { { 0xfff8, ALL } } }, .r2 = { "r2", { { 0x80, 0x81 } } },
};

FIXTURE_VARIANT_ADD(pair, first_and_last_byte) {
	.r1 = { "r1", { { 0x0, 0x1 } } }, .r2 = { "r2", { { 0xffff, ALL }, { 0xed, 0xee } } },
};

FIXTURE_VARIANT_ADD(pair, two_high) {
	.r1 = { "r1", { { 0xc000, 0xc040 } } }, .r2 = { "r2", { { 0xe000, 0xe040 } } },
};

FIXTURE_VARIANT_ADD(pair, whole_map) {
	.r1 = { "r1", { { 0x0, ALL } } }, .r2 = { "r2", { { 0xed, 0xee } } },
};

/* 16 single ports 0x1000 apart: 16 blocks, one per 4096 ports */
FIXTURE_VARIANT_ADD(pair, scatter_and_low) {
	.r1 = { "r1", { { 0x80, ALL } }, .step = 0x1000 }, .r2 = { "r2", { { 0xe0, 0xf0 } } },
};

/* both hold ports of block 2 (0x80-0xbf), different ones */
FIXTURE_VARIANT_ADD(pair, scatter_and_same_block) {
	.r1 = { "r1", { { 0x80, ALL } }, .step = 0x1000 }, .r2 = { "r2", { { 0x81, 0x88 } } },
};

/* 0x80-0xffff opened, then all but both ends closed again */
FIXTURE_VARIANT_ADD(pair, blocks_emptied) {
	.r1 = { "r1", { { 0x80, ALL } }, .hole = { 0x88, 0xfff8 } },
	.r2 = { "r2", { { 0xe0, 0xf0 } } },
};

FIXTURE_VARIANT_ADD(pair, iopl_and_bitmap) {
	.r1 = { "r1", .iopl = true }, .r2 = { "r2", { { 0xfff0, ALL } } },
};

FIXTURE_VARIANT_ADD(pair, iopl_and_none) {
	.r1 = { "r1", .iopl = true }, .r2 = { "r2" },
};

FIXTURE_VARIANT_ADD(pair, bitmap_and_none) {
	.r1 = { "r1", { { 0x80, 0x88 } } }, .r2 = { "r2" },
};

TEST_F(pair, switch_back_and_forth)
{
	struct perm sets[2] = { variant->r1, variant->r2 };

	if (!(sets[0].iopl ? root_iopl(_metadata) : privileged(_metadata)))
		return;
	ASSERT_EQ(0, ring(sets, 2, 4, cpu_id[0]));
}

/*
 * Stress: 24 tasks spread over the CPUs, each with a random set of ports
 * (none, a few tiny ranges, a range kilobytes of bitmap wide, iopl(3), or
 * a mix) and a model of it. Each changes its set now and then, migrates,
 * yields often so that different bitmaps keep replacing each other in the
 * TSS, and probes the edges of its own and the others' ranges and random
 * ports, with 1-, 2- and 4-byte reads. Every outcome must match the model.
 * The seed is fixed: a failure prints what it takes to repeat it.
 */
#define NTASKS		24
#define PROBES		3000
#define SEED		1

struct task {
	uint32_t rng;
	bool iopl, may_iopl;
	uint8_t open[ALL / 8];		/* model of the bitmap: 1 = open */
	struct range edges[8];		/* ranges this task touched */
	int nedges;
};

static struct range initial[NTASKS][4];	/* everybody's, for probing */
static int ninitial[NTASKS];

/* What the tasks did, in shared memory: proof that the run tested something */
struct stats { long probes, faults, migrations; };

static uint32_t rnd(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static struct range random_range(uint32_t *s, bool wide)
{
	unsigned int num = wide ? 0x2000 + rnd(s) % 0x6000 : 1 + rnd(s) % 8;
	unsigned int from = rnd(s) % (ALL - num + 1);

	return (struct range){ from, from + num };
}

static bool model_open(struct task *t, unsigned int port, int width)
{
	if (port + width > ALL)
		return false;	/* the byte after the map is all ones */
	for (unsigned int p = port; p < port + width && !t->iopl; p++)
		if (!(t->open[p / 8] & (1 << (p % 8))))
			return false;
	return true;
}

static int task_ioperm(struct task *t, struct range r, bool on)
{
	if (ioperm_range(r, on))
		return -1;
	for (unsigned int p = r.from; p < r.to; p++) {
		t->open[p / 8] &= ~(1 << (p % 8));
		t->open[p / 8] |= on << (p % 8);
	}
	t->edges[t->nedges++ % 8] = r;
	return 0;
}

static int task_iopl(struct task *t, bool on)
{
	if (!t->may_iopl)
		return 0;
	t->iopl = on;
	return iopl(on ? 3 : 0);
}

static unsigned int pick_port(struct task *t)
{
	uint32_t k = rnd(&t->rng) % 5, other = rnd(&t->rng) % NTASKS;
	int own = t->nedges < 8 ? t->nedges : 8;
	struct range r;

	if (k == 0 && own)
		r = t->edges[rnd(&t->rng) % own];
	else if (k == 1 && ninitial[other])
		r = initial[other][rnd(&t->rng) % ninitial[other]];
	else if (k == 2)
		return rnd(&t->rng) % 2 ? 0x80 : 0xed;	/* the ports read when open */
	else
		return rnd(&t->rng) % ALL;
	/* a port next to an edge: from - 1, from, to - 1 or to */
	return ((unsigned int[]){ r.from - 1, r.from, r.to - 1, r.to })[rnd(&t->rng) % 4] & 0xffff;
}

static int run_task(int self, struct stats *st, bool may_iopl, int start)
{
	static const int widths[] = { 1, 1, 1, 2, 4 };	/* mostly bytes */
	struct task *t = calloc(1, sizeof(*t));
	int cpu;

	if (!t)
		return 2;
	t->rng = SEED * 2654435761u + self + 1;
	t->may_iopl = may_iopl;
	for (int i = 0; i < ninitial[self]; i++)
		if (task_ioperm(t, initial[self][i], true))
			return 2;
	if (self % 5 == 3 && task_iopl(t, true))
		return 2;
	/* all tasks start together, when the parent closes @start */
	if (read(start, &(char){ 0 }, 1) != 0)
		return 2;
	cpu = current_cpu();
	for (int n = 0; n < PROBES; n++) {
		unsigned int port = pick_port(t);
		int width = widths[rnd(&t->rng) % ARRAY_SIZE(widths)];
		bool expected;

		if (n % 16 == 0)
			sched_yield();
		if (n % 500 == 250 && pin_to_cpu(cpu_id[rnd(&t->rng) % ncpus]))
			return 2;
		if (current_cpu() != cpu) {
			cpu = current_cpu();
			st->migrations++;
		}
		if (n % 300 == 299) {
			uint32_t op = rnd(&t->rng) % 6;

			if (op == 0 && task_iopl(t, !t->iopl))
				return 2;
			if (op > 0 && task_ioperm(t, random_range(&t->rng, op == 1), op < 4))
				return 2;
		}
		expected = model_open(t, port, width);
		if (expected && !safe(port, width))
			continue;
		st->probes++;
		st->faults += !expected;
		if (io_read(port, width) != expected) {
			printf("# task %d seed %u probe %d: port %#x width %d iopl %d: %s\n",
			       self, SEED, n, port, width, t->iopl,
			       expected ? "expected access, got a fault" :
					  "expected a fault, got access");
			return 1;
		}
	}
	return 0;
}

TEST(random_sets_many_tasks)
{
	struct stats *st, sum = { 0 };
	bool usable;
	int failed = 0, start[2];
	pid_t pids[NTASKS];

	if (!privileged(_metadata))
		return;
	usable = iopl_usable();
	st = mmap(NULL, NTASKS * sizeof(*st), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(st != MAP_FAILED);
	for (int i = 0; i < NTASKS; i++) {
		uint32_t s = SEED * 40503u + i + 1;
		int kind = i % 5;	/* none, tiny, wide, iopl(3), mixed */

		for (int k = kind == 1 || kind == 4 ? 1 + rnd(&s) % 3 : 0; k > 0; k--)
			initial[i][ninitial[i]++] = random_range(&s, false);
		if (kind == 2 || kind == 4)
			initial[i][ninitial[i]++] = random_range(&s, true);
	}
	ASSERT_EQ(0, pipe(start));
	for (int i = 0; i < NTASKS; i++) {
		pids[i] = fork();
		ASSERT_LE(0, pids[i]);
		if (pids[i] == 0) {
			close(start[1]);
			_exit(run_task(i, &st[i], usable, start[0]));
		}
	}
	close(start[1]);
	for (int i = 0; i < NTASKS; i++) {
		failed += !child_ok(pids[i]);
		sum.probes += st[i].probes;
		sum.faults += st[i].faults;
		sum.migrations += st[i].migrations;
	}
	ASSERT_EQ(0, failed);
	TH_LOG("%d tasks on %d CPUs: %ld probes, %ld faulted, %ld migrations",
	       NTASKS, ncpus, sum.probes, sum.faults, sum.migrations);
	/* A run that probed little or saw one outcome only tested nothing. */
	ASSERT_GT(sum.probes, NTASKS * PROBES / 2);
	ASSERT_GT(sum.faults, sum.probes / 10);
	if (ncpus > 1)
		ASSERT_GT(sum.migrations, 0);
}

/*
 * SMP: tasks with different sets are moved between CPUs in a fixed order,
 * so that each CPU's TSS goes through each transition, and each task
 * checks its ports right after arriving. The order on a CPU is made
 * certain, not likely: a task that is done blocks, and the next one is
 * told to run only after /proc/PID/syscall says that the previous one has
 * left its CPU (the kernel waits for that, see wait_task_inactive()).
 * These tests need two CPUs in the affinity mask and skip with one.
 */
static const struct perm smp_sets[] = {
	{ "none" },
	{ "low", { { 0x80, 0x88 } } },
	{ "high", { { 0xfff0, ALL }, { 0xed, 0xee } } },
	{ "wide", { { 0x80, 0x81 }, { 0xfff8, ALL } } },
	{ "iopl3", .iopl = true },
	{ "moved", { { 0xc000, 0xc008 }, { 0xed, 0xee } } },
};

enum { NONE, LOW, HIGH, WIDE, IOPL3, MOVED };

/* A check as each SMP step does it: the edges, and every 0x3ff-th port */
static bool smp_check(const struct perm *p, const char *when)
{
	return check(p, smp_sets, ARRAY_SIZE(smp_sets), 0x3ff, when);
}

/*
 * A worker is a child that does what the parent says, one command at a
 * time, and answers each with one byte: 0 done, 1 a check failed (it
 * printed why), 2 a system call failed. Commands: run on CPU n (n >= 0)
 * and check, take the set -n - 1, exit (a closed pipe).
 */
struct worker { pid_t pid; int cmd, ans; };

static void worker_loop(int set, int cmd, int ans)
{
	char r, who[48];
	int c;

	if (perm_apply(&smp_sets[set]))
		_exit(2);
	while (read(cmd, &c, sizeof(c)) == sizeof(c)) {
		if (c >= 0) {
			snprintf(who, sizeof(who), "%s on CPU %d", smp_sets[set].name, c);
			if (pin_to_cpu(c) || current_cpu() != c)
				r = 2;
			else
				r = !smp_check(&smp_sets[set], who);
		} else {
			/* grant first, then revoke: the same bitmap, a new sequence */
			const struct perm *to = &smp_sets[-c - 1];

			r = 0;
			for (int i = 0; i < 3; i++)
				r |= ioperm_range(to->r[i], 1) ? 2 : 0;
			for (unsigned int port = 0; port < ALL; port++)
				if (perm_has(&smp_sets[set], port) && !perm_has(to, port))
					r |= ioperm(port, 1, 0) ? 2 : 0;
			set = -c - 1;
		}
		if (write(ans, &r, 1) != 1)
			_exit(2);
	}
	_exit(0);
}

static int worker_start(struct worker *w, int set)
{
	int cmd[2], ans[2];

	if (pipe(cmd) || pipe(ans))
		return -1;
	w->pid = fork();
	if (w->pid < 0)
		return -1;
	if (w->pid == 0) {
		close(cmd[1]);
		close(ans[0]);
		worker_loop(set, cmd[0], ans[1]);
	}
	close(cmd[0]);
	close(ans[1]);
	w->cmd = cmd[1];
	w->ans = ans[0];
	return 0;
}

/* Wait until @pid has left its CPU (/proc/PID/syscall: not "running"). */
static int wait_off_cpu(pid_t pid)
{
	char path[64], buf[16];

	snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
	for (;;) {
		int fd = open(path, O_RDONLY);
		ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));

		if (fd >= 0)
			close(fd);
		if (n <= 0)
			return -1;
		if (n < 7 || strncmp(buf, "running", 7))
			return 0;
		sched_yield();
	}
}

/* Send @c to @w, wait for its answer, then for it to leave its CPU. */
static char worker_cmd(struct worker *w, int c)
{
	char r = 2;

	if (write(w->cmd, &c, sizeof(c)) != sizeof(c) || read(w->ans, &r, 1) != 1 ||
	    wait_off_cpu(w->pid))
		return 2;
	return r;
}

static char run_on(struct worker *w, int cpu)
{
	return worker_cmd(w, cpu);
}

/*
 * Stop @n workers; the number that did not exit cleanly. A worker holds
 * the command pipes of the workers started before it: close them all
 * first, and the last one started sees EOF, exits, and so on down.
 */
static int workers_stop(struct worker *w, int n)
{
	int failed = 0;

	for (int i = 0; i < n; i++)
		close(w[i].cmd);
	for (int i = n - 1; i >= 0; i--) {
		close(w[i].ans);
		failed += !child_ok(w[i].pid);
	}
	return failed;
}

/* The parent stays off cpu_id[@k], so that nothing else of ours runs there. */
static void parent_avoid(int k)
{
	pin_to_cpu(cpu_id[(k + 1) % ncpus]);
}

/* The sets of every SMP step: none to iopl(3), not iopl(3) under iopl=off */
static int nsets_for_mode(void)
{
	return iopl_usable() ? IOPL3 + 1 : IOPL3;
}

static bool root_cpus(struct __test_metadata *_metadata)
{
	if (!privileged(_metadata))
		return false;
	if (ncpus < 2)
		SKIP(return false, "needs two CPUs, the affinity mask allows one");
	return true;
}

/*
 * Every ordered pair (a, b) of sets, a == b included, on every CPU: a
 * checks its ports there and leaves, then b arrives and checks.
 */
TEST(every_transition_on_every_cpu)
{
	struct worker w[IOPL3 + 1];
	int nsets;

	if (!root_cpus(_metadata))
		return;
	nsets = nsets_for_mode();
	for (int i = 0; i < nsets; i++) {
		ASSERT_EQ(0, worker_start(&w[i], i));
	}
	for (int k = 0; k < ncpus; k++) {
		parent_avoid(k);
		for (int a = 0; a < nsets; a++) {
			for (int b = 0; b < nsets; b++) {
				ASSERT_EQ(0, run_on(&w[a], cpu_id[k]));
				ASSERT_EQ(0, run_on(&w[b], cpu_id[k]))
					TH_LOG("%s then %s on CPU %d", smp_sets[a].name,
					       smp_sets[b].name, cpu_id[k]);
			}
		}
	}
	ASSERT_EQ(0, workers_stop(w, nsets));
}

/*
 * A task's bitmap is loaded on CPU A, the task changes its ports on CPU B,
 * then returns to A, whose TSS still holds the old bitmap of the same
 * task: only the sequence number tells them apart.
 */
TEST(changed_ports_then_back_to_old_cpu)
{
	static const int steps[] = { LOW, MOVED, WIDE, HIGH, LOW, NONE };
	struct worker w;

	if (!root_cpus(_metadata))
		return;
	for (int k = 0; k < ncpus; k++) {
		int a = cpu_id[k], b = cpu_id[(k + 1) % ncpus];

		parent_avoid(k);
		ASSERT_EQ(0, worker_start(&w, steps[0]));
		for (unsigned int i = 1; i < ARRAY_SIZE(steps); i++) {
			ASSERT_EQ(0, run_on(&w, a));
			ASSERT_EQ(0, run_on(&w, b));
			ASSERT_EQ(0, worker_cmd(&w, -steps[i] - 1));
			ASSERT_EQ(0, run_on(&w, b));
			ASSERT_EQ(0, run_on(&w, a))
				TH_LOG("%s -> %s changed on CPU %d, back on CPU %d",
				       smp_sets[steps[i - 1]].name, smp_sets[steps[i]].name, b, a);
		}
		ASSERT_EQ(0, workers_stop(&w, 1));
	}
}

/*
 * An owner of ports on each CPU, a task without any next on the same CPU:
 * each CPU invalidates its own TSS bitmap. Then the owner leaves for a
 * kernel thread or the idle task before the next one arrives: the switch
 * to the kernel thread must already have invalidated it, since the switch
 * from it to a task without TIF_IO_BITMAP does not look at it.
 */
TEST(owner_then_none_on_each_cpu)
{
	struct worker w[2];
	int nsets;

	if (!root_cpus(_metadata))
		return;
	nsets = nsets_for_mode();
	ASSERT_EQ(0, worker_start(&w[0], NONE));
	for (int k = 0; k < ncpus; k++) {
		parent_avoid(k);
		for (int s = LOW; s < nsets; s++) {
			ASSERT_EQ(0, worker_start(&w[1], s));
			ASSERT_EQ(0, run_on(&w[1], cpu_id[k]));
			ASSERT_EQ(0, run_on(&w[0], cpu_id[k]))
				TH_LOG("%s, then none on CPU %d", smp_sets[s].name, cpu_id[k]);
			ASSERT_EQ(0, workers_stop(&w[1], 1));
		}
	}
	ASSERT_EQ(0, workers_stop(w, 1));
}

static int cpu_set_online(int cpu, bool on)
{
	char path[64];
	int fd, ret;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	ret = write(fd, on ? "1" : "0", 1) == 1 ? 0 : -1;
	close(fd);
	return ret;
}

/*
 * Offline and online every CPU but the first, IOPORT_HOTPLUG_ROUNDS times,
 * with tasks with ports, iopl(3) and none on it before. A CPU that comes back
 * starts from a freshly set up TSS bitmap: the first task without ports
 * there must reach none, then each other task its own.
 */
FIXTURE(cpu) {};
FIXTURE_SETUP(cpu) {}
FIXTURE_TEARDOWN(cpu) {}

/* Bounded by the rounds asked for; a CPU takes seconds under emulation. */
TEST_F_TIMEOUT(cpu, hotplug, 1800)
{
	const char *env = getenv("IOPORT_HOTPLUG_ROUNDS");
	int sets[4] = { LOW, WIDE, IOPL3, NONE }, rounds = env ? atoi(env) : 0, cycles = 0;
	struct worker w[4];

	if (rounds <= 0)
		SKIP(return, "takes CPUs offline: set IOPORT_HOTPLUG_ROUNDS=N for N rounds");
	if (!root_cpus(_metadata))
		return;
	if (cpu_set_online(cpu_id[ncpus - 1], true))
		SKIP(return, "no CPU hotplug");
	if (nsets_for_mode() == IOPL3)
		sets[2] = HIGH;
	for (int i = 0; i < 4; i++) {
		ASSERT_EQ(0, worker_start(&w[i], sets[i]));
	}
	for (int round = 0; round < rounds; round++) {
		for (int k = 1; k < ncpus; k++) {
			int cpu = cpu_id[k], offline;

			parent_avoid(k);
			for (int i = 0; i < 4; i++) {	/* leave a bitmap, then park */
				ASSERT_EQ(0, run_on(&w[i], cpu));
				ASSERT_EQ(0, run_on(&w[i], cpu_id[0]));
			}
			ASSERT_EQ(0, cpu_set_online(cpu, false)) TH_LOG("offline CPU %d", cpu);
			offline = run_on(&w[3], cpu);
			ASSERT_EQ(0, cpu_set_online(cpu, true)) TH_LOG("online CPU %d", cpu);
			ASSERT_EQ(2, offline) TH_LOG("CPU %d still online", cpu);
			for (int i = 3; i >= 0; i--) {	/* none first */
				ASSERT_EQ(0, run_on(&w[i], cpu))
					TH_LOG("%s on CPU %d after it came back",
					       smp_sets[sets[i]].name, cpu);
			}
			cycles++;
		}
	}
	ASSERT_EQ(0, workers_stop(w, 4));
	printf("# hotplug cycles: %d\n", cycles);
}

/*
 * Failed allocations: with fault injection, every allocation check of an
 * ioperm() or fork() is made to fail in turn, through the task's own
 * fail-nth. ioperm() must fail with ENOMEM and leave the ports as they
 * were, for a first bitmap and for one shared with a parent; fork() must
 * fail with ENOMEM and leave the parent's ports. Leaks and warnings show
 * in the kernel log (kmemleak, WARN). The allocations are sleeping ones:
 * the tests skip unless failslab and fail_page_alloc are set to fail
 * those too (ignore-gfp-wait N), which they leave to the administrator.
 */
#define MAX_NTH	5000

static bool fault_injection_ready(void)
{
	static const char * const knobs[] = {
		"/sys/kernel/debug/failslab/ignore-gfp-wait",
		"/sys/kernel/debug/fail_page_alloc/ignore-gfp-wait",
	};
	char c;

	for (int i = 0; i < 2; i++) {
		int fd = open(knobs[i], O_RDONLY);
		bool n = fd >= 0 && read(fd, &c, 1) == 1 && c == 'N';

		if (fd >= 0)
			close(fd);
		if (!n)
			return false;
	}
	return !access("/proc/thread-self/fail-nth", W_OK);
}

static bool root_fault_injection(struct __test_metadata *_metadata)
{
	if (!privileged(_metadata))
		return false;
	if (!fault_injection_ready())
		SKIP(return false, "no fault injection of sleeping allocations");
	return true;
}

/*
 * Arm the @nth allocation check of this task (0: disarm) through its
 * fail-nth, kept open: opening it allocates, which would use up a failure.
 */
static int nth_fd(void)
{
	static pid_t owner;
	static int fd = -1;

	if (owner != getpid()) {
		fd = open("/proc/thread-self/fail-nth", O_RDWR);
		owner = getpid();
	}
	return fd;
}

static void fail_nth(int nth)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%d", nth);

	if (pwrite(nth_fd(), buf, len, 0) != len)
		err(1, "fail-nth");
}

/* True when the failure armed by fail_nth() was injected; disarms it. */
static bool injected(void)
{
	char buf[16] = "";

	if (pread(nth_fd(), buf, sizeof(buf) - 1, 0) < 0)
		err(1, "fail-nth");
	fail_nth(0);
	return atoi(buf) == 0;
}

/* The edges only: each loop below runs hundreds of times */
static bool has_none(void)
{
	return port_is(0x80, 1, false) && port_is(0xe7, 1, false) && port_is(0xed, 1, false) &&
	       port_is(0xffff, 1, false);
}

/* [0xe8, 0xf0) and nothing around it */
static bool has_e8(void)
{
	return port_is(0xe7, 1, false) && port_is(0xed, 1, true) && port_is(0xf0, 1, false) &&
	       port_is(0x80, 1, false) && port_is(0xc000, 1, false);
}

TEST(nomem_first_ioperm)
{
	int failures = 0, nth;

	if (!root_fault_injection(_metadata))
		return;
	for (nth = 1; nth < MAX_NTH; nth++) {
		int ret;

		fail_nth(nth);
		ret = ioperm(0xe8, 8, 1);
		if (!injected()) {
			ASSERT_EQ(0, ret);
			break;
		}
		if (ret) {
			ASSERT_EQ(ENOMEM, errno);
			ASSERT_TRUE(has_none()) TH_LOG("nth %d", nth);
			failures++;
		} else {
			ASSERT_TRUE(has_e8());
			ASSERT_EQ(0, ioperm(0xe8, 8, 0));
		}
	}
	ASSERT_LT(nth, MAX_NTH);
	TH_LOG("%d of %d allocation checks failed cleanly", failures, nth);
	ASSERT_GT(failures, 0) TH_LOG("no allocation of ioperm() could be made to fail");
	ASSERT_TRUE(has_e8());
}

/* In a child sharing the parent's bitmap: 0 done, 1 ENOMEM ok, 2 wrong, 3 go on */
static int shared_attempt(int nth)
{
	int ret;

	fail_nth(nth);
	ret = ioperm(0xc000, 16, 1);
	if (!injected())
		return !ret && port_is(0xed, 1, true) && port_is(0xc000, 1, true) &&
		       port_is(0xc010, 1, false) && port_is(0xf0, 1, false) ? 0 : 2;
	if (ret)
		return errno == ENOMEM && has_e8() ? 1 : 2;
	return 3;
}

TEST(nomem_shared_bitmap_ioperm)
{
	int failures = 0, nth, status = 0;

	if (!root_fault_injection(_metadata))
		return;
	ASSERT_EQ(0, ioperm(0xe8, 8, 1));
	for (nth = 1; nth < MAX_NTH; nth++) {
		pid_t pid = fork();

		ASSERT_LE(0, pid);
		if (pid == 0)
			_exit(shared_attempt(nth));
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		ASSERT_NE(2, WEXITSTATUS(status)) TH_LOG("nth %d: wrong ports or errno", nth);
		if (WEXITSTATUS(status) == 0)
			break;
		failures += WEXITSTATUS(status) == 1;
	}
	ASSERT_EQ(0, status);
	TH_LOG("%d of %d allocation checks failed cleanly", failures, nth);
	ASSERT_GT(failures, 0) TH_LOG("no allocation could be made to fail");
	ASSERT_TRUE(has_e8()) TH_LOG("the parent's bitmap changed");
}

TEST(nomem_fork_with_bitmap)
{
	int failures = 0, nth;
	bool done = false;

	if (!root_fault_injection(_metadata))
		return;
	ASSERT_EQ(0, ioperm(0xe8, 8, 1));
	for (nth = 1; nth < MAX_NTH && !done; nth++) {
		pid_t pid;

		fail_nth(nth);
		pid = fork();
		if (pid == 0)
			_exit(has_e8() ? 0 : 1);
		if (pid < 0) {
			ASSERT_EQ(ENOMEM, errno) TH_LOG("nth %d", nth);
			ASSERT_TRUE(injected());
			ASSERT_TRUE(has_e8()) TH_LOG("nth %d", nth);
			failures++;
			continue;
		}
		done = !injected();
		ASSERT_TRUE(child_ok(pid)) TH_LOG("nth %d: the child lacks the ports", nth);
	}
	ASSERT_TRUE(done);
	TH_LOG("%d of %d allocation checks failed cleanly", failures, nth);
	ASSERT_GT(failures, 0) TH_LOG("no allocation of fork() could be made to fail");
	ASSERT_TRUE(has_e8());
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "exec-child"))
		return !exact(strtoul(argv[2], NULL, 0), strtoul(argv[3], NULL, 0));
	return test_harness_run(argc, argv);
}
