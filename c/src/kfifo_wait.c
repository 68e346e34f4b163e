/* SPDX-License-Identifier: MIT */
/*
 * kfifo_wait.c - waiting for room, data or a record, and the end of the
 * stream (API.md 3.1).
 *
 * The publishers' half of the protocol, and the argument that no wake-up
 * is lost, are in kfifo_internal.h.  Here a waiter checks its condition
 * first and returns at once if that decides it; otherwise it announces
 * itself in the waiters count of its direction, makes the announcement
 * visible to the publishers (membarrier(), or nothing on the fenced path)
 * and then loops: arm the futex word (set bit 0), check, sleep until the
 * word changes.  The publishers change it only while someone is counted,
 * kfifo_close() always.
 *
 * Without futexes (other systems, or KFIFO_WAIT_FALLBACK) the same loop
 * sleeps for a bounded, growing time instead and checks again: nobody
 * needs to wake it, so the publishers do nothing.
 */
#if defined(__linux__)
#define _GNU_SOURCE /* syscall() */
#else
#define _POSIX_C_SOURCE 200809L
#endif
#include "kfifo_internal.h"

#include <errno.h>
#include <limits.h>
#include <time.h>

#if KFIFO__WAIT_FUTEX
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifdef SYS_membarrier
#include <linux/membarrier.h>
#endif
#endif

/* The sleep of the poll loop grows from the first to the last value. */
#define KFIFO__POLL_FIRST_NS 16000L
#define KFIFO__POLL_MAX_NS 1000000L
/* Before sleeping, a waiter checks its condition this many more times,
 * with a CPU pause between checks (see kfifo__spin()). */
#define KFIFO__SPIN_ROUNDS 1024
/* at most this many pauses between two checks */
#define KFIFO__SPIN_MAX_PAUSES 32
#define KFIFO__NSEC 1000000000L

unsigned char kfifo__membarrier_ready;

#if KFIFO__WAIT_FUTEX && defined(SYS_membarrier)
/*
 * Registered before main() so that the publishers' choice never changes
 * while fifos are in use (kfifo_internal.h).  A process that is still
 * single-threaded registers cheaply; a fork()ed child inherits it.
 */
__attribute__((constructor)) static void kfifo__membarrier_register(void)
{
	long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);

	if (cmds > 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
	    syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED,
		    0, 0) == 0)
		__atomic_store_n(&kfifo__membarrier_ready, 1, __ATOMIC_RELAXED);
}
#endif

/* ---- the futex word --------------------------------------------------- */

void kfifo__wake(struct kfifo *fifo, unsigned int *seq)
{
	unsigned int old = __atomic_load_n(seq, __ATOMIC_RELAXED), tries = 0;

	/* the next epoch, bit 0 clear; release: whoever reads the new value
	 * sees the index stored before */
	while (!__atomic_compare_exchange_n(seq, &old, (old | 1u) + 1u, 1,
					    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
		/* Only waiters arming the word make the exchange fail, a
		 * few times at most, unless another process writes it all
		 * the time: then change it anyway and wake whoever sleeps. */
		if (++tries >= KFIFO__SHARED_RETRIES) {
			old = __atomic_fetch_add(seq, 2u, __ATOMIC_SEQ_CST) | 1u;
			break;
		}
	}
#if KFIFO__WAIT_FUTEX
	if (old & 1u)
		syscall(SYS_futex, seq,
			FUTEX_WAKE | (kfifo__shared(fifo) ? 0 : FUTEX_PRIVATE_FLAG),
			INT_MAX, NULL, NULL, 0);
#else
	(void)fifo;
#endif
}

/* Set bit 0 of *@seq ("someone may sleep on this value") and return the
 * value with it set, the value to sleep on. */
static unsigned int kfifo__arm(unsigned int *seq)
{
	unsigned int s = __atomic_load_n(seq, __ATOMIC_ACQUIRE), tries = 0;

	/* bounded for the same reason as in kfifo__wake(): if the word keeps
	 * changing, the futex sleep on the value returned fails at once and
	 * the caller checks again (and its deadline) */
	while (!(s & 1u) &&
	       !__atomic_compare_exchange_n(seq, &s, s | 1u, 1,
					    __ATOMIC_SEQ_CST, __ATOMIC_ACQUIRE) &&
	       ++tries < KFIFO__SHARED_RETRIES)
		;
	return s | 1u;
}

/* ---- conditions ------------------------------------------------------- */

enum kfifo__cond { KFIFO__ROOM, KFIFO__DATA, KFIFO__RECORD };

/* The fill level, a consistent snapshot (kfifo__snapshot_len), with the
 * seq_cst loads the fenced path needs (kfifo_internal.h); clamped and
 * bounded like it. */
static unsigned int kfifo__wait_snapshot(struct kfifo *fifo)
{
	int sh = kfifo__shared(fifo);
	unsigned int *pin = kfifo__in_word(fifo, sh);
	unsigned int *pout = kfifo__out_word(fifo, sh);
	unsigned int out, in, tries = 0;

	do {
		out = __atomic_load_n(pout, __ATOMIC_SEQ_CST);
		in = __atomic_load_n(pin, __ATOMIC_SEQ_CST);
	} while (out != __atomic_load_n(pout, __ATOMIC_SEQ_CST) &&
		 !(sh && ++tries >= KFIFO__SHARED_RETRIES));
	return kfifo__used(fifo, in, out);
}

/* Whether the fifo holds the next record whole.  Consumer side: @out does
 * not move under us, so the header bytes are the next record's. */
static int kfifo__record_stored(struct kfifo *fifo, unsigned int recsize)
{
	int sh = kfifo__shared(fifo);
	unsigned int out =
		__atomic_load_n(kfifo__out_word(fifo, sh), __ATOMIC_SEQ_CST);
	unsigned int len = kfifo__used(
		fifo,
		__atomic_load_n(kfifo__in_word(fifo, sh), __ATOMIC_SEQ_CST),
		out);
	unsigned int l;

	if (len < recsize)
		return 0;
	l = kfifo__byte_at(fifo, out);
	if (recsize == 2)
		l |= (unsigned int)kfifo__byte_at(fifo, out + 1) << 8;
	return len - recsize >= l;
}

/*
 * 0 or -EPIPE when the wait is decided, 1 when it is not.  @closed is read
 * first: once it reads 1, everything published before kfifo_close() is
 * visible, so a condition that fails then will never hold.
 */
static int kfifo__decide(struct kfifo *fifo, enum kfifo__cond cond,
			 unsigned int n)
{
	int closed = __atomic_load_n(kfifo__closed_word(fifo,
							kfifo__shared(fifo)),
				     __ATOMIC_SEQ_CST) != 0;

	switch (cond) {
	case KFIFO__ROOM:
		if (closed)
			return -EPIPE;
		return fifo->size - kfifo__wait_snapshot(fifo) >= n ? 0 : 1;
	case KFIFO__DATA:
		if (kfifo__wait_snapshot(fifo) >= n)
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

/*
 * Announce a waiter (W1 of kfifo_internal.h) and order it before the
 * checks that follow.  Returns whether the publishers are now sure to wake
 * us; if membarrier() fails after all (a seccomp filter installed later),
 * they are not, and the waiter polls.
 */
static int kfifo__announce(struct kfifo *fifo, unsigned int *waiters)
{
	__atomic_add_fetch(waiters, 1, __ATOMIC_SEQ_CST);
#if KFIFO__WAIT_FUTEX
	if (!kfifo__light_publish(fifo))
		return 1;
#ifdef SYS_membarrier
	return syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0,
		       0) == 0;
#else
	return 0;
#endif
#else
	(void)fifo;
	return 0;
#endif
}

/* Sleep until *@seq may have left @val, the deadline passed or a signal
 * handler ran.  Returns EINTR for the last, else 0. */
static int kfifo__sleep(struct kfifo *fifo, struct kfifo__sleeper *sl,
			unsigned int *seq, unsigned int val)
{
	struct timespec ts;
	long long left;

#if KFIFO__WAIT_FUTEX
	if (sl->futex) {
		/* an absolute deadline: wake-ups do not restart the timeout */
		int op = FUTEX_WAIT_BITSET |
			 (kfifo__shared(fifo) ? 0 : FUTEX_PRIVATE_FLAG);

		if (syscall(SYS_futex, seq, op, val,
			    sl->has_deadline ? &sl->deadline : NULL, NULL,
			    FUTEX_BITSET_MATCH_ANY) != 0 && errno == EINTR)
			return EINTR;
		return 0;
	}
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

static inline void kfifo__cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
#endif
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
	/* A producer facing a full fifo spins for a quarter of it free (or
	 * for the spin to end): refilling it one small record at a time
	 * would move the consumer's index line between the cores on every
	 * record.  Ping-pong traffic never fills the fifo and is not slowed;
	 * consumers take data as soon as it is there. */
	unsigned int want = cond == KFIFO__ROOM && n < fifo->size / 4
				    ? fifo->size / 4 : n;

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

/* The blocking part of every wait: the first check failed, timeout != 0. */
static int kfifo__block(struct kfifo *fifo, enum kfifo__cond cond,
			unsigned int n, long long timeout_ns)
{
	int room = cond == KFIFO__ROOM, intr = 0, ret;
	int sh = kfifo__shared(fifo);
	unsigned int *waiters = room ? kfifo__room_waiters_word(fifo, sh)
				     : kfifo__data_waiters_word(fifo, sh);
	unsigned int *seq = room ? kfifo__room_seq_word(fifo, sh)
				 : kfifo__data_seq_word(fifo, sh);
	struct kfifo__sleeper sl;

	sl.has_deadline = timeout_ns > 0 &&
			  kfifo__deadline(&sl.deadline, timeout_ns);
	ret = kfifo__spin(fifo, cond, n, sl.has_deadline ? &sl.deadline : NULL);
	if (ret <= 0)
		return ret;
	sl.poll_ns = KFIFO__POLL_FIRST_NS;
	sl.futex = kfifo__announce(fifo, waiters);
	for (;;) {
		unsigned int val = kfifo__arm(seq);

		ret = kfifo__decide(fifo, cond, n);
		if (ret <= 0)
			break;
		if (intr) {
			ret = -EINTR;
			break;
		}
		if (sl.has_deadline && kfifo__left(&sl.deadline) == 0) {
			ret = -ETIMEDOUT;
			break;
		}
		intr = kfifo__sleep(fifo, &sl, seq, val) == EINTR;
	}
	__atomic_sub_fetch(waiters, 1, __ATOMIC_SEQ_CST);
	return ret;
}

static int kfifo__wait(struct kfifo *fifo, enum kfifo__cond cond,
		       unsigned int n, long long timeout_ns)
{
	int saved = errno, ret = kfifo__decide(fifo, cond, n);

	if (ret > 0)
		ret = timeout_ns == 0 ? -ETIMEDOUT
				      : kfifo__block(fifo, cond, n, timeout_ns);
	errno = saved;
	return ret;
}

/* ---- the API ------------------------------------------------------------- */

int kfifo_wait_avail(struct kfifo *fifo, unsigned int n, long long timeout_ns)
{
	if (n > fifo->size)
		return -EINVAL;
	return kfifo__wait(fifo, KFIFO__ROOM, n, timeout_ns);
}

int kfifo_wait_len(struct kfifo *fifo, unsigned int n, long long timeout_ns)
{
	if (n > fifo->size)
		return -EINVAL;
	return kfifo__wait(fifo, KFIFO__DATA, n, timeout_ns);
}

int kfifo_wait_rec(struct kfifo *fifo, unsigned int recsize,
		   long long timeout_ns)
{
	if (recsize != 1 && recsize != 2)
		return -EINVAL;
	return kfifo__wait(fifo, KFIFO__RECORD, recsize, timeout_ns);
}

void kfifo_close(struct kfifo *fifo)
{
	/* The wakes are RMWs of the very words the waiters arm and sleep on,
	 * after the store: a waiter either reads a seq from after a wake, and
	 * then sees closed, or sleeps on an older value and is woken. */
	int sh = kfifo__shared(fifo);

	__atomic_store_n(kfifo__closed_word(fifo, sh), 1, __ATOMIC_SEQ_CST);
	kfifo__wake(fifo, kfifo__data_seq_word(fifo, sh));
	kfifo__wake(fifo, kfifo__room_seq_word(fifo, sh));
}

int kfifo_is_closed(struct kfifo *fifo)
{
	return __atomic_load_n(kfifo__closed_word(fifo, kfifo__shared(fifo)),
			       __ATOMIC_ACQUIRE) != 0;
}
