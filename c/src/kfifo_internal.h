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
/* (not on a shared fifo: another process may break them at any time) */
#define kfifo__debug_check(fifo)                                               \
	assert(kfifo__shared(fifo) || kfifo_valid(fifo))
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

/*
 * Flag bit of fifo->flags: @fifo is a process-local handle to a fifo whose
 * indices and wait words live in memory that several processes map
 * (API.md 3.2, kfifo_shared.c).  It chooses where the indices are
 * (kfifo__in_word() and its siblings), the shared futex instead of the process-private one, and
 * the fenced publication path (membarrier() reaches only this process's
 * threads), and it bounds the loops that read what the other side writes.
 */
#define KFIFO__SHARED 2u

static inline int kfifo__shared(const struct kfifo *fifo)
{
	return __builtin_expect((fifo->flags & KFIFO__SHARED) != 0, 0) != 0;
}

/*
 * The header of a shared fifo, layout version 2: kfifo.h documents it byte
 * by byte, kfifo_shared.c ties this struct to the KFIFO_SHARED_OFF_*
 * offsets.  It lies right before the data, so a handle finds it from its
 * own @buffer, which is private: the other process cannot move it.
 */
struct kfifo__shm {
	unsigned int magic, version, size, flags;
	unsigned int data_waiters, room_waiters, closed;
	unsigned int reserved0[9];
	unsigned int in, data_seq;
	unsigned int reserved1[14];
	unsigned int out, room_seq;
	unsigned int reserved2[30];
};

static inline struct kfifo__shm *kfifo__shm(const struct kfifo *fifo)
{
	return (struct kfifo__shm *)(void *)(fifo->buffer -
					     KFIFO_SHARED_OFF_DATA);
}

/*
 * The words both sides share: the indices, the wait words and the closed
 * flag.  They are the fifo's own members, or for a handle (@sh) the words
 * of the shared header.  Everything else (@buffer, @size, @flags, the
 * index caches) is always read from @fifo.
 */
#define KFIFO__CTL_WORD(fifo, sh, shm_member, own_member)                      \
	((sh) ? &kfifo__shm(fifo)->shm_member : &(fifo)->own_member)

static inline unsigned int *kfifo__in_word(struct kfifo *fifo, int sh)
{
	return KFIFO__CTL_WORD(fifo, sh, in, in);
}

static inline unsigned int *kfifo__out_word(struct kfifo *fifo, int sh)
{
	return KFIFO__CTL_WORD(fifo, sh, out, out);
}

static inline unsigned int *kfifo__closed_word(struct kfifo *fifo, int sh)
{
	return KFIFO__CTL_WORD(fifo, sh, closed, kfifo__closed);
}

static inline unsigned int *kfifo__data_waiters_word(struct kfifo *fifo,
						     int sh)
{
	return KFIFO__CTL_WORD(fifo, sh, data_waiters, kfifo__data_waiters);
}

static inline unsigned int *kfifo__room_waiters_word(struct kfifo *fifo,
						     int sh)
{
	return KFIFO__CTL_WORD(fifo, sh, room_waiters, kfifo__room_waiters);
}

static inline unsigned int *kfifo__data_seq_word(struct kfifo *fifo, int sh)
{
	return KFIFO__CTL_WORD(fifo, sh, data_seq, kfifo__data_seq);
}

static inline unsigned int *kfifo__room_seq_word(struct kfifo *fifo, int sh)
{
	return KFIFO__CTL_WORD(fifo, sh, room_seq, kfifo__room_seq);
}

/*
 * The helpers of the fast paths below take @sh, kfifo__shared(fifo), as
 * an argument: the byte and record calls and prepare/finish are compiled
 * twice from one body (KFIFO__BY_KIND), with @sh the constant 0 for an
 * ordinary fifo, which is then the code it was before shared fifos
 * existed, and 1 for a handle.  (Testing the flag inside each helper
 * instead cost ~4 % on a 16-byte round trip: after a memcpy() into the
 * buffer the compiler must read @flags again.)
 */
#define KFIFO__BY_KIND(fifo, call, ...)                                        \
	(kfifo__shared(fifo) ? call##_shared(__VA_ARGS__)                      \
			     : call(__VA_ARGS__, 0))

/*
 * The handles' instance of @call, out of line and cold, so that the
 * ordinary instance is laid out in the caller as before (an inlined second
 * instance cost ~5 % on the 16-byte round trip in bench/run-wait-cost.sh).
 */
#define KFIFO__SHARED_INSTANCE(ret, call, params, ...)                         \
	static __attribute__((noinline, cold)) ret call##_shared params       \
	{                                                                      \
		return call(__VA_ARGS__, 1);                                   \
	}

/*
 * The fill level from two index values.  Either may come from another
 * process that writes garbage, so the level is clamped to the size: every
 * count, copy and region derived from it then stays inside the buffer.  In
 * a fifo nobody corrupts, (in - out) <= size always and the clamp changes
 * nothing.
 */
static inline unsigned int kfifo__used(const struct kfifo *fifo,
				       unsigned int in, unsigned int out)
{
	unsigned int used = in - out;

	return used <= fifo->size ? used : fifo->size;
}

/* The same for a fifo of kind @sh: only a handle needs the clamp. */
static inline unsigned int kfifo__used_s(const struct kfifo *fifo,
					 unsigned int in, unsigned int out,
					 int sh)
{
	return sh ? kfifo__used(fifo, in, out) : in - out;
}

/*
 * Loops that retry while the other side moves an index end after this
 * many rounds on a shared fifo: a hostile process could move it forever.
 * (In one process every retry means progress, so they are lock-free.)
 */
#define KFIFO__SHARED_RETRIES 64u

/*
 * Test builds of the library (KFIFO_TEST_HOOKS, c/tests/CMakeLists.txt) tell
 * the test program about every index store right after it: a test then
 * looks at the fifo exactly as the other side could at that moment, which
 * makes the unlucky interleaving deterministic (test_publish.c).
 */
#ifdef KFIFO_TEST_HOOKS
void kfifo__test_index_stored(const unsigned int *index);
#else
#define kfifo__test_index_stored(index) ((void)0)
#endif

static inline void kfifo__store_release(unsigned int *p, unsigned int v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
	kfifo__test_index_stored(p);
}

/*
 * The fill level as seen by a third party.  @out is read on both sides of
 * @in: if it did not move, (in - out) is a level the fifo really had at the
 * moment @in was read.  Each retry means the consumer made progress, so the
 * loop is lock-free (bounded on a shared fifo).  Not clamped: kfifo_valid()
 * looks at it.
 */
static inline unsigned int kfifo__snapshot_raw(struct kfifo *fifo)
{
	int sh = kfifo__shared(fifo);
	unsigned int *pin = kfifo__in_word(fifo, sh);
	unsigned int *pout = kfifo__out_word(fifo, sh);
	unsigned int out, in, tries = 0;

	do {
		out = kfifo__load_acquire(pout);
		in = kfifo__load_acquire(pin);
	} while (out != kfifo__load_acquire(pout) &&
		 !(sh && ++tries >= KFIFO__SHARED_RETRIES));
	return in - out;
}

static inline unsigned int kfifo__snapshot_len(struct kfifo *fifo)
{
	/* (in, out) = (raw level, 0): the clamp of kfifo__used() */
	return kfifo__used(fifo, kfifo__snapshot_raw(fifo), 0);
}

/* ---- waiting: the publishers' half (the waiters' is kfifo_wait.c) -----
 *
 * Linux sleeps on a futex unless the CMake option KFIFO_WAIT_FALLBACK
 * asks for the portable sleep-poll loop, which other systems always use
 * and in which publishers have nothing to do.
 */
#if defined(__linux__) && !defined(KFIFO_WAIT_FALLBACK)
#define KFIFO__WAIT_FUTEX 1
#else
#define KFIFO__WAIT_FUTEX 0
#endif


/*
 * The wait state, per direction: "data" (consumers wait for @in to move)
 * and "room" (producers wait for @out to move).
 *
 *   waiters   how many threads wait in that direction.  Written only by a
 *             thread that starts or stops waiting; read by the publisher
 *             on every call, so it sits with @buffer and @size, a line
 *             that both sides read all the time and nobody writes while
 *             nobody waits.
 *   seq       the futex word the waiters sleep on: bit 0 says "someone may
 *             sleep on this value", bits 1-31 an epoch.  A wake turns it
 *             into the next even value (new epoch, bit clear) and makes
 *             the FUTEX_WAKE system call only if bit 0 was set.  A waiter
 *             sets bit 0 before it checks its condition, so a wake after
 *             the check always finds the bit set.  It sits
 *             on the waker's line (data_seq with @in, room_seq with
 *             @out), which the waiters read anyway to check @in / @out;
 *             the other side writes it only to set bit 0 before sleeping.
 *   closed    set by kfifo_close(), cleared by kfifo_reset().
 *
 * All are plain 32-bit words, zero in a fresh fifo, that could live in a
 * mapping shared between processes.
 *
 * No lost wake-up.  The publisher stores its index (P1), then reads the
 * waiters count of the other direction (P2) and, if it is not 0, bumps
 * seq and wakes (P3).  A waiter increments the count (W1), then, in a
 * loop, sets bit 0 of seq (remembering the value), checks its condition,
 * reading the index (W2), and sleeps only while seq still holds the value
 * it remembered (FUTEX_WAIT compares atomically).  This is Dekker's
 * pattern: it needs P1 before P2 and W1 before W2 in one order that both
 * threads agree on, or each can miss the other (on x86 the store P1 may
 * still sit in the store buffer when P2 reads, and the consumer go to
 * sleep on an old @in while the producer sees no waiter).  Then either P2
 * sees the waiter and P3 follows, which changes seq after the waiter
 * remembered it (the futex call fails or is woken), or W2 sees the new
 * index and the waiter does not sleep.  A seq read that sees P3's bump
 * reads from a release RMW, so the index stored before it is visible too.
 *
 * The usual way gives P1 and W1 a full fence each; the publisher's costs
 * ~2 ns on every call (bench/run-wait-cost.sh: a 16-byte in+out round
 * trip 20 % slower, column now_fenced).  So the fence is asymmetric, as
 * in userspace RCU and folly's asymmetric barriers: the publisher
 * keeps a release store and a relaxed load with only a compiler barrier
 * between them, and the waiter, after W1, calls
 * membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED), which makes every running
 * thread of the process execute a full barrier (a thread that is not
 * running passed one in the scheduler).  Wherever the publisher's barrier
 * falls: before P1, then P2 comes after W1 and sees the waiter; between P1
 * and P2, it is the fence Dekker needs; after P2, P1 is visible before the
 * membarrier() call returns, so W2 sees it.  One membarrier() per wait
 * call is enough: every later publication has its P2 after that barrier
 * and sees the count, which stays >= 1 until this waiter leaves.  Only a
 * thread about to sleep pays (a system call and an IPI per running CPU
 * of the process).
 *
 * When membarrier() cannot be registered (old kernel, seccomp), when the
 * fifo is shared between processes, and in the tests that force it,
 * publishers take the fenced path instead: P1 is a seq_cst store and P2 a
 * seq_cst load, W1 a seq_cst RMW and W2 seq_cst loads, so that the C11
 * single total order of seq_cst operations gives the same either-or.  The
 * choice is made once, by a constructor, before main(): every waiter and
 * every publisher agree on it.
 */

/* 1 once membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) is registered for
 * this process (kfifo_wait.c).  Tests set it to 0, while no fifo is in
 * use, to run the fenced path. */
extern __attribute__((visibility("hidden"))) unsigned char
	kfifo__membarrier_ready;

/* Whether publishers of @fifo may go without the fence (see above). */
static inline int kfifo__light_publish_s(int sh)
{
	/* (the hint on the load itself: on the && gcc put the fenced path
	 * in line, a taken jump on every ordinary publish) */
	return !sh && __builtin_expect(__atomic_load_n(&kfifo__membarrier_ready,
						       __ATOMIC_RELAXED),
				       1);
}

static inline int kfifo__light_publish(const struct kfifo *fifo)
{
	return kfifo__light_publish_s(kfifo__shared(fifo));
}

/*
 * P1 and P2: store @v into the index @idx, then return the number of
 * threads waiting for it to move (*@waiters).
 */
static inline unsigned int kfifo__store_index(unsigned int *idx,
					      unsigned int v,
					      const unsigned int *waiters,
					      int sh)
{
#if KFIFO__WAIT_FUTEX
	if (__builtin_expect(kfifo__light_publish_s(sh), 1)) {
		kfifo__store_release(idx, v);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		return kfifo__load_relaxed(waiters);
	}
	__atomic_store_n(idx, v, __ATOMIC_SEQ_CST);
	return __atomic_load_n(waiters, __ATOMIC_SEQ_CST);
#else
	(void)sh;
	(void)waiters;
	kfifo__store_release(idx, v);
	return 0;
#endif
}

/* P3, out of line (kfifo_wait.c): a new epoch in *@seq, and a FUTEX_WAKE
 * of every thread sleeping on it if any may be. */
void kfifo__wake(struct kfifo *fifo, unsigned int *seq);

/*
 * Publish a new @in and wake the consumers waiting for data: every call
 * that moves @in goes through here (or kfifo__publish_in(), which also
 * keeps the producer's index cache).
 */
static inline void kfifo__set_in_s(struct kfifo *fifo, unsigned int in,
				   int sh)
{
	if (kfifo__store_index(kfifo__in_word(fifo, sh), in,
			       kfifo__data_waiters_word(fifo, sh), sh))
		kfifo__wake(fifo, kfifo__data_seq_word(fifo, sh));
	kfifo__debug_check(fifo);
}

static inline void kfifo__set_in(struct kfifo *fifo, unsigned int in)
{
	kfifo__set_in_s(fifo, in, kfifo__shared(fifo));
}

/* Publish a new @out and wake the producers waiting for room. */
static inline void kfifo__set_out_s(struct kfifo *fifo, unsigned int out,
				    int sh)
{
	if (kfifo__store_index(kfifo__out_word(fifo, sh), out,
			       kfifo__room_waiters_word(fifo, sh), sh))
		kfifo__wake(fifo, kfifo__room_seq_word(fifo, sh));
	kfifo__debug_check(fifo);
}

static inline void kfifo__set_out(struct kfifo *fifo, unsigned int out)
{
	kfifo__set_out_s(fifo, out, kfifo__shared(fifo));
}

/* This side's own index (in a shared fifo the other process can write it
 * too: it is used only masked, and every level from it is clamped). */
static inline unsigned int kfifo__own_in(struct kfifo *fifo, int sh)
{
	return kfifo__load_relaxed(kfifo__in_word(fifo, sh));
}

static inline unsigned int kfifo__own_out(struct kfifo *fifo, int sh)
{
	return kfifo__load_relaxed(kfifo__out_word(fifo, sh));
}

/* The wait state of a fifo nobody uses: open, nobody waiting (on an
 * ordinary fifo, or on a handle being reset to one). */
static inline void kfifo__wait_clear(struct kfifo *fifo)
{
	__atomic_store_n(&fifo->kfifo__data_waiters, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&fifo->kfifo__room_waiters, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&fifo->kfifo__data_seq, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&fifo->kfifo__room_seq, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&fifo->kfifo__closed, 0, __ATOMIC_RELAXED);
}

/* Make @fifo an empty, open fifo of size 0 that owns nothing (the state
 * every failed set-up call leaves).  A handle's shared memory is left. */
static inline void kfifo__clear(struct kfifo *fifo)
{
	fifo->buffer = NULL;
	fifo->size = 0;
	fifo->flags = 0;
	kfifo_reset(fifo);
	kfifo__wait_clear(fifo);
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
_Static_assert(KFIFO__GAP(kfifo__closed, in) >= KFIFO__CACHELINE,
	       "the producer's line shares bytes with the read-mostly line");
_Static_assert(KFIFO__GAP(kfifo__data_seq, out) >= KFIFO__CACHELINE,
	       "the producer's and the consumer's lines share bytes");
_Static_assert(sizeof(struct kfifo) -
			       (offsetof(struct kfifo, kfifo__room_seq) +
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
					    unsigned int in, unsigned int need,
					    int sh)
{
	unsigned int avail =
		fifo->size - kfifo__used_s(fifo, in, fifo->kfifo__out_cache, sh);

	if (need > avail || in != fifo->kfifo__in_seen) {
		unsigned int out = kfifo__load_acquire(kfifo__out_word(fifo, sh));

		fifo->kfifo__out_cache = out;
		fifo->kfifo__in_seen = in;
		avail = fifo->size - kfifo__used_s(fifo, in, out, sh);
	}
	return avail;
}

/* The producer publishes @in (and wakes waiting consumers, see
 * kfifo__set_in()) and notes that the cached @out is relative to it. */
static inline void kfifo__publish_in(struct kfifo *fifo, unsigned int in,
				     int sh)
{
	kfifo__set_in_s(fifo, in, sh);
	fifo->kfifo__in_seen = in;
}

/* The consumer's mirror image: the fill level, at least @need if the fifo
 * holds that much. */
static inline unsigned int kfifo__len_for(struct kfifo *fifo,
					  unsigned int out, unsigned int need,
					  int sh)
{
	unsigned int len = kfifo__used_s(fifo, fifo->kfifo__in_cache, out, sh);

	if (need > len || out != fifo->kfifo__out_seen) {
		unsigned int in = kfifo__load_acquire(kfifo__in_word(fifo, sh));

		fifo->kfifo__in_cache = in;
		fifo->kfifo__out_seen = out;
		len = kfifo__used_s(fifo, in, out, sh);
	}
	return len;
}

/* The consumer's mirror image of kfifo__publish_in(). */
static inline void kfifo__publish_out(struct kfifo *fifo, unsigned int out,
				      int sh)
{
	kfifo__set_out_s(fifo, out, sh);
	fifo->kfifo__out_seen = out;
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
