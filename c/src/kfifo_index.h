/* SPDX-License-Identifier: MIT */
/*
 * kfifo_index.h - reading the indices: each side's own, a consistent
 * snapshot of both, and the other side's through a cache; and publishing
 * a side's own.  Private: nothing here is part of the API.
 *
 * Memory model.  @in is written only by the producer and @out only by the
 * consumer.  The producer reads @out with acquire (the consumer has
 * finished reading the bytes it released), copies its data, then publishes
 * the new @in with release.  The consumer mirrors it: acquire @in (the
 * data behind it is visible), copy, release @out.  Each side reads its own
 * index relaxed.
 */
#ifndef KFIFO_INDEX_H
#define KFIFO_INDEX_H

#include "kfifo_wake.h"

/* This side's own index (in a shared fifo the other process can write it
 * too: it is used only masked, and every level from it is clamped). */
KFIFO__INLINE unsigned int kfifo__own_in(struct kfifo *fifo,
					 enum kfifo__kind kind)
{
	return kfifo__load_relaxed(kfifo__in_word(fifo, kind));
}

KFIFO__INLINE unsigned int kfifo__own_out(struct kfifo *fifo,
					  enum kfifo__kind kind)
{
	return kfifo__load_relaxed(kfifo__out_word(fifo, kind));
}

/*
 * The fill level as a third party sees it, not clamped (kfifo_valid()
 * looks at it raw), with loads of memory order @order: __ATOMIC_ACQUIRE
 * for the size queries, __ATOMIC_SEQ_CST for the waiters' checks (W2 of
 * kfifo_wake.h).  @out is read on both sides of @in: if it did not move,
 * (in - out) is a level the fifo really had at the moment @in was read.
 * Each retry means the consumer made progress, so the loop is lock-free
 * (bounded on a handle).
 */
KFIFO__INLINE unsigned int kfifo__snapshot(struct kfifo *fifo, int order)
{
	enum kfifo__kind kind = kfifo__kind(fifo);
	unsigned int *pin = kfifo__in_word(fifo, kind);
	unsigned int *pout = kfifo__out_word(fifo, kind);
	unsigned int out, in, tries = 0;

	do {
		out = __atomic_load_n(pout, order);
		in = __atomic_load_n(pin, order);
	} while (out != __atomic_load_n(pout, order) &&
		 !(kind == KFIFO__HANDLE && ++tries >= KFIFO__HANDLE_RETRIES));
	return in - out;
}

/*
 * The other side's index, cached (rigtorp's SPSCQueue, the kernel's
 * ptr_ring): reading it costs a cache miss whenever the other side wrote
 * it since, which is every call in a busy fifo.  The producer keeps the
 * last @out it read (as @out + size, kfifo__room_from_cache()); it may
 * only be behind the true @out (the consumer
 * only moves @out forward), so the space it shows is a lower bound and is
 * good enough whenever it covers the request.  The bound holds only while
 * @in is where this producer left it (@kfifo__in_seen): kfifo_reset(),
 * kfifo_init() and tests that set @in and @out by hand move it, and then
 * the cache is refreshed.  The acquire that loaded the cached value still
 * orders this thread after the other side's release, so using it later is
 * as safe as using it at once.
 */
/* The free space from a fresh load of @out, which refreshes the cache
 * (kfifo__avail_for() below). */
KFIFO__INLINE unsigned int kfifo__avail_fresh(struct kfifo *fifo,
					      unsigned int in,
					      enum kfifo__kind kind)
{
	unsigned int out = kfifo__load_acquire(kfifo__out_word(fifo, kind));

	fifo->kfifo__out_cache = out + fifo->size;
	fifo->kfifo__in_seen = in;
	return fifo->size - kfifo__used(fifo, in, out, kind);
}

/*
 * The free space the producer's cache shows for @in.  The cache holds
 * not the @out it read but that @out plus the size, the index up to which
 * the producer may write: on an ordinary fifo the space is then one
 * subtraction, (@out + size) - @in, where it was size - (@in - @out), a
 * load of @size and two operations (one instruction fewer on every
 * producer's call, two on kfifo_in_finish(), which needs no @size
 * otherwise).  A handle clamps the level from the @out it derives.  The
 * cache of a fresh or reset fifo, 0 with @in and @in_seen 0, shows no
 * room, so that the first call refreshes.
 */
KFIFO__INLINE unsigned int kfifo__room_from_cache(const struct kfifo *fifo,
						  unsigned int in,
						  enum kfifo__kind kind)
{
	unsigned int end = fifo->kfifo__out_cache;

	if (kind == KFIFO__HANDLE)
		return fifo->size - kfifo__clamp(fifo, in - (end - fifo->size));
	return end - in;
}

KFIFO__INLINE unsigned int kfifo__avail_for(struct kfifo *fifo,
					    unsigned int in, unsigned int need,
					    enum kfifo__kind kind)
{
	unsigned int avail = kfifo__room_from_cache(fifo, in, kind);

	if (need > avail || in != fifo->kfifo__in_seen)
		avail = kfifo__avail_fresh(fifo, in, kind);
	return avail;
}

/*
 * The zero-copy calls' fast path (kfifo_region.c): whether @n bytes fit
 * in the space the cached @out shows and that cache is valid for @in, so
 * that kfifo__avail_for() would neither refresh nor cut @n, and @n is not
 * 0.  One unsigned compare covers both bounds (@n - 1 wraps to UINT_MAX
 * for 0, and the space is at most the size, at most 2^31), which saves
 * the clamp and the zero test the general path makes after the fact.
 * When it fails, the caller refreshes at once (kfifo__avail_fresh()),
 * without testing the cache a second time: for @n = 0 that refresh is
 * one that kfifo__avail_for() would have skipped, harmless (the cache
 * only gets newer) and the result is 0 either way.
 */
KFIFO__INLINE int kfifo__room_cached(struct kfifo *fifo, unsigned int in,
				     unsigned int n, enum kfifo__kind kind)
{
	unsigned int avail = kfifo__room_from_cache(fifo, in, kind);

	return (int)__builtin_expect(
		n - 1 < avail && in == fifo->kfifo__in_seen, 1);
}

/* The producer publishes @in (and wakes waiting consumers, see
 * kfifo__set_index()), notes that the cached @out is relative to it, and
 * returns @ret: a caller ends with "return kfifo__publish_in(..., n)" so
 * that the rare wake is its tail call (kfifo__wake_if()).  The note
 * comes between P2 and P3: it is this producer's own, no part of the
 * wait protocol, and must be in place before the wake (a tail call). */
KFIFO__INLINE unsigned int kfifo__publish_in(struct kfifo *fifo,
					     unsigned int in,
					     enum kfifo__kind kind,
					     unsigned int ret)
{
	unsigned int waiters = kfifo__store_dir(fifo, KFIFO__DATA_DIR, in, kind);

	fifo->kfifo__in_seen = in;
	kfifo__debug_check(fifo, kind);
	return kfifo__wake_if(fifo, KFIFO__DATA_DIR, waiters, kind, ret);
}

/* The consumer's mirror image of kfifo__avail_fresh(). */
KFIFO__INLINE unsigned int kfifo__len_fresh(struct kfifo *fifo,
					    unsigned int out,
					    enum kfifo__kind kind)
{
	unsigned int in = kfifo__load_acquire(kfifo__in_word(fifo, kind));

	fifo->kfifo__in_cache = in;
	fifo->kfifo__out_seen = out;
	return kfifo__used(fifo, in, out, kind);
}

/* The consumer's mirror image: the fill level, at least @need if the fifo
 * holds that much. */
KFIFO__INLINE unsigned int kfifo__len_for(struct kfifo *fifo,
					  unsigned int out, unsigned int need,
					  enum kfifo__kind kind)
{
	unsigned int len = kfifo__used(fifo, fifo->kfifo__in_cache, out, kind);

	if (need > len || out != fifo->kfifo__out_seen)
		len = kfifo__len_fresh(fifo, out, kind);
	return len;
}

/* The consumer's mirror image of kfifo__room_cached(), without the hint
 * (kfifo_out_prepare(), where it is not the common case). */
KFIFO__INLINE int kfifo__data_covered(struct kfifo *fifo, unsigned int out,
				      unsigned int n, enum kfifo__kind kind)
{
	unsigned int len = kfifo__used(fifo, fifo->kfifo__in_cache, out, kind);

	return n - 1 < len && out == fifo->kfifo__out_seen;
}

/* The consumer's mirror image of kfifo__room_cached(). */
KFIFO__INLINE int kfifo__data_cached(struct kfifo *fifo, unsigned int out,
				     unsigned int n, enum kfifo__kind kind)
{
	return (int)__builtin_expect(kfifo__data_covered(fifo, out, n, kind),
				     1);
}

/* The consumer's mirror image of kfifo__publish_in(). */
KFIFO__INLINE unsigned int kfifo__publish_out(struct kfifo *fifo,
					      unsigned int out,
					      enum kfifo__kind kind,
					      unsigned int ret)
{
	unsigned int waiters = kfifo__store_dir(fifo, KFIFO__ROOM_DIR, out, kind);

	fifo->kfifo__out_seen = out;
	kfifo__debug_check(fifo, kind);
	return kfifo__wake_if(fifo, KFIFO__ROOM_DIR, waiters, kind, ret);
}

#endif /* KFIFO_INDEX_H */
