/* SPDX-License-Identifier: MIT */
/*
 * test_wait_excl.c - exclusive waiters (c/src/kfifo_wake.h, "Exclusive
 * waiters"): consumers of a fifo of many consumers that wait with
 * kfifo__wait_take() and then take, so that a publication wakes one of
 * them, not all.  What must hold is that no wake-up is lost:
 *
 *   - a stream of records through producer and consumer threads, some
 *     records published one by one and some several in one call (a
 *     batch: E2 must hand the rest on), consumers waiting for a record,
 *     for one record's bytes, or for two records' bytes (different
 *     conditions: E3), every wait without a time limit; exactly once,
 *     in order per producer, whole; an ordinary fifo and a handle;
 *   - a waiter for more than is stored next to one for a record: the
 *     record gets taken whichever of the two the wake-up went to (E3);
 *   - a batch of as many records as there are sleepers: each of them
 *     gets one (E2);
 *   - which wake a publication made: one while only exclusive waiters
 *     wait, all while an ordinary one waits too, all at kfifo_close().
 *
 * A lost wake-up leaves a waiter asleep for ever: the watchdog fails
 * the test.  Nothing depends on timing: the checks hold for every
 * interleaving, and a short sleep only makes the interesting one likely.
 */
#define _GNU_SOURCE
#include <kfifo.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kfifo_binding.h"
#include "test_harness.h"
#include "test_shm_util.h"
#include "test_wait_util.h"

#ifndef KFIFO_EXCL_PER_PRODUCER
#define KFIFO_EXCL_PER_PRODUCER 20000u
#endif

struct rec {
	uint32_t producer, seq, check;
};
#define REC_BYTES (1u + (unsigned int)sizeof(struct rec)) /* 1-byte header */

static uint32_t check_of(uint32_t p, uint32_t s)
{
	return (p * 2654435761u) ^ (s * 40503u) ^ 0x3c3c3c3cu;
}

#define MAXP 4

struct seen {
	unsigned int items, dups, disorder, bad;
	unsigned char *got[MAXP];
};

static void note(struct seen *s, const struct rec *r, long long last[MAXP])
{
	if (r->producer >= MAXP || r->seq >= KFIFO_EXCL_PER_PRODUCER ||
	    r->check != check_of(r->producer, r->seq)) {
		__atomic_add_fetch(&s->bad, 1, __ATOMIC_RELAXED);
		return;
	}
	if (__atomic_fetch_or(&s->got[r->producer][r->seq / 8],
			      (unsigned char)(1u << (r->seq % 8)),
			      __ATOMIC_RELAXED) &
	    (1u << (r->seq % 8)))
		__atomic_add_fetch(&s->dups, 1, __ATOMIC_RELAXED);
	if ((long long)r->seq <= last[r->producer])
		__atomic_add_fetch(&s->disorder, 1, __ATOMIC_RELAXED);
	last[r->producer] = r->seq;
	__atomic_add_fetch(&s->items, 1, __ATOMIC_RELAXED);
}

static void encode(unsigned char *b, uint32_t p, uint32_t q)
{
	struct rec r = { p, q, check_of(p, q) };

	b[0] = (unsigned char)sizeof(r);
	memcpy(b + 1, &r, sizeof(r));
}

/* Producer @p: records one by one, or up to 3 in one kfifo_in() (one
 * publication), waiting for room as an ordinary waiter. */
static void produce(struct kfifo *f, uint32_t p)
{
	unsigned char b[3 * REC_BYTES];
	uint32_t q = 0, k, i;

	while (q < KFIFO_EXCL_PER_PRODUCER) {
		k = 1 + (q + p) % 3;
		if (k > KFIFO_EXCL_PER_PRODUCER - q)
			k = KFIFO_EXCL_PER_PRODUCER - q;
		for (i = 0; i < k; i++)
			encode(b + i * REC_BYTES, p, q + i);
		/* all k records in one kfifo_in(), one publication: hold the
		 * producers' side so that the room seen stays */
		for (;;) {
			/* (no CHECK in threads: the harness counts unlocked) */
			if (kfifo_in_lock(f) != 0)
				abort();
			if (kfifo_avail(f) >= k * REC_BYTES) {
				if (kfifo_in(f, b, k * REC_BYTES) != k * REC_BYTES)
					abort();
				kfifo_in_unlock(f);
				break;
			}
			kfifo_in_unlock(f);
			if (kfifo_wait_avail(f, k * REC_BYTES, -1) != 0)
				abort();
		}
		q += k;
	}
}

static int take_rec(struct kfifo *f, struct rec *r)
{
	return kfifo_out_rec(f, r, sizeof(*r), 1, NULL) == 0;
}

/* Consumer of kind @how: 0 waits for a record, 1 for one record's bytes,
 * 2 for two records' bytes; then takes what it can. */
static void consume(struct kfifo *f, struct seen *s, int how)
{
	long long last[MAXP];
	struct rec r;
	unsigned int i;
	int w;

	for (i = 0; i < MAXP; i++)
		last[i] = -1;
	for (;;) {
		if (how == 0)
			w = kfifo__wait_take(f, 1, 1, -1);
		else
			w = kfifo__wait_take(f, (unsigned int)how * REC_BYTES,
					     0, -1);
		/* what this waiter waited for, and for kind 2 a second one
		 * when it is there; at the end of the stream what is left */
		for (i = 0; i < (how == 2 || w != 0 ? 1000u : 1u); i++) {
			if (!take_rec(f, &r))
				break;
			note(s, &r, last);
		}
		if (w == -EPIPE && kfifo_is_empty(f))
			return;
		if (w != 0 && w != -EPIPE) {
			__atomic_add_fetch(&s->bad, 1, __ATOMIC_RELAXED);
			return;
		}
	}
}

struct targ {
	struct kfifo *f;
	struct seen *s;
	uint32_t id;
};

static void *producer_thread(void *a)
{
	struct targ *t = a;

	produce(t->f, t->id);
	return NULL;
}

static void *consumer_thread(void *a)
{
	struct targ *t = a;

	consume(t->f, t->s, (int)(t->id % 3));
	return NULL;
}

static void run_stream(struct kfifo *f, unsigned int np, unsigned int nc)
{
	pthread_t pt[MAXP], ct[8];
	struct targ pa[MAXP], ca[8];
	struct seen s;
	unsigned int i, q, missing = 0;

	memset(&s, 0, sizeof(s));
	for (i = 0; i < MAXP; i++)
		s.got[i] = calloc(KFIFO_EXCL_PER_PRODUCER / 8 + 1, 1);
	kt_watchdog(300, "exclusive waiters: a stream");
	for (i = 0; i < nc; i++) {
		ca[i] = (struct targ){ f, &s, i };
		CHECK_INT(pthread_create(&ct[i], NULL, consumer_thread, &ca[i]), 0);
	}
	for (i = 0; i < np; i++) {
		pa[i] = (struct targ){ f, &s, i };
		CHECK_INT(pthread_create(&pt[i], NULL, producer_thread, &pa[i]), 0);
	}
	for (i = 0; i < np; i++)
		pthread_join(pt[i], NULL);
	kfifo_close(f);
	for (i = 0; i < nc; i++)
		pthread_join(ct[i], NULL);
	alarm(0);
	for (i = 0; i < np; i++)
		for (q = 0; q < KFIFO_EXCL_PER_PRODUCER; q++)
			missing += !(s.got[i][q / 8] & (1u << (q % 8)));
	th_context("%u producers x %u consumers, %u records each", np, nc,
		   KFIFO_EXCL_PER_PRODUCER);
	CHECK_UINT(s.items, np * KFIFO_EXCL_PER_PRODUCER);
	CHECK_UINT(s.dups, 0);
	CHECK_UINT(s.disorder, 0);
	CHECK_UINT(s.bad, 0);
	CHECK_UINT(missing, 0);
	CHECK(kfifo_is_empty(f));
	for (i = 0; i < MAXP; i++)
		free(s.got[i]);
}

static void test_stream_ordinary(void)
{
	struct kfifo f;

	/* small, so that it is full and empty all the time */
	CHECK_INT(kfifo_alloc(&f, 128, KFIFO_GFP_KERNEL), 0);
	CHECK_INT(kfifo_set_mode(&f, KFIFO_MANY_PRODUCERS | KFIFO_MANY_CONSUMERS),
		  0);
	run_stream(&f, 2, 6);
	kfifo_free(&f);
}

static void test_stream_handle(void)
{
	size_t len = kfifo_shared_bytes(128);
	unsigned char *mem = map_shared(len);
	struct kfifo h;

	CHECK_INT(kfifo_shared_create_mode(&h, mem, len, 128,
					   KFIFO_MANY_PRODUCERS |
						   KFIFO_MANY_CONSUMERS),
		  0);
	run_stream(&h, 3, 5);
	munmap(mem, len);
}

/* ---- single rounds: who gets woken -------------------------------------- */

struct waiter {
	struct kfifo *f;
	unsigned int n;
	int record;
	int ret;
	struct rec r;
	int took;
};

/* A consumer's loop for one record: wait, take, and wait again if
 * another was first; ends with the record or at the end of the stream. */
static void *wait_then_take(void *a)
{
	struct waiter *w = a;

	int ret;

	do
		ret = kfifo__wait_take(w->f, w->n, w->record, -1);
	while (ret == 0 && !take_rec(w->f, &w->r));
	w->ret = ret;
	__atomic_store_n(&w->took, ret == 0, __ATOMIC_RELEASE);
	return NULL;
}

/* Until @n exclusive waiters are counted in @f's data direction. */
static void await_waiters(struct kfifo *f, unsigned int n)
{
	while (__atomic_load_n(&f->kfifo__data_waiters, __ATOMIC_ACQUIRE) !=
	       n * 0x10000u)
		sched_yield();
	/* counted; most likely asleep after this (not needed for the
	 * checks, which hold either way) */
	kt_sleep_ns(200000);
}

static void publish(struct kfifo *f, unsigned int k, uint32_t first)
{
	unsigned char b[8 * REC_BYTES];
	unsigned int i;

	for (i = 0; i < k; i++)
		encode(b + i * REC_BYTES, 0, first + i);
	CHECK_UINT(kfifo_in(f, b, k * REC_BYTES), k * REC_BYTES);
}

/* A waiter for more bytes than will come, and one for a record: the one
 * record published reaches the second whichever the wake went to. */
static void test_wake_reaches_the_waiter_it_can_serve(void)
{
	struct kfifo f;
	struct waiter big, rec;
	pthread_t tb, tr;
	unsigned int round;

	CHECK_INT(kfifo_alloc(&f, 256, KFIFO_GFP_KERNEL), 0);
	CHECK_INT(kfifo_set_mode(&f, KFIFO_MANY_CONSUMERS), 0);
	kt_watchdog(300, "a waiter for more than is stored beside one for a record");
	for (round = 0; round < 100; round++) {
		big = (struct waiter){ &f, 4 * REC_BYTES, 0, 1, { 0, 0, 0 }, 0 };
		rec = (struct waiter){ &f, 1, 1, 1, { 0, 0, 0 }, 0 };
		/* either may be first in the kernel's queue */
		if (round & 1) {
			CHECK_INT(pthread_create(&tb, NULL, wait_then_take, &big), 0);
			await_waiters(&f, 1);
			CHECK_INT(pthread_create(&tr, NULL, wait_then_take, &rec), 0);
		} else {
			CHECK_INT(pthread_create(&tr, NULL, wait_then_take, &rec), 0);
			await_waiters(&f, 1);
			CHECK_INT(pthread_create(&tb, NULL, wait_then_take, &big), 0);
		}
		await_waiters(&f, 2);
		publish(&f, 1, round);
		pthread_join(tr, NULL);
		CHECK_INT(rec.ret, 0);
		CHECK(rec.took);
		CHECK_UINT(rec.r.seq, round);
		kfifo_close(&f);
		pthread_join(tb, NULL);
		CHECK_INT(big.ret, -EPIPE);
		kfifo_reset(&f);
	}
	alarm(0);
	kfifo_free(&f);
}

/* k sleepers, k records in one publication: each sleeper gets one. */
static void test_batch_reaches_every_sleeper(void)
{
	struct kfifo f;
	struct waiter w[4];
	pthread_t t[4];
	unsigned int round, i, k, seqs;

	CHECK_INT(kfifo_alloc(&f, 256, KFIFO_GFP_KERNEL), 0);
	CHECK_INT(kfifo_set_mode(&f, KFIFO_MANY_CONSUMERS), 0);
	kt_watchdog(300, "a batch of records for as many sleepers");
	for (round = 0; round < 100; round++) {
		k = 2 + round % 3;
		for (i = 0; i < k; i++) {
			w[i] = (struct waiter){ &f, 1, 1, 1, { 0, 0, 0 }, 0 };
			CHECK_INT(pthread_create(&t[i], NULL, wait_then_take, &w[i]), 0);
		}
		await_waiters(&f, k);
		publish(&f, k, 0);
		seqs = 0;
		for (i = 0; i < k; i++) {
			pthread_join(t[i], NULL);
			CHECK_INT(w[i].ret, 0);
			CHECK(w[i].took);
			seqs |= 1u << w[i].r.seq;
		}
		th_context("round %u, %u sleepers", round, k);
		CHECK_UINT(seqs, (1u << k) - 1u);
		CHECK(kfifo_is_empty(&f));
	}
	alarm(0);
	kfifo_free(&f);
}

/* White box: the epoch a publication leaves says which wake it made
 * (bit 1 of the futex word).  The fallback's publishers wake nobody. */
#if defined(__linux__) && !defined(KFIFO_WAIT_FALLBACK)
#define WAKE_ALL_BIT 2u
#else
#define WAKE_ALL_BIT 0u
#endif

static unsigned int seq_all_bit(struct kfifo *f)
{
	return __atomic_load_n(&f->kfifo__data_seq, __ATOMIC_ACQUIRE) & 2u;
}

static void test_which_wake(void)
{
	struct kfifo f;
	struct waiter w[2];
	pthread_t t[2];
	int r;

	CHECK_INT(kfifo_alloc(&f, 256, KFIFO_GFP_KERNEL), 0);
	CHECK_INT(kfifo_set_mode(&f, KFIFO_MANY_CONSUMERS), 0);
	kt_watchdog(300, "which wake a publication made");
	/* two exclusive waiters: the publication wakes one (bit 1 clear) */
	w[0] = (struct waiter){ &f, 1, 1, 1, { 0, 0, 0 }, 0 };
	w[1] = w[0];
	CHECK_INT(pthread_create(&t[0], NULL, wait_then_take, &w[0]), 0);
	CHECK_INT(pthread_create(&t[1], NULL, wait_then_take, &w[1]), 0);
	await_waiters(&f, 2);
	publish(&f, 1, 0);
	CHECK_UINT(seq_all_bit(&f), 0);
	/* the second waiter is still waiting: close() wakes all (bit 1) */
	while (!__atomic_load_n(&w[0].took, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&w[1].took, __ATOMIC_ACQUIRE))
		sched_yield();
	kfifo_close(&f);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	CHECK_UINT((unsigned int)(w[0].took + w[1].took), 1);
	CHECK_INT(w[0].took ? w[1].ret : w[0].ret, -EPIPE);
	kfifo_reset(&f);
	/* an ordinary waiter beside an exclusive one: a wake of all */
	w[0] = (struct waiter){ &f, 1, 1, 1, { 0, 0, 0 }, 0 };
	CHECK_INT(pthread_create(&t[0], NULL, wait_then_take, &w[0]), 0);
	await_waiters(&f, 1);
	__atomic_add_fetch(&f.kfifo__data_waiters, 1, __ATOMIC_SEQ_CST);
	publish(&f, 1, 0);
	CHECK_UINT(seq_all_bit(&f), WAKE_ALL_BIT);
	__atomic_sub_fetch(&f.kfifo__data_waiters, 1, __ATOMIC_SEQ_CST);
	pthread_join(t[0], NULL);
	CHECK(w[0].took);
	/* one consumer: kfifo__wait_take() is an ordinary wait */
	CHECK_INT(kfifo_set_mode(&f, 0), 0);
	r = kfifo__wait_take(&f, 1, 1, 0);
	CHECK_INT(r, -ETIMEDOUT);
	CHECK_INT(kfifo__wait_take(&f, 3, 1, 0), -EINVAL);
	CHECK_INT(kfifo__wait_take(&f, 257, 0, 0), -EINVAL);
	alarm(0);
	kfifo_free(&f);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	RUN_TEST(test_which_wake);
	RUN_TEST(test_wake_reaches_the_waiter_it_can_serve);
	RUN_TEST(test_batch_reaches_every_sleeper);
	RUN_TEST(test_stream_ordinary);
	RUN_TEST(test_stream_handle);
	return th_finish("test_wait_excl");
}
