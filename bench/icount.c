// SPDX-License-Identifier: GPL-2.0
/*
 * Context-switch cost of I/O permissions, for `make bench`.
 *
 * Two processes on one CPU ping-pong a byte over two pipes, so that every
 * hop is a context switch, each with its own I/O permissions. The guest
 * runs under QEMU -icount shift=0, where guest time counts instructions
 * (1 ns = 1 instruction): the figures are instruction counts under
 * emulation, not hardware time.
 *
 * Output: "BENCH <scenario> <instructions per switch>" and, for the
 * ioperm() call, "BENCH <scenario> <instructions per call>": the lowest of
 * three runs, so that a one-off event of the guest kernel (a deferred
 * work item, a clocksource switch) does not land in one scenario only.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/io.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS	5000
#define WARMUP	500

#include "scenarios.h"

/* The ioperm() call: toggle one port while another range stays open. */
static const struct {
	const char *name;
	unsigned int keep_from, keep_num, port;
} calls[] = {
	{ "low", 0x2e0, 1, 0x80 },	/* the map spans 0x80-0x2e0 */
	{ "high", 0x2e0, 1, 0xfff0 },	/* 0x2e0-0xfff0 */
	{ "wide", 0xfff8, 8, 0x80 },	/* 0x80-0xffff */
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void apply(const struct perm *p)
{
	unsigned int seed = 12345;

	for (int i = 0; i < 2; i++)
		if (p->ports[i][1] && ioperm(p->ports[i][0], p->ports[i][1], 1))
			exit(2);
	for (unsigned int k = 0; k < p->singles; k++)
		if (ioperm(perm_single(p, k, &seed), 1, 1))
			exit(2);
	if (p->iopl && iopl(p->iopl))
		exit(2);
}

static void pin(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		exit(2);
}

/* Instructions per switch between a task with @a and one with @b. */
static double pingpong(const struct perm *a, const struct perm *b)
{
	int ab[2], ba[2], status;
	double start = 0;
	char c = 0;
	pid_t pid;

	if (pipe(ab) || pipe(ba))
		exit(2);
	pin();
	pid = fork();
	if (pid == 0) {
		apply(b);
		for (int i = 0; i < WARMUP + ROUNDS; i++)
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	apply(a);
	for (int i = 0; i < WARMUP + ROUNDS; i++) {
		if (i == WARMUP)
			start = now_ns();
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			exit(1);
	}
	double per_switch = (now_ns() - start) / (2.0 * ROUNDS);

	waitpid(pid, &status, 0);
	return per_switch;
}

/* Instructions per ioperm() call of calls[@c], including the TSS update. */
static double ioperm_call(unsigned int c)
{
	unsigned int port = calls[c].port;
	double start = 0;

	if (ioperm(calls[c].keep_from, calls[c].keep_num, 1))
		exit(2);
	for (int i = 0; i < WARMUP + ROUNDS; i++) {
		if (i == WARMUP)
			start = now_ns();
		if (ioperm(port, 1, 1) || ioperm(port, 1, 0))
			exit(1);
	}
	return (now_ns() - start) / (2.0 * ROUNDS);
}

/*
 * Run scenario @i (the ping-pongs, then the ioperm() calls of calls[]) three
 * times, each in a fresh process, and print the lowest result.
 */
static int measure(unsigned int i)
{
	unsigned int n = sizeof(scenarios) / sizeof(scenarios[0]);
	double *best = mmap(NULL, sizeof(*best), PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	char name[64];

	if (best == MAP_FAILED)
		return 1;
	*best = 1e30;
	for (int run = 0; run < 3; run++) {
		pid_t pid = fork();
		int status;

		if (pid == 0) {
			double v = i < n ? pingpong(scenarios[i].a, scenarios[i].b)
					 : ioperm_call(i - n);

			if (v < *best)
				*best = v;
			_exit(0);
		}
		waitpid(pid, &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			return 1;
	}
	if (i < n)
		snprintf(name, sizeof(name), "%s/%s", scenarios[i].a->name, scenarios[i].b->name);
	else
		snprintf(name, sizeof(name), "ioperm-call-%s", calls[i - n].name);
	printf("BENCH %s %.0f\n", name, *best);
	munmap(best, sizeof(*best));
	return 0;
}

int main(void)
{
	unsigned int n = sizeof(scenarios) / sizeof(scenarios[0]);

	/* Let the boot's deferred work finish (guest time: instant under -icount). */
	sleep(5);
	for (unsigned int i = 0; i < n + sizeof(calls) / sizeof(calls[0]); i++)
		if (measure(i))
			return 1;
	return 0;
}
