/* SPDX-License-Identifier: MIT */
/*
 * test_many.c - fifos with many producers and many consumers (kfifo.h,
 * "many producers, many consumers"): the mode API, streams of records
 * tagged (producer, sequence) through threads and fork()ed processes
 * (consumers polling, zero-copy, or sleeping in kfifo_wait_rec()), and
 * of elements through the typed API's calls; peeks beside a take;
 * checked for exactly once, per-producer order and whole records; a lock
 * holder killed with SIGKILL at chosen and at arbitrary points; fork()
 * while a lock is held; a peer scribbling the lock and claim words; the
 * one-producer / one-consumer claim refusing a second process.
 *
 * Nothing here depends on timing: children are killed at points they
 * reached (a pipe says so) or at whatever point they happen to be, and
 * the checks hold for every point.
 */
#define _GNU_SOURCE
#include <kfifo.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_harness.h"
#include "test_shm_util.h"

extern unsigned int kfifo__lock_patience_ms; /* private (kfifo_lock.c) */

/* A record: producer id, sequence number, and a check word of both. */
struct rec {
	uint32_t producer, seq, check;
};

static uint32_t check_of(uint32_t p, uint32_t s)
{
	return (p * 2654435761u) ^ (s * 40503u) ^ 0x5a5a5a5au;
}

#define MAXP 8

/* What the consumers saw: per producer, a bitmap of sequence numbers and
 * the counts of duplicates, order breaks and bad records; and waits that
 * failed. */
struct seen {
	unsigned int items, dups, disorder, bad, wait_failed;
	unsigned char got[MAXP][4096];
};

/* Record @r, taken by a consumer whose last sequence from each producer
 * is in @last (-1: none). */
static void note(struct seen *s, const struct rec *r, long long last[MAXP])
{
	if (r->producer >= MAXP || r->seq >= 4096 * 8 ||
	    r->check != check_of(r->producer, r->seq)) {
		__atomic_add_fetch(&s->bad, 1, __ATOMIC_RELAXED);
		return;
	}
	if ((long long)r->seq <= last[r->producer])
		__atomic_add_fetch(&s->disorder, 1, __ATOMIC_RELAXED);
	last[r->producer] = r->seq;
	if (__atomic_fetch_or(&s->got[r->producer][r->seq / 8],
			      (unsigned char)(1u << (r->seq % 8)),
			      __ATOMIC_RELAXED) &
	    (1u << (r->seq % 8)))
		__atomic_add_fetch(&s->dups, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&s->items, 1, __ATOMIC_RELAXED);
}

static unsigned int missing(struct seen *s, unsigned int producers,
			    unsigned int per)
{
	unsigned int p, q, n = 0;

	for (p = 0; p < producers; p++)
		for (q = 0; q < per; q++)
			n += !(s->got[p][q / 8] & (1u << (q % 8)));
	return n;
}

/* One record taken: 1, else 0. */
static int take_rec(struct kfifo *f, struct rec *r)
{
	return kfifo_out_rec(f, r, sizeof(*r), 1, NULL) == 0;
}

/* A record with its 1-byte header (12) through two regions. */
static void put13(struct kfifo_region reg[2], const struct rec *r)
{
	unsigned char b[1 + sizeof(*r)];

	b[0] = sizeof(*r);
	memcpy(b + 1, r, sizeof(*r));
	memcpy(reg[0].data, b, reg[0].len);
	memcpy(reg[1].data, b + reg[0].len, reg[1].len);
}

static void get13(const struct kfifo_region reg[2], struct rec *r)
{
	unsigned char b[1 + sizeof(*r)];

	memcpy(b, reg[0].data, reg[0].len);
	memcpy(b + reg[0].len, reg[1].data, reg[1].len);
	if (b[0] != sizeof(*r))
		memset(b, 0xff, sizeof(b)); /* counted as a bad record */
	memcpy(r, b + 1, sizeof(*r));
}

/* One call kind per producer and consumer: 0 records, 1 zero-copy. */
static void produce(struct kfifo *f, uint32_t p, uint32_t per, int how)
{
	uint32_t q;
	struct rec r;
	struct kfifo_region reg[2];

	for (q = 0; q < per; q++) {
		r.producer = p;
		r.seq = q;
		r.check = check_of(p, q);
		for (;;) {
			if (how == 0) {
				if (kfifo_in_rec(f, &r, sizeof(r), 1) == 0)
					break;
			} else if (kfifo_in_prepare(f, reg, 1 + sizeof(r)) ==
				   1 + sizeof(r)) {
				/* the record with its 1-byte header, in place */
				put13(reg, &r);
				kfifo_in_finish(f, 1 + sizeof(r));
				break;
			} else {
				/* fewer regions than asked: give them back */
				kfifo_in_finish(f, 0);
			}
			sched_yield();
		}
	}
}

/* A wait for a record that only a lost wake-up could make time out. */
#define REC_WAIT_NS (60 * 1000000000LL)

/*
 * Consume until the fifo is closed and empty: 0 records, polling; 1
 * zero-copy, polling; 2 records, sleeping in kfifo_wait_rec() (which any
 * consumer of many may call: another may take the record first).
 */
static void consume(struct kfifo *f, struct seen *s, int how)
{
	long long last[MAXP];
	struct rec r;
	struct kfifo_region reg[2];
	unsigned int i, n;
	int w;

	for (i = 0; i < MAXP; i++)
		last[i] = -1;
	for (;;) {
		if (how != 1) {
			if (take_rec(f, &r)) {
				note(s, &r, last);
				continue;
			}
			if (how == 2) {
				w = kfifo_wait_rec(f, 1, REC_WAIT_NS);
				if (w == -EPIPE)
					return; /* closed, no record left */
				if (w != 0 && w != -EINTR) {
					/* -ETIMEDOUT: a lost wake-up */
					__atomic_add_fetch(&s->wait_failed, 1,
							   __ATOMIC_RELAXED);
					return;
				}
				continue;
			}
		} else {
			n = kfifo_out_prepare(f, reg, 1 + sizeof(r));
			if (n == 1 + sizeof(r)) {
				get13(reg, &r);
				kfifo_out_finish(f, 1 + sizeof(r));
				note(s, &r, last);
				continue;
			}
			if (n > 0)
				kfifo_out_finish(f, 0);
		}
		if (kfifo_is_closed(f) && kfifo_is_empty(f))
			return;
		if (kfifo_wait_len(f, 1, 1000000) < -1000)
			return;
	}
}

/* ---- the mode API ------------------------------------------------------ */

static void test_mode_api(void)
{
	struct kfifo f, h, g;
	size_t len = kfifo_shared_bytes(64);
	unsigned char *mem = map_shared(len);

	CHECK_INT(kfifo_alloc(&f, 64, KFIFO_GFP_KERNEL), 0);
	CHECK_UINT(kfifo_mode(&f), 0);
	CHECK_INT(kfifo_set_mode(&f, 4), -EINVAL);
	CHECK_UINT(kfifo_mode(&f), 0);
	CHECK_INT(kfifo_set_mode(&f, KFIFO_MANY_CONSUMERS), 0);
	CHECK_UINT(kfifo_mode(&f), KFIFO_MANY_CONSUMERS);
	CHECK_UINT(kfifo_in(&f, "abc", 3), 3);
	CHECK_INT(kfifo_out_lock(&f), 0);
	CHECK_INT(kfifo_out_lock(&f), 0); /* nested */
	CHECK_UINT(kfifo_out(&f, mem, 3), 3);
	kfifo_out_unlock(&f);
	kfifo_out_unlock(&f);
	CHECK_UINT(f.kfifo__out_lock, 0);
	kfifo_free(&f);

	CHECK_INT(kfifo_shared_create_mode(&h, mem, len, 64, 8), -EINVAL);
	CHECK_INT(kfifo_shared_create_mode(&h, mem, len, 64,
					   KFIFO_MANY_PRODUCERS |
						   KFIFO_MANY_CONSUMERS),
		  0);
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_VERSION), 3);
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_FLAGS),
		   KFIFO_SHARED_FLAG_NOTIFY | KFIFO_SHARED_FLAG_NOTIFY_PATH |
			   KFIFO_SHARED_FLAG_MANY_PRODUCERS |
			   KFIFO_SHARED_FLAG_MANY_CONSUMERS);
	CHECK_INT(kfifo_set_mode(&h, 0), -EINVAL);
	CHECK_INT(kfifo_shared_attach(&g, mem, len), 0);
	CHECK_UINT(kfifo_mode(&g), KFIFO_MANY_PRODUCERS | KFIFO_MANY_CONSUMERS);
	/* the mode is read once: a peer clearing the flags changes nothing */
	set_word(mem, KFIFO_SHARED_OFF_FLAGS, KFIFO_SHARED_FLAG_NOTIFY);
	CHECK_UINT(kfifo_mode(&g), KFIFO_MANY_PRODUCERS | KFIFO_MANY_CONSUMERS);
	/* an unknown flag is refused */
	set_word(mem, KFIFO_SHARED_OFF_FLAGS, KFIFO_SHARED_FLAGS_KNOWN + 1);
	CHECK_INT(kfifo_shared_attach(&g, mem, len), -EINVAL);
	/* version 2: attached as one producer, one consumer; its mode flags
	 * did not exist, so they are refused there */
	set_word(mem, KFIFO_SHARED_OFF_FLAGS, KFIFO_SHARED_FLAG_NOTIFY);
	set_word(mem, KFIFO_SHARED_OFF_VERSION, 2);
	CHECK_INT(kfifo_shared_attach(&g, mem, len), 0);
	CHECK_UINT(kfifo_mode(&g), 0);
	set_word(mem, KFIFO_SHARED_OFF_FLAGS,
		 KFIFO_SHARED_FLAG_NOTIFY | KFIFO_SHARED_FLAG_MANY_PRODUCERS);
	CHECK_INT(kfifo_shared_attach(&g, mem, len), -EINVAL);
	set_word(mem, KFIFO_SHARED_OFF_VERSION, 4);
	set_word(mem, KFIFO_SHARED_OFF_FLAGS, KFIFO_SHARED_FLAG_NOTIFY);
	CHECK_INT(kfifo_shared_attach(&g, mem, len), -EINVAL);
	munmap(mem, len);
}

/* ---- threads ------------------------------------------------------------ */

struct targ {
	struct kfifo *f;
	struct seen *s;
	uint32_t id, per;
	int how;
};

static void *producer_thread(void *a)
{
	struct targ *t = a;

	produce(t->f, t->id, t->per, t->how);
	return NULL;
}

static void *consumer_thread(void *a)
{
	struct targ *t = a;

	consume(t->f, t->s, t->how);
	return NULL;
}

static void run_threads(struct kfifo *f, unsigned int np, unsigned int nc,
			uint32_t per)
{
	pthread_t pt[MAXP], ct[MAXP];
	struct targ pa[MAXP], ca[MAXP];
	struct seen *s = calloc(1, sizeof(*s));
	unsigned int i;

	for (i = 0; i < nc; i++) {
		ca[i] = (struct targ){ f, s, i, per, (int)(i % 3) };
		CHECK_INT(pthread_create(&ct[i], NULL, consumer_thread, &ca[i]), 0);
	}
	for (i = 0; i < np; i++) {
		pa[i] = (struct targ){ f, s, i, per, (int)(i & 1) };
		CHECK_INT(pthread_create(&pt[i], NULL, producer_thread, &pa[i]), 0);
	}
	for (i = 0; i < np; i++)
		pthread_join(pt[i], NULL);
	kfifo_close(f);
	for (i = 0; i < nc; i++)
		pthread_join(ct[i], NULL);
	th_context("%u producers x %u consumers, %u each", np, nc, per);
	CHECK_UINT(s->items, np * per);
	CHECK_UINT(s->dups, 0);
	CHECK_UINT(s->disorder, 0);
	CHECK_UINT(s->bad, 0);
	CHECK_UINT(s->wait_failed, 0);
	CHECK_UINT(missing(s, np, per), 0);
	CHECK(kfifo_valid(f));
	free(s);
}

static void test_threads_ordinary(void)
{
	struct kfifo f;
	unsigned int shapes[][2] = { { 1, 3 }, { 3, 1 }, { 2, 2 }, { 4, 3 } };
	unsigned int i;

	for (i = 0; i < 4; i++) {
		CHECK_INT(kfifo_alloc(&f, 256, KFIFO_GFP_KERNEL), 0);
		CHECK_INT(kfifo_set_mode(&f, (shapes[i][0] > 1
						      ? KFIFO_MANY_PRODUCERS
						      : 0) |
						     (shapes[i][1] > 1
							      ? KFIFO_MANY_CONSUMERS
							      : 0)),
			  0);
		run_threads(&f, shapes[i][0], shapes[i][1], 3000);
		kfifo_free(&f);
	}
}

static void test_threads_shared(void)
{
	size_t len = kfifo_shared_bytes(128);
	unsigned char *mem = map_shared(len);
	struct kfifo h;

	CHECK_INT(kfifo_shared_create_mode(&h, mem, len, 128,
					   KFIFO_MANY_PRODUCERS |
						   KFIFO_MANY_CONSUMERS),
		  0);
	run_threads(&h, 3, 3, 3000);
	munmap(mem, len);
}

/* ---- the typed API ------------------------------------------------------ */

/* A fifo of elements of mainline's typed API (kfifo_typed.c): a record
 * and bytes that make its copy long enough for a race to show. */
struct elem {
	struct rec r;
	uint32_t fill[13];
};
typedef STRUCT_KFIFO_PTR(struct elem) rec_fifo;

struct typed_arg {
	rec_fifo *f;
	struct seen *s;
	uint32_t id, per;
	int how;
	unsigned int bad_peeks;
	pthread_barrier_t *start; /* the threads of a side start together */
};

static struct elem elem_of(uint32_t p, uint32_t q)
{
	struct elem e = { { p, q, check_of(p, q) }, { 0 } };

	return e;
}

/* how 0: kfifo_put(), one element a call; 1: kfifo_in() of two */
static void *typed_producer(void *a)
{
	struct typed_arg *t = a;
	struct elem e[2];
	uint32_t q = 0, k, stored;

	pthread_barrier_wait(t->start);
	while (q < t->per) {
		k = t->how == 1 && q + 1 < t->per ? 2 : 1;
		e[0] = elem_of(t->id, q);
		e[1] = elem_of(t->id, q + 1);
		stored = k == 1 ? kfifo_put(t->f, e[0]) : kfifo_in(t->f, e, k);
		q += stored;
		if (stored == 0)
			sched_yield();
	}
	return NULL;
}

/* how 0: kfifo_get(); 1: kfifo_out() of up to two; 2: kfifo_peek() (the
 * element seen must be whole), then kfifo_get() */
static void *typed_consumer(void *a)
{
	struct typed_arg *t = a;
	long long last[MAXP];
	struct elem e[2], p;
	unsigned int i, n;

	for (i = 0; i < MAXP; i++)
		last[i] = -1;
	pthread_barrier_wait(t->start);
	for (;;) {
		if (t->how == 2 && kfifo_peek(t->f, &p) == 1 &&
		    p.r.check != check_of(p.r.producer, p.r.seq))
			t->bad_peeks++;
		n = t->how == 1 ? kfifo_out(t->f, e, 2) : kfifo_get(t->f, e);
		for (i = 0; i < n; i++)
			note(t->s, &e[i].r, last);
		if (n > 0)
			continue;
		if (kfifo_is_closed(&t->f->kfifo) && kfifo_is_empty(t->f))
			return NULL;
		(void)!kfifo_wait_len(&t->f->kfifo, 1, 1000000);
	}
}

static void start_typed(pthread_t *th, struct typed_arg *a, unsigned int n,
			void *(*fn)(void *))
{
	unsigned int i;

	for (i = 0; i < n; i++)
		CHECK_INT(pthread_create(&th[i], NULL, fn, &a[i]), 0);
}

static void join_typed(pthread_t *th, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
}

/* Several threads on each side of an element fifo of many producers and
 * many consumers, with the element calls (put, in, get, out, peek): every
 * element taken once, whole, each producer's in order.  Odd rounds run the
 * sides one after the other, each thread long enough to outlast a time
 * slice, through a fifo that holds everything: the producers (then the
 * consumers) then meet each other on both cores all the time, not only
 * when the other side let them on. */
static void test_typed_many(void)
{
	enum { NP = 3, NC = 3, ROUNDS = 6 };
	rec_fifo f;
	struct seen *s = malloc(sizeof(*s));
	pthread_t pt[NP], ct[NC];
	pthread_barrier_t pb, cb;
	struct typed_arg pa[NP], ca[NC];
	unsigned int i, round, bad_peeks, apart, per;

	CHECK_INT(pthread_barrier_init(&pb, NULL, NP), 0);
	CHECK_INT(pthread_barrier_init(&cb, NULL, NC), 0);
	for (round = 0; round < ROUNDS; round++) {
		apart = round & 1;
		per = apart ? 30000 : 3000;
		memset(s, 0, sizeof(*s));
		CHECK_INT(kfifo_alloc(&f, apart ? NP * per : 8, KFIFO_GFP_KERNEL),
			  0);
		CHECK_INT(kfifo_set_mode(&f.kfifo, KFIFO_MANY_PRODUCERS |
							   KFIFO_MANY_CONSUMERS),
			  0);
		for (i = 0; i < NC; i++)
			ca[i] = (struct typed_arg){ &f, s, i, per, (int)(i % 3),
						    0, &cb };
		for (i = 0; i < NP; i++)
			pa[i] = (struct typed_arg){ &f, s, i, per, (int)(i & 1),
						    0, &pb };
		if (!apart)
			start_typed(ct, ca, NC, typed_consumer);
		start_typed(pt, pa, NP, typed_producer);
		join_typed(pt, NP);
		kfifo_close(&f.kfifo);
		if (apart)
			start_typed(ct, ca, NC, typed_consumer);
		join_typed(ct, NC);
		for (i = 0, bad_peeks = 0; i < NC; i++)
			bad_peeks += ca[i].bad_peeks;
		th_context("round %u", round);
		CHECK_UINT(s->items, NP * per);
		CHECK_UINT(s->dups, 0);
		CHECK_UINT(s->disorder, 0);
		CHECK_UINT(s->bad, 0);
		CHECK_UINT(missing(s, NP, per), 0);
		CHECK_UINT(bad_peeks, 0);
		CHECK(kfifo_valid(&f.kfifo));
		kfifo_free(&f);
	}
	pthread_barrier_destroy(&pb);
	pthread_barrier_destroy(&cb);
	free(s);
}

/* ---- peeks with many consumers ------------------------------------------ */

/* A peek is the consumer side's: with many consumers it holds their lock,
 * so what it sees is a whole record that no other consumer is taking at
 * that moment (it may be gone when the peeker comes to take it). */
struct peek_arg {
	struct kfifo *f;
	struct seen *s;
	int how;
	unsigned int peeks, bad_peeks;
	pthread_barrier_t *start;
};

#define PEEK_FIFO 4096u

/* Whether the @n bytes at @b are whole records of the stream, back to
 * back (the last one may be cut by @n). */
static int whole_records(const unsigned char *b, unsigned int n)
{
	struct rec r;
	unsigned int pos;

	for (pos = 0; pos + 1 + sizeof(r) <= n; pos += 1 + sizeof(r)) {
		memcpy(&r, b + pos + 1, sizeof(r));
		if (b[pos] != sizeof(r) || r.check != check_of(r.producer, r.seq))
			return 0;
	}
	return 1;
}

/* One peek: the byte call over all that is stored (0), kfifo_peek_rec()
 * and the byte call (1), the typed record calls kfifo_peek_len() and
 * kfifo_out_peek() (2).  1 if what it saw is whole (or nothing), else 0.
 * The long copies of 0 and 1 give a peek that is preempted half way
 * every chance to see a producer's new bytes over the part it had not
 * copied yet, had another consumer taken it meanwhile. */
static int peek_whole(struct kfifo *f, int how)
{
	struct kfifo_rec_ptr_1 *rf = (struct kfifo_rec_ptr_1 *)(void *)f;
	unsigned char b[PEEK_FIFO];
	struct rec r;
	unsigned int l;

	if (how == 2) {
		l = kfifo_peek_len(rf);
		if (l != 0 && l != sizeof(r))
			return 0;
		l = kfifo_out_peek(rf, &r, sizeof(r));
		return l == 0 ||
		       (l == sizeof(r) && r.check == check_of(r.producer, r.seq));
	}
	if (how == 1) {
		l = kfifo_peek_rec(f, 1);
		if (l != 0 && l != sizeof(r))
			return 0;
	}
	return whole_records(b, kfifo_out_peek(f, b, sizeof(b), 0));
}

static void *peek_consumer(void *a)
{
	struct peek_arg *t = a;
	long long last[MAXP];
	struct rec r;
	unsigned int i;

	for (i = 0; i < MAXP; i++)
		last[i] = -1;
	pthread_barrier_wait(t->start);
	for (;;) {
		t->peeks++;
		if (!peek_whole(t->f, t->how))
			t->bad_peeks++;
		if (take_rec(t->f, &r)) {
			note(t->s, &r, last);
			continue;
		}
		if (kfifo_is_closed(t->f) && kfifo_is_empty(t->f))
			return NULL;
		(void)!kfifo_wait_len(t->f, 1, 1000000);
	}
}

/* A producer that starts with the consumers (a barrier). */
struct started_producer {
	struct targ t;
	pthread_barrier_t *start;
};

static void *started_producer_thread(void *a)
{
	struct started_producer *p = a;

	pthread_barrier_wait(p->start);
	produce(p->t.f, p->t.id, p->t.per, p->t.how);
	return NULL;
}

/* Consumers that peek before each take, with producers: every peek must
 * see whole records.  Each thread runs for several time slices, so that
 * peeks are preempted at every point. */
static void test_peeks_many_consumers(void)
{
	enum { NP = 2, NC = 3, PER = 10000, ROUNDS = 2 };
	struct kfifo f;
	struct seen *s = malloc(sizeof(*s));
	pthread_t pt[NP], ct[NC];
	pthread_barrier_t start;
	struct started_producer pa[NP];
	struct peek_arg ca[NC];
	unsigned int i, round, peeks, bad_peeks;

	for (round = 0; round < ROUNDS; round++) {
		memset(s, 0, sizeof(*s));
		peeks = bad_peeks = 0;
		CHECK_INT(pthread_barrier_init(&start, NULL, NP + NC), 0);
		CHECK_INT(kfifo_alloc(&f, PEEK_FIFO, KFIFO_GFP_KERNEL), 0);
		CHECK_INT(kfifo_set_mode(&f, KFIFO_MANY_PRODUCERS |
						     KFIFO_MANY_CONSUMERS),
			  0);
		for (i = 0; i < NC; i++) {
			ca[i] = (struct peek_arg){ &f, s, (int)i, 0, 0, &start };
			CHECK_INT(pthread_create(&ct[i], NULL, peek_consumer,
						 &ca[i]),
				  0);
		}
		for (i = 0; i < NP; i++) {
			pa[i] = (struct started_producer){ { &f, s, i, PER, 0 },
							   &start };
			CHECK_INT(pthread_create(&pt[i], NULL,
						 started_producer_thread, &pa[i]),
				  0);
		}
		for (i = 0; i < NP; i++)
			pthread_join(pt[i], NULL);
		kfifo_close(&f);
		for (i = 0; i < NC; i++) {
			pthread_join(ct[i], NULL);
			peeks += ca[i].peeks;
			bad_peeks += ca[i].bad_peeks;
		}
		pthread_barrier_destroy(&start);
		th_context("round %u, %u peeks", round, peeks);
		CHECK_UINT(s->items, NP * PER);
		CHECK_UINT(s->dups, 0);
		CHECK_UINT(s->disorder, 0);
		CHECK_UINT(s->bad, 0);
		CHECK_UINT(missing(s, NP, PER), 0);
		CHECK_UINT(bad_peeks, 0);
		CHECK(kfifo_valid(&f));
		kfifo_free(&f);
	}
	free(s);
}

/*
 * A peek beside a consumer half way through a take: the taker holds the
 * consumers' lock (kfifo_out_lock(), as every take does for its length)
 * and takes the first record only once the peeker has either returned or
 * is waiting for that lock (the lock word's sleepers bit): no timing.  A
 * peek that holds the lock sees the record after it; one that does not
 * saw the record being taken.
 */
#define LOCK_SLEEPERS 0x80000000u /* kfifo_lock.c */

struct half_take {
	struct kfifo *f; /* the record fifo (recsize 1) */
	rec_fifo *ef;    /* the element fifo */
	int how, locked, done;
	unsigned int seen; /* the length (seq) of the first record seen */
};

static void *half_taker(void *a)
{
	struct half_take *h = a;
	struct kfifo *k = h->how >= 5 ? &h->ef->kfifo : h->f;
	struct elem e;
	struct rec r;

	if (kfifo_out_lock(k) != 0)
		return NULL;
	__atomic_store_n(&h->locked, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&h->done, __ATOMIC_ACQUIRE) &&
	       !(__atomic_load_n(&k->kfifo__out_lock, __ATOMIC_RELAXED) &
		 LOCK_SLEEPERS))
		sched_yield();
	if (h->how >= 5)
		(void)!kfifo_get(h->ef, &e);
	else
		(void)!take_rec(h->f, &r);
	kfifo_out_unlock(k);
	return NULL;
}

/* Each peek call: what it tells of the first record (its length, or for
 * the element fifo its sequence number or offset), ~0u if nothing. */
static void *peeker(void *a)
{
	struct half_take *h = a;
	struct kfifo_rec_ptr_1 *rf = (struct kfifo_rec_ptr_1 *)(void *)h->f;
	unsigned char b[64];
	struct elem e[2];
	unsigned int n = ~0u, tail = ~0u;

	switch (h->how) {
	case 0:
		n = kfifo_out_peek(h->f, b, sizeof(b), 0) ? b[0] : ~0u;
		break;
	case 1:
		n = kfifo_peek_rec(h->f, 1);
		break;
	case 2:
		n = kfifo_peek_len(rf);
		break;
	case 3:
		n = kfifo_out_peek(rf, b, sizeof(b));
		break;
	case 4:
		n = kfifo_out_linear(rf, &tail, sizeof(b));
		break;
	case 5:
		n = kfifo_peek(h->ef, e) ? e[0].r.seq : ~0u;
		break;
	case 6:
		n = kfifo_out_peek(h->ef, e, 2) ? e[0].r.seq : ~0u;
		break;
	default:
		n = kfifo_out_linear(h->ef, &tail, 2) ? tail : ~0u;
		break;
	}
	h->seen = n;
	__atomic_store_n(&h->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void test_peek_waits_for_a_take_in_progress(void)
{
	struct kfifo f;
	rec_fifo ef;
	struct rec r0 = { 1, 0, 0 };
	struct elem e;
	struct half_take h;
	pthread_t taker, peek;
	int how;

	CHECK_INT(kfifo_alloc(&f, 64, KFIFO_GFP_KERNEL), 0);
	CHECK_INT(kfifo_set_mode(&f, KFIFO_MANY_CONSUMERS), 0);
	CHECK_INT(kfifo_alloc(&ef, 8, KFIFO_GFP_KERNEL), 0);
	CHECK_INT(kfifo_set_mode(&ef.kfifo, KFIFO_MANY_CONSUMERS), 0);
	for (how = 0; how < 8; how++) {
		th_context("peek %d", how);
		kfifo_reset(&f);
		kfifo_reset(&ef);
		/* the record being taken is 12 bytes long, the next 5 */
		CHECK_UINT(kfifo_in_rec(&f, &r0, sizeof(r0), 1), 0);
		CHECK_UINT(kfifo_in_rec(&f, "later", 5, 1), 0);
		e = elem_of(1, 0);
		CHECK_UINT(kfifo_put(&ef, e), 1);
		e = elem_of(1, 1);
		CHECK_UINT(kfifo_put(&ef, e), 1);
		h = (struct half_take){ &f, &ef, how, 0, 0, 0 };
		CHECK_INT(pthread_create(&taker, NULL, half_taker, &h), 0);
		while (!__atomic_load_n(&h.locked, __ATOMIC_ACQUIRE))
			sched_yield();
		CHECK_INT(pthread_create(&peek, NULL, peeker, &h), 0);
		pthread_join(peek, NULL);
		pthread_join(taker, NULL);
		/* the next record: 5 bytes, sequence 1, offset 1 */
		CHECK_UINT(h.seen, how < 5 ? 5 : 1);
		CHECK_UINT(f.kfifo__out_lock, 0);
		CHECK_UINT(ef.kfifo.kfifo__out_lock, 0);
	}
	kfifo_free(&f);
	kfifo_free(&ef);
}

/* The typed API's zero-copy calls (kfifo_dma_*) keep the side, in a many
 * mode, from the prepare that returned entries to its finish, as
 * kfifo_*_prepare() do, and give it back there. */
static void test_typed_dma_keeps_the_side_until_finish(void)
{
	struct kfifo f;
	struct kfifo_rec_ptr_1 *rf = (struct kfifo_rec_ptr_1 *)(void *)&f;
	rec_fifo ef;
	struct scatterlist sg[2];
	struct elem e = elem_of(2, 7), got;

	CHECK_INT(kfifo_alloc(&f, 64, KFIFO_GFP_KERNEL), 0);
	CHECK_INT(kfifo_set_mode(&f, KFIFO_MANY_PRODUCERS | KFIFO_MANY_CONSUMERS),
		  0);
	sg_init_table(sg, 2);
	CHECK_UINT(kfifo_dma_in_prepare(rf, sg, 2, 5), 1);
	CHECK(f.kfifo__in_lock != 0);
	memcpy(sg_virt(&sg[0]), "hello", 5);
	kfifo_dma_in_finish(rf, 5);
	CHECK_UINT(f.kfifo__in_lock, 0);
	CHECK_UINT(kfifo_peek_rec(&f, 1), 5);
	CHECK_UINT(kfifo_dma_out_prepare(rf, sg, 2, 5), 1);
	CHECK(f.kfifo__out_lock != 0);
	CHECK_MEM(sg_virt(&sg[0]), "hello", 5);
	kfifo_dma_out_finish(rf, 5);
	CHECK_UINT(f.kfifo__out_lock, 0);
	CHECK_UINT(f.kfifo__out_hold, 0);
	CHECK(kfifo_is_empty(&f));
	kfifo_free(&f);

	CHECK_INT(kfifo_alloc(&ef, 8, KFIFO_GFP_KERNEL), 0);
	CHECK_INT(kfifo_set_mode(&ef.kfifo, KFIFO_MANY_PRODUCERS |
						    KFIFO_MANY_CONSUMERS),
		  0);
	CHECK_UINT(kfifo_dma_in_prepare(&ef, sg, 2, 1), 1);
	CHECK(ef.kfifo.kfifo__in_lock != 0);
	memcpy(sg_virt(&sg[0]), &e, sizeof(e));
	kfifo_dma_in_finish(&ef, sizeof(e));
	CHECK_UINT(ef.kfifo.kfifo__in_lock, 0);
	CHECK_UINT(kfifo_dma_out_prepare(&ef, sg, 2, 1), 1);
	CHECK(ef.kfifo.kfifo__out_lock != 0);
	memcpy(&got, sg_virt(&sg[0]), sizeof(got));
	CHECK_UINT(got.r.seq, 7);
	kfifo_dma_out_finish(&ef, sizeof(got));
	CHECK_UINT(ef.kfifo.kfifo__out_lock, 0);
	CHECK(kfifo_is_empty(&ef));
	kfifo_free(&ef);
}

/* ---- processes ---------------------------------------------------------- */

static void test_processes(void)
{
	size_t len = kfifo_shared_bytes(256);
	unsigned char *mem = map_shared(len);
	struct seen *s = (struct seen *)(void *)map_shared(sizeof(*s));
	unsigned int np = 3, nc = 3, i, per = 4000;
	pid_t pids[2 * MAXP];
	struct kfifo h;
	int status;

	CHECK_INT(kfifo_shared_create_mode(&h, mem, len, 256,
					   KFIFO_MANY_PRODUCERS |
						   KFIFO_MANY_CONSUMERS),
		  0);
	for (i = 0; i < np + nc; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			struct kfifo c;

			if (kfifo_shared_attach(&c, mem, len) != 0)
				_exit(3);
			if (i < np)
				produce(&c, i, per, (int)(i & 1));
			else
				consume(&c, s, (int)(i & 1));
			_exit(0);
		}
	}
	for (i = 0; i < np; i++) {
		CHECK_INT(waitpid(pids[i], &status, 0), pids[i]);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	kfifo_close(&h);
	for (i = np; i < np + nc; i++) {
		CHECK_INT(waitpid(pids[i], &status, 0), pids[i]);
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	CHECK_UINT(s->items, np * per);
	CHECK_UINT(s->dups, 0);
	CHECK_UINT(s->disorder, 0);
	CHECK_UINT(s->bad, 0);
	CHECK_UINT(missing(s, np, per), 0);
	munmap(s, sizeof(*s));
	munmap(mem, len);
}

/* ---- death of a lock holder -------------------------------------------- */

/* A child attaches, takes @side's lock, half-writes (half-reads) a
 * record through the zero-copy calls, says so on a pipe and waits to be
 * killed.  The lock is then recovered and the half-done work undone. */
static void test_holder_killed_at_a_chosen_point(void)
{
	size_t len = kfifo_shared_bytes(64);
	unsigned char *mem = map_shared(len);
	struct kfifo h;
	struct rec r = { 1, 0, 0 }, got;
	int fd[2], side, status;
	char c;
	pid_t pid;

	for (side = 0; side < 2; side++) {
		th_context("side %d", side);
		CHECK_INT(kfifo_shared_create_mode(&h, mem, len, 64,
						   KFIFO_MANY_PRODUCERS |
							   KFIFO_MANY_CONSUMERS),
			  0);
		r.seq = 0;
		r.check = check_of(1, 0);
		CHECK_UINT(kfifo_in_rec(&h, &r, sizeof(r), 1), 0);
		CHECK_INT(pipe(fd), 0);
		pid = fork();
		if (pid == 0) {
			struct kfifo c;
			struct kfifo_region reg[2];

			if (kfifo_shared_attach(&c, mem, len) != 0)
				_exit(3);
			if (side == 0) {
				if (kfifo_in_prepare(&c, reg, 13) != 13)
					_exit(4);
				memset(reg[0].data, 0xee, reg[0].len);
			} else {
				if (kfifo_out_prepare(&c, reg, 13) != 13)
					_exit(4);
			}
			(void)!write(fd[1], "x", 1);
			pause();
			_exit(0);
		}
		CHECK_INT((int)read(fd[0], &c, 1), 1);
		CHECK(get_word(mem, side ? KFIFO_SHARED_OFF_OUT_LOCK
					 : KFIFO_SHARED_OFF_IN_LOCK) != 0);
		kill(pid, SIGKILL);
		/* dead but not reaped (a zombie, as a pool's workers stay
		 * until the parent joins them): the lock is taken over all
		 * the same */
		{
			siginfo_t si;

			CHECK_INT(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT),
				  0);
		}
		r.seq = 1;
		r.check = check_of(1, 1);
		CHECK_UINT(kfifo_in_rec(&h, &r, sizeof(r), 1), 0);
		/* record 0 whole (the dead consumer's half read undone), then
		 * record 1: the dead producer's bytes never seen */
		CHECK(take_rec(&h, &got));
		CHECK_UINT(got.seq, 0);
		CHECK_UINT(got.check, check_of(1, 0));
		CHECK(take_rec(&h, &got));
		CHECK_UINT(got.seq, 1);
		CHECK(kfifo_is_empty(&h));
		CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_IN_LOCK), 0);
		CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_OUT_LOCK), 0);
		CHECK_INT(waitpid(pid, &status, 0), pid);
		close(fd[0]);
		close(fd[1]);
	}
	munmap(mem, len);
}

/* Producers and consumers killed wherever they are once the consumers
 * report some progress: whatever the point, every record taken is whole,
 * none twice, each producer's in order, and the survivors (this process)
 * can still produce and drain the fifo. */
static void test_holders_killed_anywhere(void)
{
	size_t len = kfifo_shared_bytes(128);
	unsigned char *mem = map_shared(len);
	struct seen *s = (struct seen *)(void *)map_shared(sizeof(*s));
	unsigned int round, i, n = 4, rounds = 6, target;
	pid_t pids[4];
	struct kfifo h;
	struct rec r;
	long long last[MAXP];
	int status;

	for (round = 0; round < rounds; round++) {
		memset(s, 0, sizeof(*s));
		CHECK_INT(kfifo_shared_create_mode(&h, mem, len, 128,
						   KFIFO_MANY_PRODUCERS |
							   KFIFO_MANY_CONSUMERS),
			  0);
		for (i = 0; i < n; i++) {
			pids[i] = fork();
			if (pids[i] == 0) {
				struct kfifo c;

				if (kfifo_shared_attach(&c, mem, len) != 0)
					_exit(3);
				if (i < 2)
					produce(&c, i, 30000, (int)((i + round) & 1));
				else
					consume(&c, s, (int)((i + round) & 1));
				_exit(0);
			}
		}
		/* kill at a point that depends on the round, not on time */
		target = 50 + round * 400;
		while (__atomic_load_n(&s->items, __ATOMIC_RELAXED) < target)
			sched_yield();
		for (i = 0; i < n; i++)
			kill(pids[(i + round) % n], SIGKILL);
		for (i = 0; i < n; i++)
			CHECK_INT(waitpid(pids[i], &status, 0), pids[i]);
		/* this process takes both locks and drains what is left */
		for (i = 0; i < MAXP; i++)
			last[i] = -1;
		while (take_rec(&h, &r))
			note(s, &r, last);
		th_context("round %u", round);
		r.producer = 7;
		r.seq = 0;
		r.check = check_of(7, 0);
		CHECK_UINT(kfifo_in_rec(&h, &r, sizeof(r), 1), 0);
		CHECK(take_rec(&h, &r) && r.producer == 7);
		CHECK(s->items >= target);
		CHECK_UINT(s->dups, 0);
		CHECK_UINT(s->disorder, 0);
		CHECK_UINT(s->bad, 0);
		CHECK(kfifo_valid(&h));
		CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_IN_LOCK), 0);
		CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_OUT_LOCK), 0);
	}
	munmap(s, sizeof(*s));
	munmap(mem, len);
}

/* ---- fork while a lock is held ----------------------------------------- */

struct holder {
	struct kfifo *f;
	int go[2], done[2];
};

static void *hold_lock(void *a)
{
	struct holder *h = a;
	char c;

	if (kfifo_in_lock(h->f) != 0)
		return NULL;
	(void)!write(h->done[1], "h", 1);
	(void)!read(h->go[0], &c, 1);
	kfifo_in_unlock(h->f);
	return NULL;
}

static void fork_while_held(struct kfifo *f)
{
	struct holder hd = { f, { 0, 0 }, { 0, 0 } };
	pthread_t t;
	pid_t pid;
	int status;
	char c;

	CHECK_INT(pipe(hd.go), 0);
	CHECK_INT(pipe(hd.done), 0);
	CHECK_INT(pthread_create(&t, NULL, hold_lock, &hd), 0);
	CHECK_INT((int)read(hd.done[0], &c, 1), 1);
	pid = fork();
	if (pid == 0) {
		/* ordinary fifo: the holder is not in this process, the lock
		 * is taken over; shared: the parent's thread lets it go */
		_exit(kfifo_in(f, "child", 5) == 5 ? 0 : 1);
	}
	(void)!write(hd.go[1], "g", 1);
	pthread_join(t, NULL);
	CHECK_INT(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(hd.go[0]);
	close(hd.go[1]);
	close(hd.done[0]);
	close(hd.done[1]);
}

static void test_fork_while_lock_held(void)
{
	struct kfifo f, h;
	size_t len = kfifo_shared_bytes(64);
	unsigned char *mem = map_shared(len);
	char buf[8];

	CHECK_INT(kfifo_alloc(&f, 64, KFIFO_GFP_KERNEL), 0);
	CHECK_INT(kfifo_set_mode(&f, KFIFO_MANY_PRODUCERS), 0);
	fork_while_held(&f);
	CHECK_UINT(kfifo_len(&f), 0); /* the child's copy, not ours */
	CHECK_UINT(kfifo_in(&f, "p", 1), 1);
	kfifo_free(&f);

	CHECK_INT(kfifo_shared_create_mode(&h, mem, len, 64,
					   KFIFO_MANY_PRODUCERS),
		  0);
	fork_while_held(&h);
	CHECK_UINT(kfifo_out(&h, buf, sizeof(buf)), 5);
	CHECK_MEM(buf, "child", 5);
	munmap(mem, len);
}

/* ---- a peer scribbling the words ---------------------------------------- */

static void test_scribbled_lock_word(void)
{
	size_t len = kfifo_shared_bytes(64);
	unsigned char *mem = map_shared(len);
	struct kfifo h;
	unsigned int junk[] = { 0x80000000u, 0x3fffffffu, 0xffffffffu,
				0x7ffffffeu };
	unsigned int i;
	char buf[4];

	CHECK_INT(kfifo_shared_create_mode(&h, mem, len, 64,
					   KFIFO_MANY_PRODUCERS |
						   KFIFO_MANY_CONSUMERS),
		  0);
	/* words naming no live thread: taken over */
	for (i = 0; i < 4; i++) {
		th_context("junk %#x", junk[i]);
		set_word(mem, KFIFO_SHARED_OFF_IN_LOCK, junk[i]);
		set_word(mem, KFIFO_SHARED_OFF_OUT_LOCK, junk[i]);
		CHECK_UINT(kfifo_in(&h, "ab", 2), 2);
		CHECK_UINT(kfifo_out(&h, buf, 2), 2);
		CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_IN_LOCK), 0);
	}
	/* a live process's id (init's): we give up after our patience,
	 * with nothing moved */
	kfifo__lock_patience_ms = 20;
	set_word(mem, KFIFO_SHARED_OFF_IN_LOCK, 1);
	CHECK_INT(kfifo_in_lock(&h), -ETIMEDOUT);
	errno = 0;
	CHECK_UINT(kfifo_in(&h, "ab", 2), 0);
	CHECK_INT(errno, ETIMEDOUT);
	CHECK(kfifo_is_empty(&h));
	set_word(mem, KFIFO_SHARED_OFF_IN_LOCK, 0);
	CHECK_UINT(kfifo_in(&h, "ab", 2), 2);
	kfifo__lock_patience_ms = KFIFO_LOCK_PATIENCE_MS;
	munmap(mem, len);
}

/* ---- one producer, one consumer: the claims ----------------------------- */

static void test_spsc_claims(void)
{
	size_t len = kfifo_shared_bytes(64);
	unsigned char *mem = map_shared(len);
	struct kfifo h;
	int fd[2], go[2], status;
	char c, buf[8];
	pid_t pid;

	CHECK_INT(kfifo_shared_create(&h, mem, len, 64), 0);
	CHECK_UINT(kfifo_in(&h, "mine", 4), 4);
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_IN_CLAIM), (unsigned)getpid());
	CHECK_INT(pipe(fd), 0);
	CHECK_INT(pipe(go), 0);
	pid = fork();
	if (pid == 0) {
		struct kfifo c2;
		int ok;

		if (kfifo_shared_attach(&c2, mem, len) != 0)
			_exit(3);
		/* a second producer process: refused, nothing stored */
		errno = 0;
		ok = kfifo_in(&c2, "evil", 4) == 0 && errno == EBUSY &&
		     kfifo_in_lock(&c2) == -EBUSY && kfifo_len(&c2) == 4;
		/* the consumer side is free: this process claims it */
		ok = ok && kfifo_out(&c2, buf, 2) == 2;
		(void)!write(fd[1], ok ? "y" : "n", 1);
		(void)!read(go[0], &c, 1);
		_exit(0);
	}
	CHECK_INT((int)read(fd[0], &c, 1), 1);
	CHECK(c == 'y');
	/* now the child consumes: this process is refused */
	errno = 0;
	CHECK_UINT(kfifo_out(&h, buf, 2), 0);
	CHECK_INT(errno, EBUSY);
	CHECK_INT(kfifo_out_lock(&h), -EBUSY);
	(void)!write(go[1], "g", 1);
	CHECK_INT(waitpid(pid, &status, 0), pid);
	/* the child is gone: its claim is taken over */
	CHECK_UINT(kfifo_out(&h, buf, 8), 2);
	CHECK_MEM(buf, "ne", 2);
	/* detach gives the claims up; a scribbled claim naming a dead
	 * process is taken over, a live one refuses */
	kfifo_shared_detach(&h);
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_IN_CLAIM), 0);
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_OUT_CLAIM), 0);
	set_word(mem, KFIFO_SHARED_OFF_IN_CLAIM, 0x3ffffffeu);
	CHECK_UINT(kfifo_in(&h, "x", 1), 1);
	kfifo_shared_detach(&h);
	set_word(mem, KFIFO_SHARED_OFF_IN_CLAIM, 1);
	CHECK_UINT(kfifo_in(&h, "x", 1), 0);
	CHECK_UINT(kfifo_len(&h), 1);
	close(fd[0]);
	close(fd[1]);
	close(go[0]);
	close(go[1]);
	munmap(mem, len);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	RUN_TEST(test_mode_api);
	RUN_TEST(test_threads_ordinary);
	RUN_TEST(test_threads_shared);
	RUN_TEST(test_typed_many);
	RUN_TEST(test_peeks_many_consumers);
	RUN_TEST(test_peek_waits_for_a_take_in_progress);
	RUN_TEST(test_typed_dma_keeps_the_side_until_finish);
	RUN_TEST(test_processes);
	RUN_TEST(test_holder_killed_at_a_chosen_point);
	RUN_TEST(test_holders_killed_anywhere);
	RUN_TEST(test_fork_while_lock_held);
	RUN_TEST(test_scribbled_lock_word);
	RUN_TEST(test_spsc_claims);
	return th_finish("test_many");
}
