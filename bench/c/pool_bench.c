/* SPDX-License-Identifier: MIT */
/*
 * pool_bench.c - producer threads and consumer threads on one queue
 * (two and two by default): kfifo with both sides "many"
 * (kfifo_set_mode(); fixed-size records, kfifo_in_rec(.., 0) /
 * kfifo_out_rec(.., 0), each stored and taken whole) against Concurrency
 * Kit's ck_ring _mpmc calls (typed with CK_RING_PROTOTYPE) and
 * Boost.Lockfree queue<T> (bounded_push / pop), for messages of 8, 256 and
 * 4096 bytes.  64 KiB of queue each (ck_ring and Boost: that many bytes of
 * slots).  Every message carries (producer, sequence); the consumers sum
 * them and a run whose count or sum is off is refused.
 *
 * Each implementation first makes two untimed runs of the given count; its
 * count is then raised so that a run lasts at least KFIFO_BENCH_MIN_SECONDS
 * (0.25 s by default, at most 64 times the count): a short run measures
 * the threads' start and the scheduler's first placement more than the
 * queue.  The implementations run one after the other in each round; the
 * ratio is kfifo's rate over the peer's in the same round, median over
 * rounds.
 *
 * Shape 1x1 (one producer, one consumer, the same calls) is the reference
 * a pool is read against: how much of one pair's rate each queue keeps
 * with two on each side on the same cores (or gains, where two producers
 * copy at once).
 *
 *   kfifo-pool-bench [rounds] [messages per producer] [PxC]
 *   (KFIFO_BUILD_BENCH=ON; bench/results/pools.md)
 */
#define _GNU_SOURCE
#include <kfifo.h>

#include <ck_ring.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_THREADS 16
#define QUEUE_BYTES 65536
#define MAX_MSG 4096
#define MAX_SCALE 64

void *pool_boost_create(size_t size, size_t slots);
void pool_boost_destroy(void *q, size_t size);
int pool_boost_push(void *q, size_t size, const void *p);
int pool_boost_pop(void *q, size_t size, void *p);

struct c8 {
	unsigned char b[8];
};
struct c256 {
	unsigned char b[256];
};
struct c4k {
	unsigned char b[4096];
};
CK_RING_PROTOTYPE(c8, c8)
CK_RING_PROTOTYPE(c256, c256)
CK_RING_PROTOTYPE(c4k, c4k)

enum impl { KFIFO, CK, BOOST, IMPLS };
static const char *names[IMPLS] = { "kfifo (many/many)", "ck_ring mpmc",
				    "boost::lockfree::queue" };

struct run {
	enum impl impl;
	size_t size;
	uint64_t per;
	struct kfifo fifo;
	ck_ring_t ring;
	void *ring_buf;
	void *boost;
	int producers_left;
	uint64_t count, sum;
	pthread_barrier_t start;
};

struct worker {
	struct run *r;
	uint64_t id;
};

static int ck_put(struct run *r, const unsigned char *m)
{
	void *v = (void *)(uintptr_t)m;

	if (r->size == 8)
		return ck_ring_enqueue_mpmc_c8(&r->ring, r->ring_buf, v);
	if (r->size == 256)
		return ck_ring_enqueue_mpmc_c256(&r->ring, r->ring_buf, v);
	return ck_ring_enqueue_mpmc_c4k(&r->ring, r->ring_buf, v);
}

static int ck_take(struct run *r, unsigned char *m)
{
	if (r->size == 8)
		return ck_ring_dequeue_mpmc_c8(&r->ring, r->ring_buf,
					       (struct c8 *)m);
	if (r->size == 256)
		return ck_ring_dequeue_mpmc_c256(&r->ring, r->ring_buf,
						 (struct c256 *)m);
	return ck_ring_dequeue_mpmc_c4k(&r->ring, r->ring_buf,
					(struct c4k *)m);
}

static int put(struct run *r, const unsigned char *m)
{
	switch (r->impl) {
	case KFIFO:
		return kfifo_in_rec(&r->fifo, m, (unsigned int)r->size, 0) == 0;
	case CK:
		return ck_put(r, m);
	default:
		return pool_boost_push(r->boost, r->size, m);
	}
}

static int take(struct run *r, unsigned char *m)
{
	switch (r->impl) {
	case KFIFO:
		return kfifo_out_rec(&r->fifo, m, (unsigned int)r->size, 0,
				     NULL) == 0;
	case CK:
		return ck_take(r, m);
	default:
		return pool_boost_pop(r->boost, r->size, m);
	}
}

static void *producer(void *a)
{
	struct worker *w = a;
	struct run *r = w->r;
	unsigned char m[MAX_MSG] = { 0 };
	uint64_t s, v;

	pthread_barrier_wait(&r->start);
	for (s = 0; s < r->per; s++) {
		v = w->id * r->per + s;
		memcpy(m, &v, 8);
		while (!put(r, m))
			sched_yield();
	}
	__atomic_sub_fetch(&r->producers_left, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *consumer(void *a)
{
	struct run *r = ((struct worker *)a)->r;
	unsigned char m[MAX_MSG];
	uint64_t count = 0, sum = 0, v;

	pthread_barrier_wait(&r->start);
	for (;;) {
		/* read before the take: a take that finds the queue empty after
		 * every producer had finished means nothing more will come.
		 * (Read after it, a message put in between would be taken by a
		 * second take that the count never sees.) */
		int done = __atomic_load_n(&r->producers_left,
					   __ATOMIC_ACQUIRE) == 0;

		if (take(r, m)) {
			memcpy(&v, m, 8);
			count++;
			sum += v;
			continue;
		}
		if (done)
			break;
		sched_yield();
	}
	__atomic_add_fetch(&r->count, count, __ATOMIC_RELAXED);
	__atomic_add_fetch(&r->sum, sum, __ATOMIC_RELAXED);
	return NULL;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void setup(struct run *r)
{
	size_t slots = QUEUE_BYTES / r->size;

	if (r->impl == KFIFO) {
		if (kfifo_alloc(&r->fifo, QUEUE_BYTES, KFIFO_GFP_KERNEL) != 0 ||
		    kfifo_set_mode(&r->fifo, KFIFO_MANY_PRODUCERS |
						     KFIFO_MANY_CONSUMERS) != 0)
			abort();
	} else if (r->impl == CK) {
		r->ring_buf = aligned_alloc(64, slots * r->size);
		ck_ring_init(&r->ring, (unsigned int)slots);
	} else {
		r->boost = pool_boost_create(r->size, slots);
	}
}

static void teardown(struct run *r)
{
	if (r->impl == KFIFO)
		kfifo_free(&r->fifo);
	else if (r->impl == CK)
		free(r->ring_buf);
	else
		pool_boost_destroy(r->boost, r->size);
}

/* One run of @per messages from each of @p producers: the seconds it took. */
static double one(enum impl impl, size_t size, uint64_t per, int p, int c)
{
	struct run *r = calloc(1, sizeof(*r));
	pthread_t t[MAX_THREADS];
	struct worker w[MAX_THREADS];
	uint64_t n = (uint64_t)p * per;
	double t0, took;
	int i;

	r->impl = impl;
	r->size = size;
	r->per = per;
	r->producers_left = p;
	setup(r);
	pthread_barrier_init(&r->start, NULL, (unsigned int)(p + c + 1));
	for (i = 0; i < p + c; i++) {
		w[i].r = r;
		w[i].id = (uint64_t)i;
		pthread_create(&t[i], NULL, i < p ? producer : consumer, &w[i]);
	}
	pthread_barrier_wait(&r->start);
	t0 = now();
	for (i = 0; i < p + c; i++)
		pthread_join(t[i], NULL);
	took = now() - t0;
	if (r->count != n || r->sum != n * (n - 1) / 2) {
		fprintf(stderr, "%s %zu B: %llu messages, sent %llu\n",
			names[impl], size, (unsigned long long)r->count,
			(unsigned long long)n);
		exit(1);
	}
	teardown(r);
	pthread_barrier_destroy(&r->start);
	free(r);
	return took;
}

/* The count per producer for runs of at least @min seconds, from the
 * faster of two untimed runs of @per (at most MAX_SCALE times @per): this
 * machine's rates jump between two levels, and a count made at the low
 * one gives runs far shorter than @min at the high one. */
static uint64_t scaled(enum impl impl, size_t size, uint64_t per, int p,
		       int c, double min)
{
	double took = one(impl, size, per, p, c), again, k;

	again = one(impl, size, per, p, c);
	if (again < took)
		took = again;

	if (took <= 0 || took >= min)
		return per;
	k = min / took * 1.1;
	if (k > MAX_SCALE)
		k = MAX_SCALE;
	return (uint64_t)((double)per * k);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 7, i, k, s, p = 2, c = 2;
	uint64_t per = argc > 2 ? strtoull(argv[2], NULL, 10) : 1000000;
	const char *env = getenv("KFIFO_BENCH_MIN_SECONDS");
	double min = env ? atof(env) : 0.25;
	size_t sizes[] = { 8, 256, 4096 };
	double rate[IMPLS][64], ratio[IMPLS][64];
	uint64_t n[IMPLS];

	if (argc > 3 && (sscanf(argv[3], "%dx%d", &p, &c) != 2 || p < 1 ||
			 c < 1 || p + c > MAX_THREADS)) {
		fprintf(stderr, "usage: %s [rounds] [messages] [PxC]\n", argv[0]);
		return 2;
	}
	if (rounds < 1 || rounds > 64)
		rounds = 7;
	printf("%d producer(s) x %d consumer(s); runs of at least %.2f s\n\n", p,
	       c, min);
	printf("| message | implementation | rate | kfifo / it | messages a run |\n"
	       "|---|---|---:|---:|---:|\n");
	for (s = 0; s < 3; s++) {
		/* about the same bytes a producer at 256 B and 4 KiB */
		uint64_t base = sizes[s] == 8 ? per : per / (sizes[s] / 64) + 1;

		for (k = 0; k < IMPLS; k++)
			n[k] = scaled((enum impl)k, sizes[s], base, p, c, min);
		for (i = 0; i < rounds; i++)
			for (k = 0; k < IMPLS; k++)
				rate[k][i] = (double)(n[k] * (uint64_t)p) /
					     one((enum impl)k, sizes[s], n[k], p, c);
		for (k = 0; k < IMPLS; k++) {
			for (i = 0; i < rounds; i++)
				ratio[k][i] = rate[KFIFO][i] / rate[k][i];
			printf("| %zu B | %s | %.3f M msg/s | %.2fx | %llu |\n",
			       sizes[s], names[k], median(rate[k], rounds) / 1e6,
			       median(ratio[k], rounds),
			       (unsigned long long)(n[k] * (uint64_t)p));
		}
		fflush(stdout);
	}
	return 0;
}
