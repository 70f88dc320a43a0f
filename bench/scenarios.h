/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The permission sets and scenarios of `make bench`: guest/bench.c runs
 * them as processes under QEMU -icount, bench/cycles.c through each
 * tree's own TSS update on the host CPU. One table, so that the two
 * measures always price the same maps.
 */
#ifndef BENCH_SCENARIOS_H
#define BENCH_SCENARIOS_H

struct perm {
	const char *name;
	unsigned int ports[2][2];	/* up to two ranges: {from, num} */
	unsigned int singles;		/* and this many single ports: */
	unsigned int first, step;	/* first + k * step, or random if !step */
	int iopl;
};

static const struct perm plain = { "plain" };
static const struct perm iopl3 = { "iopl", .iopl = 3 };
static const struct perm low = { "low", { { 0x80, 8 } } };
static const struct perm low2 = { "low", { { 0x2e0, 8 } } };
static const struct perm high = { "high", { { 0xfff0, 8 } } };
static const struct perm high2 = { "high", { { 0xc000, 8 } } };
/* A small map that lists nothing, and the smallest that lists a block */
static const struct perm com1 = { "COM1", { { 0x3f8, 8 } } };
static const struct perm mid = { "mid", { { 0x4c0, 8 } } };
static const struct perm wide = { "wide", { { 0x80, 1 }, { 0xfff8, 8 } } };
static const struct perm wide2 = { "wide2", { { 0x84, 1 }, { 0xffe8, 8 } } };
/* 16 single ports 4 KiB (0x1000 ports) apart, and 64 at random */
static const struct perm scatter = { "scatter", .singles = 16, .first = 0x80, .step = 0x1000 };
static const struct perm random64 = { "random64", .singles = 64 };
/* 16 single ports 0x360 apart: the closest 16 blocks that are listed */
static const struct perm spread = { "spread16", .singles = 16, .first = 0x80, .step = 0x360 };
/* Dense maps: the ISA range (as an X server asks), everything, nearly so */
static const struct perm isa = { "ISA", { { 0, 1024 } } };
static const struct perm dense = { "dense", { { 0, 65536 } } };
static const struct perm nearly = { "nearly-dense", { { 0x100, 0xff00 } } };
/* One port in every other 64-port block: 512 blocks of one port */
static const struct perm adversary = { "adversary", .singles = 512, .first = 0x20, .step = 128 };

struct scenario { const struct perm *a, *b; };

static const struct scenario scenarios[] = {
	{ &plain, &plain }, { &iopl3, &plain }, { &low, &plain },
	{ &high, &plain }, { &low, &low2 }, { &high, &high2 },
	{ &high, &low }, { &iopl3, &iopl3 }, { &wide, &low },
	{ &wide, &plain }, { &wide, &wide2 }, { &scatter, &low },
	{ &random64, &low }, { &iopl3, &wide }, { &isa, &low },
	{ &isa, &isa }, { &dense, &plain }, { &dense, &low },
	{ &dense, &nearly }, { &dense, &scatter }, { &adversary, &low },
	{ &adversary, &adversary }, { &adversary, &scatter },
	{ &com1, &high }, { &isa, &high }, { &mid, &low }, { &mid, &com1 },
	{ &spread, &low }, { &spread, &isa },
};

/* The @k-th single port of @p; @seed starts at 12345 for each set */
static inline unsigned int perm_single(const struct perm *p, unsigned int k,
				       unsigned int *seed)
{
	*seed = *seed * 1103515245 + 12345;
	return p->step ? p->first + k * p->step : *seed >> 16;
}

#endif
