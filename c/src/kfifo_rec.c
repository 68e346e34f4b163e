/* SPDX-License-Identifier: MIT */
/*
 * kfifo_rec.c - records: a length header of @recsize bytes (0, 1 or 2,
 * little-endian) followed by the data.
 *
 * Every record call is written once, as a forced-inline function taking
 * @recsize (and the kind, kfifo_kind.h), and instantiated four times: with the constants 0, 1 and 2
 * (the compiler folds the header code away) and with a run-time value
 * (the generic path).  The header's kfifo_*_rec() pick the constant copy
 * when the caller's @recsize is a compile-time constant, so both paths
 * give identical results by construction.  Mainline's kfifo_avail_rec()
 * is here too: the header limit is the record rule kfifo_rec_max() of
 * kfifo.h, like everywhere else.
 */
#include "kfifo_copy.h"
#include "kfifo_index.h"

#include <limits.h>

/* The refusal value of kfifo_in_rec(): n + 1 without overflow. */
static inline unsigned int kfifo__rec_refused(unsigned int n)
{
	return n == UINT_MAX ? UINT_MAX : n + 1;
}

/*
 * @n with the compiler's knowledge of its range dropped.  Past the header
 * check it knows n <= 255 (or 65535) on the constant-recsize paths, and
 * gcc then inlines memcpy() as `rep movsq`, whose start-up costs several
 * times the whole copy of a short record (the usual case); an unknown
 * length gets memcpy()'s call, as kfifo_in() does.  Costs no instruction.
 */
static inline unsigned int kfifo__rec_len_opaque(unsigned int n)
{
	__asm__("" : "+r"(n));
	return n;
}

KFIFO__INLINE unsigned int kfifo__in_rec_impl(struct kfifo *fifo,
					      const void *from, unsigned int n,
					      unsigned int recsize,
					      enum kfifo__kind kind)
{
	unsigned int in, avail;

	if (recsize > 2 || n > kfifo_rec_max(recsize))
		return kfifo__rec_refused(n);
	in = kfifo__own_in(fifo, kind);
	/* recsize + n, saturated: enough to decide whether to look at @out */
	avail = kfifo__avail_for(fifo, in,
				 n > UINT_MAX - recsize ? UINT_MAX : n + recsize,
				 kind);
	/* n + recsize > avail, written so that it cannot overflow */
	if (avail < recsize || n > avail - recsize)
		return kfifo__rec_refused(n);
	if (recsize >= 1)
		kfifo__set_byte_at(fifo, in, (unsigned char)(n & 0xffu));
	if (recsize == 2)
		kfifo__set_byte_at(fifo, in + 1, (unsigned char)(n >> 8));
	if (n > 0)
		kfifo__copy_in(fifo, in + recsize, from,
			       kfifo__rec_len_opaque(n));
	/* header and data become visible to the consumer in one store */
	return kfifo__publish_in(fifo, in + recsize + n, kind, 0);
}

KFIFO__INLINE unsigned int kfifo__out_rec_impl(struct kfifo *fifo, void *to,
					       unsigned int n,
					       unsigned int recsize,
					       unsigned int *total,
					       enum kfifo__kind kind)
{
	unsigned int out, used, l;

	if (recsize > 2) {
		if (total)
			*total = 0;
		return n;
	}
	out = kfifo__own_out(fifo, kind);
	used = kfifo__len_for(fifo, out, recsize, kind);
	if (used < recsize) {
		/* no header to read (bug 5 of the seed read a stale one) */
		if (total)
			*total = 0;
		return n;
	}
	l = recsize ? kfifo__rec_header(fifo, out, recsize) : n;
	if (total)
		*total = l;
	if (l > n)
		return l;
	if (used - recsize < l) {
		/* the cached @in may be behind: look again before giving up */
		used = kfifo__len_for(fifo, out, recsize + l, kind);
		/* on a shared fifo @in may have moved back (a hostile peer):
		 * then used < recsize, and used - recsize must not wrap */
		if (used < recsize || used - recsize < l)
			return n;
	}
	/* copy the record's l bytes, not the caller's n (seed bug 2) */
	if (l > 0)
		kfifo__copy_out(fifo, out + recsize, to,
				kfifo__rec_len_opaque(l));
	return kfifo__publish_out(fifo, out + recsize + l, kind, 0);
}

KFIFO__HANDLE_INSTANCE(unsigned int, kfifo__in_rec_impl,
		       (struct kfifo *fifo, const void *from, unsigned int n,
			unsigned int recsize),
		       fifo, from, n, recsize)
KFIFO__HANDLE_INSTANCE(unsigned int, kfifo__out_rec_impl,
		       (struct kfifo *fifo, void *to, unsigned int n,
			unsigned int recsize, unsigned int *total),
		       fifo, to, n, recsize, total)

unsigned int kfifo__peek_rec_generic(struct kfifo *fifo, unsigned int recsize)
{
	enum kfifo__kind kind = kfifo__kind(fifo);
	unsigned int out, used;

	if (recsize > 2)
		return 0;
	out = kfifo__own_out(fifo, kind);
	used = kfifo__clamp(fifo, kfifo__load_acquire(kfifo__in_word(fifo, kind)) -
					  out);
	/* recsize 0: the fill level on both paths (seed bug 3) */
	if (recsize == 0)
		return used;
	if (used < recsize)
		return 0;
	return kfifo__rec_header(fifo, out, recsize);
}

void kfifo__skip_rec_generic(struct kfifo *fifo, unsigned int recsize)
{
	enum kfifo__kind kind = kfifo__kind(fifo);
	unsigned int out, in, used, l;

	if (recsize > 2)
		return;
	out = kfifo__own_out(fifo, kind);
	in = kfifo__load_acquire(kfifo__in_word(fifo, kind));
	used = kfifo__clamp(fifo, in - out);
	if (recsize > 0 && used >= recsize) {
		l = kfifo__rec_header(fifo, out, recsize);
		if (l <= used - recsize) {
			kfifo__set_out(fifo, out + recsize + l, kind);
			return;
		}
	}
	kfifo__set_out(fifo, in, kind);
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

unsigned int kfifo_avail_rec(struct kfifo *fifo, unsigned int recsize)
{
	unsigned int avail, max = kfifo_rec_max(recsize);

	if (max == 0)
		return 0;
	avail = fifo->size -
		kfifo__clamp(fifo, kfifo__snapshot(fifo, __ATOMIC_ACQUIRE));
	if (avail <= recsize)
		return 0;
	avail -= recsize;
	return avail < max ? avail : max;
}
