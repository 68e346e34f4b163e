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

void kfifo__futex_wake(struct kfifo *fifo, unsigned int *seq)
{
	unsigned int old = __atomic_load_n(seq, __ATOMIC_RELAXED), tries = 0;

	/* the next epoch, bit 0 clear; release: whoever reads the new value
	 * sees the index stored before */
	while (!__atomic_compare_exchange_n(seq, &old, (old | 1u) + 1u, 1,
					    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
		/* Only waiters arming the word make the exchange fail, a
		 * few times at most, unless another process writes it all
		 * the time: then change it anyway and wake whoever sleeps. */
		if (++tries >= KFIFO__HANDLE_RETRIES) {
			old = __atomic_fetch_add(seq, 2u, __ATOMIC_SEQ_CST) | 1u;
			break;
		}
	}
#if KFIFO__WAIT_FUTEX
	/* FUTEX_WAKE fails only for a bad address or operation (EFAULT,
	 * EINVAL, ENOSYS), none of which a retry would mend; the sleepers'
	 * FUTEX_WAIT fails the same way (kfifo__futex_wait()) and they poll
	 * rather than sleep, so a failed wake loses nobody */
	if ((old & 1u) && KFIFO__FAULT(KFIFO__FAULT_FUTEX_WAKE) == 0)
		syscall(SYS_futex, seq, kfifo__futex_op(fifo, FUTEX_WAKE),
			INT_MAX, NULL, NULL, 0);
#else
	(void)fifo;
#endif
}

unsigned int kfifo__arm(unsigned int *seq)
{
	unsigned int s = __atomic_load_n(seq, __ATOMIC_ACQUIRE), tries = 0;

	/* bounded for the same reason as in kfifo__wake(): if the word keeps
	 * changing, the futex sleep on the value returned fails at once and
	 * the caller checks again (and its deadline) */
	while (!(s & 1u) &&
	       !__atomic_compare_exchange_n(seq, &s, s | 1u, 1,
					    __ATOMIC_SEQ_CST, __ATOMIC_ACQUIRE) &&
	       ++tries < KFIFO__HANDLE_RETRIES)
		;
	return s | 1u;
}

int kfifo__announce(struct kfifo *fifo, unsigned int *waiters)
{
	__atomic_add_fetch(waiters, 1, __ATOMIC_SEQ_CST);
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
