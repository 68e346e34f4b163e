/* SPDX-License-Identifier: MIT */
/*
 * kfifo_spinlock.c - the userspace spinlock behind spinlock_t.
 *
 * Test-and-test-and-set: waiters spin on a plain load (the cache line stays
 * shared until the holder releases it), pause the CPU between loads, and
 * yield to the scheduler after a while so that a preempted holder can run.
 * Critical sections here are one memcpy long, so that is enough.
 */
#define _POSIX_C_SOURCE 200809L
#include "kfifo_atomic.h"

#include <sched.h>

#define KFIFO__SPINS_BEFORE_YIELD 128

void kfifo_spin_lock_init(kfifo_spinlock_t *lock)
{
	__atomic_store_n(&lock->locked, 0, __ATOMIC_RELEASE);
}

int kfifo_spin_trylock(kfifo_spinlock_t *lock)
{
	return !__atomic_exchange_n(&lock->locked, 1, __ATOMIC_ACQUIRE);
}

void kfifo_spin_lock(kfifo_spinlock_t *lock)
{
	unsigned int spins = 0;

	while (!kfifo_spin_trylock(lock)) {
		while (__atomic_load_n(&lock->locked, __ATOMIC_RELAXED)) {
			if (++spins < KFIFO__SPINS_BEFORE_YIELD) {
				kfifo__cpu_relax();
			} else {
				spins = 0;
				sched_yield();
			}
		}
	}
}

void kfifo_spin_unlock(kfifo_spinlock_t *lock)
{
	__atomic_store_n(&lock->locked, 0, __ATOMIC_RELEASE);
}
