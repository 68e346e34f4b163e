/* SPDX-License-Identifier: MIT */
/*
 * kfifo_internal.h - private helpers shared by the kfifo sources.
 *
 * Nothing here is part of the API: names carry the kfifo__ prefix.
 */
#ifndef KFIFO_INTERNAL_H
#define KFIFO_INTERNAL_H

#include <kfifo.h>

#include <stddef.h>
#include <string.h>

/*
 * Debug builds (KFIFO_DEBUG, which CMake defines for CMAKE_BUILD_TYPE=Debug)
 * check the invariants of kfifo_valid() after every store of an index.  The
 * check reads a consistent snapshot, so it holds while the other side runs.
 */
#ifdef KFIFO_DEBUG
#include <assert.h>
#define kfifo__debug_check(fifo) assert(kfifo_valid(fifo))
#else
#define kfifo__debug_check(fifo) ((void)0)
#endif

static inline unsigned int kfifo__load_relaxed(const unsigned int *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline unsigned int kfifo__load_acquire(const unsigned int *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void kfifo__store_release(unsigned int *p, unsigned int v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

/*
 * The fill level as seen by a third party.  @out is read on both sides of
 * @in: if it did not move, (in - out) is a level the fifo really had at the
 * moment @in was read.  Each retry means the consumer made progress, so the
 * loop is lock-free.
 */
static inline unsigned int kfifo__snapshot_len(struct kfifo *fifo)
{
	unsigned int out, in;

	do {
		out = kfifo__load_acquire(&fifo->out);
		in = kfifo__load_acquire(&fifo->in);
	} while (out != kfifo__load_acquire(&fifo->out));
	return in - out;
}

/*
 * The layout promised in kfifo.h: three groups of members, each two at
 * least a cache line apart (from the last byte of one to the first of the
 * next), and after the last group a cache line before whatever follows
 * the struct (DECLARE_KFIFO's buffer, the producer's data).
 */
#define KFIFO__GAP(last, first)                                                \
	(offsetof(struct kfifo, first) -                                       \
	 (offsetof(struct kfifo, last) + sizeof(unsigned int) - 1))
_Static_assert(KFIFO__GAP(flags, in) >= KFIFO__CACHELINE,
	       "the producer's line shares bytes with the read-mostly line");
_Static_assert(KFIFO__GAP(kfifo__out_cache, out) >= KFIFO__CACHELINE,
	       "the producer's and the consumer's lines share bytes");
_Static_assert(sizeof(struct kfifo) -
			       (offsetof(struct kfifo, kfifo__in_cache) +
				sizeof(unsigned int) - 1) >=
		       KFIFO__CACHELINE,
	       "the consumer's line reaches past the struct");
_Static_assert(_Alignof(struct kfifo) <= _Alignof(max_align_t),
	       "struct kfifo must fit any memory malloc() returns");

/*
 * The other side's index, cached (rigtorp's SPSCQueue, the kernel's
 * ptr_ring): reading it costs a cache miss whenever the other side wrote it
 * since, which is every call in a busy fifo.  The producer keeps the last
 * @out it read; it may only be behind the true @out (the consumer only
 * moves @out forward), so the space it shows is a lower bound and is good
 * enough whenever it covers the request.  The bound holds only while @in is
 * where this producer left it (@kfifo__in_seen): kfifo_reset(),
 * kfifo_init() and tests that set @in and @out by hand move it, and then
 * the cache is refreshed.  The acquire that loaded the cached value still
 * orders this thread after the other side's release, so using it later is
 * as safe as using it at once.
 */
static inline unsigned int kfifo__avail_for(struct kfifo *fifo,
					    unsigned int in, unsigned int need)
{
	unsigned int avail = fifo->size - (in - fifo->kfifo__out_cache);

	if (need > avail || in != fifo->kfifo__in_seen) {
		unsigned int out = kfifo__load_acquire(&fifo->out);

		fifo->kfifo__out_cache = out;
		fifo->kfifo__in_seen = in;
		avail = fifo->size - (in - out);
	}
	return avail;
}

static inline void kfifo__publish_in(struct kfifo *fifo, unsigned int in)
{
	kfifo__store_release(&fifo->in, in);
	fifo->kfifo__in_seen = in;
	kfifo__debug_check(fifo);
}

/* The consumer's mirror image: the fill level, at least @need if the fifo
 * holds that much. */
static inline unsigned int kfifo__len_for(struct kfifo *fifo,
					  unsigned int out, unsigned int need)
{
	unsigned int len = fifo->kfifo__in_cache - out;

	if (need > len || out != fifo->kfifo__out_seen) {
		unsigned int in = kfifo__load_acquire(&fifo->in);

		fifo->kfifo__in_cache = in;
		fifo->kfifo__out_seen = out;
		len = in - out;
	}
	return len;
}

static inline void kfifo__publish_out(struct kfifo *fifo, unsigned int out)
{
	kfifo__store_release(&fifo->out, out);
	fifo->kfifo__out_seen = out;
	kfifo__debug_check(fifo);
}

/*
 * The copy that crosses the end of the buffer, out of line (kfifo.c): the
 * rare case, kept out of the callers so that their fast path needs fewer
 * registers saved around the one memcpy.
 */
void kfifo__copy_in_wrap(struct kfifo *fifo, unsigned int off,
			 const void *from, unsigned int n);
void kfifo__copy_out_wrap(struct kfifo *fifo, unsigned int off, void *to,
			  unsigned int n);

/*
 * Copy @n bytes (0 < @n <= size) into the buffer at index @idx, splitting
 * at the end of the buffer.  One branch decides the split.
 */
static inline void kfifo__copy_in(struct kfifo *fifo, unsigned int idx,
				  const void *from, unsigned int n)
{
	unsigned int off = idx & (fifo->size - 1);

	if (__builtin_expect(n <= fifo->size - off, 1))
		memcpy(fifo->buffer + off, from, n);
	else
		kfifo__copy_in_wrap(fifo, off, from, n);
}

/* Copy @n bytes (0 < @n <= size) out of the buffer from index @idx. */
static inline void kfifo__copy_out(struct kfifo *fifo, unsigned int idx,
				   void *to, unsigned int n)
{
	unsigned int off = idx & (fifo->size - 1);

	if (__builtin_expect(n <= fifo->size - off, 1))
		memcpy(to, fifo->buffer + off, n);
	else
		kfifo__copy_out_wrap(fifo, off, to, n);
}

static inline unsigned char kfifo__byte_at(struct kfifo *fifo, unsigned int idx)
{
	return fifo->buffer[idx & (fifo->size - 1)];
}

static inline void kfifo__set_byte_at(struct kfifo *fifo, unsigned int idx,
				      unsigned char v)
{
	fifo->buffer[idx & (fifo->size - 1)] = v;
}

#endif /* KFIFO_INTERNAL_H */
