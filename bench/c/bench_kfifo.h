/* SPDX-License-Identifier: MIT */
/*
 * bench_kfifo.h - kfifo's byte stream and its records as implementations
 * of bench_harness.h, for kfifo-bench and the A/B driver (ab_bench.c).
 * Each includer defines NAME_create / NAME_destroy (where the struct
 * lies is its choice) before BENCH_KFIFO_BYTES(NAME) or
 * BENCH_KFIFO_RECORDS(NAME, RECSIZE), which add the write and read calls
 * and BENCH_DEFINE(NAME).
 */
#ifndef KFIFO_BENCH_KFIFO_H
#define KFIFO_BENCH_KFIFO_H

#include <kfifo.h>

#include "bench_harness.h"

/* kfifo_in / kfifo_out of whatever fits */
#define BENCH_KFIFO_BYTES(NAME)                                                \
	static inline size_t NAME##_write(void *ctx, const void *p, size_t n) \
	{                                                                      \
		return kfifo_in((struct kfifo *)ctx, p, (unsigned int)n);      \
	}                                                                      \
	static inline size_t NAME##_read(void *ctx, void *p, size_t n)        \
	{                                                                      \
		return kfifo_out((struct kfifo *)ctx, p, (unsigned int)n);     \
	}                                                                      \
	BENCH_DEFINE(NAME)

/* Whole chunks as records, the header size a compile-time constant so that
 * kfifo.h picks the specialised record code. */
#define BENCH_KFIFO_RECORDS(NAME, RECSIZE)                                     \
	static inline size_t NAME##_write(void *ctx, const void *p, size_t n) \
	{                                                                      \
		return kfifo_in_rec((struct kfifo *)ctx, p, (unsigned int)n,   \
				    RECSIZE) == 0                              \
			       ? n                                             \
			       : 0;                                            \
	}                                                                      \
	static inline size_t NAME##_read(void *ctx, void *p, size_t n)        \
	{                                                                      \
		unsigned int total;                                            \
		return kfifo_out_rec((struct kfifo *)ctx, p, (unsigned int)n,  \
				     RECSIZE, &total) == 0                     \
			       ? total                                         \
			       : 0;                                            \
	}                                                                      \
	BENCH_DEFINE(NAME)

#endif /* KFIFO_BENCH_KFIFO_H */
