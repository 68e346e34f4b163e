/* SPDX-License-Identifier: MIT */
/*
 * kfifo.c - set-up, size queries, the byte stream (the seed's calls and
 * mainline's kfifo_out_peek() and four-argument from/to_user) and the
 * locked calls.  Records are in kfifo_rec.c, zero-copy access in
 * kfifo_region.c, waiting in kfifo_wait.c, shared fifos in kfifo_shared.c,
 * the spinlock in kfifo_spinlock.c.
 *
 * kfifo_index.h has the memory model; each side reads the other side's
 * index only when its cached copy shows too little room or data.  Every
 * store of an index goes through kfifo__set_in/_out (kfifo_wake.h) or the
 * kfifo__publish_ variants (kfifo_index.h), which also wake the threads
 * waiting for it to move.
 */
#include "kfifo_copy.h"
#include "kfifo_index.h"

#include <limits.h>
#include <stdlib.h>

/*
 * The layout promised in kfifo.h: three groups of members, each two at
 * least KFIFO__PAD bytes apart (from the last byte of one to the first of
 * the next), so that they never share a line nor a 128-byte pair of lines,
 * and after the last group as much before whatever follows the struct
 * (DECLARE_KFIFO's buffer, the producer's data).
 */
#define KFIFO__GAP(last, first)                                                \
	(offsetof(struct kfifo, first) -                                       \
	 (offsetof(struct kfifo, last) + sizeof(unsigned int) - 1))
_Static_assert(KFIFO__GAP(kfifo__closed, in) >= KFIFO__PAD,
	       "the producer's line shares a pair with the read-mostly line");
_Static_assert(KFIFO__GAP(kfifo__in_claim, out) >= KFIFO__PAD,
	       "the producer's and the consumer's lines share a pair");
_Static_assert(sizeof(struct kfifo) -
			       (offsetof(struct kfifo, kfifo__out_claim) +
				sizeof(unsigned int) - 1) >=
		       KFIFO__PAD,
	       "the consumer's pair of lines reaches past the struct");
_Static_assert(offsetof(struct kfifo, kfifo__pad1) - offsetof(struct kfifo, in) ==
		       KFIFO__SIDE_BYTES &&
		       offsetof(struct kfifo, kfifo__pad2) -
				       offsetof(struct kfifo, out) ==
			       KFIFO__SIDE_BYTES,
	       "KFIFO__SIDE_BYTES (kfifo.h) must be each side's group size");
_Static_assert(offsetof(struct kfifo, kfifo__pad0) == KFIFO__HEAD_BYTES,
	       "KFIFO__HEAD_BYTES (kfifo.h) must be the read-mostly group's size");
_Static_assert(offsetof(struct kfifo, in) % 16 == 0 &&
		       offsetof(struct kfifo, out) % 16 == 0,
	       "each side's group must start at a multiple of 16 bytes");
_Static_assert(_Alignof(struct kfifo) <= _Alignof(max_align_t),
	       "struct kfifo must fit any memory malloc() returns");

/* ---- set-up and tear-down -------------------------------------------- */

void kfifo__clear(struct kfifo *fifo)
{
	fifo->buffer = NULL;
	fifo->size = 0;
	fifo->flags = 0;
	fifo->kfifo__in_lock = fifo->kfifo__out_lock = 0;
	fifo->kfifo__in_hold = fifo->kfifo__out_hold = 0;
	fifo->kfifo__in_claim = fifo->kfifo__out_claim = 0;
	kfifo_reset(fifo);
	kfifo__wait_clear(fifo);
}

unsigned int kfifo__roundup_pow2(unsigned int size)
{
	unsigned int rounded = 1;

	if (size == 0 || size > (1u << 31))
		return 0;
	while (rounded < size)
		rounded <<= 1;
	return rounded;
}

int kfifo_init(struct kfifo *fifo, void *buffer, unsigned int size)
{
	kfifo__clear(fifo);
	if (buffer == NULL || !KFIFO__IS_POW2(size))
		return -EINVAL;
	fifo->buffer = buffer;
	fifo->size = size;
	return 0;
}

/*
 * The alignment of kfifo_alloc()'s buffer: a cache line (the size, when
 * smaller).  malloc() promises 16 bytes, and where a large block lands
 * within a line depends on what the heap held before: in the zero-copy
 * benchmark the ring came out 48 bytes into a line while JACK's, allocated
 * the same way, started on one.  On a line, every region at an index that
 * is a multiple of 64 starts on a line too, which the caller's vector
 * fills and checks, and the string instructions of some CPUs, reward.
 */
static size_t kfifo__buffer_align(unsigned int size)
{
	return size < KFIFO__CACHELINE ? size : KFIFO__CACHELINE;
}

int kfifo_alloc(struct kfifo *fifo, unsigned int size, kfifo_gfp_t gfp_mask)
{
	unsigned int rounded = kfifo__roundup_pow2(size);
	void *buffer;

	(void)gfp_mask;
	kfifo__clear(fifo);
	if (rounded == 0)
		return -EINVAL;
	buffer = aligned_alloc(kfifo__buffer_align(rounded), rounded);
	if (buffer == NULL)
		return -ENOMEM;
	fifo->buffer = buffer;
	fifo->size = rounded;
	fifo->flags = KFIFO__OWNS_BUFFER;
	return 0;
}

void kfifo_free(struct kfifo *fifo)
{
	/* a handle gives its process's claims up (kfifo_shared_detach()) */
	kfifo_shared_detach(fifo);
	if (fifo->flags & KFIFO__OWNS_BUFFER)
		free(fifo->buffer);
	kfifo__clear(fifo);
}

void kfifo_reset(struct kfifo *fifo)
{
	enum kfifo__kind kind = kfifo__kind(fifo);

	kfifo__store_release(kfifo__in_word(fifo, kind), 0);
	kfifo__store_release(kfifo__out_word(fifo, kind), 0);
	fifo->kfifo__in_seen = fifo->kfifo__out_cache = 0;
	fifo->kfifo__out_seen = fifo->kfifo__in_cache = 0;
	__atomic_store_n(kfifo__closed_word(fifo, kind), 0, __ATOMIC_RELEASE);
}

void kfifo_reset_out(struct kfifo *fifo)
{
	enum kfifo__kind kind = kfifo__kind(fifo);

	if (kfifo__side_enter(fifo, KFIFO__OUT_SIDE) != 0)
		return;
	kfifo__set_out(fifo, kfifo__load_acquire(kfifo__in_word(fifo, kind)),
		       kind);
	kfifo__side_leave(fifo, KFIFO__OUT_SIDE);
}

int kfifo_valid(struct kfifo *fifo)
{
	unsigned int size = fifo->size;

	if (size == 0)
		return kfifo__load_acquire(&fifo->in) ==
		       kfifo__load_acquire(&fifo->out);
	return KFIFO__IS_POW2(size) && fifo->buffer != NULL &&
	       kfifo__snapshot(fifo, __ATOMIC_ACQUIRE) <= size;
}

int kfifo_initialized(struct kfifo *fifo)
{
	return fifo->buffer != NULL;
}

/* ---- size queries ----------------------------------------------------- */

/* The fill level for the size queries: a consistent snapshot, clamped
 * (kfifo_len() <= kfifo_size() even on a handle a peer corrupts). */
static unsigned int kfifo__len_now(struct kfifo *fifo)
{
	return kfifo__clamp(fifo, kfifo__snapshot(fifo, __ATOMIC_ACQUIRE));
}

unsigned int kfifo_size(struct kfifo *fifo)
{
	return fifo->size;
}

unsigned int kfifo_len(struct kfifo *fifo)
{
	return kfifo__len_now(fifo);
}

unsigned int kfifo_avail(struct kfifo *fifo)
{
	return fifo->size - kfifo__len_now(fifo);
}

int kfifo_is_empty(struct kfifo *fifo)
{
	return kfifo__len_now(fifo) == 0;
}

int kfifo_is_full(struct kfifo *fifo)
{
	return kfifo__len_now(fifo) == fifo->size;
}

/* ---- byte stream ------------------------------------------------------ */

__attribute__((noinline, cold)) void
kfifo__copy_in_wrap(struct kfifo *fifo, unsigned int off, const void *from,
		    unsigned int n)
{
	unsigned int first = fifo->size - off;

	memcpy(fifo->buffer + off, from, first);
	memcpy(fifo->buffer, (const unsigned char *)from + first, n - first);
}

__attribute__((noinline, cold)) void
kfifo__copy_out_wrap(struct kfifo *fifo, unsigned int off, void *to,
		     unsigned int n)
{
	unsigned int first = fifo->size - off;

	memcpy(to, fifo->buffer + off, first);
	memcpy((unsigned char *)to + first, fifo->buffer, n - first);
}

KFIFO__INLINE unsigned int kfifo__in_impl(struct kfifo *fifo,
					  const void *from, unsigned int n,
					  enum kfifo__kind kind)
{
	unsigned int in = kfifo__own_in(fifo, kind);
	unsigned int avail = kfifo__avail_for(fifo, in, n, kind);

	if (n > avail)
		n = avail;
	if (n == 0)
		return 0;
	kfifo__copy_in(fifo, in, from, n);
	return kfifo__publish_in(fifo, in + n, kind, n);
}

KFIFO__HANDLE_INSTANCE(KFIFO__IN_SIDE, 0, unsigned int, kfifo__in_impl,
		       (struct kfifo *fifo, const void *from, unsigned int n),
		       fifo, from, n)

unsigned int kfifo_in(struct kfifo *fifo, const void *from, unsigned int n)
{
	return KFIFO__BY_KIND(fifo, kfifo__in_impl, fifo, from, n);
}

KFIFO__INLINE unsigned int kfifo__out_impl(struct kfifo *fifo, void *to,
					   unsigned int n,
					   enum kfifo__kind kind)
{
	unsigned int out = kfifo__own_out(fifo, kind);
	unsigned int len = kfifo__len_for(fifo, out, n, kind);

	if (n > len)
		n = len;
	if (n == 0)
		return 0;
	kfifo__copy_out(fifo, out, to, n);
	return kfifo__publish_out(fifo, out + n, kind, n);
}

KFIFO__HANDLE_INSTANCE(KFIFO__OUT_SIDE, 0, unsigned int, kfifo__out_impl,
		       (struct kfifo *fifo, void *to, unsigned int n), fifo, to,
		       n)

unsigned int kfifo_out(struct kfifo *fifo, void *to, unsigned int n)
{
	return KFIFO__BY_KIND(fifo, kfifo__out_impl, fifo, to, n);
}

static unsigned int kfifo__out_peek_held(struct kfifo *fifo, void *to,
					 unsigned int n, unsigned int offset)
{
	enum kfifo__kind kind = kfifo__kind(fifo);
	unsigned int out = kfifo__own_out(fifo, kind);
	unsigned int need = n > UINT_MAX - offset ? UINT_MAX : n + offset;
	unsigned int len = kfifo__len_for(fifo, out, need, kind);

	if (offset >= len)
		return 0;
	if (n > len - offset)
		n = len - offset;
	if (n > 0)
		kfifo__copy_out(fifo, out + offset, to, n);
	return n;
}

unsigned int kfifo_out_peek(struct kfifo *fifo, void *to, unsigned int n,
			    unsigned int offset)
{
	unsigned int r;

	if (kfifo__side_hold(fifo, KFIFO__OUT_SIDE) != 0)
		return 0;
	r = kfifo__out_peek_held(fifo, to, n, offset);
	kfifo__side_unhold(fifo, KFIFO__OUT_SIDE);
	return r;
}

unsigned int kfifo_from_user(struct kfifo *fifo, const void *from,
			     unsigned int n)
{
	return kfifo_in(fifo, from, n);
}

unsigned int kfifo_to_user(struct kfifo *fifo, void *to, unsigned int n)
{
	return kfifo_out(fifo, to, n);
}

/* Mainline's four-argument forms (kfifo.h picks them by argument count). */
int kfifo_from_user_copied(struct kfifo *fifo, const void *from,
			   unsigned int n, unsigned int *copied)
{
	unsigned int k = kfifo_in(fifo, from, n);

	if (copied)
		*copied = k;
	return 0;
}

int kfifo_to_user_copied(struct kfifo *fifo, void *to, unsigned int n,
			 unsigned int *copied)
{
	unsigned int k = kfifo_out(fifo, to, n);

	if (copied)
		*copied = k;
	return 0;
}

void kfifo_skip(struct kfifo *fifo, unsigned int len)
{
	enum kfifo__kind kind = kfifo__kind(fifo);
	unsigned int out, in;

	if (kfifo__side_enter(fifo, KFIFO__OUT_SIDE) != 0)
		return;
	out = kfifo__own_out(fifo, kind);
	in = kfifo__load_acquire(kfifo__in_word(fifo, kind));
	kfifo__set_out(fifo, len < in - out ? out + len : in, kind);
	kfifo__side_leave(fifo, KFIFO__OUT_SIDE);
}

/* ---- locked calls ----------------------------------------------------- */

unsigned int kfifo_in_locked(struct kfifo *fifo, const void *from,
			     unsigned int n, kfifo_spinlock_t *lock)
{
	unsigned int ret;

	kfifo_spin_lock(lock);
	ret = kfifo_in(fifo, from, n);
	kfifo_spin_unlock(lock);
	return ret;
}

unsigned int kfifo_out_locked(struct kfifo *fifo, void *to, unsigned int n,
			      kfifo_spinlock_t *lock)
{
	unsigned int ret;

	kfifo_spin_lock(lock);
	ret = kfifo_out(fifo, to, n);
	kfifo_spin_unlock(lock);
	return ret;
}
