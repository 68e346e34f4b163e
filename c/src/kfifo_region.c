/* SPDX-License-Identifier: MIT */
/*
 * kfifo_region.c - zero-copy access (docs/spec.md 3.3): the producer writes into
 * the buffer in place and then publishes, the consumer reads in place and
 * then releases.
 *
 * Prepare only looks: it computes the regions from the same bounds kfifo_in()
 * and kfifo_out() use and stores no index, so a prepare that is never
 * finished changes nothing.  Finish stores the index through the same
 * publish helper as kfifo_in() / kfifo_out() (kfifo_index.h), so that
 * whatever those helpers do on publication (release ordering, the Debug
 * invariant check, waking waiters) finish does too.
 */
#include "kfifo_index.h"

/* The @n (0 < @n <= size) bytes at index @idx as one or two regions. */
static void kfifo__regions(struct kfifo *fifo, unsigned int idx, unsigned int n,
			   struct kfifo_region r[2])
{
	unsigned int off = idx & (fifo->size - 1);
	unsigned int first = fifo->size - off;

	if (first > n)
		first = n;
	r[0].data = fifo->buffer + off;
	r[0].len = first;
	r[1].data = fifo->buffer;
	r[1].len = n - first;
}

/*
 * Nothing to describe: two empty regions.  Their data is never NULL, not
 * even for a size-0 fifo (which has no buffer), so that callers may pass it
 * to memcpy() with the length 0 as they do for a non-empty region.  The
 * four stores are in kfifo__regions()'s order: written as
 * "r[0].len = r[1].len = 0" (r[1] first), they made clang 14 merge the
 * last store of both into one store through a computed index (mov $1;
 * shl $4; an indexed mov) on every prepare: two more instructions and a
 * store address that waits for them.  gcc 12 orders the empty path's
 * stores differently, nothing else.
 */
static unsigned char kfifo__nowhere;

static unsigned int kfifo__no_regions(struct kfifo *fifo,
				      struct kfifo_region r[2])
{
	unsigned char *data = fifo->buffer ? fifo->buffer : &kfifo__nowhere;

	r[0].data = data;
	r[0].len = 0;
	r[1].data = data;
	r[1].len = 0;
	return 0;
}

/* The regions of at most @n of the @have bytes from @idx: what either
 * prepare does once its cache did not cover @n and it has refreshed it. */
static inline __attribute__((always_inline)) unsigned int
kfifo__regions_upto(struct kfifo *fifo, struct kfifo_region r[2],
		    unsigned int idx, unsigned int n, unsigned int have)
{
	if (n > have)
		n = have;
	if (n == 0)
		return kfifo__no_regions(fifo, r);
	kfifo__regions(fifo, idx, n, r);
	return n;
}

/* kfifo__in_prepare() once its cache did not cover @n: refresh it. */
KFIFO__INLINE unsigned int kfifo__in_prepare_fresh(struct kfifo *fifo,
						   struct kfifo_region r[2],
						   unsigned int in,
						   unsigned int n,
						   enum kfifo__kind kind)
{
	return kfifo__regions_upto(fifo, r, in, n,
				   kfifo__avail_fresh(fifo, in, kind));
}

KFIFO__INLINE unsigned int kfifo__in_prepare(struct kfifo *fifo,
					     struct kfifo_region r[2],
					     unsigned int n, enum kfifo__kind kind)
{
	unsigned int in = kfifo__own_in(fifo, kind);

	if (kfifo__room_cached(fifo, in, n, kind)) {
		kfifo__regions(fifo, in, n, r);
		return n;
	}
	return kfifo__in_prepare_fresh(fifo, r, in, n, kind);
}

KFIFO__INLINE unsigned int kfifo__in_finish(struct kfifo *fifo,
					    unsigned int n, enum kfifo__kind kind)
{
	unsigned int in = kfifo__own_in(fifo, kind);
	unsigned int avail;

	if (!kfifo__room_cached(fifo, in, n, kind)) {
		avail = kfifo__avail_fresh(fifo, in, kind);
		if (n > avail)
			n = avail;
		if (n == 0)
			return 0;
	}
	return kfifo__publish_in(fifo, in + n, kind, n);
}

/* kfifo__out_prepare() once its cache did not cover @n: refresh it. */
KFIFO__INLINE unsigned int kfifo__out_prepare_fresh(struct kfifo *fifo,
						    struct kfifo_region r[2],
						    unsigned int out,
						    unsigned int n,
						    enum kfifo__kind kind)
{
	return kfifo__regions_upto(fifo, r, out, n,
				   kfifo__len_fresh(fifo, out, kind));
}

KFIFO__INLINE unsigned int kfifo__out_prepare(struct kfifo *fifo,
					      struct kfifo_region r[2],
					      unsigned int n, enum kfifo__kind kind)
{
	unsigned int out = kfifo__own_out(fifo, kind);

	if (!__builtin_expect(kfifo__data_covered(fifo, out, n, kind), 0))
		return kfifo__out_prepare_fresh(fifo, r, out, n, kind);
	kfifo__regions(fifo, out, n, r);
	return n;
}

KFIFO__INLINE unsigned int kfifo__out_finish(struct kfifo *fifo,
					     unsigned int n, enum kfifo__kind kind)
{
	unsigned int out = kfifo__own_out(fifo, kind);
	unsigned int len;

	if (!kfifo__data_cached(fifo, out, n, kind)) {
		len = kfifo__len_fresh(fifo, out, kind);
		if (n > len)
			n = len;
		if (n == 0)
			return 0;
	}
	return kfifo__publish_out(fifo, out + n, kind, n);
}

/*
 * The public calls start on a cache line, so that each fast path lies in
 * two lines wherever the linker puts the library.  Unaligned, their code
 * and the caller's moved with every change of the library's size (the
 * linker puts all cold code, the handle instances below among it, before
 * a program's own functions): between layouts 16 bytes apart, gcc 12's
 * one-thread 512-byte zero-copy loop of bench/c/kfifo_bench.c ranged
 * 0.92-1.11x JACK's, aligned 1.03-1.07x (docs/performance.md).
 */
#define KFIFO__CALL_ALIGN __attribute__((aligned(64)))

/*
 * With a many mode, a prepare that returns regions keeps its side's lock
 * until the finish (kfifo__side_keep()): the regions are this caller's
 * until then.  A prepare that returns none keeps nothing.
 */
#define KFIFO__KEEP_IF_REGIONS(side)                                           \
	do {                                                                   \
		if (kfifo__r > 0)                                              \
			kfifo__side_keep(fifo, side);                          \
	} while (0)

KFIFO__SIDE_INSTANCE(KFIFO__IN_SIDE, kfifo__no_regions(fifo, r),
		     KFIFO__KEEP_IF_REGIONS(KFIFO__IN_SIDE),
		     unsigned int, kfifo__in_prepare,
		     (struct kfifo *fifo, struct kfifo_region r[2],
		      unsigned int n),
		     fifo, r, n)
KFIFO__SIDE_INSTANCE(KFIFO__IN_SIDE, 0, kfifo__side_finish(fifo, KFIFO__IN_SIDE),
		     unsigned int, kfifo__in_finish,
		     (struct kfifo *fifo, unsigned int n), fifo, n)
KFIFO__SIDE_INSTANCE(KFIFO__OUT_SIDE, kfifo__no_regions(fifo, r),
		     KFIFO__KEEP_IF_REGIONS(KFIFO__OUT_SIDE), unsigned int,
		     kfifo__out_prepare,
		     (struct kfifo *fifo, struct kfifo_region r[2],
		      unsigned int n),
		     fifo, r, n)
KFIFO__SIDE_INSTANCE(KFIFO__OUT_SIDE, 0,
		     kfifo__side_finish(fifo, KFIFO__OUT_SIDE), unsigned int,
		     kfifo__out_finish, (struct kfifo *fifo, unsigned int n),
		     fifo, n)

KFIFO__CALL_ALIGN unsigned int kfifo_in_prepare(struct kfifo *fifo,
					      struct kfifo_region r[2],
					      unsigned int n)
{
	return KFIFO__BY_KIND(fifo, kfifo__in_prepare, fifo, r, n);
}

KFIFO__CALL_ALIGN unsigned int kfifo_in_finish(struct kfifo *fifo,
					     unsigned int n)
{
	return KFIFO__BY_KIND(fifo, kfifo__in_finish, fifo, n);
}

KFIFO__CALL_ALIGN unsigned int kfifo_out_prepare(struct kfifo *fifo,
					       struct kfifo_region r[2],
					       unsigned int n)
{
	return KFIFO__BY_KIND(fifo, kfifo__out_prepare, fifo, r, n);
}

KFIFO__CALL_ALIGN unsigned int kfifo_out_finish(struct kfifo *fifo,
					      unsigned int n)
{
	return KFIFO__BY_KIND(fifo, kfifo__out_finish, fifo, n);
}
