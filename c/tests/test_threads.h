/* SPDX-License-Identifier: MIT */
/*
 * test_threads.h - what the multi-threaded tests share (test_stress.c,
 * test_wait_stress.c, test_region.c): reporting a failure from a thread,
 * a small generator, the wait of a polling side, and the check of the
 * locked multi-producer multi-consumer stream.
 *
 * A thread cannot use the CHECK macros (they are not thread-safe and a
 * failing thread should stop its peers), so threads call kt_thread_error(),
 * which counts the failure and raises kt_stop; the main thread checks
 * kt_thread_errors == 0 once the threads are joined.  Each test program
 * includes this header once.
 */
#ifndef KFIFO_TEST_THREADS_H
#define KFIFO_TEST_THREADS_H

#include <kfifo.h>

#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test_harness.h"

/* ---- failures in threads ------------------------------------------------ */

/* Failures counted by kt_thread_error() (atomic). */
static unsigned long kt_thread_errors;
/* Raised on the first failure (atomic): a polling thread stops, so a dead
 * consumer cannot leave a producer spinning on a full fifo for ever. */
static int kt_stop;

/* Before the threads of one run start. */
static inline void kt_threads_reset(void)
{
	kt_thread_errors = 0;
	kt_stop = 0;
}

static inline int kt_stopped(void)
{
	return __atomic_load_n(&kt_stop, __ATOMIC_RELAXED);
}

/* Count a failure seen by a thread at position or sequence number @at;
 * the first ten are printed, with the test that was running. */
static inline void kt_thread_error(const char *what, unsigned long long at,
				   unsigned long long got,
				   unsigned long long want)
{
	__atomic_store_n(&kt_stop, 1, __ATOMIC_RELAXED);
	if (__atomic_fetch_add(&kt_thread_errors, 1, __ATOMIC_RELAXED) < 10)
		fprintf(stderr, "%s: %s at %llu: got %llu, expected %llu\n",
			th_test_name, what, at, got, want);
}

/* ---- a time budget ------------------------------------------------------- */

/*
 * How long the producers of one threaded run may go on: KFIFO_STRESS_SECONDS
 * (default 20).  A producer that finds the budget spent stops early and
 * says how far it got; its consumers then take exactly that much, checked
 * as always.  A busy machine (2 cores shared with 8 busy processes: every
 * hand-over through a small fifo may wait for a time slice) thus moves
 * fewer bytes instead of running into ctest's timeout; a quiet one moves
 * the whole count.  No check depends on the clock: the budget only decides
 * how much is moved, never whether what moved is right.
 */
static double kt_budget_end;

static inline double kt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Before the threads of one run start. */
static inline void kt_budget_start(void)
{
	kt_budget_end = kt_now() +
			(double)th_env_ull("KFIFO_STRESS_SECONDS", 20);
}

/* A producer asks once per loop; the clock is read every 64th time. */
static inline int kt_budget_spent(void)
{
	static _Thread_local unsigned int calls;

	return ++calls % 64 == 0 && kt_now() > kt_budget_end;
}

/* ---- helpers of the threads --------------------------------------------- */

/* xorshift32: each thread's own sequence of sizes and choices. */
static inline uint32_t kt_xorshift32(uint32_t *s)
{
	uint32_t x = *s;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}

/* A polling side found no room or no data: spin a little, then yield (on
 * 2 cores the other side needs the CPU). */
static inline void kt_backoff(unsigned int *spins)
{
	if (++*spins > 16) {
		*spins = 0;
		sched_yield();
	}
}

/* The @n bytes at @buf are the stream's bytes from position @pos
 * (th_pattern); otherwise the first wrong one is reported and 0 returned. */
static inline int kt_stream_ok(const unsigned char *buf, unsigned int n,
			       unsigned long long pos)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (buf[i] != th_pattern(pos + i)) {
			kt_thread_error("byte", pos + i, buf[i],
					th_pattern(pos + i));
			return 0;
		}
	}
	return 1;
}

/* Record number @seq's @len bytes: content that depends only on @seq, so
 * that a consumer can rebuild what it should have received. */
static inline void kt_rec_fill(unsigned char *buf, unsigned long long seq,
			       unsigned int len)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		buf[i] = th_pattern(seq * 131071u + i);
}

/* The @len bytes at @buf are record number @seq's; otherwise the mismatch
 * is reported and 0 returned. */
static inline int kt_rec_ok(const unsigned char *buf, unsigned long long seq,
			    unsigned int len)
{
	unsigned int i;

	for (i = 0; i < len; i++) {
		if (buf[i] != th_pattern(seq * 131071u + i)) {
			kt_thread_error("record content", seq, buf[i],
					th_pattern(seq * 131071u + i));
			return 0;
		}
	}
	return 1;
}

/* ---- several producers, several consumers, the locked calls -------------- */

/*
 * KT_NPROD producers each send per_producer elements (their id and a
 * sequence number) through kfifo_in_locked(); KT_NCONS consumers take them
 * with kfifo_out_locked().  The fifo only ever holds whole elements.  What
 * is checked: every element arrives exactly once (seen[]), and each
 * consumer sees each producer's elements in increasing order.  The
 * producers' and consumers' loops (polling or blocking) are the tests'
 * own; the elements, the bookkeeping and the final checks are here.
 */
#define KT_NPROD 3
#define KT_NCONS 3
#define KT_ELEM 8 /* producer id, sequence number: two uint32 */

struct kt_mpmc {
	struct kfifo fifo;
	kfifo_spinlock_t in_lock, out_lock;
	uint32_t per_producer;
	/* elements producer p sent: per_producer, or fewer when its time
	 * budget ran out (it stores this before counting itself done) */
	uint32_t sent[KT_NPROD];
	unsigned char *seen;   /* KT_NPROD * per_producer arrival counters */
	int producers_done;    /* atomic count */
	unsigned long long taken[KT_NCONS];
};

struct kt_mpmc_arg {
	struct kt_mpmc *m;
	uint32_t id;
};

/* A fifo of @size bytes whose indices wrap after @before elements,
 * @total_bytes / KT_ELEM elements in all (at least 1000 per producer).
 * Returns 0, or -1 (a failed CHECK) when memory is short. */
static inline int kt_mpmc_open(struct kt_mpmc *m, unsigned int size,
			       unsigned int before, unsigned long long total_bytes)
{
	memset(m, 0, sizeof(*m));
	if (!CHECK_INT(kfifo_alloc(&m->fifo, size, GFP_KERNEL), 0))
		return -1;
	m->fifo.in = m->fifo.out = UINT_MAX - before * KT_ELEM + 1;
	kfifo_spin_lock_init(&m->in_lock);
	kfifo_spin_lock_init(&m->out_lock);
	m->per_producer = (uint32_t)(total_bytes / KT_ELEM / KT_NPROD);
	if (m->per_producer < 1000)
		m->per_producer = 1000;
	for (unsigned int p = 0; p < KT_NPROD; p++)
		m->sent[p] = m->per_producer;
	kt_budget_start();
	m->seen = (unsigned char *)calloc((size_t)KT_NPROD * m->per_producer, 1);
	if (!CHECK(m->seen != NULL)) {
		kfifo_free(&m->fifo);
		return -1;
	}
	return 0;
}

/* Producer @id offers its elements @seq .. @seq + @n - 1 (n <= 8) through
 * kfifo_in_locked(); returns how many whole elements it stored. */
static inline uint32_t kt_mpmc_put(struct kt_mpmc *m, uint32_t id,
				   uint32_t seq, uint32_t n)
{
	unsigned char elems[KT_ELEM * 8];
	unsigned int k;
	uint32_t i;

	for (i = 0; i < n; i++) {
		uint32_t v[2] = { id, seq + i };

		memcpy(elems + i * KT_ELEM, v, KT_ELEM);
	}
	k = kfifo_in_locked(&m->fifo, elems, n * KT_ELEM, &m->in_lock);
	if (k % KT_ELEM != 0)
		kt_thread_error("in_locked split an element", seq, k, n * KT_ELEM);
	return k / KT_ELEM;
}

/* Consumer @id took @k bytes at @elems: check and count each element.
 * @last[p] is the last sequence number this consumer saw from producer p
 * (-1 at first).  Returns 0 when an element is out of range (the consumer
 * should stop), else 1. */
static inline int kt_mpmc_take(struct kt_mpmc *m, uint32_t id,
			       const unsigned char *elems, unsigned int k,
			       long long last[KT_NPROD])
{
	unsigned int i;

	if (k % KT_ELEM != 0)
		kt_thread_error("out_locked split an element", 0, k, KT_ELEM);
	for (i = 0; i + KT_ELEM <= k; i += KT_ELEM) {
		uint32_t v[2];

		memcpy(v, elems + i, KT_ELEM);
		if (v[0] >= KT_NPROD || v[1] >= m->per_producer) {
			kt_thread_error("element out of range", v[0], v[1], 0);
			return 0;
		}
		if ((long long)v[1] <= last[v[0]])
			kt_thread_error("element order", v[0], v[1],
					(unsigned long long)last[v[0]]);
		last[v[0]] = v[1];
		__atomic_add_fetch(&m->seen[v[0] * m->per_producer + v[1]], 1,
				   __ATOMIC_RELAXED);
		m->taken[id]++;
	}
	return 1;
}

/* Start the consumers, then the producers; join the producers, call
 * @producers_joined (may be NULL: kfifo_close, for blocking consumers),
 * join the consumers. */
static inline void kt_mpmc_run(struct kt_mpmc *m, void *(*producer)(void *),
			       void *(*consumer)(void *),
			       void (*producers_joined)(struct kt_mpmc *))
{
	struct kt_mpmc_arg pa[KT_NPROD], ca[KT_NCONS];
	pthread_t pt[KT_NPROD], ct[KT_NCONS];
	unsigned int k;

	for (k = 0; k < KT_NCONS; k++) {
		ca[k].m = m;
		ca[k].id = k;
		CHECK_INT(pthread_create(&ct[k], NULL, consumer, &ca[k]), 0);
	}
	for (k = 0; k < KT_NPROD; k++) {
		pa[k].m = m;
		pa[k].id = k;
		CHECK_INT(pthread_create(&pt[k], NULL, producer, &pa[k]), 0);
	}
	for (k = 0; k < KT_NPROD; k++)
		pthread_join(pt[k], NULL);
	if (producers_joined)
		producers_joined(m);
	for (k = 0; k < KT_NCONS; k++)
		pthread_join(ct[k], NULL);
}

/* After kt_mpmc_run: print what moved in @seconds, check that every
 * element arrived once and the fifo is empty and valid. */
static inline void kt_mpmc_check(struct kt_mpmc *m, double seconds)
{
	unsigned long long taken = 0, sent = 0, bad = 0, i;
	unsigned int k, p;

	for (k = 0; k < KT_NCONS; k++)
		taken += m->taken[k];
	for (p = 0; p < KT_NPROD; p++) {
		sent += m->sent[p];
		/* each element sent arrived once, none after what was sent */
		for (i = 0; i < m->per_producer; i++)
			bad += m->seen[p * m->per_producer + i] != (i < m->sent[p]);
	}
	printf("  locked: %u producers, %u consumers, %llu elements through a %u-byte fifo in %.2f s (taken %llu/%llu/%llu)%s\n",
	       KT_NPROD, KT_NCONS, taken, m->fifo.size, seconds, m->taken[0],
	       m->taken[1], m->taken[2],
	       sent < (unsigned long long)KT_NPROD * m->per_producer ?
	       " - time budget spent, producers stopped early" : "");
	CHECK_UINT(kt_thread_errors, 0);
	CHECK(sent > 0);
	CHECK_UINT(taken, sent);
	CHECK_UINT(bad, 0);
	CHECK_UINT(kfifo_len(&m->fifo), 0);
	CHECK_INT(kfifo_valid(&m->fifo), 1);
}

static inline void kt_mpmc_close(struct kt_mpmc *m)
{
	free(m->seen);
	kfifo_free(&m->fifo);
}

#endif /* KFIFO_TEST_THREADS_H */
