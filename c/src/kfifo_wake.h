/* SPDX-License-Identifier: MIT */
/*
 * kfifo_wake.h - the wait protocol: how publishers (every call that moves
 * an index) and waiters (kfifo_wait.c) agree so that no wake-up is lost,
 * and why that is enough.  The publishers' half is here, in line on every
 * call; the out-of-line half of both sides is kfifo_wake.c.  Private:
 * nothing here is part of the API.
 *
 * Linux sleeps on a futex unless the CMake option KFIFO_WAIT_FALLBACK
 * asks for the portable sleep-poll loop, which other systems always use
 * and in which publishers have nothing to do.
 */
#ifndef KFIFO_WAKE_H
#define KFIFO_WAKE_H

#include "kfifo_atomic.h"

#include <time.h>

#if defined(__linux__) && !defined(KFIFO_WAIT_FALLBACK)
#define KFIFO__WAIT_FUTEX 1
#else
#define KFIFO__WAIT_FUTEX 0
#endif

/*
 * The wait state, per direction (enum kfifo__dir): "data" (consumers wait
 * for @in to move) and "room" (producers wait for @out to move).
 *
 *   waiters   how many threads wait in that direction: the ordinary ones
 *             in bits 0-15, the exclusive ones (below) from bit 16.
 *             Written only by a thread that starts or stops waiting; read
 *             by the publisher on every call, so it sits with @buffer and
 *             @size, a line that both sides read all the time and nobody
 *             writes while nobody waits.
 *   seq       the futex word the waiters sleep on: bit 0 (KFIFO__SEQ_ARMED)
 *             says "someone may sleep on this value", bit 1
 *             (KFIFO__SEQ_ALL) "this epoch woke every sleeper", bits 2-31
 *             an epoch.  A wake turns it into the next epoch and makes the
 *             FUTEX_WAKE system call only if bit 0 was set.  A waiter sets
 *             bit 0 before it checks its condition, so a wake after the
 *             check always finds the bit set.  It sits on the waker's line
 *             (data_seq with @in, room_seq with @out), which the waiters
 *             read anyway to check @in / @out; the other side writes it
 *             only to set bit 0 before sleeping.
 *   closed    set by kfifo_close(), cleared by kfifo_reset().
 *
 * All are plain 32-bit words, zero in a fresh fifo (the static
 * initialisers rely on it), that can live in a mapping shared between
 * processes (kfifo_kind.h says where each kind keeps them).
 *
 * The protocol, for data (room is the mirror image, with @out):
 *
 *     publisher (moves @in)               waiter (wants data)
 *     P1  store @in                       W1  waiters += 1   (+ membarrier)
 *     P2  w = load waiters                    loop {
 *     P3  if (w) {                              s = arm(seq)  (bit 0 set)
 *           seq = next epoch              W2    check: load @in ...
 *           FUTEX_WAKE if s had bit 0           if it holds: done
 *         }                                     FUTEX_WAIT(seq, s)
 *                                             }
 *                                             waiters -= 1
 *
 * No lost wake-up.  This is Dekker's pattern: it needs P1 before P2 and W1
 * before W2 in one order that both threads agree on, or each can miss the
 * other (on x86 the store P1 may still sit in the store buffer when P2
 * reads, and the consumer go to sleep on an old @in while the producer
 * sees no waiter).  With that order, one of the two reads comes second
 * and sees the other thread's write:
 *
 *   P2 sees the waiter:  P3 changes seq after the waiter armed s, so its
 *                        FUTEX_WAIT (which compares atomically) fails or
 *                        is woken;
 *   W2 sees the new @in: the waiter does not sleep.
 *
 * A seq read that sees P3's bump reads from a release RMW, so the index
 * stored before it is visible too.
 *
 * The order.  The usual way gives P1 and W1 a full fence each; the
 * publisher's costs ~2 ns on every call (bench/run-wait-cost.sh: a
 * 16-byte in+out round trip 20 % slower, column now_fenced).  So the fence
 * is asymmetric, as in userspace RCU and folly's asymmetric barriers: the
 * publisher keeps a release store and a relaxed load with only a compiler
 * barrier between them, and the waiter, after W1, calls
 * membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED), which makes every running
 * thread of the process execute a full barrier (a thread that is not
 * running passed one in the scheduler).  Wherever the publisher's barrier
 * falls: before P1, then P2 comes after W1 and sees the waiter; between P1
 * and P2, it is the fence Dekker needs; after P2, P1 is visible before the
 * membarrier() call returns, so W2 sees it.  One membarrier() per wait
 * call is enough: every later publication has its P2 after that barrier
 * and sees the count, which stays >= 1 until this waiter leaves.  Only a
 * thread about to sleep pays (a system call and an IPI per running CPU of
 * the process).
 *
 * When membarrier() cannot be registered (old kernel, seccomp), for a
 * handle (membarrier() does not reach the other process), and in the
 * tests that force it, publishers take the fenced path instead: P1 is a
 * seq_cst store and P2 a seq_cst load, W1 a seq_cst RMW and W2 seq_cst
 * loads, so that the C11 single total order of seq_cst operations gives
 * the same either-or.  The choice is made once, by a constructor, before
 * main(): every waiter and every publisher agree on it.
 *
 * Exclusive waiters.  A wake of every sleeper is what makes the argument
 * above hold for any mix of waiters: each one checks its own condition.
 * Its cost is a pool: ten consumer processes asleep on one fifo of "many"
 * consumers are all woken for every record, and nine go back to sleep
 * (with 64 KiB chunks on 2 cores, one consumer moved 11.5 GB/s and ten
 * 4.4 GB/s).  So a waiter for data on a side of many consumers that
 * takes what it waited for (kfifo__wait_take(): the binding's waits for
 * 4 KiB or more before a take; swig/kfpy_wait.c says why not smaller)
 * counts itself as exclusive (KFIFO__EXCL_ONE), and while every waiter of
 * the direction is exclusive a publisher wakes one sleeper, not all.
 * Three rules keep that from losing a wake-up:
 *
 *   E1  A wake of one keeps bit 0 set: the other sleepers still sleep,
 *       so the next publication makes the system call too.  (The one
 *       woken arms the word again before it checks, which would set the
 *       bit anyway; E1 also covers one that dies before it arms.)
 *   E2  The taker hands on.  Whoever takes on a side of many consumers
 *       (kfifo__side_leave(), after the lock is given up) wakes one more
 *       exclusive sleeper if data remains: a batch of records published
 *       at once, or the one woken took less than there was, never waits
 *       for the next publication.
 *   E3  The one woken that cannot use it wakes them all.  An exclusive
 *       waiter that finds, after its sleep, a new epoch without
 *       KFIFO__SEQ_ALL, its condition false and data stored, may hold the
 *       wake-up that another waiter's condition needed (they may wait for
 *       different lengths); it turns the epoch into one of KFIFO__SEQ_ALL
 *       and wakes every sleeper (kfifo__escalate()).  Those woken so see
 *       the flag and do not escalate again, so a publication costs at
 *       most one wake of all, as before.
 *
 * Why that suffices.  Let Z sleep, exclusive, while its condition holds.
 * The data came from a publication that saw Z counted (the argument
 * above) and so woke one sleeper X (maybe Z), or made the FUTEX_WAIT of
 * one not yet asleep fail.  X checks: if its condition holds it returns
 * and takes (or another consumer takes first), and the take hands on if
 * data remains (E2): the chain goes on while data remains and exclusive
 * waiters sleep, and it ends only when the data is gone (Z's condition no
 * longer holds) or Z is woken.  Each link makes the system call while
 * anyone sleeps: bit 0 is cleared only by a wake of all (E1, E3), after
 * which every sleeper has armed the word again.  If X's condition fails while data is
 * stored, X wakes all (E3), Z among them.  If no data is stored, no
 * waiter for data has a condition that holds.  A waiter whose condition
 * holds after its sleep returns success even at its deadline or after a
 * signal (kfifo__block() checks the condition first), so it does not
 * drop the wake-up on its way out.  What is left: a waiter that returns
 * success and then does not take (its process killed at that moment, or
 * its binding's fifo freed), which leaves the others asleep until the
 * next publication or take, or the end of their own timeouts (the
 * binding's waits end every KF_WAIT_SLICE_NS, 100 ms, and look again).
 * Ordinary waiters (kfifo_wait_len() and the rest, notifiers, waiters of
 * an older library in another process) count in bits 0-15: while one
 * waits, every wake is a wake of all, as before.  kfifo_close() always
 * wakes all.
 */

#define KFIFO__SEQ_ARMED 1u
#define KFIFO__SEQ_ALL 2u
#define KFIFO__SEQ_STEP 4u
/* an exclusive waiter's count in the waiters word */
#define KFIFO__EXCL_ONE 0x10000u

/* The next epoch after @seq, bits 0 and 1 clear. */
KFIFO__INLINE unsigned int kfifo__seq_next(unsigned int seq)
{
	return (seq & ~(KFIFO__SEQ_ARMED | KFIFO__SEQ_ALL)) + KFIFO__SEQ_STEP;
}

/* Whether the waiters word @w counts exclusive waiters and no others. */
KFIFO__INLINE int kfifo__excl_only(unsigned int w)
{
	return (w & (KFIFO__EXCL_ONE - 1u)) == 0 && w != 0;
}

/* 1 once membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) is registered for
 * this process (kfifo_wake.c).  Tests set it to 0, while no fifo is in
 * use, to run the fenced path. */
extern __attribute__((visibility("hidden"))) unsigned char
	kfifo__membarrier_ready;

/* Whether publishers of a fifo of @kind may go without the fence. */
KFIFO__INLINE int kfifo__light_publish(enum kfifo__kind kind)
{
	/* (the hint on the load itself: on the && gcc put the fenced path
	 * in line, a taken jump on every ordinary publish.  A plain read,
	 * not an atomic one: the flag changes only while no fifo is in use
	 * (above), and clang 14 then tests it in memory, one compare, where
	 * its relaxed atomic load was a load and a test.) */
	return kind == KFIFO__ORDINARY &&
	       __builtin_expect(kfifo__membarrier_ready != 0, 1);
}

/* P1 and P2: store @v into the index @idx, then return the number of
 * threads waiting for it to move (*@waiters). */
KFIFO__INLINE unsigned int kfifo__store_index(unsigned int *idx,
					      unsigned int v,
					      const unsigned int *waiters,
					      enum kfifo__kind kind)
{
#if KFIFO__WAIT_FUTEX
	if (__builtin_expect(kfifo__light_publish(kind), 1)) {
		kfifo__store_release(idx, v);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		return kfifo__load_relaxed(waiters);
	}
	__atomic_store_n(idx, v, __ATOMIC_SEQ_CST);
	return __atomic_load_n(waiters, __ATOMIC_SEQ_CST);
#else
	(void)kind;
	(void)waiters;
	kfifo__store_release(idx, v);
	return 0;
#endif
}

/* The futex half of P3 (kfifo_wake.c): a new epoch in *@seq, and a
 * FUTEX_WAKE of the threads sleeping on it if any may be: every one when
 * @all or when an ordinary waiter waits, else one (E1). */
void kfifo__futex_wake(struct kfifo *fifo, unsigned int *seq, int all);

/* E3 for an exclusive waiter that armed *@seq as @val: the same epoch
 * turned into one of KFIFO__SEQ_ALL, and a FUTEX_WAKE of every sleeper.
 * Returns 0, doing nothing, if *@seq is no longer @val. */
int kfifo__escalate(struct kfifo *fifo, unsigned int *seq, unsigned int val);

/* P3, out of line (kfifo_notify.c): kfifo__futex_wake(), then the armed
 * notifiers of that direction are signalled (kfifo__notify()). */
void kfifo__wake(struct kfifo *fifo, unsigned int *seq, int all);

/* kfifo__wake(), then return @ret (kfifo_notify.c): what a publishing
 * call ends with when somebody waits, so that it can jump here as its
 * last act (a tail call) with nothing of its own left to keep; see
 * kfifo__wake_if(). */
__attribute__((cold)) unsigned int
kfifo__wake_ret(struct kfifo *fifo, unsigned int *seq, unsigned int ret);

#if KFIFO__WAIT_FUTEX
/* Signal the armed notifiers of the direction whose futex word is @seq
 * (kfifo_notify.c, which has the argument that none is missed). */
void kfifo__notify(struct kfifo *fifo, unsigned int *seq);
#endif

/*
 * Fault injection, in test builds of the library only (KFIFO_TEST_HOOKS,
 * c/tests/CMakeLists.txt): before each system call of the wake path the
 * library asks kfifo__test_fault, when the test program set it, whether
 * that call is to fail, and with which errno (0: make the call).  The
 * fault model these sites test is in docs/notifiers.md.  In every other
 * build KFIFO__FAULT() is the constant 0 and costs nothing.
 */
enum kfifo__fault_site {
	KFIFO__FAULT_OPEN_ALLOC,   /* calloc() of kfifo_notifier_open() */
	KFIFO__FAULT_SEND_SOCKET,  /* socket() a publisher sends from */
	KFIFO__FAULT_SENDTO,       /* sendto() of a signal to a socket */
	KFIFO__FAULT_EVENTFD,      /* write() of a signal to an eventfd */
	KFIFO__FAULT_PROBE_SOCKET, /* socket() that asks whether a name is held */
	KFIFO__FAULT_FUTEX_WAKE,   /* FUTEX_WAKE */
	KFIFO__FAULT_FUTEX_WAIT    /* FUTEX_WAIT_BITSET */
};
#ifdef KFIFO_TEST_HOOKS
extern int (*kfifo__test_fault)(enum kfifo__fault_site site);
#define KFIFO__FAULT(site)                                                     \
	(kfifo__test_fault != NULL ? kfifo__test_fault(site) : 0)
#else
#define KFIFO__FAULT(site) 0
#endif

/* P1 and P2 for direction @dir: publish @v as the index its waiters wait
 * on (@in for data, @out for room); returns how many wait (P3's test). */
KFIFO__INLINE unsigned int kfifo__store_dir(struct kfifo *fifo,
					    enum kfifo__dir dir,
					    unsigned int v,
					    enum kfifo__kind kind)
{
	unsigned int *idx = dir == KFIFO__DATA_DIR ? kfifo__in_word(fifo, kind)
						   : kfifo__out_word(fifo, kind);

	return kfifo__store_index(idx, v, kfifo__waiters_word(fifo, kind, dir),
				  kind);
}

/*
 * P3 for direction @dir, @waiters being what P2 read: wake them if there
 * are any, and return @ret.  A publishing call returns through here after
 * everything else it does, so that the wake, the rare case, is a tail
 * call: the common path then keeps nothing live across a call and needs
 * no callee-saved registers (six push/pop and three mov per call with
 * the wake in the middle of the function, gcc 12 and clang 14).
 */
KFIFO__INLINE unsigned int kfifo__wake_if(struct kfifo *fifo,
					  enum kfifo__dir dir,
					  unsigned int waiters,
					  enum kfifo__kind kind,
					  unsigned int ret)
{
	if (__builtin_expect(waiters != 0, 0))
		return kfifo__wake_ret(fifo, kfifo__seq_word(fifo, kind, dir),
				       ret);
	return ret;
}

/*
 * P1-P3 for direction @dir: publish @v as the index its waiters wait on
 * (@in for data, @out for room) and wake them.  Every call that moves an
 * index goes through here or through kfifo__store_dir() and
 * kfifo__wake_if(), most through kfifo__publish_in/_out()
 * (kfifo_index.h), which also keep that side's index cache.
 */
KFIFO__INLINE void kfifo__set_index(struct kfifo *fifo, enum kfifo__dir dir,
				    unsigned int v, enum kfifo__kind kind)
{
	unsigned int waiters = kfifo__store_dir(fifo, dir, v, kind);

	kfifo__debug_check(fifo, kind);
	(void)kfifo__wake_if(fifo, dir, waiters, kind, 0);
}

/* Publish a new @in and wake the consumers waiting for data. */
KFIFO__INLINE void kfifo__set_in(struct kfifo *fifo, unsigned int in,
				 enum kfifo__kind kind)
{
	kfifo__set_index(fifo, KFIFO__DATA_DIR, in, kind);
}

/* Publish a new @out and wake the producers waiting for room. */
KFIFO__INLINE void kfifo__set_out(struct kfifo *fifo, unsigned int out,
				  enum kfifo__kind kind)
{
	kfifo__set_index(fifo, KFIFO__ROOM_DIR, out, kind);
}

/* ---- the waiters' half, out of line (kfifo_wake.c) ------------------- */

/*
 * W1: count a waiter in *@waiters (@one: 1, or KFIFO__EXCL_ONE for an
 * exclusive waiter) and order that before the checks that follow.
 * Returns whether the publishers are now sure to wake it (sleep on the
 * futex); if membarrier() fails after all (a seccomp filter installed
 * later), they are not, and the waiter polls.  The waiter counts itself
 * out with a seq_cst subtraction of @one when it leaves.
 */
int kfifo__announce(struct kfifo *fifo, unsigned int *waiters,
		    unsigned int one);

/* Set bit 0 of *@seq ("someone may sleep on this value") and return the
 * value with it set, the value to sleep on. */
unsigned int kfifo__arm(unsigned int *seq);

#if KFIFO__WAIT_FUTEX
/* Sleep on the futex *@seq while it holds @val, until @deadline
 * (CLOCK_MONOTONIC; NULL: no limit).  Returns EINTR if a signal handler
 * ended the sleep, else 0 (woken, timed out, or the value had changed). */
int kfifo__futex_wait(struct kfifo *fifo, unsigned int *seq, unsigned int val,
		      const struct timespec *deadline);
#endif

/* The wait state of a fifo nobody uses: open, nobody waiting (on an
 * ordinary fifo, or on a handle being reset to one). */
KFIFO__INLINE void kfifo__wait_clear(struct kfifo *fifo)
{
	__atomic_store_n(&fifo->kfifo__data_waiters, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&fifo->kfifo__room_waiters, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&fifo->kfifo__data_seq, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&fifo->kfifo__room_seq, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&fifo->kfifo__closed, 0, __ATOMIC_RELAXED);
}

#endif /* KFIFO_WAKE_H */
