/* SPDX-License-Identifier: MIT */
/*
 * kfifo_typed.c - the out-of-line half of the kernel's typed API (2.6.36
 * and later; the macros are in kfifo.h): fifos of elements of any size,
 * and record fifos with mainline's results.
 *
 * An element fifo is an ordinary struct kfifo whose @size, @in and @out
 * count elements, not bytes; only the copies scale by the element size.
 * Everything that works on the indices alone -- kfifo_len(), kfifo_avail(),
 * kfifo_is_empty/full(), kfifo_reset(), kfifo_reset_out(), kfifo_skip(),
 * kfifo_valid(), kfifo_in_finish()/kfifo_out_finish() and the waits -- is
 * the byte core's own code, unit-blind, and counts elements for such a
 * fifo.  The copies here take the same index helpers as the byte calls
 * (kfifo_index.h: the cached other index, the release that publishes the
 * new one, the wake of waiters), so an element fifo is lock-free for one
 * producer and one consumer under the same memory-order argument as the
 * byte fifo: the producer acquires @out, copies, releases @in; the
 * consumer mirrors it.  An element fifo of element size 1 is a byte fifo:
 * kfifo.h sends it to the byte calls.
 *
 * Record fifos (recsize 1 or 2) store the byte core's records; the
 * functions here give them mainline's results (kfifo_in() returns the
 * length stored or 0; kfifo_out() truncates a record longer than the
 * buffer and drops the rest of it).
 */
#include "kfifo_copy.h"
#include "kfifo_index.h"

#include <limits.h>
#include <stdlib.h>

/* Copy @n elements (0 < @n <= size) in at element index @idx, wrapping
 * at the end of the buffer: the rare case, out of line and cold, as the
 * byte calls keep theirs (kfifo_copy.h). */
static __attribute__((noinline, cold)) void
kfifo__copy_in_elem_wrap(struct kfifo *fifo, unsigned int off,
			 const void *from, unsigned int n, size_t esize)
{
	unsigned int first = fifo->size - off;

	memcpy(fifo->buffer + (size_t)off * esize, from, (size_t)first * esize);
	memcpy(fifo->buffer, (const unsigned char *)from + (size_t)first * esize,
	       (size_t)(n - first) * esize);
}

static __attribute__((noinline, cold)) void
kfifo__copy_out_elem_wrap(struct kfifo *fifo, unsigned int off, void *to,
			  unsigned int n, size_t esize)
{
	unsigned int first = fifo->size - off;

	memcpy(to, fifo->buffer + (size_t)off * esize, (size_t)first * esize);
	memcpy((unsigned char *)to + (size_t)first * esize, fifo->buffer,
	       (size_t)(n - first) * esize);
}

static inline __attribute__((always_inline)) void
kfifo__copy_in_elem(struct kfifo *fifo, unsigned int idx, const void *from,
		    unsigned int n, size_t esize)
{
	unsigned int off = idx & (fifo->size - 1);

	if (__builtin_expect(n <= fifo->size - off, 1))
		memcpy(fifo->buffer + (size_t)off * esize, from,
		       (size_t)n * esize);
	else
		kfifo__copy_in_elem_wrap(fifo, off, from, n, esize);
}

static inline __attribute__((always_inline)) void
kfifo__copy_out_elem(struct kfifo *fifo, unsigned int idx, void *to,
		     unsigned int n, size_t esize)
{
	unsigned int off = idx & (fifo->size - 1);

	if (__builtin_expect(n <= fifo->size - off, 1))
		memcpy(to, fifo->buffer + (size_t)off * esize,
		       (size_t)n * esize);
	else
		kfifo__copy_out_elem_wrap(fifo, off, to, n, esize);
}

/*
 * The element calls are written once and compiled twice, as the byte
 * calls are (kfifo_kind.h): in line for an ordinary fifo of one producer
 * and one consumer, and out of line, with the side's lock held, for a fifo
 * with a many mode (or a handle).  Without the lock, two producers read
 * the same @in and store into the same slots.
 */
KFIFO__INLINE unsigned int kfifo__in_elem_impl(struct kfifo *fifo,
					       const void *from, unsigned int n,
					       size_t esize,
					       enum kfifo__kind kind)
{
	unsigned int in = kfifo__own_in(fifo, kind);
	unsigned int avail = kfifo__avail_for(fifo, in, n, kind);

	if (n > avail)
		n = avail;
	if (n == 0)
		return 0;
	kfifo__copy_in_elem(fifo, in, from, n, esize);
	return kfifo__publish_in(fifo, in + n, kind, n);
}

KFIFO__INLINE unsigned int kfifo__out_elem_impl(struct kfifo *fifo, void *to,
						unsigned int n, size_t esize,
						enum kfifo__kind kind)
{
	unsigned int out = kfifo__own_out(fifo, kind);
	unsigned int len = kfifo__len_for(fifo, out, n, kind);

	if (n > len)
		n = len;
	if (n == 0)
		return 0;
	kfifo__copy_out_elem(fifo, out, to, n, esize);
	return kfifo__publish_out(fifo, out + n, kind, n);
}

KFIFO__HANDLE_INSTANCE(KFIFO__IN_SIDE, 0, unsigned int, kfifo__in_elem_impl,
		       (struct kfifo *fifo, const void *from, unsigned int n,
			size_t esize),
		       fifo, from, n, esize)
KFIFO__HANDLE_INSTANCE(KFIFO__OUT_SIDE, 0, unsigned int, kfifo__out_elem_impl,
		       (struct kfifo *fifo, void *to, unsigned int n,
			size_t esize),
		       fifo, to, n, esize)

unsigned int kfifo__in_elem(struct kfifo *fifo, const void *from,
			    unsigned int n, size_t esize)
{
	return KFIFO__BY_KIND(fifo, kfifo__in_elem_impl, fifo, from, n, esize);
}

unsigned int kfifo__out_elem(struct kfifo *fifo, void *to, unsigned int n,
			     size_t esize)
{
	return KFIFO__BY_KIND(fifo, kfifo__out_elem_impl, fifo, to, n, esize);
}

/* The peeks and the calls that read first and take after hold the side
 * in a many mode (kfifo__side_hold(), kfifo_kind.h). */
static unsigned int kfifo__out_peek_elem_held(struct kfifo *fifo, void *to,
					      unsigned int n, size_t esize)
{
	enum kfifo__kind kind = kfifo__kind(fifo);
	unsigned int out = kfifo__own_out(fifo, kind);
	unsigned int len = kfifo__len_for(fifo, out, n, kind);

	if (n > len)
		n = len;
	if (n > 0)
		kfifo__copy_out_elem(fifo, out, to, n, esize);
	return n;
}

unsigned int kfifo__out_peek_elem(struct kfifo *fifo, void *to,
				  unsigned int n, size_t esize)
{
	if (kfifo__side_hold(fifo, KFIFO__OUT_SIDE) != 0)
		return 0;
	n = kfifo__out_peek_elem_held(fifo, to, n, esize);
	kfifo__side_unhold(fifo, KFIFO__OUT_SIDE);
	return n;
}

static unsigned int kfifo__out_linear_held(struct kfifo *fifo,
					   unsigned int *tail, unsigned int n)
{
	enum kfifo__kind kind = kfifo__kind(fifo);
	unsigned int out = kfifo__own_out(fifo, kind);
	unsigned int len = kfifo__len_for(fifo, out, n, kind);
	unsigned int off = fifo->size ? out & (fifo->size - 1) : 0;

	if (n > len)
		n = len;
	if (n > fifo->size - off)
		n = fifo->size - off;
	if (tail)
		*tail = off;
	return n;
}

unsigned int kfifo__out_linear(struct kfifo *fifo, unsigned int *tail,
			       unsigned int n)
{
	if (kfifo__side_hold(fifo, KFIFO__OUT_SIDE) != 0)
		return 0;
	n = kfifo__out_linear_held(fifo, tail, n);
	kfifo__side_unhold(fifo, KFIFO__OUT_SIDE);
	return n;
}

/* The regions of at most @n elements at the write (@in_side) or read
 * position, lengths in bytes.  In a many mode on that side, regions keep
 * the side until kfifo_dma_*_finish() (kfifo_in_finish() or
 * kfifo_out_finish()), as kfifo_*_prepare() does. */
static unsigned int kfifo__prepare_elem_held(struct kfifo *fifo,
					     struct kfifo_region r[2],
					     unsigned int n, size_t esize,
					     int in_side)
{
	enum kfifo__kind kind = kfifo__kind(fifo);
	unsigned int idx, have, off, first;

	if (in_side) {
		idx = kfifo__own_in(fifo, kind);
		have = kfifo__avail_fresh(fifo, idx, kind);
	} else {
		idx = kfifo__own_out(fifo, kind);
		have = kfifo__len_fresh(fifo, idx, kind);
	}
	if (n > have)
		n = have;
	r[0].data = r[1].data = fifo->buffer;
	r[0].len = r[1].len = 0;
	if (n == 0)
		return 0;
	off = idx & (fifo->size - 1);
	first = fifo->size - off < n ? fifo->size - off : n;
	r[0].data = fifo->buffer + (size_t)off * esize;
	r[0].len = (unsigned int)(first * esize);
	r[1].len = (unsigned int)((n - first) * esize);
	return n;
}

unsigned int kfifo__prepare_elem(struct kfifo *fifo, struct kfifo_region r[2],
				 unsigned int n, size_t esize, int in_side)
{
	enum kfifo__side side = in_side ? KFIFO__IN_SIDE : KFIFO__OUT_SIDE;

	if (kfifo__side_hold(fifo, side) != 0) {
		r[0].data = r[1].data = fifo->buffer;
		r[0].len = r[1].len = 0;
		return 0;
	}
	n = kfifo__prepare_elem_held(fifo, r, n, esize, in_side);
	if (n > 0 && (fifo->flags & kfifo__many_flag(side)))
		kfifo__side_keep(fifo, side);
	kfifo__side_unhold(fifo, side);
	return n;
}

/* Whether @n elements of @esize bytes fit an unsigned int byte count. */
static int kfifo__elem_bytes_fit(unsigned int n, size_t esize)
{
	return esize != 0 && n <= UINT_MAX / esize;
}

int kfifo__alloc_elem(struct kfifo *fifo, unsigned int n, size_t esize)
{
	unsigned int rounded = kfifo__roundup_pow2(n);
	void *buffer;

	kfifo__clear(fifo);
	if (rounded < 2 || !kfifo__elem_bytes_fit(rounded, esize))
		return -EINVAL;
	buffer = calloc(rounded, esize);
	if (buffer == NULL)
		return -ENOMEM;
	fifo->buffer = buffer;
	fifo->size = rounded;
	fifo->flags = KFIFO__OWNS_BUFFER;
	return 0;
}

int kfifo__init_elem(struct kfifo *fifo, void *buffer, unsigned int bytes,
		     size_t esize)
{
	unsigned int n = esize ? (unsigned int)(bytes / esize) : 0;
	unsigned int down = 1;

	kfifo__clear(fifo);
	while (n >= 2 && down <= n / 2)
		down <<= 1;
	if (buffer == NULL || n < 2)
		return -EINVAL;
	fifo->buffer = buffer;
	fifo->size = down;
	return 0;
}

/* ---- records with mainline's results --------------------------------- */

/* kfifo__out_r() past its common case: the length, the header, the
 * copy and the skip must see one record, so the side is held. */
static unsigned int kfifo__out_r_held(struct kfifo *fifo, void *to,
				      unsigned int n, unsigned int recsize,
				      int remove)
{
	unsigned int len, l;

	len = kfifo_len(fifo);
	if (len < recsize || recsize == 0)
		return 0;
	l = kfifo_peek_rec(fifo, recsize);
	if (len - recsize < l)
		return 0;
	if (n > l)
		n = l;
	if (n > 0)
		n = kfifo_out_peek(fifo, to, n, recsize);
	if (remove)
		kfifo_skip_rec(fifo, recsize);
	return n;
}

unsigned int kfifo__out_r(struct kfifo *fifo, void *to, unsigned int n,
			  unsigned int recsize, int remove)
{
	unsigned int l, ret;

	/* The common case, a record that fits @to, is the byte core's
	 * kfifo_out_rec(): 0 when it took the record, @n when there is no
	 * whole record (told apart from 0 only when @n > 0), the record's
	 * length when it is longer than @n (truncated below). */
	if (remove && n > 0 && recsize != 0) {
		ret = kfifo_out_rec(fifo, to, n, recsize, &l);
		if (ret == 0)
			return l;
		if (ret == n)
			return 0;
	}
	if (kfifo__side_hold(fifo, KFIFO__OUT_SIDE) != 0)
		return 0;
	ret = kfifo__out_r_held(fifo, to, n, recsize, remove);
	kfifo__side_unhold(fifo, KFIFO__OUT_SIDE);
	return ret;
}

static unsigned int kfifo__out_linear_r_held(struct kfifo *fifo,
					     unsigned int *tail, unsigned int n,
					     unsigned int recsize)
{
	enum kfifo__kind kind = kfifo__kind(fifo);
	unsigned int out = kfifo__own_out(fifo, kind);
	unsigned int len = kfifo_len(fifo);
	unsigned int l, off;

	if (len < recsize || recsize == 0 || fifo->size == 0)
		return 0;
	l = kfifo_peek_rec(fifo, recsize);
	if (len - recsize < l)
		return 0;
	off = (out + recsize) & (fifo->size - 1);
	if (tail)
		*tail = off;
	if (n > l)
		n = l;
	if (n > fifo->size - off)
		n = fifo->size - off;
	return n;
}

unsigned int kfifo__out_linear_r(struct kfifo *fifo, unsigned int *tail,
				 unsigned int n, unsigned int recsize)
{
	if (kfifo__side_hold(fifo, KFIFO__OUT_SIDE) != 0)
		return 0;
	n = kfifo__out_linear_r_held(fifo, tail, n, recsize);
	kfifo__side_unhold(fifo, KFIFO__OUT_SIDE);
	return n;
}

/* Move @r past its first @k bytes. */
static void kfifo__regions_drop(struct kfifo_region r[2], unsigned int k)
{
	unsigned int d = k < r[0].len ? k : r[0].len;

	r[0].data += d;
	r[0].len -= d;
	k -= d;
	if (r[0].len == 0) {
		r[0] = r[1];
		r[1].len = 0;
	}
	r[0].data += k;
	r[0].len -= k;
}

/*
 * The record's room, asked for once it is known to be there: held, in a
 * many mode, so that no other producer takes it in between (the prepare
 * would then return fewer regions, kept until a finish that the caller,
 * told 0, never makes).
 */
unsigned int kfifo__dma_in_prepare_r(struct kfifo *fifo,
				     struct kfifo_region r[2], unsigned int n,
				     unsigned int recsize)
{
	int ok;

	if (n > kfifo_rec_max(recsize))
		n = kfifo_rec_max(recsize);
	if (kfifo__side_hold(fifo, KFIFO__IN_SIDE) != 0) {
		r[0].len = r[1].len = 0;
		return 0;
	}
	ok = kfifo_avail(fifo) >= n + recsize &&
	     kfifo_in_prepare(fifo, r, n + recsize) == n + recsize;
	kfifo__side_unhold(fifo, KFIFO__IN_SIDE);
	if (!ok) {
		r[0].len = r[1].len = 0;
		return 0;
	}
	kfifo__regions_drop(r, recsize);
	return n;
}

/* A finish for more than fits publishes nothing, and gives back the side
 * a prepare kept (kfifo_in_finish() of 0). */
void kfifo__dma_in_finish_r(struct kfifo *fifo, unsigned int n,
			    unsigned int recsize)
{
	enum kfifo__kind kind = kfifo__kind(fifo);
	unsigned int in;

	if (n > kfifo_rec_max(recsize))
		n = kfifo_rec_max(recsize);
	if (kfifo__side_hold(fifo, KFIFO__IN_SIDE) != 0)
		return;
	in = kfifo__own_in(fifo, kind);
	if (kfifo_avail(fifo) < n + recsize) {
		(void)kfifo_in_finish(fifo, 0);
	} else {
		kfifo__set_byte_at(fifo, in, (unsigned char)(n & 0xffu));
		if (recsize == 2)
			kfifo__set_byte_at(fifo, in + 1, (unsigned char)(n >> 8));
		(void)kfifo_in_finish(fifo, n + recsize);
	}
	kfifo__side_unhold(fifo, KFIFO__IN_SIDE);
}

static unsigned int kfifo__dma_out_prepare_r_held(struct kfifo *fifo,
						  struct kfifo_region r[2],
						  unsigned int n,
						  unsigned int recsize)
{
	unsigned int len = kfifo_len(fifo);
	unsigned int l;

	if (len < recsize)
		return 0;
	l = kfifo_peek_rec(fifo, recsize);
	if (len - recsize < l)
		return 0;
	if (n > l)
		n = l;
	(void)kfifo_out_prepare(fifo, r, n + recsize);
	kfifo__regions_drop(r, recsize);
	return n;
}

/* The length, the header and the regions of one record: held, in a many
 * mode; the regions keep the side until kfifo__dma_out_finish_r(). */
unsigned int kfifo__dma_out_prepare_r(struct kfifo *fifo,
				      struct kfifo_region r[2], unsigned int n,
				      unsigned int recsize)
{
	r[0].data = r[1].data = fifo->buffer;
	r[0].len = r[1].len = 0;
	if (kfifo__side_hold(fifo, KFIFO__OUT_SIDE) != 0)
		return 0;
	n = kfifo__dma_out_prepare_r_held(fifo, r, n, recsize);
	kfifo__side_unhold(fifo, KFIFO__OUT_SIDE);
	return n;
}

/* Drop the record, and give back the side a prepare kept (kfifo_skip_rec()
 * alone would keep it for ever: kfifo_out_finish() of 0 ends the keep). */
void kfifo__dma_out_finish_r(struct kfifo *fifo, unsigned int recsize)
{
	if (kfifo__side_hold(fifo, KFIFO__OUT_SIDE) != 0)
		return;
	kfifo_skip_rec(fifo, recsize);
	if (fifo->flags & KFIFO__MANY_OUT)
		(void)kfifo_out_finish(fifo, 0);
	kfifo__side_unhold(fifo, KFIFO__OUT_SIDE);
}
