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
#include "kfifo_binding.h"
#include "kfifo_copy.h"
#include "kfifo_index.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

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

/*
 * Records of at most this many bytes are copied inline, with two loads and
 * two stores of a fixed width that overlap in the middle (what memcpy()
 * itself does for such a length, without its call and its dispatch on the
 * length: most of a short record's cost in memcpy).
 */
#define KFIFO__REC_SMALL 32u

/* Copy @n bytes, 0 < @n <= KFIFO__REC_SMALL, from @s to @d (apart). */
static inline __attribute__((always_inline)) void
kfifo__copy_small(unsigned char *d, const unsigned char *s, unsigned int n)
{
	uint64_t a, b, c, e;
	uint32_t x, y;

	if (n > 16) {
		memcpy(&a, s, 8);
		memcpy(&b, s + 8, 8);
		memcpy(&c, s + n - 16, 8);
		memcpy(&e, s + n - 8, 8);
		memcpy(d, &a, 8);
		memcpy(d + 8, &b, 8);
		memcpy(d + n - 16, &c, 8);
		memcpy(d + n - 8, &e, 8);
	} else if (n >= 8) {
		memcpy(&a, s, 8);
		memcpy(&b, s + n - 8, 8);
		memcpy(d, &a, 8);
		memcpy(d + n - 8, &b, 8);
	} else if (n >= 4) {
		memcpy(&x, s, 4);
		memcpy(&y, s + n - 4, 4);
		memcpy(d, &x, 4);
		memcpy(d + n - 4, &y, 4);
	} else {
		d[0] = s[0];
		d[n >> 1] = s[n >> 1];
		d[n - 1] = s[n - 1];
	}
}

/* A record's @n bytes (0 < @n <= size) into the buffer at index @idx:
 * inline when short and not crossing the end, else kfifo__copy_in(). */
static inline __attribute__((always_inline)) void
kfifo__rec_copy_in(struct kfifo *fifo, unsigned int idx, const void *from,
		   unsigned int n)
{
	unsigned int off = idx & (fifo->size - 1);

	if (n <= KFIFO__REC_SMALL && n <= fifo->size - off)
		kfifo__copy_small(fifo->buffer + off, from, n);
	else
		kfifo__copy_in(fifo, idx, from, kfifo__rec_len_opaque(n));
}

/* The consumer's mirror image of kfifo__rec_copy_in(). */
static inline __attribute__((always_inline)) void
kfifo__rec_copy_out(struct kfifo *fifo, unsigned int idx, void *to,
		    unsigned int n)
{
	unsigned int off = idx & (fifo->size - 1);

	if (n <= KFIFO__REC_SMALL && n <= fifo->size - off)
		kfifo__copy_small(to, fifo->buffer + off, n);
	else
		kfifo__copy_out(fifo, idx, to, kfifo__rec_len_opaque(n));
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
		kfifo__rec_copy_in(fifo, in + recsize, from, n);
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
		kfifo__rec_copy_out(fifo, out + recsize, to, l);
	return kfifo__publish_out(fifo, out + recsize + l, kind, 0);
}

/*
 * The next record, only if it is @n bytes long: the binding's get_rec()
 * refilling a bytes object of that length.  0 when taken; the record's
 * length + 1 when it has another length (nothing taken); UINT_MAX when no
 * whole record is stored or @recsize is not 1 or 2.  The steps are
 * kfifo__out_rec_impl()'s, with the length test before the copy.
 */
KFIFO__INLINE unsigned int kfifo__out_rec_len_impl(struct kfifo *fifo,
						   void *to, unsigned int n,
						   unsigned int recsize,
						   enum kfifo__kind kind)
{
	unsigned int out, used, l;

	if (recsize - 1 > 1 || n > kfifo_rec_max(recsize))
		return UINT_MAX;
	out = kfifo__own_out(fifo, kind);
	/* enough to decide whether to look at @in: a header and @n bytes */
	used = kfifo__len_for(fifo, out, recsize + n, kind);
	if (used < recsize)
		return UINT_MAX;
	l = kfifo__rec_header(fifo, out, recsize);
	if (l != n)
		return l + 1;
	if (used - recsize < l)
		return UINT_MAX;
	if (l > 0)
		kfifo__rec_copy_out(fifo, out + recsize, to, l);
	return kfifo__publish_out(fifo, out + recsize + l, kind, 0);
}

KFIFO__HANDLE_INSTANCE(KFIFO__IN_SIDE, kfifo__rec_refused(n), unsigned int,
		       kfifo__in_rec_impl,
		       (struct kfifo *fifo, const void *from, unsigned int n,
			unsigned int recsize),
		       fifo, from, n, recsize)
KFIFO__HANDLE_INSTANCE(KFIFO__OUT_SIDE, (total ? (*total = 0) : 0, n),
		       unsigned int, kfifo__out_rec_impl,
		       (struct kfifo *fifo, void *to, unsigned int n,
			unsigned int recsize, unsigned int *total),
		       fifo, to, n, recsize, total)

KFIFO__HANDLE_INSTANCE(KFIFO__OUT_SIDE, UINT_MAX, unsigned int,
		       kfifo__out_rec_len_impl,
		       (struct kfifo *fifo, void *to, unsigned int n,
			unsigned int recsize),
		       fifo, to, n, recsize)

static __attribute__((noinline)) unsigned int
kfifo__out_rec_len_slow(struct kfifo *fifo, void *to, unsigned int n,
			unsigned int recsize)
{
	return KFIFO__BY_KIND(fifo, kfifo__out_rec_len_impl, fifo, to, n,
			      recsize);
}

/*
 * Its common case, a short record (header 1 or 2) of an ordinary fifo,
 * whole in the cached @in and not crossing the end of the buffer, written
 * out with no call before the publication, as kfifo__in_rec_open()'s;
 * anything else takes kfifo__out_rec_len_impl() whole.
 */
unsigned int kfifo__out_rec_len(struct kfifo *fifo, void *to, unsigned int n,
				unsigned int recsize)
{
	unsigned int out, off, l, need = n + recsize;

	if (__builtin_expect(kfifo__fast(fifo) &&
			     recsize - 1 <= 1 && n <= KFIFO__REC_SMALL, 1)) {
		out = kfifo__own_out(fifo, KFIFO__ORDINARY);
		off = out & (fifo->size - 1);
		if (kfifo__data_cached(fifo, out, need, KFIFO__ORDINARY) &&
		    need <= fifo->size - off) {
			l = fifo->buffer[off];
			if (recsize == 2)
				l |= (unsigned int)fifo->buffer[off + 1] << 8;
			if (l != n)
				return l + 1;
			if (n > 0)
				kfifo__copy_small(to, fifo->buffer + off + recsize,
						  n);
			return kfifo__publish_out(fifo, out + need,
						  KFIFO__ORDINARY, 0);
		}
	}
	return kfifo__out_rec_len_slow(fifo, to, n, recsize);
}

static unsigned int kfifo__peek_rec_held(struct kfifo *fifo,
					 unsigned int recsize)
{
	enum kfifo__kind kind = kfifo__kind(fifo);
	unsigned int out, used;

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

unsigned int kfifo__peek_rec_generic(struct kfifo *fifo, unsigned int recsize)
{
	unsigned int l;

	if (recsize > 2 || kfifo__side_hold(fifo, KFIFO__OUT_SIDE) != 0)
		return 0;
	l = kfifo__peek_rec_held(fifo, recsize);
	kfifo__side_unhold(fifo, KFIFO__OUT_SIDE);
	return l;
}

void kfifo__skip_rec_generic(struct kfifo *fifo, unsigned int recsize)
{
	enum kfifo__kind kind = kfifo__kind(fifo);
	unsigned int out, in, used, l;

	if (recsize > 2 || kfifo__side_enter(fifo, KFIFO__OUT_SIDE) != 0)
		return;
	out = kfifo__own_out(fifo, kind);
	in = kfifo__load_acquire(kfifo__in_word(fifo, kind));
	used = kfifo__clamp(fifo, in - out);
	if (recsize > 0 && used >= recsize) {
		l = kfifo__rec_header(fifo, out, recsize);
		if (l <= used - recsize)
			in = out + recsize + l;
	}
	kfifo__set_out(fifo, in, kind);
	kfifo__side_leave(fifo, KFIFO__OUT_SIDE);
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

/* kfifo__in_rec_open() for every case its fast path leaves out. */
static __attribute__((noinline)) unsigned int
kfifo__in_rec_open_slow(struct kfifo *fifo, const void *from, unsigned int n,
			unsigned int recsize)
{
	if (kfifo_is_closed(fifo))
		return kfifo__rec_refused(n);
	return kfifo_in_rec(fifo, from, n, recsize);
}

/*
 * kfifo_in_rec() of a fifo that is open: refused like a record without
 * room (@n + 1, nothing stored) once kfifo_close() ran.  The binding's
 * put_rec() in one call, where it took two (kfifo_is_closed(), then
 * kfifo_in_rec()): the closed flag shares the cache line of @buffer and
 * @size, which the store reads anyway.  A close() racing with the call
 * lands before it or after it, as with the two calls.
 *
 * Its common case, a short record (header 1 or 2) of an ordinary fifo
 * with room in the cached @out and not crossing the end of the buffer, is
 * written out here with no call before the publication (whose rare wake
 * is a tail call), so that it saves no registers; anything else takes
 * kfifo_in_rec().  The steps are kfifo__in_rec_impl()'s.
 */
unsigned int kfifo__in_rec_open(struct kfifo *fifo, const void *from,
				unsigned int n, unsigned int recsize)
{
	unsigned int in, off, need = n + recsize;

	if (__builtin_expect(kfifo__fast(fifo) &&
			     recsize - 1 <= 1 && n <= KFIFO__REC_SMALL, 1)) {
		if (__atomic_load_n(kfifo__closed_word(fifo, KFIFO__ORDINARY),
				    __ATOMIC_ACQUIRE) != 0)
			return kfifo__rec_refused(n);
		in = kfifo__own_in(fifo, KFIFO__ORDINARY);
		off = in & (fifo->size - 1);
		if (kfifo__room_cached(fifo, in, need, KFIFO__ORDINARY) &&
		    need <= fifo->size - off) {
			fifo->buffer[off] = (unsigned char)(n & 0xffu);
			if (recsize == 2)
				fifo->buffer[off + 1] = (unsigned char)(n >> 8);
			if (n > 0)
				kfifo__copy_small(fifo->buffer + off + recsize,
						  from, n);
			return kfifo__publish_in(fifo, in + need,
						 KFIFO__ORDINARY, 0);
		}
	}
	return kfifo__in_rec_open_slow(fifo, from, n, recsize);
}

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
