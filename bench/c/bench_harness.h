/* SPDX-License-Identifier: MIT */
/*
 * bench_harness.h - the timing loops shared by every implementation in the
 * C benchmark, written in the common subset of C11 and C++11 so that the
 * Boost peer (a C++ header library) runs exactly the same loops as the C
 * peers.
 *
 * An implementation NAME provides four functions:
 *
 *   void  *NAME_create(size_t bytes, size_t chunk);   ring of ~bytes bytes
 *   void   NAME_destroy(void *ctx);
 *   size_t NAME_write(void *ctx, const void *p, size_t n);  bytes taken
 *   size_t NAME_read(void *ctx, void *p, size_t n);         bytes given
 *
 * Byte streams may take or give fewer than @n bytes (the loops go on with
 * the rest); element queues take or give a whole element of @chunk bytes
 * or nothing.  BENCH_DEFINE(NAME) then instantiates, with direct (inlinable)
 * calls and no function pointers on the hot path:
 *
 *   double NAME_stream(size_t ring, size_t chunk, uint64_t total)
 *       two threads, one producer and one consumer, moving @total bytes in
 *       @chunk-byte calls; returns the seconds from the start signal until
 *       the consumer has everything.
 *   double NAME_pingpong(size_t chunk, uint64_t rounds)
 *       one thread, write @chunk bytes then read them back, @rounds times;
 *       returns seconds.
 *
 * The producer fills its source chunk with a running sequence byte and the
 * consumer checks the first byte of every chunk it completes, so a peer (or
 * kfifo) that loses or reorders data fails loudly instead of looking fast.
 */
#ifndef KFIFO_BENCH_HARNESS_H
#define KFIFO_BENCH_HARNESS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef __cplusplus
#define BENCH_EXTERN_C extern "C"
#else
#define BENCH_EXTERN_C
#endif

static inline double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * Wait a little for the other side.  After a few spins the thread yields:
 * on a machine with no spare core (2 cores, other work running) the other
 * side may be waiting for this very CPU, and a spin of a whole time slice
 * would measure the scheduler instead of the ring.  Every implementation
 * waits the same way.
 */
static inline void bench_relax(void)
{
	static __thread unsigned int spins;

	if (++spins % 64 == 0) {
		sched_yield();
		return;
	}
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* Pin the calling thread to @cpu when the machine has more than one. */
static inline void bench_pin(int cpu)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;

	if (ncpu < 2)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu % (int)ncpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static inline void bench_fail(const char *who, const char *what)
{
	fprintf(stderr, "kfifo-bench: %s: %s\n", who, what);
	exit(2);
}

struct bench_stream_arg {
	void *ctx;
	size_t chunk;
	uint64_t total;
	int go;          /* start signal, atomic */
	int ready;       /* threads waiting for it, atomic */
	unsigned char bad;
};

static inline void bench_wait_go(struct bench_stream_arg *a)
{
	__atomic_add_fetch(&a->ready, 1, __ATOMIC_ACQ_REL);
	while (!__atomic_load_n(&a->go, __ATOMIC_ACQUIRE))
		bench_relax();
}

#define BENCH_DEFINE(NAME)                                                     \
	static void *NAME##_producer(void *p)                                  \
	{                                                                      \
		struct bench_stream_arg *a = (struct bench_stream_arg *)p;     \
		unsigned char *src = (unsigned char *)malloc(a->chunk);        \
		uint64_t left = a->total;                                      \
		unsigned char seq = 0;                                         \
		memset(src, 0x5a, a->chunk);                                   \
		bench_pin(0);                                                  \
		bench_wait_go(a);                                              \
		while (left) {                                                 \
			size_t done = 0;                                       \
			src[0] = seq++;                                        \
			while (done < a->chunk) {                              \
				size_t w = NAME##_write(a->ctx, src + done,    \
							a->chunk - done);      \
				if (w == 0)                                    \
					bench_relax();                         \
				done += w;                                     \
			}                                                      \
			left -= a->chunk;                                      \
		}                                                              \
		free(src);                                                     \
		return NULL;                                                   \
	}                                                                      \
	static void *NAME##_consumer(void *p)                                  \
	{                                                                      \
		struct bench_stream_arg *a = (struct bench_stream_arg *)p;     \
		unsigned char *dst = (unsigned char *)malloc(a->chunk);        \
		uint64_t left = a->total;                                      \
		unsigned char seq = 0;                                         \
		bench_pin(1);                                                  \
		bench_wait_go(a);                                              \
		while (left) {                                                 \
			size_t done = 0;                                       \
			while (done < a->chunk) {                              \
				size_t r = NAME##_read(a->ctx, dst + done,     \
						       a->chunk - done);       \
				if (r == 0)                                    \
					bench_relax();                         \
				done += r;                                     \
			}                                                      \
			if (dst[0] != seq++)                                   \
				a->bad = 1;                                    \
			left -= a->chunk;                                      \
		}                                                              \
		free(dst);                                                     \
		return NULL;                                                   \
	}                                                                      \
	BENCH_EXTERN_C double NAME##_stream(size_t ring, size_t chunk,         \
					    uint64_t total)                    \
	{                                                                      \
		struct bench_stream_arg a;                                     \
		pthread_t prod, cons;                                          \
		double t0, t1;                                                 \
		memset(&a, 0, sizeof(a));                                      \
		a.ctx = NAME##_create(ring, chunk);                            \
		a.chunk = chunk;                                               \
		a.total = total - total % chunk;                               \
		pthread_create(&cons, NULL, NAME##_consumer, &a);              \
		pthread_create(&prod, NULL, NAME##_producer, &a);              \
		while (__atomic_load_n(&a.ready, __ATOMIC_ACQUIRE) < 2)        \
			sched_yield();                                         \
		t0 = bench_now();                                              \
		__atomic_store_n(&a.go, 1, __ATOMIC_RELEASE);                  \
		pthread_join(prod, NULL);                                      \
		pthread_join(cons, NULL);                                      \
		t1 = bench_now();                                              \
		NAME##_destroy(a.ctx);                                         \
		if (a.bad)                                                     \
			bench_fail(#NAME, "data arrived out of order");        \
		return t1 - t0;                                                \
	}                                                                      \
	BENCH_EXTERN_C double NAME##_pingpong(size_t chunk, uint64_t rounds)   \
	{                                                                      \
		void *ctx = NAME##_create(4096, chunk);                        \
		unsigned char *src = (unsigned char *)calloc(2, chunk);        \
		unsigned char *dst = src + chunk;                              \
		uint64_t i;                                                    \
		double t0, t1;                                                 \
		t0 = bench_now();                                              \
		for (i = 0; i < rounds; i++) {                                 \
			src[0] = (unsigned char)i;                             \
			if (NAME##_write(ctx, src, chunk) != chunk ||          \
			    NAME##_read(ctx, dst, chunk) != chunk ||           \
			    dst[0] != src[0])                                  \
				bench_fail(#NAME, "ping-pong lost data");      \
		}                                                              \
		t1 = bench_now();                                              \
		NAME##_destroy(ctx);                                           \
		free(src);                                                     \
		return t1 - t0;                                                \
	}

#endif /* KFIFO_BENCH_HARNESS_H */
