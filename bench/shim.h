/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Just enough of the kernel's types and helpers to compile the TSS update
 * and ksys_ioperm() of a tree for user space (make bench, cycles part).
 * Included by variant.c before the code that scripts/cycles.sh extracts
 * from the tree. Nothing here is timed except memcpy()/memset(), which
 * are the kernel's x86_64 choice on an ERMS/FSRM CPU: rep movsb/stosb.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t u64;
typedef uint32_t u32;
typedef uint16_t u16;
typedef uint8_t u8;
typedef struct { int refs; } refcount_t;
typedef struct { long long counter; } atomic64_t;

#define BITS_PER_BYTE		8
#define BITS_PER_LONG		64
#define BIT_WORD(nr)		((nr) / BITS_PER_LONG)
#define BITS_TO_LONGS(n)	(((n) + BITS_PER_LONG - 1) / BITS_PER_LONG)
#define DECLARE_BITMAP(name, bits) unsigned long name[BITS_TO_LONGS(bits)]
#define max(a, b)		((a) > (b) ? (a) : (b))
#define min(a, b)		((a) < (b) ? (a) : (b))
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define __aligned(x)		__attribute__((__aligned__(x)))
#define L1_CACHE_BYTES		64	/* x86_64's, X86_L1_CACHE_SHIFT 6 */
#define BUILD_BUG_ON(c)		_Static_assert(!(c), #c)
#define GFP_KERNEL		0
#define CAP_SYS_RAWIO		17
#define LOCKDOWN_IOPORT		0
#define TIF_IO_BITMAP		0

struct io_bitmap;
struct thread_struct { struct io_bitmap *io_bitmap; };
struct task_struct { struct thread_struct thread; };
extern struct task_struct *current;
static atomic64_t io_bitmap_sequence;

static inline bool capable(int cap) { return true; }
static inline int security_locked_down(int what) { return 0; }
static inline void set_thread_flag(int flag) { }
static inline int refcount_read(refcount_t *r) { return r->refs; }
static inline void refcount_set(refcount_t *r, int v) { r->refs = v; }
static inline long long atomic64_add_return(long long i, atomic64_t *v)
{
	return v->counter += i;
}

/*
 * The kernel hands out bitmaps above 8K as whole pages: here the next
 * pages of those that cycles.c gave for the current layout (variant.c).
 */
void *pages(size_t size);
static inline void *kmalloc(size_t size, int gfp)
{
	return pages(size);
}
static inline void *kmemdup(const void *p, size_t size, int gfp)
{
	void *q = kmalloc(size, gfp);

	return q ? memcpy(q, p, size) : NULL;
}
void io_bitmap_exit(struct task_struct *tsk);

static inline bool test_bit(unsigned long nr, const unsigned long *addr)
{
	return addr[BIT_WORD(nr)] >> (nr % BITS_PER_LONG) & 1;
}
static inline void __assign_bit(unsigned long nr, unsigned long *addr, bool v)
{
	if (v)
		addr[BIT_WORD(nr)] |= 1UL << (nr % BITS_PER_LONG);
	else
		addr[BIT_WORD(nr)] &= ~(1UL << (nr % BITS_PER_LONG));
}
static inline void bitmap_zero(unsigned long *addr, unsigned int bits)
{
	memset(addr, 0, BITS_TO_LONGS(bits) * sizeof(long));
}
static inline void bitmap_set(unsigned long *addr, unsigned int from, unsigned int num)
{
	while (num--)
		__assign_bit(from++, addr, 1);
}
static inline void bitmap_clear(unsigned long *addr, unsigned int from, unsigned int num)
{
	while (num--)
		__assign_bit(from++, addr, 0);
}
static inline unsigned long find_next_bit_val(const unsigned long *addr, unsigned long size,
					      unsigned long from, bool val)
{
	for (; from < size; from++)
		if (test_bit(from, addr) == val)
			return from;
	return size;
}
#define find_next_bit(a, s, f)		find_next_bit_val(a, s, f, 1)
#define find_next_zero_bit(a, s, f)	find_next_bit_val(a, s, f, 0)
static inline unsigned long find_last_bit(const unsigned long *addr, unsigned long size)
{
	unsigned long i;

	for (i = size; i--; )
		if (test_bit(i, addr))
			return i;
	return size;
}
#define for_each_set_bit(bit, addr, size) \
	for ((bit) = 0; (bit) = find_next_bit((addr), (size), (bit)), (bit) < (size); (bit)++)
#define for_each_set_bitrange(b, e, addr, size)				\
	for ((b) = 0;							\
	     (b) = find_next_bit((addr), (size), b),			\
	     (e) = find_next_zero_bit((addr), (size), (b) + 1),		\
	     (b) < (size);						\
	     (b) = (e) + 1)
