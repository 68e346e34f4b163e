/* SPDX-License-Identifier: MIT */
/*
 * test_wait_stress.c - threads that block (docs/spec.md 3.1).
 *
 *  - one producer and one consumer through a tiny fifo, both blocking:
 *    the producer waits for room, the consumer for data (bytes, then
 *    records of recsize 1 and 2 with kfifo_wait_rec), with unlimited and
 *    with short timeouts; the producer closes at the end and the consumer
 *    drains, then sees -EPIPE.  Every byte and record is checked in order.
 *  - several producers and consumers through the locked calls, waiting
 *    for room and data, closed by the main thread once the producers are
 *    done: every element arrives exactly once, in per-producer order for
 *    each consumer, then every consumer sees -EPIPE.
 *  - kfifo_close from a third thread at a random moment while both sides
 *    stream and block (what the Python binding's free() does): both
 *    sides end with -EPIPE, and what the consumer got is, in order,
 *    everything the producer stored except what is still in the fifo.
 *  - the lost-wake-up hunt: two threads ping-pong one byte at a time
 *    through size-1 fifos with unlimited waits, so both sleep on every
 *    round; one lost wake-up hangs the pair, and the watchdog fails the
 *    test instead of letting CI hang.
 *
 * Each part runs with the library's publishing path (membarrier when the
 * kernel has it) and again with the fenced path.
 *
 * Environment: KFIFO_WAIT_STRESS_BYTES=<n> bytes through each byte stream
 * (records and locked streams scale with it), KFIFO_WAIT_PINGPONG=<n>
 * rounds of the hunt.  Defaults set by CMake (smaller under
 * ThreadSanitizer and with the sleep-poll fallback).
 */
#define _GNU_SOURCE
#include <kfifo.h>

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include "test_harness.h"
#include "test_threads.h"
#include "test_wait_util.h"

#ifndef KFIFO_WAIT_STRESS_BYTES_DEFAULT
#define KFIFO_WAIT_STRESS_BYTES_DEFAULT 4000000ULL
#endif
#ifndef KFIFO_WAIT_PINGPONG_DEFAULT
#define KFIFO_WAIT_PINGPONG_DEFAULT 100000ULL
#endif

static unsigned long long stress_bytes;
static unsigned long long pingpong_rounds;

/* An unlimited wait mostly; now and then a short timeout, retried. */
static int wait_retrying(struct kfifo *f, enum kt_wait_kind kind,
			 unsigned int n, uint32_t *s)
{
	int r;

	do {
		long long t = kt_xorshift32(s) % 8 == 0 ? 20000 : -1;

		r = kt_wait_call(f, kind, n, t);
	} while (r == -ETIMEDOUT);
	return r;
}

/* ---- one producer, one consumer, both blocking ------------------------- */

struct spsc {
	struct kfifo fifo;
	unsigned long long total; /* bytes or records; lowered by the producer
				   * when its time budget is spent (atomic) */
	unsigned int recsize;     /* UINT_MAX: bytes */
};

/* The producer's time budget is spent at @at: the stream ends there. */
static int spsc_budget_spent(struct spsc *t, unsigned long long at)
{
	if (!kt_budget_spent())
		return 0;
	__atomic_store_n(&t->total, at, __ATOMIC_RELAXED);
	return 1;
}

static unsigned long long spsc_total(struct spsc *t)
{
	return __atomic_load_n(&t->total, __ATOMIC_RELAXED);
}

static void *byte_producer(void *arg)
{
	struct spsc *t = (struct spsc *)arg;
	unsigned int half = t->fifo.size / 2 ? t->fifo.size / 2 : 1;
	unsigned char buf[4096];
	unsigned long long pos = 0;
	uint32_t s = 777;

	while (pos < t->total && !spsc_budget_spent(t, pos)) {
		/* wait for at most half the fifo: the consumer waits for at
		 * most half of it too, so the two cannot wait on each other */
		unsigned int n = kt_xorshift32(&s) % half + 1, i, k;
		int r;

		if (n > t->total - pos)
			n = (unsigned int)(t->total - pos);
		r = wait_retrying(&t->fifo, KT_AVAIL, n, &s);
		if (r != 0) {
			kt_thread_error("wait_avail", pos, (unsigned long long)-r, 0);
			break;
		}
		for (i = 0; i < n; i++)
			buf[i] = th_pattern(pos + i);
		k = kfifo_in(&t->fifo, buf, n);
		if (k != n) {
			kt_thread_error("kfifo_in after wait_avail", pos, k, n);
			break;
		}
		pos += k;
	}
	kfifo_close(&t->fifo);
	return NULL;
}

static void *byte_consumer(void *arg)
{
	struct spsc *t = (struct spsc *)arg;
	unsigned int half = t->fifo.size / 2 ? t->fifo.size / 2 : 1;
	unsigned char buf[4096];
	unsigned long long pos = 0;
	uint32_t s = 4711;
	int r;

	for (;;) {
		unsigned int m = kt_xorshift32(&s) % half + 1, k;

		r = wait_retrying(&t->fifo, KT_LEN, m, &s);
		if (r == -EPIPE) {
			/* closed with fewer than m: drain what is left */
			if (kfifo_len(&t->fifo) == 0)
				break;
			m = 1;
		} else if (r != 0) {
			kt_thread_error("wait_len", pos, (unsigned long long)-r, 0);
			return NULL;
		}
		k = kfifo_out(&t->fifo, buf, kt_xorshift32(&s) % 2 ? m : sizeof(buf));
		if (k < m) {
			kt_thread_error("kfifo_out after wait_len", pos, k, m);
			return NULL;
		}
		if (!kt_stream_ok(buf, k, pos))
			return NULL;
		pos += k;
	}
	if (pos != spsc_total(t))
		kt_thread_error("bytes received before EPIPE", pos, pos,
				spsc_total(t));
	return NULL;
}

/* Record number @seq: its length (0 included, up to @max). */
static unsigned int rec_len(unsigned long long seq, unsigned int max)
{
	return (unsigned int)((seq * 2654435761u) >> 9) % (max + 1);
}

static unsigned int rec_max(const struct spsc *t)
{
	return t->fifo.size - t->recsize;
}

static void *rec_producer(void *arg)
{
	struct spsc *t = (struct spsc *)arg;
	unsigned char buf[4096];
	unsigned long long seq;
	uint32_t s = 99;

	for (seq = 0; seq < t->total && !spsc_budget_spent(t, seq); seq++) {
		unsigned int len = rec_len(seq, rec_max(t));
		unsigned int ret;
		int r;

		kt_rec_fill(buf, seq, len);
		r = wait_retrying(&t->fifo, KT_AVAIL, t->recsize + len, &s);
		if (r != 0) {
			kt_thread_error("wait_avail for a record", seq,
				     (unsigned long long)-r, 0);
			break;
		}
		ret = t->recsize == 1 ? kfifo_in_rec(&t->fifo, buf, len, 1)
				      : kfifo_in_rec(&t->fifo, buf, len, 2);
		if (ret != 0) {
			kt_thread_error("in_rec after wait_avail", seq, ret, 0);
			break;
		}
	}
	kfifo_close(&t->fifo);
	return NULL;
}

static void *rec_consumer(void *arg)
{
	struct spsc *t = (struct spsc *)arg;
	unsigned char buf[4096];
	unsigned long long seq = 0;
	uint32_t s = 31337;
	int r;

	while ((r = wait_retrying(&t->fifo, KT_REC, t->recsize, &s)) == 0) {
		unsigned int len = rec_len(seq, rec_max(t)), total = 0, ret;

		ret = kfifo_out_rec(&t->fifo, buf, sizeof(buf), t->recsize, &total);
		if (ret != 0 || total != len) {
			kt_thread_error("out_rec after wait_rec", seq, total, len);
			return NULL;
		}
		if (!kt_rec_ok(buf, seq, len))
			return NULL;
		seq++;
	}
	if (r != -EPIPE)
		kt_thread_error("wait_rec result", seq, (unsigned long long)-r, EPIPE);
	if (seq != spsc_total(t) || kfifo_len(&t->fifo) != 0)
		kt_thread_error("records received before EPIPE", seq, seq,
				spsc_total(t));
	return NULL;
}

static void run_spsc(struct spsc *t, void *(*producer)(void *),
		     void *(*consumer)(void *), const char *what)
{
	pthread_t p, c;
	long long t0 = kt_now_ns();
	unsigned long long planned = t->total;

	kt_budget_start();
	kt_watchdog(300, what);
	CHECK_INT(pthread_create(&c, NULL, consumer, t), 0);
	CHECK_INT(pthread_create(&p, NULL, producer, t), 0);
	pthread_join(p, NULL);
	pthread_join(c, NULL);
	alarm(0);
	printf("  %s: %llu %s through a %u-byte fifo in %.2f s%s\n", what,
	       t->total, t->recsize == UINT_MAX ? "bytes" : "records",
	       t->fifo.size, (double)(kt_now_ns() - t0) / 1e9,
	       t->total < planned ? " - time budget spent, stopped early" : "");
	fflush(stdout);
	CHECK(t->total > 0);
}

static void test_both_sides_block_on_a_byte_stream(void)
{
	/* every byte blocks both sides of the 2-byte fifo: fewer there */
	static const unsigned int sizes[] = { 2, 8, 64 }, parts[] = { 1, 4, 15 };
	unsigned int i;

	for (i = 0; i < 3; i++) {
		struct spsc t;

		th_context("size %u", sizes[i]);
		kt_threads_reset();
		CHECK_INT(kfifo_alloc(&t.fifo, sizes[i], GFP_KERNEL), 0);
		t.fifo.in = t.fifo.out = UINT_MAX - 100;
		t.total = stress_bytes * parts[i] / 20;
		t.recsize = UINT_MAX;
		run_spsc(&t, byte_producer, byte_consumer, "blocking bytes");
		CHECK_UINT(kt_thread_errors, 0);
		CHECK_UINT(kfifo_len(&t.fifo), 0);
		CHECK_INT(kfifo_is_closed(&t.fifo), 1);
		CHECK_UINT(t.fifo.kfifo__data_waiters + t.fifo.kfifo__room_waiters, 0);
		kfifo_free(&t.fifo);
	}
}

static void test_both_sides_block_on_records(void)
{
	unsigned int recsize;

	for (recsize = 1; recsize <= 2; recsize++) {
		struct spsc t;

		th_context("recsize %u", recsize);
		kt_threads_reset();
		CHECK_INT(kfifo_alloc(&t.fifo, 64, GFP_KERNEL), 0);
		t.fifo.in = t.fifo.out = UINT_MAX - 50;
		t.recsize = recsize;
		/* records average 31 bytes: stress_bytes / 2 per recsize */
		t.total = stress_bytes / 2 / 31;
		run_spsc(&t, rec_producer, rec_consumer, "blocking records");
		CHECK_UINT(kt_thread_errors, 0);
		CHECK_UINT(kfifo_len(&t.fifo), 0);
		kfifo_free(&t.fifo);
	}
}

/* ---- several producers and consumers, locked, blocking ----------------- */

static void *mpmc_producer(void *arg)
{
	struct kt_mpmc_arg *a = (struct kt_mpmc_arg *)arg;
	struct kt_mpmc *m = a->m;
	uint32_t seq = 0, s = 17 + a->id;

	while (seq < m->per_producer) {
		uint32_t n = kt_xorshift32(&s) % 4 + 1;
		int r;

		if (kt_budget_spent()) {
			m->sent[a->id] = seq;
			break;
		}
		if (n > m->per_producer - seq)
			n = m->per_producer - seq;
		r = wait_retrying(&m->fifo, KT_AVAIL, n * KT_ELEM, &s);
		if (r != 0) {
			kt_thread_error("mpmc wait_avail", seq, (unsigned long long)-r, 0);
			return NULL;
		}
		/* another producer may have taken the room meanwhile */
		seq += kt_mpmc_put(m, a->id, seq, n);
	}
	return NULL;
}

static void *mpmc_consumer(void *arg)
{
	struct kt_mpmc_arg *a = (struct kt_mpmc_arg *)arg;
	struct kt_mpmc *m = a->m;
	unsigned char elems[KT_ELEM * 5];
	long long last[KT_NPROD];
	uint32_t s = 1000 + a->id;
	unsigned int p;
	int r;

	for (p = 0; p < KT_NPROD; p++)
		last[p] = -1;
	/* the fifo holds whole elements only: EPIPE means closed and empty */
	while ((r = wait_retrying(&m->fifo, KT_LEN, KT_ELEM, &s)) == 0) {
		unsigned int k = kfifo_out_locked(&m->fifo, elems,
						  KT_ELEM * (1 + a->id % 5),
						  &m->out_lock);

		if (!kt_mpmc_take(m, a->id, elems, k, last))
			return NULL;
	}
	if (r != -EPIPE)
		kt_thread_error("mpmc wait_len result", 0, (unsigned long long)-r, EPIPE);
	return NULL;
}

/* End of stream, from a third thread, once the producers are done. */
static void close_the_fifo(struct kt_mpmc *m)
{
	kfifo_close(&m->fifo);
}

static void test_locked_producers_and_consumers_block_and_close(void)
{
	struct kt_mpmc m;
	long long t0 = kt_now_ns();

	kt_threads_reset();
	if (kt_mpmc_open(&m, 32, 2, stress_bytes / 10) != 0)
		return;
	kt_watchdog(300, "locked producers and consumers");
	kt_mpmc_run(&m, mpmc_producer, mpmc_consumer, close_the_fifo);
	alarm(0);
	kt_mpmc_check(&m, (double)(kt_now_ns() - t0) / 1e9);
	CHECK_UINT(m.fifo.kfifo__data_waiters + m.fifo.kfifo__room_waiters, 0);
	kt_mpmc_close(&m);
}

/* ---- close from a third thread while both sides run -------------------- */

struct race {
	struct kfifo fifo;
	unsigned long long stored, received; /* bytes */
	int producer_ret, consumer_ret;
};

static void *race_producer(void *arg)
{
	struct race *t = (struct race *)arg;
	unsigned char buf[16];
	uint32_t s = 5;
	int r;

	/* until closed: kfifo_in still works after close, so the only end
	 * is the wait's -EPIPE */
	while ((r = wait_retrying(&t->fifo, KT_AVAIL, 1 + kt_xorshift32(&s) % 8,
				  &s)) == 0) {
		unsigned int n = 1 + kt_xorshift32(&s) % sizeof buf, i, k;

		for (i = 0; i < n && i < sizeof buf; i++)
			buf[i] = th_pattern(t->stored + i);
		k = kfifo_in(&t->fifo, buf, n);
		t->stored += k;
	}
	t->producer_ret = r;
	return NULL;
}

static void *race_consumer(void *arg)
{
	struct race *t = (struct race *)arg;
	unsigned char buf[16];
	uint32_t s = 6;
	int r;

	while ((r = wait_retrying(&t->fifo, KT_LEN, 1, &s)) == 0) {
		unsigned int k = kfifo_out(&t->fifo, buf, 1 + kt_xorshift32(&s) % 16);

		if (!kt_stream_ok(buf, k, t->received)) {
			t->consumer_ret = 1;
			return NULL;
		}
		t->received += k;
	}
	t->consumer_ret = r;
	return NULL;
}

static void test_close_from_a_third_thread_while_both_sides_block(void)
{
	uint32_t s = 77;
	int round;

	kt_threads_reset();
	kt_watchdog(300, "close while both sides run");
	for (round = 0; round < 40; round++) {
		struct race t;
		pthread_t p, c;

		memset(&t, 0, sizeof(t));
		CHECK_INT(kfifo_alloc(&t.fifo, 16, GFP_KERNEL), 0);
		t.fifo.in = t.fifo.out = UINT_MAX - (unsigned int)round;
		CHECK_INT(pthread_create(&c, NULL, race_consumer, &t), 0);
		CHECK_INT(pthread_create(&p, NULL, race_producer, &t), 0);
		kt_sleep_ns((long long)(kt_xorshift32(&s) % 20000) * 1000);
		kfifo_close(&t.fifo);
		pthread_join(p, NULL);
		pthread_join(c, NULL);
		th_context("round %d", round);
		CHECK_INT(t.producer_ret, -EPIPE);
		CHECK_INT(t.consumer_ret, -EPIPE);
		CHECK_UINT(t.received + kfifo_len(&t.fifo), t.stored);
		CHECK_UINT(t.fifo.kfifo__data_waiters + t.fifo.kfifo__room_waiters, 0);
		kfifo_free(&t.fifo);
	}
	alarm(0);
	CHECK_UINT(kt_thread_errors, 0);
}

/* ---- the lost-wake-up hunt ----------------------------------------------- */

struct pingpong {
	struct kfifo ping, pong; /* size 1 each */
	unsigned long long rounds; /* lowered when the time budget is spent,
				    * then ping is closed (atomic) */
};

/* Echo every byte of ping back through pong; wait for room in pong too,
 * so that both directions of waiting are hunted. */
static void *echo(void *arg)
{
	struct pingpong *pp = (struct pingpong *)arg;
	unsigned long long i;
	unsigned char b;

	for (i = 0; i < __atomic_load_n(&pp->rounds, __ATOMIC_RELAXED); i++) {
		int r = kfifo_wait_len(&pp->ping, 1, -1);

		/* closed: the pinger's budget was spent after round i */
		if (r == -EPIPE &&
		    i == __atomic_load_n(&pp->rounds, __ATOMIC_RELAXED))
			return NULL;
		if (r != 0 || kfifo_out(&pp->ping, &b, 1) != 1) {
			kt_thread_error("echo: wait_len/out", i, (unsigned long long)-r, 0);
			return NULL;
		}
		r = kfifo_wait_avail(&pp->pong, 1, -1);
		if (r != 0 || kfifo_in(&pp->pong, &b, 1) != 1) {
			kt_thread_error("echo: wait_avail/in", i, (unsigned long long)-r, 0);
			return NULL;
		}
	}
	return NULL;
}

static void hunt(const char *what)
{
	struct pingpong pp;
	unsigned long long i;
	long long t0 = kt_now_ns();
	pthread_t t;
	unsigned char b;

	kt_threads_reset();
	CHECK_INT(kfifo_alloc(&pp.ping, 1, GFP_KERNEL), 0);
	CHECK_INT(kfifo_alloc(&pp.pong, 1, GFP_KERNEL), 0);
	pp.ping.in = pp.ping.out = UINT_MAX - 1000;
	pp.rounds = pingpong_rounds;
	kt_watchdog(300, what);
	CHECK_INT(pthread_create(&t, NULL, echo, &pp), 0);
	kt_budget_start();
	for (i = 0; i < pp.rounds; i++) {
		int r;

		if (kt_budget_spent()) {
			__atomic_store_n(&pp.rounds, i, __ATOMIC_RELAXED);
			kfifo_close(&pp.ping);
			break;
		}
		r = kfifo_wait_avail(&pp.ping, 1, -1);
		b = (unsigned char)i;
		if (r != 0 || kfifo_in(&pp.ping, &b, 1) != 1) {
			kt_thread_error("ping: wait_avail/in", i, (unsigned long long)-r, 0);
			break;
		}
		r = kfifo_wait_len(&pp.pong, 1, -1);
		if (r != 0 || kfifo_out(&pp.pong, &b, 1) != 1 ||
		    b != (unsigned char)i) {
			kt_thread_error("ping: wait_len/out", i, b, (unsigned char)i);
			break;
		}
	}
	pthread_join(t, NULL);
	alarm(0);
	printf("  %s: %llu round trips in %.2f s (%.1f us each)%s\n", what,
	       pp.rounds, (double)(kt_now_ns() - t0) / 1e9,
	       (double)(kt_now_ns() - t0) / 1e3 /
	       (double)(pp.rounds ? pp.rounds : 1),
	       pp.rounds < pingpong_rounds ? " - time budget spent, stopped early" : "");
	CHECK(pp.rounds > 0);
	CHECK_UINT(kt_thread_errors, 0);
	CHECK_UINT(pp.ping.in - pp.ping.out + pp.pong.in - pp.pong.out, 0);
	kfifo_free(&pp.ping);
	kfifo_free(&pp.pong);
}

static void test_no_lost_wakeup_in_a_ping_pong_of_unlimited_waits(void)
{
	hunt("lost-wake-up hunt");
}

/* ---- again with the fenced path -------------------------------------------- */

static void test_all_again_with_the_fenced_path(void)
{
	unsigned char saved = kfifo__membarrier_ready;

	if (!KT_WAIT_FUTEX || !saved) {
		printf("  skipped: the build or the kernel has only one path\n");
		CHECK(1);
		return;
	}
	kfifo__membarrier_ready = 0;
	test_both_sides_block_on_a_byte_stream();
	test_both_sides_block_on_records();
	test_locked_producers_and_consumers_block_and_close();
	test_close_from_a_third_thread_while_both_sides_block();
	hunt("lost-wake-up hunt, fenced");
	kfifo__membarrier_ready = saved;
}

int main(void)
{
	stress_bytes = th_env_ull("KFIFO_WAIT_STRESS_BYTES",
				  KFIFO_WAIT_STRESS_BYTES_DEFAULT);
	pingpong_rounds = th_env_ull("KFIFO_WAIT_PINGPONG",
				     KFIFO_WAIT_PINGPONG_DEFAULT);
	printf("test_wait_stress: KFIFO_WAIT_STRESS_BYTES=%llu KFIFO_WAIT_PINGPONG=%llu, %s\n",
	       stress_bytes, pingpong_rounds,
	       !KT_WAIT_FUTEX ? "sleep-poll fallback"
	       : kfifo__membarrier_ready ? "futex, membarrier registered"
				       : "futex, membarrier not available");
	RUN_TEST(test_both_sides_block_on_a_byte_stream);
	RUN_TEST(test_both_sides_block_on_records);
	RUN_TEST(test_locked_producers_and_consumers_block_and_close);
	RUN_TEST(test_close_from_a_third_thread_while_both_sides_block);
	RUN_TEST(test_no_lost_wakeup_in_a_ping_pong_of_unlimited_waits);
	RUN_TEST(test_all_again_with_the_fenced_path);
	return th_finish("test_wait_stress");
}
