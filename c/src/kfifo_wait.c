/* SPDX-License-Identifier: MIT */
/*
 * kfifo_wait.c - waiting for room, data or a record, and the end of the
 * stream (docs/spec.md 3.1).
 *
 * A waiter checks its condition first and returns at once if that decides
 * it; otherwise it spins a little (kfifo__spin()), then announces itself
 * in the waiters count of its direction and loops: arm the futex word,
 * check, sleep until the word changes.  kfifo_wake.h has that protocol
 * and the argument that no wake-up is lost; kfifo_wake.c makes the system
 * calls.  This file decides what to wait for and for how long.
 *
 * Without futexes (other systems, or KFIFO_WAIT_FALLBACK) the same loop
 * sleeps for a bounded, growing time instead and checks again: nobody
 * needs to wake it, so the publishers do nothing.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime(), nanosleep() */
#include "kfifo_binding.h"
#include "kfifo_copy.h"
#include "kfifo_index.h"

#include <errno.h>
#include <limits.h>
#include <time.h>

/* The sleep of the poll loop grows from the first to the last value. */
#define KFIFO__POLL_FIRST_NS 16000L
#define KFIFO__POLL_MAX_NS 1000000L
/* Before sleeping, a waiter checks its condition this many more times,
 * with a CPU pause between checks (see kfifo__spin()). */
#define KFIFO__SPIN_ROUNDS 1024
/* at most this many pauses between two checks */
#define KFIFO__SPIN_MAX_PAUSES 32
/*
 * A producer facing a full fifo spins until 1/KFIFO__ROOM_SPIN_DIVISOR of
 * it is free (or the spin ends), not until its own @n bytes are:
 * refilling a full fifo one small record at a time moves the consumer's
 * index line between the cores on every record.  Measured with 16-byte
 * records between two processes (bench_procs --repeats 11): 27.6x
 * multiprocessing.Queue with a quarter and the spin's backoff, 19.0x
 * before.  Ping-pong traffic never fills the fifo and is not slowed;
 * consumers take data as soon as it is there.
 */
#define KFIFO__ROOM_SPIN_DIVISOR 4u
#define KFIFO__NSEC 1000000000L

/* ---- conditions ------------------------------------------------------- */

enum kfifo__cond { KFIFO__ROOM, KFIFO__DATA, KFIFO__RECORD };

/* The fill level, a consistent snapshot with the seq_cst loads of W2
 * (kfifo_wake.h), clamped. */
static unsigned int kfifo__wait_level(struct kfifo *fifo)
{
	return kfifo__clamp(fifo, kfifo__snapshot(fifo, __ATOMIC_SEQ_CST));
}

/* Whether the fifo holds the next record whole.  Consumer side: @out does
 * not move under us, so the header bytes are the next record's.  With
 * many consumers another one may take that record, and a producer write
 * over its header, while we read it: the check then holds the consumers'
 * side, as a peek does (a side a live peer keeps: not decided, 0). */
static int kfifo__record_stored_one(struct kfifo *fifo, unsigned int recsize)
{
	enum kfifo__kind kind = kfifo__kind(fifo);
	unsigned int out =
		__atomic_load_n(kfifo__out_word(fifo, kind), __ATOMIC_SEQ_CST);
	unsigned int len = kfifo__clamp(
		fifo,
		__atomic_load_n(kfifo__in_word(fifo, kind), __ATOMIC_SEQ_CST) -
			out);

	return len >= recsize &&
	       len - recsize >= kfifo__rec_header(fifo, out, recsize);
}

static int kfifo__record_stored(struct kfifo *fifo, unsigned int recsize)
{
	int r;

	if (!(fifo->flags & KFIFO__MANY_OUT))
		return kfifo__record_stored_one(fifo, recsize);
	/* no header stored: no record, and no lock taken (waiters check
	 * often while they spin; takers must not queue behind them) */
	if (kfifo__wait_level(fifo) < recsize)
		return 0;
	if (kfifo__side_enter(fifo, KFIFO__OUT_SIDE) != 0)
		return 0;
	r = kfifo__record_stored_one(fifo, recsize);
	kfifo__side_leave_quiet(fifo, KFIFO__OUT_SIDE);
	return r;
}

/*
 * 0 or -EPIPE when the wait is decided, 1 when it is not.  @closed is read
 * first: once it reads 1, everything published before kfifo_close() is
 * visible, so a condition that fails then will never hold.
 */
static int kfifo__decide(struct kfifo *fifo, enum kfifo__cond cond,
			 unsigned int n)
{
	int closed = __atomic_load_n(kfifo__closed_word(fifo, kfifo__kind(fifo)),
				     __ATOMIC_SEQ_CST) != 0;

	switch (cond) {
	case KFIFO__ROOM:
		if (closed)
			return -EPIPE;
		return fifo->size - kfifo__wait_level(fifo) >= n ? 0 : 1;
	case KFIFO__DATA:
		if (kfifo__wait_level(fifo) >= n)
			return 0;
		break;
	case KFIFO__RECORD:
		if (kfifo__record_stored(fifo, n))
			return 0;
		break;
	}
	return closed ? -EPIPE : 1;
}

/* ---- time --------------------------------------------------------------- */

/* now + @timeout_ns on CLOCK_MONOTONIC; 0 when that is too far to
 * represent (the wait is then unlimited: decades). */
static int kfifo__deadline(struct timespec *t, long long timeout_ns)
{
	long long secs = timeout_ns / KFIFO__NSEC;

	if (secs > INT_MAX / 2)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, t);
	t->tv_sec += (time_t)secs;
	t->tv_nsec += (long)(timeout_ns % KFIFO__NSEC);
	if (t->tv_nsec >= KFIFO__NSEC) {
		t->tv_sec++;
		t->tv_nsec -= KFIFO__NSEC;
	}
	return 1;
}

/* The nanoseconds left until @deadline, 0 once it passed. */
static long long kfifo__left(const struct timespec *deadline)
{
	struct timespec now;
	long long left;

	clock_gettime(CLOCK_MONOTONIC, &now);
	left = (long long)(deadline->tv_sec - now.tv_sec) * KFIFO__NSEC +
	       (deadline->tv_nsec - now.tv_nsec);
	return left > 0 ? left : 0;
}

/* ---- sleeping ------------------------------------------------------------ */

struct kfifo__sleeper {
	struct timespec deadline;
	int has_deadline;
	int futex;          /* sleep on the futex, else poll */
	long poll_ns;       /* the next sleep of the poll loop */
};

/* Sleep until *@seq may have left @val, the deadline passed or a signal
 * handler ran.  Returns EINTR for the last, else 0. */
static int kfifo__sleep(struct kfifo *fifo, struct kfifo__sleeper *sl,
			unsigned int *seq, unsigned int val)
{
	struct timespec ts;
	long long left;

#if KFIFO__WAIT_FUTEX
	if (sl->futex)
		return kfifo__futex_wait(fifo, seq, val,
					 sl->has_deadline ? &sl->deadline
							  : NULL);
#else
	(void)fifo;
	(void)seq;
	(void)val;
#endif
	left = sl->has_deadline ? kfifo__left(&sl->deadline) : sl->poll_ns;
	ts.tv_sec = 0;
	ts.tv_nsec = left < sl->poll_ns ? (long)left : sl->poll_ns;
	sl->poll_ns = sl->poll_ns < KFIFO__POLL_MAX_NS / 2 ? 2 * sl->poll_ns
							   : KFIFO__POLL_MAX_NS;
	return nanosleep(&ts, NULL) != 0 && errno == EINTR ? EINTR : 0;
}

/*
 * Spin before sleeping.  In a busy stream the other side acts again within
 * a microsecond or so (a 16-byte record takes ~0.3 us in Python, far less
 * in C), while a sleep costs the waiter a FUTEX_WAIT, the other side a
 * FUTEX_WAKE on every call until the waiter is counted out, and both a
 * wake-up latency of several microseconds.  Measured with 16-byte records
 * between two Python processes, sleeping at once delivered ~0.37 M
 * records/s.  So the waiter spins for KFIFO__SPIN_ROUNDS CPU pauses (tens
 * of microseconds at most: x86's pause takes 10 to 140 cycles), checking
 * its condition after 1, 2, 4 ... 32 of them, without announcing itself,
 * so the other side pays nothing, and sleeps only if the condition still
 * does not hold.  It never spins past its deadline.
 * Returns the result when the wait is decided, 1 when it is not.
 */
static int kfifo__spin(struct kfifo *fifo, enum kfifo__cond cond,
		       unsigned int n, const struct timespec *deadline)
{
	int i, k, pauses = 1, ret;
	unsigned int target = fifo->size / KFIFO__ROOM_SPIN_DIVISOR;
	unsigned int want = cond == KFIFO__ROOM && n < target ? target : n;

	for (i = 1; i <= KFIFO__SPIN_ROUNDS; i += pauses) {
		for (k = 0; k < pauses; k++)
			kfifo__cpu_relax();
		ret = kfifo__decide(fifo, cond, want);
		if (ret <= 0)
			return ret;
		if (deadline != NULL && kfifo__left(deadline) == 0) {
			/* the exact condition, not the producer's quarter,
			 * decides against the timeout */
			ret = want == n ? 1 : kfifo__decide(fifo, cond, n);
			return ret <= 0 ? ret : -ETIMEDOUT;
		}
		/* back off: each check pulls the other side's cache line away */
		if (pauses < KFIFO__SPIN_MAX_PAUSES)
			pauses *= 2;
	}
	return want == n ? 1 : kfifo__decide(fifo, cond, n);
}

/*
 * E3 (kfifo_wake.h): whether an exclusive waiter that armed @val, having
 * slept on @slept (or not yet slept: @slept_yet 0), must wake all, its
 * condition having just failed: a new epoch that did not wake all, and
 * data stored that another waiter may want.
 */
static int kfifo__must_escalate(struct kfifo *fifo, unsigned int val,
				unsigned int slept, int slept_yet)
{
	return slept_yet && !(val & KFIFO__SEQ_ALL) &&
	       kfifo__seq_next(val) != kfifo__seq_next(slept) &&
	       kfifo__wait_level(fifo) != 0;
}

/* The blocking part of every wait: the first check failed, timeout != 0.
 * @one: 1, or KFIFO__EXCL_ONE for an exclusive waiter (kfifo_wake.h). */
static int kfifo__block(struct kfifo *fifo, enum kfifo__cond cond,
			unsigned int n, long long timeout_ns, unsigned int one)
{
	enum kfifo__kind kind = kfifo__kind(fifo);
	enum kfifo__dir dir =
		cond == KFIFO__ROOM ? KFIFO__ROOM_DIR : KFIFO__DATA_DIR;
	unsigned int *waiters = kfifo__waiters_word(fifo, kind, dir);
	unsigned int *seq = kfifo__seq_word(fifo, kind, dir);
	unsigned int slept = 0;
	int intr = 0, ret, slept_yet = 0;
	struct kfifo__sleeper sl;

	sl.has_deadline = timeout_ns > 0 &&
			  kfifo__deadline(&sl.deadline, timeout_ns);
	ret = kfifo__spin(fifo, cond, n, sl.has_deadline ? &sl.deadline : NULL);
	if (ret <= 0)
		return ret;
	sl.poll_ns = KFIFO__POLL_FIRST_NS;
	sl.futex = kfifo__announce(fifo, waiters, one);
	for (;;) {
		unsigned int val = kfifo__arm(seq);

		ret = kfifo__decide(fifo, cond, n);
		if (ret <= 0)
			break;
		/* before the signal and the deadline: a wake-up this waiter
		 * cannot use goes to everyone before it leaves (E3) */
		if (one == KFIFO__EXCL_ONE &&
		    kfifo__must_escalate(fifo, val, slept, slept_yet)) {
			(void)kfifo__escalate(fifo, seq, val);
			slept = val;	/* once per epoch */
			continue;
		}
		if (intr) {
			ret = -EINTR;
			break;
		}
		if (sl.has_deadline && kfifo__left(&sl.deadline) == 0) {
			ret = -ETIMEDOUT;
			break;
		}
		intr = kfifo__sleep(fifo, &sl, seq, val) == EINTR;
		slept = val;
		slept_yet = 1;
	}
	__atomic_sub_fetch(waiters, one, __ATOMIC_SEQ_CST);
	return ret;
}

static int kfifo__wait(struct kfifo *fifo, enum kfifo__cond cond,
		       unsigned int n, long long timeout_ns, unsigned int one)
{
	int saved = errno, ret = kfifo__decide(fifo, cond, n);

	if (ret > 0)
		ret = timeout_ns == 0
			      ? -ETIMEDOUT
			      : kfifo__block(fifo, cond, n, timeout_ns, one);
	errno = saved;
	return ret;
}

/* ---- the API ------------------------------------------------------------- */

int kfifo_wait_avail(struct kfifo *fifo, unsigned int n, long long timeout_ns)
{
	if (n > fifo->size)
		return -EINVAL;
	return kfifo__wait(fifo, KFIFO__ROOM, n, timeout_ns, 1);
}

/* A wait for @n bytes (@record 0) or a record of header @n (1), its
 * arguments checked; @one as in kfifo__block(). */
static int kfifo__wait_data(struct kfifo *fifo, unsigned int n, int record,
			    long long timeout_ns, unsigned int one)
{
	if (record) {
		if (n != 1 && n != 2)
			return -EINVAL;
		return kfifo__wait(fifo, KFIFO__RECORD, n, timeout_ns, one);
	}
	if (n > fifo->size)
		return -EINVAL;
	return kfifo__wait(fifo, KFIFO__DATA, n, timeout_ns, one);
}

int kfifo_wait_len(struct kfifo *fifo, unsigned int n, long long timeout_ns)
{
	return kfifo__wait_data(fifo, n, 0, timeout_ns, 1);
}

int kfifo_wait_rec(struct kfifo *fifo, unsigned int recsize,
		   long long timeout_ns)
{
	return kfifo__wait_data(fifo, recsize, 1, timeout_ns, 1);
}

int kfifo__wait_take(struct kfifo *fifo, unsigned int n, int record,
		     long long timeout_ns)
{
	/* exclusive only where consumers are many: one consumer has nobody
	 * to share a wake-up with, and keeps the ordinary path exactly */
	return kfifo__wait_data(fifo, n, record, timeout_ns,
				fifo->flags & KFIFO__MANY_OUT ? KFIFO__EXCL_ONE
							      : 1u);
}

void kfifo_close(struct kfifo *fifo)
{
	/* The wakes are RMWs of the very words the waiters arm and sleep on,
	 * after the store: a waiter either reads a seq from after a wake, and
	 * then sees closed, or sleeps on an older value and is woken. */
	enum kfifo__kind kind = kfifo__kind(fifo);

	__atomic_store_n(kfifo__closed_word(fifo, kind), 1, __ATOMIC_SEQ_CST);
	kfifo__wake(fifo, kfifo__seq_word(fifo, kind, KFIFO__DATA_DIR), 1);
	kfifo__wake(fifo, kfifo__seq_word(fifo, kind, KFIFO__ROOM_DIR), 1);
}

int kfifo_is_closed(struct kfifo *fifo)
{
	return __atomic_load_n(kfifo__closed_word(fifo, kfifo__kind(fifo)),
			       __ATOMIC_ACQUIRE) != 0;
}
