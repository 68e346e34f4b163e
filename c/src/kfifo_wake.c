/* SPDX-License-Identifier: MIT */
/*
 * kfifo_wake.c - the out-of-line half of the wait protocol (kfifo_wake.h
 * has the protocol and the argument that no wake-up is lost): the
 * membarrier() registration, the futex half of P3 (a new epoch and the
 * FUTEX_WAKE), and the waiters' W1, arming and futex sleep.  kfifo_wait.c
 * decides what to wait for and for how long; this file only calls the
 * kernel, and calls no other file of the library: kfifo_notify.c (P3 as a
 * whole, kfifo__wake()) and kfifo_wait.c call it, never the other way.
 */
#if defined(__linux__)
#define _GNU_SOURCE /* syscall() */
#endif
#include "kfifo_wake.h"

#include <limits.h>

#if KFIFO__WAIT_FUTEX
#include <errno.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifdef SYS_membarrier
#include <linux/membarrier.h>
#endif
#endif

unsigned char kfifo__membarrier_ready;

#ifdef KFIFO_TEST_HOOKS
int (*kfifo__test_fault)(enum kfifo__fault_site site);
#endif

#if KFIFO__WAIT_FUTEX && defined(SYS_membarrier)
/*
 * Registered before main() so that the publishers' choice never changes
 * while fifos are in use.  A process that is still single-threaded
 * registers cheaply; a fork()ed child inherits it.
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

#if KFIFO__WAIT_FUTEX
/* A process-private futex for an ordinary fifo, a shared one for a
 * handle (the other process sleeps or wakes on the same word). */
static int kfifo__futex_op(struct kfifo *fifo, int op)
{
	return kfifo__kind(fifo) == KFIFO__HANDLE ? op
						  : op | FUTEX_PRIVATE_FLAG;
}
#endif

/* The waiters word of the direction whose futex word is @seq. */
static unsigned int *kfifo__waiters_of(struct kfifo *fifo, unsigned int *seq)
{
	enum kfifo__kind kind = kfifo__kind(fifo);
	enum kfifo__dir dir = seq == kfifo__seq_word(fifo, kind, KFIFO__DATA_DIR)
				      ? KFIFO__DATA_DIR
				      : KFIFO__ROOM_DIR;

	return kfifo__waiters_word(fifo, kind, dir);
}

/* FUTEX_WAKE of up to @count sleepers on *@seq.  It fails only for a bad
 * address or operation (EFAULT, EINVAL, ENOSYS), none of which a retry
 * would mend; the sleepers' FUTEX_WAIT fails the same way
 * (kfifo__futex_wait()) and they poll rather than sleep, so a failed
 * wake loses nobody. */
static void kfifo__futex_wake_n(struct kfifo *fifo, unsigned int *seq,
				int count)
{
#if KFIFO__WAIT_FUTEX
	if (KFIFO__FAULT(KFIFO__FAULT_FUTEX_WAKE) == 0)
		syscall(SYS_futex, seq, kfifo__futex_op(fifo, FUTEX_WAKE),
			count, NULL, NULL, 0);
#else
	(void)fifo;
	(void)seq;
	(void)count;
#endif
}

void kfifo__futex_wake(struct kfifo *fifo, unsigned int *seq, int all)
{
	unsigned int old = __atomic_load_n(seq, __ATOMIC_RELAXED), tries = 0;
	unsigned int next;

	/* one sleeper is enough only when every waiter takes what it waited
	 * for (kfifo_wake.h, "Exclusive waiters"); read after the caller's
	 * P2 or the taker's take, seq_cst as P2 is on the fenced path */
	if (!all)
		all = !kfifo__excl_only(
			__atomic_load_n(kfifo__waiters_of(fifo, seq),
					__ATOMIC_SEQ_CST));
	/* the next epoch: a wake of all clears bit 0 and sets KFIFO__SEQ_ALL,
	 * a wake of one keeps bit 0 (others may still sleep on an older
	 * value) and clears KFIFO__SEQ_ALL; release: whoever reads the new
	 * value sees the index stored before */
	do {
		next = kfifo__seq_next(old) |
		       (all ? KFIFO__SEQ_ALL : (old & KFIFO__SEQ_ARMED));
		if (__atomic_compare_exchange_n(seq, &old, next, 1,
						__ATOMIC_SEQ_CST,
						__ATOMIC_RELAXED))
			break;
		/* Only waiters arming the word make the exchange fail, a
		 * few times at most, unless another process writes it all
		 * the time: then change it anyway and wake whoever sleeps,
		 * all of them. */
		if (++tries >= KFIFO__HANDLE_RETRIES) {
			old = __atomic_fetch_add(seq, KFIFO__SEQ_STEP,
						 __ATOMIC_SEQ_CST) |
			      KFIFO__SEQ_ARMED;
			all = 1;
			break;
		}
	} while (1);
	if (old & KFIFO__SEQ_ARMED)
		kfifo__futex_wake_n(fifo, seq, all ? INT_MAX : 1);
}

int kfifo__escalate(struct kfifo *fifo, unsigned int *seq, unsigned int val)
{
	/* from the value this waiter armed, or fail: a new publication or
	 * another waiter's escalation changed it, and the caller looks again */
	if (!__atomic_compare_exchange_n(seq, &val,
					 kfifo__seq_next(val) | KFIFO__SEQ_ALL,
					 0, __ATOMIC_SEQ_CST,
					 __ATOMIC_RELAXED))
		return 0;
	kfifo__futex_wake_n(fifo, seq, INT_MAX);
	return 1;
}

unsigned int kfifo__arm(unsigned int *seq)
{
	unsigned int s = __atomic_load_n(seq, __ATOMIC_ACQUIRE), tries = 0;

	/* bounded for the same reason as in kfifo__wake(): if the word keeps
	 * changing, the futex sleep on the value returned fails at once and
	 * the caller checks again (and its deadline) */
	while (!(s & KFIFO__SEQ_ARMED) &&
	       !__atomic_compare_exchange_n(seq, &s, s | KFIFO__SEQ_ARMED, 1,
					    __ATOMIC_SEQ_CST, __ATOMIC_ACQUIRE) &&
	       ++tries < KFIFO__HANDLE_RETRIES)
		;
	return s | KFIFO__SEQ_ARMED;
}

int kfifo__announce(struct kfifo *fifo, unsigned int *waiters,
		    unsigned int one)
{
	__atomic_add_fetch(waiters, one, __ATOMIC_SEQ_CST);
#if KFIFO__WAIT_FUTEX
	if (!kfifo__light_publish(kfifo__kind(fifo)))
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

#if KFIFO__WAIT_FUTEX
int kfifo__futex_wait(struct kfifo *fifo, unsigned int *seq, unsigned int val,
		      const struct timespec *deadline)
{
	int fault = KFIFO__FAULT(KFIFO__FAULT_FUTEX_WAIT);
	long r;

	/* an absolute deadline: wake-ups do not restart the timeout */
	if (fault != 0) {
		errno = fault;
		r = -1;
	} else {
		r = syscall(SYS_futex, seq,
			    kfifo__futex_op(fifo, FUTEX_WAIT_BITSET), val,
			    deadline, NULL, FUTEX_BITSET_MATCH_ANY);
	}
	if (r != 0 && errno == EINTR)
		return EINTR;
	/* Every other outcome returns 0 and the caller checks its condition
	 * and its deadline again: woken, EAGAIN (the word had moved),
	 * ETIMEDOUT, and the failures (EFAULT, EINVAL, ENOSYS under a
	 * seccomp filter), after which the caller spins on its
	 * condition: a failed sleep costs CPU, never a wake-up.  (Its one caller compares the result
	 * with EINTR only, so returning any other value than EINTR here is
	 * the same program: the mutant "return 1" is equivalent.) */
	return 0;
}
#endif
