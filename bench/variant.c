// SPDX-License-Identifier: GPL-2.0
/*
 * One tree's TSS update for `make bench` (cycles part), built for user
 * space: shim.h, then the structures and functions that scripts/cycles.sh
 * extracted from the tree (EXTRACTED), then the entry points that
 * cycles.c calls. Built once per tree and kernel (stock, series), each
 * with its own prefix (PFX), into the same program.
 */
#define CAT2(a, b)	a##_##b
#define CAT(a, b)	CAT2(a, b)
#define API(name)	CAT(PFX, name)

/* Both trees' stock and series code go into one program */
#define ksys_ioperm		API(ksys_ioperm)
#define tss_copy_io_bitmap	API(tss_copy_io_bitmap)
#define io_bitmap_exit		API(io_bitmap_exit)
#define current			API(current)
#define pages			API(pages)

#include "shim.h"
#include EXTRACTED

struct task_struct *current;

/*
 * The pages of the current layout: the TSS and the bitmaps are placed in
 * the memory that cycles.c gives each variant in turn, so that stock and
 * series copy between the same physical pages.
 */
static char *layout;
static size_t layout_used, layout_size;

void API(use_pages)(void *mem, size_t size)
{
	layout = mem;
	layout_used = 0;
	layout_size = size;
}

void *pages(size_t size)
{
	void *p = layout + layout_used;

	layout_used += (size + 4095) & ~4095UL;
	return layout_used <= layout_size ? p : NULL;
}

void io_bitmap_exit(struct task_struct *tsk)
{
	tsk->thread.io_bitmap = NULL;	/* its pages belong to the layout */
}

void *API(new_tss)(void)
{
	struct tss_struct *tss = pages(sizeof(*tss));

	if (!tss)
		return NULL;

	/* As tss_setup_io_bitmap() leaves it: no previous user, all closed */
	memset(tss, 0, sizeof(*tss));
	memset(tss->io_bitmap.bitmap, 0xff, sizeof(tss->io_bitmap.bitmap));
	return tss;
}

void *API(new_task)(void)
{
	return calloc(1, sizeof(struct task_struct));
}

/* ioperm() as @task, through the tree's ksys_ioperm() */
int API(ioperm)(void *task, unsigned long from, unsigned long num, int on)
{
	current = task;
	return ksys_ioperm(from, num, on);
}

/*
 * The timed step: native_tss_update_io_bitmap() for a task with an I/O
 * bitmap, copying only when the sequence differs, then enabling the
 * bitmap in the hardware TSS.
 */
void API(update)(void *tss_, void *task)
{
	struct tss_struct *tss = tss_;
	struct io_bitmap *iobm = ((struct task_struct *)task)->thread.io_bitmap;

	if (!iobm)
		return;
	if (tss->io_bitmap.prev_sequence != iobm->sequence)
		TSS_COPY(tss, iobm);
	/* Enable the bitmap: x86_tss.io_bitmap_base, at offset 102 */
	*(u16 *)&tss->x86_tss[102] = offsetof(struct tss_struct, io_bitmap.bitmap);
}

/* 0 when the TSS bitmap grants exactly what @task's bitmap grants */
int API(differs)(void *tss_, void *task)
{
	struct tss_struct *tss = tss_;
	struct io_bitmap *iobm = ((struct task_struct *)task)->thread.io_bitmap;

	if (!iobm)
		return 0;
	return memcmp(tss->io_bitmap.bitmap, iobm->bitmap, sizeof(iobm->bitmap)) ||
	       tss->io_bitmap.bitmap[IO_BITMAP_LONGS] != ~0UL;
}

static void flush(const void *p, size_t size)
{
	for (size_t off = 0; off < size; off += 64)
		asm volatile("clflush %0" : : "m" (*((const char *)p + off)));
}

/* Cold caches: the task's bitmap and the TSS up to mapall out of them */
void API(flush)(void *tss_, void *task)
{
	struct tss_struct *tss = tss_;
	struct io_bitmap *iobm = ((struct task_struct *)task)->thread.io_bitmap;

	flush(tss, offsetof(struct tss_struct, io_bitmap.mapall));
	if (iobm)
		flush(iobm, sizeof(*iobm));
}

void API(sizes)(size_t *iobm, size_t *tss)
{
	*iobm = sizeof(struct io_bitmap);
	*tss = offsetof(struct x86_io_bitmap, mapall);
}
