/* SPDX-License-Identifier: MIT */
/*
 * test_stress.c - threads (API.md 1.5).
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
 * (accepts 1e8 notation).
 */
#define _POSIX_C_SOURCE 200809L
#include <kfifo.h>

#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "test_harness.h"

#ifndef KFIFO_STRESS_BYTES_DEFAULT
#define KFIFO_STRESS_BYTES_DEFAULT 20000000ULL
#endif

static unsigned long long stress_bytes;

/* Failures in threads are counted here and reported by the main thread. */
static unsigned long thread_errors;
static pthread_mutex_t error_mutex = PTHREAD_MUTEX_INITIALIZER;
/* Set on the first error: every thread stops, so a dead consumer cannot
 * leave a producer waiting forever on a full fifo. */
static int stop;

static int stopped(void)
{
	return __atomic_load_n(&stop, __ATOMIC_RELAXED);
}

static void thread_error(const char *what, unsigned long long at,
			 unsigned long long got, unsigned long long want)
{
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_mutex_lock(&error_mutex);
	if (thread_errors++ < 10)
		fprintf(stderr, "stress: %s at %llu: got %llu, expected %llu\n",
			what, at, got, want);
	pthread_mutex_unlock(&error_mutex);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint32_t xorshift32(uint32_t *s)
{
	uint32_t x = *s;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}

/* Chunk sizes: mostly small, sometimes larger than the fifo. */
static unsigned int chunk(uint32_t *s, unsigned int size)
{
	uint32_t x = xorshift32(s);

	if ((x & 7) == 0)
		return x % (2 * size) + 1;
	return x % 37 + 1;
}

/* A short wait: on 2 cores the other side needs the CPU. */
static void backoff(unsigned int *spins)
{
	if (++*spins > 16) {
		*spins = 0;
		sched_yield();
	}
}

struct spsc {
	struct kfifo fifo;
	unsigned long long total;    /* bytes, or records */
	unsigned int recsize;
	int done;                    /* producer finished (atomic) */
	int consumer_done;           /* consumer finished (atomic) */
	unsigned long long observed; /* observer snapshots taken */
};

/* ---- the byte stream ------------------------------------------------- */

static void *byte_producer(void *arg)
{
	struct spsc *t = (struct spsc *)arg;
	unsigned char buf[4096];
	unsigned long long pos = 0;
	uint32_t s = 12345;
	unsigned int spins = 0;

	while (pos < t->total && !stopped()) {
		unsigned int n = chunk(&s, t->fifo.size), i, k;

		if (n > t->total - pos)
			n = (unsigned int)(t->total - pos);
		for (i = 0; i < n; i++)
			buf[i] = th_pattern(pos + i);
		k = kfifo_in(&t->fifo, buf, n);
		if (k > n)
			thread_error("kfifo_in count", pos, k, n);
		pos += k;
		if (k < n)
			backoff(&spins);
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

	while (pos < t->total && !stopped()) {
		unsigned int n = chunk(&s, t->fifo.size), i, k;

		switch (xorshift32(&s) % 8) {
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
		for (i = 0; i < k; i++) {
			if (buf[i] != th_pattern(pos + i)) {
				thread_error("byte", pos + i, buf[i],
					     th_pattern(pos + i));
				return NULL;
			}
		}
		pos += k;
		if (k == 0)
			backoff(&spins);
	}
	if (kfifo_len(&t->fifo) != 0)
		thread_error("fifo not empty at the end", pos,
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
			thread_error("kfifo_len snapshot", t->observed, len,
				     t->fifo.size);
		if (avail > t->fifo.size)
			thread_error("kfifo_avail snapshot", t->observed, avail,
				     t->fifo.size);
		if (kfifo_valid(&t->fifo) != 1)
			thread_error("kfifo_valid", t->observed, 0, 1);
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

	t->done = t->consumer_done = 0;
	t->observed = 0;
	CHECK_INT(pthread_create(&c, NULL, consumer, t), 0);
	CHECK_INT(pthread_create(&o, NULL, observer, t), 0);
	CHECK_INT(pthread_create(&p, NULL, producer, t), 0);
	pthread_join(p, NULL);
	pthread_join(c, NULL);
	__atomic_store_n(&t->consumer_done, 1, __ATOMIC_RELEASE);
	pthread_join(o, NULL);
	printf("  %s: %llu %s through a %u-byte fifo in %.2f s (%llu snapshots)\n",
	       name, t->total, t->recsize == UINT_MAX ? "bytes" : "records",
	       t->fifo.size, now() - t0, t->observed);
	fflush(stdout);
}

static void test_one_producer_one_consumer_byte_stream(void)
{
	static const unsigned int sizes[] = { 64, 1024 };
	size_t i;

	for (i = 0; i < 2; i++) {
		struct spsc t;

		thread_errors = 0;
		stop = 0;
	stop = 0;
		th_context("size %u", sizes[i]);
		CHECK_INT(kfifo_alloc(&t.fifo, sizes[i], GFP_KERNEL), 0);
		/* cross 2^32 early in the run */
		t.fifo.in = t.fifo.out = UINT_MAX - 1000;
		t.total = stress_bytes / 2;
		t.recsize = UINT_MAX;
		run_spsc(&t, byte_producer, byte_consumer, "bytes");
		CHECK_UINT(thread_errors, 0);
		CHECK_UINT(kfifo_len(&t.fifo), 0);
		CHECK_UINT(t.fifo.in, (unsigned int)(UINT_MAX - 1000 + t.total));
		CHECK_INT(kfifo_valid(&t.fifo), 1);
		kfifo_free(&t.fifo);
	}
}

/* ---- records ---------------------------------------------------------- */

/* Record number @seq has a length and content that only depend on @seq
 * (recsize 0 records all have the same fixed length). */
static unsigned int rec_len(unsigned long long seq, unsigned int recsize,
			    unsigned int max)
{
	if (recsize == 0)
		return 12;
	return (unsigned int)((seq * 2654435761u) >> 7) % (max + 1);
}

static void rec_fill(unsigned char *buf, unsigned long long seq,
		     unsigned int len)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		buf[i] = th_pattern(seq * 131071u + i);
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

	while (seq < t->total && !stopped()) {
		unsigned int len = rec_len(seq, t->recsize, max), ret;

		rec_fill(buf, seq, len);
		if (seq & 1)
			ret = kfifo_from_user_rec(&t->fifo, buf, len, t->recsize);
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
				thread_error("in_rec refusal value", seq, ret,
					     len + 1);
			backoff(&spins);
		}
	}
	__atomic_store_n(&t->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *rec_consumer(void *arg)
{
	struct spsc *t = (struct spsc *)arg;
	unsigned char buf[65536], want[65536];
	unsigned long long seq = 0;
	uint32_t s = 4242;
	unsigned int spins = 0, max = rec_max(t);

	while (seq < t->total && !stopped()) {
		unsigned int len = rec_len(seq, t->recsize, max);
		unsigned int mode = xorshift32(&s) % 8, total = 0, ret, cap;

		if (t->recsize > 0 && mode == 0) {
			/* a peek sees either nothing or the whole header */
			unsigned int p = kfifo_peek_rec(&t->fifo, t->recsize);

			if (p != 0 && p != len) {
				thread_error("peek_rec", seq, p, len);
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
				thread_error("out_rec small buffer", seq, ret, len);
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
		/* never capacity 0: with n = 0 "nothing there" also returns 0 */
		cap = t->recsize == 0 ? len : (mode & 1 ? len + !len : sizeof(buf));
		ret = kfifo_to_user_rec(&t->fifo, buf, cap, t->recsize, &total);
		if (ret != 0) {
			/* only "nothing there" is allowed: never half a record */
			unsigned int empty_total = t->recsize == 0 ? cap : 0;

			if (ret != cap || total != empty_total) {
				thread_error("out_rec saw a partial record", seq,
					     total, empty_total);
				return NULL;
			}
			backoff(&spins);
			continue;
		}
		if (total != len) {
			thread_error("record length", seq, total, len);
			return NULL;
		}
		rec_fill(want, seq, len);
		if (memcmp(buf, want, len) != 0) {
			thread_error("record content", seq, 0, 0);
			return NULL;
		}
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

		thread_errors = 0;
		stop = 0;
	stop = 0;
		th_context("recsize %u", recsize);
		CHECK_INT(kfifo_alloc(&t.fifo, size, GFP_KERNEL), 0);
		t.fifo.in = t.fifo.out = UINT_MAX - 77;
		t.recsize = recsize;
		/* about stress_bytes / 4 bytes of records per recsize */
		t.total = stress_bytes / 4 /
			  (recsize == 0 ? 12 : rec_max(&t) / 2 + recsize);
		run_spsc(&t, rec_producer, rec_consumer, "records");
		CHECK_UINT(thread_errors, 0);
		CHECK_UINT(kfifo_len(&t.fifo), 0);
		CHECK_INT(kfifo_valid(&t.fifo), 1);
		kfifo_free(&t.fifo);
	}
}

/* ---- several producers and consumers through the locked calls -------- */

#define NPROD 3
#define NCONS 3
#define ELEM 8 /* producer id, sequence number: two uint32 */

struct mpmc {
	struct kfifo fifo;
	kfifo_spinlock_t in_lock;
	kfifo_spinlock_t out_lock;
	uint32_t per_producer;
	unsigned char *seen; /* NPROD * per_producer counters */
	int producers_done;  /* atomic count */
	unsigned long long taken[NCONS];
};

struct mpmc_arg {
	struct mpmc *m;
	uint32_t id;
};

static void *mpmc_producer(void *arg)
{
	struct mpmc_arg *a = (struct mpmc_arg *)arg;
	struct mpmc *m = a->m;
	unsigned char elems[ELEM * 8];
	uint32_t seq = 0;
	unsigned int spins = 0;

	while (seq < m->per_producer && !stopped()) {
		/* one to eight whole elements per call: every count in the
		 * fifo stays a multiple of ELEM, so each call stores whole
		 * elements only */
		uint32_t n = 1 + seq % 8, i;
		unsigned int k;

		if (n > m->per_producer - seq)
			n = m->per_producer - seq;
		for (i = 0; i < n; i++) {
			uint32_t v[2] = { a->id, seq + i };

			memcpy(elems + i * ELEM, v, ELEM);
		}
		k = kfifo_in_locked(&m->fifo, elems, n * ELEM, &m->in_lock);
		if (k % ELEM != 0)
			thread_error("in_locked split an element", seq, k, n * ELEM);
		seq += k / ELEM;
		if (k == 0)
			backoff(&spins);
	}
	__atomic_add_fetch(&m->producers_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *mpmc_consumer(void *arg)
{
	struct mpmc_arg *a = (struct mpmc_arg *)arg;
	struct mpmc *m = a->m;
	unsigned char elems[ELEM * 5];
	long long last[NPROD];
	unsigned int spins = 0, p;

	for (p = 0; p < NPROD; p++)
		last[p] = -1;
	for (;;) {
		int finished = __atomic_load_n(&m->producers_done,
					       __ATOMIC_ACQUIRE) == NPROD;
		unsigned int k = kfifo_out_locked(&m->fifo, elems,
						  ELEM * (1 + a->id % 5),
						  &m->out_lock);
		unsigned int i;

		if (k % ELEM != 0)
			thread_error("out_locked split an element", 0, k, ELEM);
		for (i = 0; i + ELEM <= k; i += ELEM) {
			uint32_t v[2];

			memcpy(v, elems + i, ELEM);
			if (v[0] >= NPROD || v[1] >= m->per_producer) {
				thread_error("element out of range", v[0], v[1], 0);
				return NULL;
			}
			/* this consumer sees each producer's elements in order */
			if ((long long)v[1] <= last[v[0]])
				thread_error("element order", v[0], v[1],
					     (unsigned long long)last[v[0]]);
			last[v[0]] = v[1];
			__atomic_add_fetch(&m->seen[v[0] * m->per_producer + v[1]],
					   1, __ATOMIC_RELAXED);
			m->taken[a->id]++;
		}
		if (k == 0) {
			if (finished || stopped())
				break;
			backoff(&spins);
		}
	}
	return NULL;
}

static void test_several_producers_and_consumers_with_locks(void)
{
	struct mpmc m;
	struct mpmc_arg pa[NPROD], ca[NCONS];
	pthread_t pt[NPROD], ct[NCONS];
	unsigned long long taken = 0, bad = 0, i;
	double t0 = now();
	unsigned int k;

	thread_errors = 0;
	stop = 0;
	memset(&m, 0, sizeof(m));
	CHECK_INT(kfifo_alloc(&m.fifo, 256, GFP_KERNEL), 0);
	m.fifo.in = m.fifo.out = UINT_MAX - 3 * ELEM + 1;
	kfifo_spin_lock_init(&m.in_lock);
	kfifo_spin_lock_init(&m.out_lock);
	m.per_producer = (uint32_t)(stress_bytes / 10 / ELEM / NPROD);
	if (m.per_producer < 1000)
		m.per_producer = 1000;
	m.seen = (unsigned char *)calloc((size_t)NPROD * m.per_producer, 1);
	if (!CHECK(m.seen != NULL))
		return;
	for (k = 0; k < NCONS; k++) {
		ca[k].m = &m;
		ca[k].id = k;
		CHECK_INT(pthread_create(&ct[k], NULL, mpmc_consumer, &ca[k]), 0);
	}
	for (k = 0; k < NPROD; k++) {
		pa[k].m = &m;
		pa[k].id = k;
		CHECK_INT(pthread_create(&pt[k], NULL, mpmc_producer, &pa[k]), 0);
	}
	for (k = 0; k < NPROD; k++)
		pthread_join(pt[k], NULL);
	for (k = 0; k < NCONS; k++) {
		pthread_join(ct[k], NULL);
		taken += m.taken[k];
	}
	for (i = 0; i < (unsigned long long)NPROD * m.per_producer; i++)
		bad += m.seen[i] != 1;
	printf("  locked: %u producers, %u consumers, %llu elements in %.2f s (taken %llu/%llu/%llu)\n",
	       NPROD, NCONS, taken, now() - t0, m.taken[0], m.taken[1],
	       m.taken[2]);
	CHECK_UINT(thread_errors, 0);
	CHECK_UINT(taken, (unsigned long long)NPROD * m.per_producer);
	CHECK_UINT(bad, 0);
	CHECK_UINT(kfifo_len(&m.fifo), 0);
	CHECK_INT(kfifo_valid(&m.fifo), 1);
	free(m.seen);
	kfifo_free(&m.fifo);
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
