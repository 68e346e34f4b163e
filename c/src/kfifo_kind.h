/* SPDX-License-Identifier: MIT */
/*
 * kfifo_kind.h - the two kinds of struct kfifo, where each keeps the words
 * both sides share, the clamp of the fill level, and the double compile
 * of the fast paths.  Private: nothing here is part of the API.
 *
 * An ordinary fifo keeps its indices, wait words and closed flag in the
 * struct itself.  A handle (kfifo_shared.c) is a process-local struct
 * kfifo whose @buffer points at the data of a mapping that several
 * processes share; those words are in the mapping's header, right before
 * the data, and the process at the other end is not trusted.
 */
#ifndef KFIFO_KIND_H
#define KFIFO_KIND_H

/* the library defines the functions the typed API's macros shadow */
#define KFIFO__LIBRARY_BUILD 1
#include <kfifo.h>

/*
 * The bodies the double compile relies on are forced inline: the kind is
 * a constant in each instance, and it must fold away in all of them, not
 * only as far as the compiler's inlining heuristics reach (Concurrency
 * Kit forces its ring's helpers inline for the same reason).
 */
#define KFIFO__INLINE static inline __attribute__((always_inline))

/* Flag bit of fifo->flags: @fifo is a handle (KFIFO__OWNS_BUFFER, bit 0,
 * is in kfifo.h). */
#define KFIFO__SHARED 2u
/* Flag bits: the mode (kfifo_set_mode(), the header of a shared fifo).
 * Every call on a fifo with any of the three takes the out-of-line path. */
#define KFIFO__MANY_IN 4u
#define KFIFO__MANY_OUT 8u
#define KFIFO__SLOW (KFIFO__SHARED | KFIFO__MANY_IN | KFIFO__MANY_OUT)

/*
 * The kind decides where the shared words are (below), the futex flavour
 * and the fenced publication path (membarrier() reaches only this
 * process's threads; kfifo_wake.h), and it bounds the loops that read what
 * the other side writes.
 */
enum kfifo__kind {
	KFIFO__ORDINARY = 0, /* words in the struct; one trusted process */
	KFIFO__HANDLE = 1,   /* words in a shared mapping; untrusted peer */
};

KFIFO__INLINE enum kfifo__kind kfifo__kind(const struct kfifo *fifo)
{
	return __builtin_expect((fifo->flags & KFIFO__SHARED) != 0, 0)
		       ? KFIFO__HANDLE
		       : KFIFO__ORDINARY;
}

/*
 * The fast paths (the byte and record calls, prepare/finish) are written
 * once, as a forced-inline body taking the kind as its last argument, and
 * compiled twice: with KFIFO__ORDINARY, in line in the public function,
 * which is then the code it was before shared fifos existed, and with
 * KFIFO__HANDLE, out of line and cold (an inlined second instance cost ~5 %
 * on the 16-byte round trip; testing the flag inside each helper instead
 * ~4 %: after a memcpy() into the buffer the compiler must read @flags
 * again).
 */
/* Whether @fifo takes the inlined instance: an ordinary fifo of one
 * producer and one consumer.  The same one test of @flags as the kind's. */
KFIFO__INLINE int kfifo__fast(const struct kfifo *fifo)
{
	return (int)__builtin_expect((fifo->flags & KFIFO__SLOW) == 0, 1);
}

#define KFIFO__BY_KIND(fifo, call, ...)                                        \
	(kfifo__fast(fifo) ? call(__VA_ARGS__, KFIFO__ORDINARY)                \
			   : call##_handle(__VA_ARGS__))

/* The sides a call moves the index of (kfifo_lock.c). */
enum kfifo__side { KFIFO__IN_SIDE, KFIFO__OUT_SIDE };

/* Enter and leave @side: its lock in a many mode, the process's claim on
 * a handle of one producer / consumer (kfifo_lock.c). */
int kfifo__side_enter(struct kfifo *fifo, enum kfifo__side side);
void kfifo__side_leave(struct kfifo *fifo, enum kfifo__side side);
/* kfifo__side_leave() without E2's hand-on (kfifo_wake.h): for a waiter
 * that only looked, so that looking never wakes another waiter */
void kfifo__side_leave_quiet(struct kfifo *fifo, enum kfifo__side side);
/* kfifo_*_prepare() keeps the side entered when it returns regions, the
 * matching kfifo_*_finish() leaves it. */
void kfifo__side_keep(struct kfifo *fifo, enum kfifo__side side);
void kfifo__side_finish(struct kfifo *fifo, enum kfifo__side side);
/*
 * Hold @side, in a many mode on it, across a call that reads its state
 * without moving its index (a peek), or across a sequence of calls that
 * must see one state of it (a length read, then a take): its lock, taken
 * again, nested, by the calls inside.  With one on that side it takes
 * nothing and claims nothing, and costs a test of @flags.  Otherwise a
 * peek beside another thread's take reads a record that thread is taking
 * and, once the space is reused, a producer's new bytes over it; and it
 * writes the consumer's index cache (kfifo_index.h) under the holder.
 * kfifo__side_hold() fails only on a handle whose lock a live peer keeps
 * (errno says why): the call then reports nothing.
 */
KFIFO__INLINE unsigned int kfifo__many_flag(enum kfifo__side side)
{
	return side == KFIFO__IN_SIDE ? KFIFO__MANY_IN : KFIFO__MANY_OUT;
}

KFIFO__INLINE int kfifo__side_hold(struct kfifo *fifo, enum kfifo__side side)
{
	if (__builtin_expect(!(fifo->flags & kfifo__many_flag(side)), 1))
		return 0;
	return kfifo__side_enter(fifo, side);
}

KFIFO__INLINE void kfifo__side_unhold(struct kfifo *fifo, enum kfifo__side side)
{
	if (__builtin_expect((fifo->flags & kfifo__many_flag(side)) != 0, 0))
		kfifo__side_leave(fifo, side);
}

/* KFIFO_LOCK_PATIENCE_MS, a variable that tests shorten */
extern unsigned int kfifo__lock_patience_ms;

/*
 * The out-of-line instance, for a handle or a fifo with a many mode: the
 * side entered around the call (@fail is the call's result for "nothing
 * moved", when the side cannot be entered; errno says why), and the body
 * compiled for the kind.  @post runs with the result in kfifo__r, before the
 * side is left (KFIFO__KEEP_IF_REGIONS for the prepares).
 */
#define KFIFO__SIDE_INSTANCE(side, fail, post, ret, call, params, ...)        \
	static __attribute__((noinline, cold)) ret call##_handle params       \
	{                                                                      \
		ret kfifo__r;                                                  \
		if (kfifo__side_enter(fifo, side) != 0)                        \
			return fail;                                           \
		kfifo__r = kfifo__kind(fifo) == KFIFO__HANDLE                  \
				   ? call(__VA_ARGS__, KFIFO__HANDLE)          \
				   : call(__VA_ARGS__, KFIFO__ORDINARY);       \
		post;                                                          \
		kfifo__side_leave(fifo, side);                                 \
		return kfifo__r;                                               \
	}

#define KFIFO__HANDLE_INSTANCE(side, fail, ret, call, params, ...)             \
	KFIFO__SIDE_INSTANCE(side, fail, (void)0, ret, call, params,          \
			     __VA_ARGS__)

/*
 * Loops that retry while the other side moves an index end after this
 * many rounds on a handle: a hostile process could move it forever.  (In
 * one process every retry means progress, so they are lock-free.)
 */
#define KFIFO__HANDLE_RETRIES 64u

/*
 * The header of a shared fifo, layout version 3: kfifo.h documents it byte
 * by byte, kfifo_shared.c ties this struct to the KFIFO_SHARED_OFF_*
 * offsets.  It lies right before the data, so a handle finds it from its
 * own @buffer, which is private: the other process cannot move it.
 */
struct kfifo__shm {
	unsigned int magic, version, size, flags;
	unsigned int data_waiters, room_waiters, closed;
	unsigned int in_claim, out_claim; /* kfifo_lock.c */
	unsigned int reserved0[7];
	unsigned int in, data_seq, in_lock;
	unsigned int reserved1[13];
	unsigned int out, room_seq, out_lock;
	unsigned int reserved2[13];
	unsigned int notify[KFIFO_NOTIFY_SLOTS]; /* kfifo_notify.c */
};

KFIFO__INLINE struct kfifo__shm *kfifo__shm(const struct kfifo *fifo)
{
	return (struct kfifo__shm *)(void *)(fifo->buffer -
					     KFIFO_SHARED_OFF_DATA);
}

/*
 * The words both sides share: the indices, the wait words and the closed
 * flag, the fifo's own members or the words of the shared header.
 * Everything else (@buffer, @size, @flags, the index caches) is always
 * read from @fifo.
 */
#define KFIFO__WORD(fifo, kind, shm_member, own_member)                        \
	((kind) == KFIFO__HANDLE ? &kfifo__shm(fifo)->shm_member               \
				 : &(fifo)->own_member)

KFIFO__INLINE unsigned int *kfifo__in_word(struct kfifo *fifo,
					   enum kfifo__kind kind)
{
	return KFIFO__WORD(fifo, kind, in, in);
}

KFIFO__INLINE unsigned int *kfifo__out_word(struct kfifo *fifo,
					    enum kfifo__kind kind)
{
	return KFIFO__WORD(fifo, kind, out, out);
}

KFIFO__INLINE unsigned int *kfifo__closed_word(struct kfifo *fifo,
					       enum kfifo__kind kind)
{
	return KFIFO__WORD(fifo, kind, closed, kfifo__closed);
}

/* The two directions a thread can wait in, each with its waiters count
 * and its futex word (kfifo_wake.h). */
enum kfifo__dir { KFIFO__DATA_DIR, KFIFO__ROOM_DIR };

KFIFO__INLINE unsigned int *kfifo__waiters_word(struct kfifo *fifo,
						enum kfifo__kind kind,
						enum kfifo__dir dir)
{
	return dir == KFIFO__DATA_DIR
		       ? KFIFO__WORD(fifo, kind, data_waiters,
				     kfifo__data_waiters)
		       : KFIFO__WORD(fifo, kind, room_waiters,
				     kfifo__room_waiters);
}

KFIFO__INLINE unsigned int *kfifo__seq_word(struct kfifo *fifo,
					    enum kfifo__kind kind,
					    enum kfifo__dir dir)
{
	return dir == KFIFO__DATA_DIR
		       ? KFIFO__WORD(fifo, kind, data_seq, kfifo__data_seq)
		       : KFIFO__WORD(fifo, kind, room_seq, kfifo__room_seq);
}

/*
 * The clamp: a fill level computed from indices that another process may
 * have written as garbage is cut to the size, so that every count, copy
 * and region derived from it stays inside the buffer.  In a fifo nobody
 * corrupts, (in - out) <= size always and the clamp changes nothing.
 */
KFIFO__INLINE unsigned int kfifo__clamp(const struct kfifo *fifo,
					unsigned int used)
{
	return used <= fifo->size ? used : fifo->size;
}

/* The fill level on the fast paths: only a handle pays for the clamp. */
KFIFO__INLINE unsigned int kfifo__used(const struct kfifo *fifo,
				       unsigned int in, unsigned int out,
				       enum kfifo__kind kind)
{
	return kind == KFIFO__HANDLE ? kfifo__clamp(fifo, in - out) : in - out;
}

/* ---- set-up, out of line in kfifo.c -------------------------------- */

/* Make @fifo an empty, open, ordinary fifo of size 0 that owns nothing
 * (the state every failed set-up call leaves).  A handle's shared memory
 * is left. */
void kfifo__clear(struct kfifo *fifo);

/* @size rounded up to a power of two; 0 if @size is 0 or above 2^31
 * (kfifo_alloc(), kfifo_shared_bytes()). */
unsigned int kfifo__roundup_pow2(unsigned int size);

#endif /* KFIFO_KIND_H */
