/* SPDX-License-Identifier: MIT */
/*
 * kfifo_rec.c - records: a length header of @recsize bytes (0, 1 or 2,
 * little-endian) followed by the data.
 *
 * Every record call is written once, as a static inline function taking
 * @recsize, and instantiated four times: with the constants 0, 1 and 2
 * (the compiler folds the header code away) and with a run-time value
 * (the generic path).  The header's kfifo_*_rec() pick the constant copy
 * when the caller's @recsize is a compile-time constant, so both paths
 * give identical results by construction.
 */
#include "kfifo_internal.h"

#include <limits.h>

/* The largest record length a @recsize-byte header can hold. */
static inline unsigned int kfifo__rec_max(unsigned int recsize)
{
	return recsize == 0 ? UINT_MAX : recsize == 1 ? 0xffu : 0xffffu;
}

/* The refusal value of kfifo_in_rec(): n + 1 without overflow. */
static inline unsigned int kfifo__rec_refused(unsigned int n)
{
	return n == UINT_MAX ? UINT_MAX : n + 1;
}

/* The length in the header at index @idx; the caller checked it is there. */
static inline unsigned int kfifo__read_header(struct kfifo *fifo,
					      unsigned int idx,
					      unsigned int recsize)
{
	unsigned int l = kfifo__byte_at(fifo, idx);

	if (recsize == 2)
		l |= (unsigned int)kfifo__byte_at(fifo, idx + 1) << 8;
	return l;
}

static inline unsigned int kfifo__in_rec_impl(struct kfifo *fifo,
					      const void *from, unsigned int n,
					      unsigned int recsize, int sh)
{
	unsigned int in, avail;

	if (recsize > 2 || n > kfifo__rec_max(recsize))
		return kfifo__rec_refused(n);
	in = kfifo__own_in(fifo, sh);
	/* recsize + n, saturated: enough to decide whether to look at @out */
	avail = kfifo__avail_for(fifo, in,
				 n > UINT_MAX - recsize ? UINT_MAX : n + recsize,
				 sh);
	/* n + recsize > avail, written so that it cannot overflow */
	if (avail < recsize || n > avail - recsize)
		return kfifo__rec_refused(n);
	if (recsize >= 1)
		kfifo__set_byte_at(fifo, in, (unsigned char)(n & 0xffu));
	if (recsize == 2)
		kfifo__set_byte_at(fifo, in + 1, (unsigned char)(n >> 8));
	if (n > 0)
		kfifo__copy_in(fifo, in + recsize, from, n);
	/* header and data become visible to the consumer in one store */
	kfifo__publish_in(fifo, in + recsize + n, sh);
	return 0;
}

static inline unsigned int kfifo__out_rec_impl(struct kfifo *fifo, void *to,
					       unsigned int n,
					       unsigned int recsize,
					       unsigned int *total, int sh)
{
	unsigned int out, used, l;

	if (recsize > 2) {
		if (total)
			*total = 0;
		return n;
	}
	out = kfifo__own_out(fifo, sh);
	used = kfifo__len_for(fifo, out, recsize, sh);
	if (used < recsize) {
		/* no header to read (bug 5 of the seed read a stale one) */
		if (total)
			*total = 0;
		return n;
	}
	l = recsize ? kfifo__read_header(fifo, out, recsize) : n;
	if (total)
		*total = l;
	if (l > n)
		return l;
	if (used - recsize < l) {
		/* the cached @in may be behind: look again before giving up */
		used = kfifo__len_for(fifo, out, recsize + l, sh);
		/* on a shared fifo @in may have moved back (a hostile peer):
		 * then used < recsize, and used - recsize must not wrap */
		if (used < recsize || used - recsize < l)
			return n;
	}
	/* copy the record's l bytes, not the caller's n (seed bug 2) */
	if (l > 0)
		kfifo__copy_out(fifo, out + recsize, to, l);
	kfifo__publish_out(fifo, out + recsize + l, sh);
	return 0;
}

KFIFO__SHARED_INSTANCE(unsigned int, kfifo__in_rec_impl,
		       (struct kfifo *fifo, const void *from, unsigned int n,
			unsigned int recsize),
		       fifo, from, n, recsize)
KFIFO__SHARED_INSTANCE(unsigned int, kfifo__out_rec_impl,
		       (struct kfifo *fifo, void *to, unsigned int n,
			unsigned int recsize, unsigned int *total),
		       fifo, to, n, recsize, total)

unsigned int kfifo__peek_rec_generic(struct kfifo *fifo, unsigned int recsize)
{
	unsigned int out, in;

	if (recsize > 2)
		return 0;
	out = kfifo__own_out(fifo, kfifo__shared(fifo));
	in = kfifo__load_acquire(kfifo__in_word(fifo, kfifo__shared(fifo)));
	/* recsize 0: the fill level on both paths (seed bug 3) */
	if (recsize == 0)
		return kfifo__used(fifo, in, out);
	if (kfifo__used(fifo, in, out) < recsize)
		return 0;
	return kfifo__read_header(fifo, out, recsize);
}

void kfifo__skip_rec_generic(struct kfifo *fifo, unsigned int recsize)
{
	unsigned int out, in, used, l;

	if (recsize > 2)
		return;
	out = kfifo__own_out(fifo, kfifo__shared(fifo));
	in = kfifo__load_acquire(kfifo__in_word(fifo, kfifo__shared(fifo)));
	used = kfifo__used(fifo, in, out);
	if (recsize > 0 && used >= recsize) {
		l = kfifo__read_header(fifo, out, recsize);
		if (l <= used - recsize) {
			kfifo__set_out(fifo, out + recsize + l);
			return;
		}
	}
	kfifo__set_out(fifo, in);
}

unsigned int kfifo__in_rec_generic(struct kfifo *fifo, const void *from,
				   unsigned int n, unsigned int recsize)
{
	return KFIFO__BY_KIND(fifo, kfifo__in_rec_impl, fifo, from, n,
			      recsize);
}

unsigned int kfifo__out_rec_generic(struct kfifo *fifo, void *to,
				    unsigned int n, unsigned int recsize,
				    unsigned int *total)
{
	return KFIFO__BY_KIND(fifo, kfifo__out_rec_impl, fifo, to, n, recsize,
			      total);
}

#define KFIFO__REC_INSTANCES(R)                                                \
	unsigned int kfifo__in_rec##R(struct kfifo *fifo, const void *from,   \
				      unsigned int n)                          \
	{                                                                      \
		return KFIFO__BY_KIND(fifo, kfifo__in_rec_impl, fifo, from, n, \
				      R);                                      \
	}                                                                      \
	unsigned int kfifo__out_rec##R(struct kfifo *fifo, void *to,          \
				       unsigned int n, unsigned int *total)    \
	{                                                                      \
		return KFIFO__BY_KIND(fifo, kfifo__out_rec_impl, fifo, to, n,  \
				      R, total);                               \
	}

KFIFO__REC_INSTANCES(0)
KFIFO__REC_INSTANCES(1)
KFIFO__REC_INSTANCES(2)
