// SPDX-License-Identifier: GPL-2.0
/*
 * TSC cycles of one TSS bitmap update, stock against series, for `make
 * bench`. Runs on this machine's CPU in user space: the update code and
 * ksys_ioperm() of each tree are compiled from its own source (variant.c,
 * scripts/cycles.sh); nothing is loaded into the kernel.
 *
 * For each scenario, two tasks A and B with their own I/O bitmaps built
 * by the tree's ksys_ioperm(), and one TSS: install A, B, A, B, ... (the
 * copy that a switch to the task does on exit to user mode). Hot: each
 * sample is a batch of BATCH installs divided by BATCH (the TSC of a VM
 * may tick in steps of tens of cycles), after an untimed batch of the
 * same installs that warms the caches. Cold: both bitmaps and the TSS's
 * bitmap data flushed with clflush before each install, which is timed
 * alone, TSS up to mapall included. The cost of a copy depends on the
 * physical pages of its source and destination (cache sets, aliasing,
 * DRAM banks; a cold copy of 96 bytes costs about 300 or about 520
 * cycles, by the pages, on this project's AMD EPYC VM), so each scenario
 * runs on LAYOUTS fresh allocations of pages, and stock and series build
 * their TSS and bitmaps on the same pages of each, one after the other,
 * in turn first, so that both see the same pages and the same machine.
 * The TSS must grant exactly what the task's
 * bitmap grants, or the program fails: checked after every install of
 * the untimed batches and of the cold samples, and after the last install
 * of every timed batch (a check inside the batch would be timed with it).
 *
 * Arguments: the scenarios to run ("high/low" ...), all when none.
 * Output, one line per scenario: name, then stock hot min/median, series
 * hot min/median, stock cold min/median, series cold min/median, in TSC
 * cycles per install, the timing overhead (an empty measured call)
 * subtracted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#define ROUNDS	1000
#define LAYOUTS	50	/* fresh allocations per scenario */
#define BATCH	64
#define LAYOUT_BYTES	(16 * 4096)	/* a TSS and two bitmaps, in pages */
#define SETTLE	20000	/* TSC cycles between the flush and a cold sample */

/* The kernel's memcpy()/memset() on an ERMS/FSRM CPU: rep movsb/stosb */
void *memcpy(void *dst, const void *src, size_t n)
{
	void *ret = dst;

	asm volatile("rep movsb" : "+D" (dst), "+S" (src), "+c" (n) : : "memory");
	return ret;
}

void *memset(void *dst, int c, size_t n)
{
	void *ret = dst;

	asm volatile("rep stosb" : "+D" (dst), "+c" (n) : "a" (c) : "memory");
	return ret;
}

struct variant {
	const char *name;
	void *(*new_tss)(void);
	void *(*new_task)(void);
	int (*ioperm)(void *task, unsigned long from, unsigned long num, int on);
	void (*update)(void *tss, void *task);
	int (*differs)(void *tss, void *task);
	void (*flush)(void *tss, void *task);
	void (*sizes)(size_t *iobm, size_t *tss);
	void (*use_pages)(void *mem, size_t size);
};

#define DECLARE_VARIANT(p)						\
	void *p##_new_tss(void);					\
	void *p##_new_task(void);					\
	int p##_ioperm(void *, unsigned long, unsigned long, int);	\
	void p##_update(void *, void *);				\
	int p##_differs(void *, void *);				\
	void p##_flush(void *, void *);					\
	void p##_sizes(size_t *, size_t *);				\
	void p##_use_pages(void *, size_t);				\
	static const struct variant p = { #p, p##_new_tss, p##_new_task, \
		p##_ioperm, p##_update, p##_differs, p##_flush, p##_sizes, \
		p##_use_pages }
DECLARE_VARIANT(stock);
DECLARE_VARIANT(series);

/* The scenarios of guest/bench.c; those with iopl(3) copy no bitmap */
#include "scenarios.h"

static void apply(const struct variant *v, void *task, const struct perm *p)
{
	unsigned int seed = 12345;

	for (int i = 0; i < 2; i++)
		if (p->ports[i][1] && v->ioperm(task, p->ports[i][0], p->ports[i][1], 1))
			goto fail;
	for (unsigned int k = 0; k < p->singles; k++)
		if (v->ioperm(task, perm_single(p, k, &seed), 1, 1))
			goto fail;
	return;
fail:
	fprintf(stderr, "cycles: %s ksys_ioperm() failed for %s\n", v->name, p->name);
	exit(1);
}

static inline unsigned long long tsc(void)
{
	unsigned int aux;

	_mm_lfence();
	return __rdtscp(&aux);
}

static void nothing(void *tss, void *task) { }

/* The TSS must grant exactly what @task's bitmap grants, or we stop. */
static void check(const struct variant *v, void *tss, void *task,
		  const struct scenario *sc)
{
	if (v->differs(tss, task)) {
		fprintf(stderr, "cycles: %s: the TSS does not match the task after an update (%s/%s)\n",
			v->name, sc->a->name, sc->b->name);
		exit(1);
	}
}

/* Cycles per install of @n installs of @task[0], @task[1], ... */
static double timed(void (*fn)(void *, void *), void *tss, void **task, int n)
{
	unsigned long long t0 = tsc();

	for (int i = 0; i < n; i++)
		fn(tss, task[i & 1]);
	return (double)(tsc() - t0) / n;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double overhead[2];	/* per install, hot (batched) and cold */

static void report(double *s, int n, int cold)
{
	qsort(s, n, sizeof(*s), cmp);
	for (int i = 0; i <= n / 2; i += n / 2)
		printf(" %.1f", s[i] > overhead[cold] ? s[i] - overhead[cold] : 0);
}

/*
 * One sample of round @r: hot, BATCH installs of the two tasks in turn
 * after an untimed batch that checks each; cold, one install after the
 * caches lost both bitmaps and the TSS.
 */
static double sample(const struct variant *v, void *tss, void **task, int r,
		     int cold, const struct scenario *sc)
{
	void *t[2] = { task[r & 1], task[!(r & 1)] };
	int n = cold ? 1 : BATCH;
	double cycles;

	if (cold) {
		unsigned long long t0;

		v->flush(tss, t[0]);
		v->flush(tss, t[1]);
		_mm_mfence();
		/* Let the write-backs of the flushed lines drain first */
		for (t0 = tsc(); tsc() - t0 < SETTLE; )
			;
	} else {
		for (int i = 0; i < BATCH; i++) {
			v->update(tss, t[i & 1]);
			check(v, tss, t[i & 1], sc);
		}
	}
	cycles = timed(v->update, tss, t, n);
	check(v, tss, t[(n - 1) & 1], sc);
	return cycles;
}

/* Is scenario @s among the names "a/b" in @names (all when none)? */
static int chosen(size_t s, char **names, int n)
{
	char name[64];

	snprintf(name, sizeof(name), "%s/%s", scenarios[s].a->name, scenarios[s].b->name);
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return 1;
	return !n;
}

int main(int argc, char **argv)
{
	static double samples[2][2][ROUNDS];
	const struct variant *v[2] = { &stock, &series };
	void *none[2] = { NULL, NULL };
	double o[ROUNDS];

	/* The unit of every figure below; bench/cycles-bound.awk, whose bound is in it, wants it */
	printf("# unit: TSC cycles\n");
	for (int cold = 0; cold < 2; cold++) {
		for (int i = 0; i < ROUNDS; i++)
			o[i] = timed(nothing, NULL, none, cold ? 1 : BATCH);
		qsort(o, ROUNDS, sizeof(*o), cmp);
		overhead[cold] = o[0];
	}

	for (size_t s = 0; s < sizeof(scenarios) / sizeof(scenarios[0]); s++) {
		if (scenarios[s].a->iopl || scenarios[s].b->iopl ||
		    !chosen(s, argv + 1, argc - 1))
			continue;

		/*
		 * Each layout: fresh pages, on which first one variant builds
		 * its TSS and bitmaps and runs its rounds, then the other, in
		 * turn first; cold = 0: hot, 1: cold.
		 */
		for (int l = 0; l < LAYOUTS; l++) {
			void *mem = aligned_alloc(4096, LAYOUT_BYTES);

			for (int n = 0; n < 2; n++) {
				int k = (l + n) & 1;
				void *tss, *task[2];

				v[k]->use_pages(mem, LAYOUT_BYTES);
				tss = v[k]->new_tss();
				task[0] = v[k]->new_task();
				task[1] = v[k]->new_task();
				if (!mem || !tss || !task[0] || !task[1]) {
					fprintf(stderr, "cycles: out of memory\n");
					exit(1);
				}
				apply(v[k], task[0], scenarios[s].a);
				apply(v[k], task[1], scenarios[s].b);
				for (int r = l * ROUNDS / LAYOUTS; r < (l + 1) * ROUNDS / LAYOUTS; r++)
					for (int cold = 0; cold < 2; cold++)
						samples[k][cold][r] = sample(v[k], tss, task, r, cold, &scenarios[s]);
			}
		}
		printf("%s/%s", scenarios[s].a->name, scenarios[s].b->name);
		for (int cold = 0; cold < 2; cold++)
			for (int k = 0; k < 2; k++)
				report(samples[k][cold], ROUNDS, cold);
		printf("\n");
	}
	for (int k = 0; k < 2; k++) {
		size_t iobm, tss;

		v[k]->sizes(&iobm, &tss);
		printf("# %s: struct io_bitmap %zu bytes, TSS bitmap data before mapall %zu bytes\n",
		       v[k]->name, iobm, tss);
	}
	return 0;
}
