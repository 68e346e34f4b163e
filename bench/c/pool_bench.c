/* SPDX-License-Identifier: MIT */
/*
 * pool_bench.c - two producer threads and two consumer threads on one
 * queue: kfifo with both sides "many" (kfifo_set_mode(); fixed-size
 * records, kfifo_in_rec(.., 0) / kfifo_out_rec(.., 0), each stored and
 * taken whole) against Concurrency Kit's ck_ring _mpmc calls (typed with
 * CK_RING_PROTOTYPE) and Boost.Lockfree queue<T> (bounded_push / pop), for
 * messages of 8 and 256 bytes.  64 KiB of queue each (ck_ring and Boost:
 * that many bytes of slots).  Every message carries (producer, sequence);
 * the consumers sum them and a run whose count or sum is off is refused.
 * The implementations run one after the other in each round; the ratio is
 * kfifo's rate over the peer's in the same round, median over rounds.
 *
 *   kfifo-pool-bench [rounds] [messages per producer]   (KFIFO_BUILD_BENCH=ON)
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

#define PRODUCERS 2
#define CONSUMERS 2
#define QUEUE_BYTES 65536

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
CK_RING_PROTOTYPE(c8, c8)
CK_RING_PROTOTYPE(c256, c256)

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

static int put(struct run *r, const unsigned char *m)
{
	switch (r->impl) {
	case KFIFO:
		return kfifo_in_rec(&r->fifo, m, (unsigned int)r->size, 0) == 0;
	case CK:
		return r->size == 8
			       ? ck_ring_enqueue_mpmc_c8(&r->ring, r->ring_buf,
							 (struct c8 *)(uintptr_t)m)
			       : ck_ring_enqueue_mpmc_c256(
					 &r->ring, r->ring_buf,
					 (struct c256 *)(uintptr_t)m);
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
		return r->size == 8 ? ck_ring_dequeue_mpmc_c8(&r->ring,
							      r->ring_buf,
							      (struct c8 *)m)
				    : ck_ring_dequeue_mpmc_c256(
					      &r->ring, r->ring_buf,
					      (struct c256 *)m);
	default:
		return pool_boost_pop(r->boost, r->size, m);
	}
}

static void *producer(void *a)
{
	struct worker *w = a;
	struct run *r = w->r;
	unsigned char m[256] = { 0 };
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
	unsigned char m[256];
	uint64_t count = 0, sum = 0, v;

	pthread_barrier_wait(&r->start);
	for (;;) {
		if (take(r, m)) {
			memcpy(&v, m, 8);
			count++;
			sum += v;
			continue;
		}
		if (__atomic_load_n(&r->producers_left, __ATOMIC_ACQUIRE) == 0 &&
		    !take(r, m))
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

/* One run: bytes per second. */
static double one(enum impl impl, size_t size, uint64_t per)
{
	struct run *r = calloc(1, sizeof(*r));
	pthread_t t[PRODUCERS + CONSUMERS];
	struct worker w[PRODUCERS + CONSUMERS];
	size_t slots = QUEUE_BYTES / size;
	uint64_t n = PRODUCERS * per;
	double t0, took;
	int i;

	r->impl = impl;
	r->size = size;
	r->per = per;
	r->producers_left = PRODUCERS;
	if (impl == KFIFO) {
		if (kfifo_alloc(&r->fifo, QUEUE_BYTES, KFIFO_GFP_KERNEL) != 0 ||
		    kfifo_set_mode(&r->fifo, KFIFO_MANY_PRODUCERS |
						     KFIFO_MANY_CONSUMERS) != 0)
			abort();
	} else if (impl == CK) {
		r->ring_buf = aligned_alloc(64, slots * size);
		ck_ring_init(&r->ring, (unsigned int)slots);
	} else {
		r->boost = pool_boost_create(size, slots);
	}
	pthread_barrier_init(&r->start, NULL, PRODUCERS + CONSUMERS + 1);
	for (i = 0; i < PRODUCERS + CONSUMERS; i++) {
		w[i].r = r;
		w[i].id = (uint64_t)i;
		pthread_create(&t[i], NULL, i < PRODUCERS ? producer : consumer,
			       &w[i]);
	}
	pthread_barrier_wait(&r->start);
	t0 = now();
	for (i = 0; i < PRODUCERS + CONSUMERS; i++)
		pthread_join(t[i], NULL);
	took = now() - t0;
	if (r->count != n || r->sum != n * (n - 1) / 2) {
		fprintf(stderr, "%s %zu B: %llu messages, sent %llu\n",
			names[impl], size, (unsigned long long)r->count,
			(unsigned long long)n);
		exit(1);
	}
	if (impl == KFIFO)
		kfifo_free(&r->fifo);
	else if (impl == CK)
		free(r->ring_buf);
	else
		pool_boost_destroy(r->boost, size);
	pthread_barrier_destroy(&r->start);
	free(r);
	return (double)n * (double)size / took;
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
	int rounds = argc > 1 ? atoi(argv[1]) : 7, i, k;
	uint64_t per = argc > 2 ? strtoull(argv[2], NULL, 10) : 1000000;
	size_t sizes[] = { 8, 256 };
	double rate[IMPLS][64], ratio[IMPLS][64];
	int s;

	if (rounds < 1 || rounds > 64)
		rounds = 7;
	printf("| message | implementation | rate | kfifo / it |\n|---|---|---:|---:|\n");
	for (s = 0; s < 2; s++) {
		uint64_t p = sizes[s] == 8 ? per : per / 4;

		for (i = 0; i < rounds; i++)
			for (k = 0; k < IMPLS; k++)
				rate[k][i] = one((enum impl)k, sizes[s], p);
		for (k = 0; k < IMPLS; k++) {
			for (i = 0; i < rounds; i++)
				ratio[k][i] = rate[KFIFO][i] / rate[k][i];
			printf("| %zu B | %s | %.3f M msg/s | %.2fx |\n", sizes[s],
			       names[k], median(rate[k], rounds) / 1e6 /
						 (double)sizes[s],
			       median(ratio[k], rounds));
		}
	}
	return 0;
}
