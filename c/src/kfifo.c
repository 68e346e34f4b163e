/* SPDX-License-Identifier: MIT */
/*
 * kfifo.c - set-up, size queries, the byte stream and the locked calls
 * (records are in kfifo_rec.c, the spinlock in kfifo_spinlock.c).
 *
 * Memory model.  @in is written only by the producer and @out only by the
 * consumer.  The producer reads @out with acquire (the consumer has finished
 * reading the bytes it released), copies its data, then publishes the new
 * @in with release.  The consumer mirrors it: acquire @in (the data behind
 * it is visible), copy, release @out.  Each side reads its own index
 * relaxed.  We use the compiler's C11 atomic builtins on plain unsigned
 * ints, which is what <stdatomic.h> expands to, so that struct kfifo keeps
 * the seed's plain layout and the header stays usable from C++.
 *
 * Each side reads the other side's index only when its cached copy shows
 * too little room or data (kfifo_internal.h explains why that is safe).
 * Every store of an index goes through kfifo__set_in/_out (or the
 * kfifo__publish_ variants), which also wake the threads waiting for it to
 * move (kfifo_wait.c).
 */
#include "kfifo_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- set-up and tear-down -------------------------------------------- */

int kfifo_init(struct kfifo *fifo, void *buffer, unsigned int size)
{
	kfifo__clear(fifo);
	if (buffer == NULL || !KFIFO__IS_POW2(size))
		return -EINVAL;
	fifo->buffer = buffer;
	fifo->size = size;
	return 0;
}

int kfifo_alloc(struct kfifo *fifo, unsigned int size, kfifo_gfp_t gfp_mask)
{
	unsigned int rounded = 1;
	void *buffer;

	(void)gfp_mask;
	kfifo__clear(fifo);
	if (size == 0 || size > (1u << 31))
		return -EINVAL;
	while (rounded < size)
		rounded <<= 1;
	buffer = malloc(rounded);
	if (buffer == NULL)
		return -ENOMEM;
	fifo->buffer = buffer;
	fifo->size = rounded;
	fifo->flags = KFIFO__OWNS_BUFFER;
	return 0;
}

void kfifo_free(struct kfifo *fifo)
{
	if (fifo->flags & KFIFO__OWNS_BUFFER)
		free(fifo->buffer);
	kfifo__clear(fifo);
}

void kfifo_reset(struct kfifo *fifo)
{
	int sh = kfifo__shared(fifo);

	kfifo__store_release(kfifo__in_word(fifo, sh), 0);
	kfifo__store_release(kfifo__out_word(fifo, sh), 0);
	fifo->kfifo__in_seen = fifo->kfifo__out_cache = 0;
	fifo->kfifo__out_seen = fifo->kfifo__in_cache = 0;
	__atomic_store_n(kfifo__closed_word(fifo, sh), 0, __ATOMIC_RELEASE);
}

void kfifo_reset_out(struct kfifo *fifo)
{
	kfifo__set_out(fifo, kfifo__load_acquire(
				     kfifo__in_word(fifo, kfifo__shared(fifo))));
}

int kfifo_valid(struct kfifo *fifo)
{
	unsigned int size = fifo->size;

	if (size == 0)
		return kfifo__load_acquire(&fifo->in) ==
		       kfifo__load_acquire(&fifo->out);
	return KFIFO__IS_POW2(size) && fifo->buffer != NULL &&
	       kfifo__snapshot_raw(fifo) <= size;
}

/* ---- size queries ----------------------------------------------------- */

unsigned int kfifo_size(struct kfifo *fifo)
{
	return fifo->size;
}

unsigned int kfifo_len(struct kfifo *fifo)
{
	return kfifo__snapshot_len(fifo);
}

unsigned int kfifo_avail(struct kfifo *fifo)
{
	return fifo->size - kfifo__snapshot_len(fifo);
}

int kfifo_is_empty(struct kfifo *fifo)
{
	return kfifo__snapshot_len(fifo) == 0;
}

int kfifo_is_full(struct kfifo *fifo)
{
	return kfifo__snapshot_len(fifo) == fifo->size;
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

static inline unsigned int kfifo__in_impl(struct kfifo *fifo,
					  const void *from, unsigned int n,
					  int sh)
{
	unsigned int in = kfifo__own_in(fifo, sh);
	unsigned int avail = kfifo__avail_for(fifo, in, n, sh);

	if (n > avail)
		n = avail;
	if (n == 0)
		return 0;
	kfifo__copy_in(fifo, in, from, n);
	kfifo__publish_in(fifo, in + n, sh);
	return n;
}

KFIFO__SHARED_INSTANCE(unsigned int, kfifo__in_impl,
		       (struct kfifo *fifo, const void *from, unsigned int n),
		       fifo, from, n)

unsigned int kfifo_in(struct kfifo *fifo, const void *from, unsigned int n)
{
	return KFIFO__BY_KIND(fifo, kfifo__in_impl, fifo, from, n);
}

static inline unsigned int kfifo__out_impl(struct kfifo *fifo, void *to,
					   unsigned int n, int sh)
{
	unsigned int out = kfifo__own_out(fifo, sh);
	unsigned int len = kfifo__len_for(fifo, out, n, sh);

	if (n > len)
		n = len;
	if (n == 0)
		return 0;
	kfifo__copy_out(fifo, out, to, n);
	kfifo__publish_out(fifo, out + n, sh);
	return n;
}

KFIFO__SHARED_INSTANCE(unsigned int, kfifo__out_impl,
		       (struct kfifo *fifo, void *to, unsigned int n), fifo, to,
		       n)

unsigned int kfifo_out(struct kfifo *fifo, void *to, unsigned int n)
{
	return KFIFO__BY_KIND(fifo, kfifo__out_impl, fifo, to, n);
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

void kfifo_skip(struct kfifo *fifo, unsigned int len)
{
	int sh = kfifo__shared(fifo);
	unsigned int out = kfifo__own_out(fifo, sh);
	unsigned int in = kfifo__load_acquire(kfifo__in_word(fifo, sh));

	kfifo__set_out(fifo, len < in - out ? out + len : in);
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
