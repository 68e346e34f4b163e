/* SPDX-License-Identifier: MIT */
/*
 * test_stress.c - threads (docs/spec.md 1.5).
 *
 *  - one producer and one consumer, lock-free, on a small fifo whose
 *    indices start just below 2^32: a stream of position-dependent bytes,
 *    and streams of records (recsize 0, 1 and 2) carrying a sequence
 *    number; the consumer checks every byte and record in order, and an
 *    observer thread checks kfifo_len() / kfifo_valid() snapshots;
 *  - several producers and several consumers through kfifo_in_locked() /
 *    kfifo_out_locked(), each side with its own lock: every element
 *    arrives exactly once, in per-producer order for each consumer.
 *
 * Environment: KFIFO_STRESS_BYTES=<n> bytes through the byte stream (half
 * through a 64-byte fifo, half through a 1024-byte one); the record streams
 * carry about n/4 bytes per recsize and the locked test n/10.  Default set
 * by CMake: 2e7, 2e6 under ThreadSanitizer; the long mode is 1e8 or more
 * (accepts 1e8 notation).  KFIFO_STRESS_SECONDS: each run's time budget
 * (test_threads.h), after which the producers stop early.
 */
#define _POSIX_C_SOURCE 200809L
#include <kfifo.h>
#include "kfifo_binding.h" /* kfifo__in_rec_open, kfifo__out_rec_len */

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "test_harness.h"
#include "test_threads.h"

#ifndef KFIFO_STRESS_BYTES_DEFAULT
#define KFIFO_STRESS_BYTES_DEFAULT 20000000ULL
#endif

static unsigned long long stress_bytes;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Chunk sizes: mostly small, sometimes larger than the fifo. */
static unsigned int chunk(uint32_t *s, unsigned int size)
{
	uint32_t x = kt_xorshift32(s);

	if ((x & 7) == 0)
		return x % (2 * size) + 1;
	return x % 37 + 1;
}

struct spsc {
	struct kfifo fifo;
	unsigned long long total;    /* bytes, or records; lowered by the
				      * producer when its budget is spent
				      * (atomic) */
	unsigned int recsize;
	int done;                    /* producer finished (atomic) */
	int consumer_done;           /* consumer finished (atomic) */
	unsigned long long observed; /* observer snapshots taken */
};

/* The producer's time budget ran out at @at (bytes or records): the
 * stream ends there, for the consumer too. */
static void spsc_stop_at(struct spsc *t, unsigned long long at)
{
	__atomic_store_n(&t->total, at, __ATOMIC_RELAXED);
}

static unsigned long long spsc_total(struct spsc *t)
{
	return __atomic_load_n(&t->total, __ATOMIC_RELAXED);
}

/* ---- the byte stream ------------------------------------------------- */

static void *byte_producer(void *arg)
{
	struct spsc *t = (struct spsc *)arg;
	unsigned char buf[4096];
	unsigned long long pos = 0;
	uint32_t s = 12345;
	unsigned int spins = 0;

	while (pos < t->total && !kt_stopped()) {
		unsigned int n = chunk(&s, t->fifo.size), i, k;

		if (kt_budget_spent()) {
			spsc_stop_at(t, pos);
			break;
		}
		if (n > t->total - pos)
			n = (unsigned int)(t->total - pos);
		for (i = 0; i < n; i++)
			buf[i] = th_pattern(pos + i);
		k = kfifo_in(&t->fifo, buf, n);
		if (k > n)
			kt_thread_error("kfifo_in count", pos, k, n);
		pos += k;
		if (k < n)
			kt_backoff(&spins);
	}
	__atomic_store_n(&t->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *byte_consumer(void *arg)
{
	struct spsc *t = (struct spsc *)arg;
	unsigned char buf[4096];
	unsigned long long pos = 0;
	uint32_t s = 999;
	unsigned int spins = 0;

	while (pos < spsc_total(t) && !kt_stopped()) {
		unsigned int n = chunk(&s, t->fifo.size), k;

		switch (kt_xorshift32(&s) % 8) {
		case 0: /* kfifo_skip instead of reading */
			k = kfifo_len(&t->fifo);
			if (k > n)
				k = n;
			kfifo_skip(&t->fifo, k);
			pos += k;
			continue;
		case 1:
			k = kfifo_to_user(&t->fifo, buf, n);
			break;
		default:
			k = kfifo_out(&t->fifo, buf, n);
			break;
		}
		if (!kt_stream_ok(buf, k, pos))
			return NULL;
		pos += k;
		if (k == 0)
			kt_backoff(&spins);
	}
	if (kfifo_len(&t->fifo) != 0)
		kt_thread_error("fifo not empty at the end", pos,
			     kfifo_len(&t->fifo), 0);
	__atomic_store_n(&t->consumer_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* A third thread takes snapshots while both sides run. */
static void *observer(void *arg)
{
	struct spsc *t = (struct spsc *)arg;

	while (!__atomic_load_n(&t->consumer_done, __ATOMIC_ACQUIRE)) {
		unsigned int len = kfifo_len(&t->fifo);
		unsigned int avail = kfifo_avail(&t->fifo);

		if (len > t->fifo.size)
			kt_thread_error("kfifo_len snapshot", t->observed, len,
				     t->fifo.size);
		if (avail > t->fifo.size)
			kt_thread_error("kfifo_avail snapshot", t->observed, avail,
				     t->fifo.size);
		if (kfifo_valid(&t->fifo) != 1)
			kt_thread_error("kfifo_valid", t->observed, 0, 1);
		t->observed++;
		sched_yield();
	}
	return NULL;
}

static void run_spsc(struct spsc *t, void *(*producer)(void *),
		     void *(*consumer)(void *), const char *name)
{
	pthread_t p, c, o;
	double t0 = now();
	unsigned long long planned = t->total;

	kt_budget_start();
	t->done = t->consumer_done = 0;
	t->observed = 0;
	CHECK_INT(pthread_create(&c, NULL, consumer, t), 0);
	CHECK_INT(pthread_create(&o, NULL, observer, t), 0);
	CHECK_INT(pthread_create(&p, NULL, producer, t), 0);
	pthread_join(p, NULL);
	pthread_join(c, NULL);
	__atomic_store_n(&t->consumer_done, 1, __ATOMIC_RELEASE);
	pthread_join(o, NULL);
	printf("  %s: %llu %s through a %u-byte fifo in %.2f s (%llu snapshots)%s\n",
	       name, t->total, t->recsize == UINT_MAX ? "bytes" : "records",
	       t->fifo.size, now() - t0, t->observed,
	       t->total < planned ? " - time budget spent, stopped early" : "");
	fflush(stdout);
	CHECK(t->total > 0);
}

static void test_one_producer_one_consumer_byte_stream(void)
{
	static const unsigned int sizes[] = { 64, 1024 };
	size_t i;

	for (i = 0; i < 2; i++) {
		struct spsc t;

		kt_threads_reset();
		th_context("size %u", sizes[i]);
		CHECK_INT(kfifo_alloc(&t.fifo, sizes[i], GFP_KERNEL), 0);
		/* cross 2^32 early in the run */
		t.fifo.in = t.fifo.out = UINT_MAX - 1000;
		t.total = stress_bytes / 2;
		t.recsize = UINT_MAX;
		run_spsc(&t, byte_producer, byte_consumer, "bytes");
		CHECK_UINT(kt_thread_errors, 0);
		CHECK_UINT(kfifo_len(&t.fifo), 0);
		CHECK_UINT(t.fifo.in, (unsigned int)(UINT_MAX - 1000 + t.total));
		CHECK_INT(kfifo_valid(&t.fifo), 1);
		kfifo_free(&t.fifo);
	}
}

/* ---- records ---------------------------------------------------------- */

/* Record number @seq has a length that only depends on @seq
 * (recsize 0 records all have the same fixed length). */
static unsigned int rec_len(unsigned long long seq, unsigned int recsize,
			    unsigned int max)
{
	if (recsize == 0)
		return 12;
	return (unsigned int)((seq * 2654435761u) >> 7) % (max + 1);
}

static unsigned int rec_max(const struct spsc *t)
{
	unsigned int max = t->fifo.size / 2;

	if (t->recsize == 1 && max > 255)
		max = 255;
	return max;
}

static void *rec_producer(void *arg)
{
	struct spsc *t = (struct spsc *)arg;
	unsigned char buf[65536];
	unsigned long long seq = 0;
	unsigned int spins = 0, max = rec_max(t);

	while (seq < t->total && !kt_stopped()) {
		unsigned int len = rec_len(seq, t->recsize, max), ret;

		if (kt_budget_spent()) {
			spsc_stop_at(t, seq);
			break;
		}
		kt_rec_fill(buf, seq, len);
		if (seq & 1)
			ret = kfifo_from_user_rec(&t->fifo, buf, len, t->recsize);
		else if (seq % 4 == 2)
			/* the Python binding's put_rec (open: closed never) */
			ret = kfifo__in_rec_open(&t->fifo, buf, len, t->recsize);
		else if (t->recsize == 1)
			ret = kfifo_in_rec(&t->fifo, buf, len, 1);
		else if (t->recsize == 2)
			ret = kfifo_in_rec(&t->fifo, buf, len, 2);
		else
			ret = kfifo_in_rec(&t->fifo, buf, len, 0);
		if (ret == 0) {
			seq++;
		} else {
			if (ret != len + 1)
				kt_thread_error("in_rec refusal value", seq, ret,
					     len + 1);
			kt_backoff(&spins);
		}
	}
	__atomic_store_n(&t->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *rec_consumer(void *arg)
{
	struct spsc *t = (struct spsc *)arg;
	unsigned char buf[65536];
	unsigned long long seq = 0;
	uint32_t s = 4242;
	unsigned int spins = 0, max = rec_max(t);

	while (seq < spsc_total(t) && !kt_stopped()) {
		unsigned int len = rec_len(seq, t->recsize, max);
		unsigned int mode = kt_xorshift32(&s) % 8, total = 0, ret, cap;

		if (t->recsize > 0 && mode == 0) {
			/* a peek sees either nothing or the whole header */
			unsigned int p = kfifo_peek_rec(&t->fifo, t->recsize);

			if (p != 0 && p != len) {
				kt_thread_error("peek_rec", seq, p, len);
				return NULL;
			}
			continue;
		}
		if (t->recsize > 0 && mode == 1 && len > 0) {
			/* too small a buffer: told the length, nothing taken */
			ret = kfifo_out_rec(&t->fifo, buf, len - 1, t->recsize,
					    &total);
			if (ret == len - 1 && total == 0)
				continue; /* empty */
			if (ret != len || total != len) {
				kt_thread_error("out_rec small buffer", seq, ret, len);
				return NULL;
			}
			continue;
		}
		if (t->recsize > 0 && mode == 2) {
			unsigned int before = kfifo_len(&t->fifo);

			if (before >= t->recsize + len) {
				kfifo_skip_rec(&t->fifo, t->recsize);
				seq++;
			}
			continue;
		}
		if (t->recsize > 0 && mode == 3) {
			/* the binding's get_rec refill: the length it expects
			 * (taken), or the length + 1 of this record's length
			 * (never, asked the right one), or nothing whole yet */
			ret = kfifo__out_rec_len(&t->fifo, buf, len, t->recsize);
			if (ret == UINT_MAX) {
				kt_backoff(&spins);
				continue;
			}
			if (ret != 0) {
				kt_thread_error("out_rec_len", seq, ret, 0);
				return NULL;
			}
			if (!kt_rec_ok(buf, seq, len))
				return NULL;
			seq++;
			continue;
		}
		/* never capacity 0: with n = 0 "nothing there" also returns 0 */
		cap = t->recsize == 0 ? len : (mode & 1 ? len + !len : sizeof(buf));
		ret = kfifo_to_user_rec(&t->fifo, buf, cap, t->recsize, &total);
		if (ret != 0) {
			/* only "nothing there" is allowed: never half a record */
			unsigned int empty_total = t->recsize == 0 ? cap : 0;

			if (ret != cap || total != empty_total) {
				kt_thread_error("out_rec saw a partial record", seq,
					     total, empty_total);
				return NULL;
			}
			kt_backoff(&spins);
			continue;
		}
		if (total != len) {
			kt_thread_error("record length", seq, total, len);
			return NULL;
		}
		if (!kt_rec_ok(buf, seq, len))
			return NULL;
		seq++;
	}
	__atomic_store_n(&t->consumer_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void test_one_producer_one_consumer_records(void)
{
	unsigned int recsize;

	for (recsize = 0; recsize <= 2; recsize++) {
		struct spsc t;
		unsigned int size = recsize == 2 ? 4096 : 512;

		kt_threads_reset();
		th_context("recsize %u", recsize);
		CHECK_INT(kfifo_alloc(&t.fifo, size, GFP_KERNEL), 0);
		t.fifo.in = t.fifo.out = UINT_MAX - 77;
		t.recsize = recsize;
		/* about stress_bytes / 4 bytes of records per recsize */
		t.total = stress_bytes / 4 /
			  (recsize == 0 ? 12 : rec_max(&t) / 2 + recsize);
		run_spsc(&t, rec_producer, rec_consumer, "records");
		CHECK_UINT(kt_thread_errors, 0);
		CHECK_UINT(kfifo_len(&t.fifo), 0);
		CHECK_INT(kfifo_valid(&t.fifo), 1);
		kfifo_free(&t.fifo);
	}
}

/* ---- several producers and consumers through the locked calls -------- */

static void *mpmc_producer(void *arg)
{
	struct kt_mpmc_arg *a = (struct kt_mpmc_arg *)arg;
	struct kt_mpmc *m = a->m;
	uint32_t seq = 0;
	unsigned int spins = 0;

	while (seq < m->per_producer && !kt_stopped()) {
		/* one to eight whole elements per call: every count in the
		 * fifo stays a multiple of KT_ELEM, so each call stores whole
		 * elements only */
		uint32_t n = 1 + seq % 8;
		unsigned int k;

		if (kt_budget_spent()) {
			m->sent[a->id] = seq;
			break;
		}
		if (n > m->per_producer - seq)
			n = m->per_producer - seq;
		k = kt_mpmc_put(m, a->id, seq, n);
		seq += k;
		if (k == 0)
			kt_backoff(&spins);
	}
	__atomic_add_fetch(&m->producers_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *mpmc_consumer(void *arg)
{
	struct kt_mpmc_arg *a = (struct kt_mpmc_arg *)arg;
	struct kt_mpmc *m = a->m;
	unsigned char elems[KT_ELEM * 5];
	long long last[KT_NPROD];
	unsigned int spins = 0, p;

	for (p = 0; p < KT_NPROD; p++)
		last[p] = -1;
	for (;;) {
		int finished = __atomic_load_n(&m->producers_done,
					       __ATOMIC_ACQUIRE) == KT_NPROD;
		unsigned int k = kfifo_out_locked(&m->fifo, elems,
						  KT_ELEM * (1 + a->id % 5),
						  &m->out_lock);

		if (!kt_mpmc_take(m, a->id, elems, k, last))
			return NULL;
		if (k == 0) {
			if (finished || kt_stopped())
				break;
			kt_backoff(&spins);
		}
	}
	return NULL;
}

static void test_several_producers_and_consumers_with_locks(void)
{
	struct kt_mpmc m;
	double t0 = now();

	kt_threads_reset();
	if (kt_mpmc_open(&m, 256, 3, stress_bytes / 10) != 0)
		return;
	kt_mpmc_run(&m, mpmc_producer, mpmc_consumer, NULL);
	kt_mpmc_check(&m, now() - t0);
	kt_mpmc_close(&m);
}

int main(void)
{
	stress_bytes = th_env_ull("KFIFO_STRESS_BYTES", KFIFO_STRESS_BYTES_DEFAULT);
	printf("test_stress: KFIFO_STRESS_BYTES=%llu\n", stress_bytes);
	RUN_TEST(test_one_producer_one_consumer_byte_stream);
	RUN_TEST(test_one_producer_one_consumer_records);
	RUN_TEST(test_several_producers_and_consumers_with_locks);
	return th_finish("test_stress");
}
