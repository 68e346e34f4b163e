/* SPDX-License-Identifier: MIT */
/*
 * wait_cost.c - what waiting support (the futex waits) costs the publisher
 * when nobody waits: kfifo before it (the "base" commit) against kfifo
 * now, in one process, paired and repeated.  bench/run-wait-cost.sh builds
 * it: this file is compiled once per side against that side's header, and
 * the base side's symbols are renamed so that both libraries link into one
 * binary (the base library is never modified).
 *
 * Sides (the same loops of bench_harness.h for all):
 *   base        the base commit, struct kfifo 64-byte aligned (as it asked)
 *   now         this tree, struct kfifo 64-byte aligned
 *   now_m16     this tree, struct kfifo at 16 bytes past a 64-byte line,
 *               as malloc() may return it
 *   now_fenced  this tree with the publishers' fenced path (what it would
 *               cost without membarrier())
 * Workloads: one thread, in then out of 16 and 4096 bytes (ns per round
 * trip); two threads streaming 16- and 4096-byte chunks through a 1 MiB
 * ring and 16-byte chunks through a 4 KiB ring (ns per chunk).
 *
 * Each repetition runs every side on every workload, the sides in an
 * order that alternates between repetitions; the table shows medians of
 * the times and the median of the paired ratios side/base, with the
 * quartiles of now/base (how noisy the pairs were).
 *
 * Usage: wait-cost [--reps N] [--scale F]
 */
#define _GNU_SOURCE
#ifdef WAIT_COST_SIDE
/* ---- one side: its kfifo, under the names SIDE_stream / SIDE_pingpong -- */
#include <kfifo.h>

#include "bench_harness.h"

#define WC_CAT2(a, b) a##b
#define WC_CAT(a, b) WC_CAT2(a, b)
#define WC(name) WC_CAT(WAIT_COST_SIDE, name)
#define WC_DEFINE(side) BENCH_DEFINE(side)

/* Where struct kfifo goes in its 64-byte-aligned block (0 or 16). */
#ifndef WAIT_COST_OFFSET
#define WAIT_COST_OFFSET 0
#endif

static void *WC(_create)(size_t bytes, size_t chunk)
{
	unsigned char *mem = aligned_alloc(64, sizeof(struct kfifo) + 64);
	struct kfifo *f = (struct kfifo *)(mem + WAIT_COST_OFFSET);

	(void)chunk;
	if (mem == NULL || kfifo_alloc(f, (unsigned int)bytes, GFP_KERNEL) != 0)
		bench_fail("wait-cost", "out of memory");
	return f;
}

static void WC(_destroy)(void *ctx)
{
	kfifo_free(ctx);
	free((unsigned char *)ctx - WAIT_COST_OFFSET);
}

static inline size_t WC(_write)(void *ctx, const void *p, size_t n)
{
	return kfifo_in(ctx, p, (unsigned int)n);
}

static inline size_t WC(_read)(void *ctx, void *p, size_t n)
{
	return kfifo_out(ctx, p, (unsigned int)n);
}

WC_DEFINE(WAIT_COST_SIDE)

#else
/* ---- the driver ----------------------------------------------------- */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef double (*stream_fn)(size_t, size_t, uint64_t);
typedef double (*pingpong_fn)(size_t, uint64_t);

#define SIDE_DECL(s)                                                           \
	double s##_stream(size_t ring, size_t chunk, uint64_t total);          \
	double s##_pingpong(size_t chunk, uint64_t rounds);
SIDE_DECL(base)
SIDE_DECL(now)
SIDE_DECL(now_m16)

/* this tree's choice of publishing path (kfifo_internal.h) */
extern unsigned char kfifo__membarrier_ready;

static double now_fenced_stream(size_t ring, size_t chunk, uint64_t total)
{
	unsigned char saved = kfifo__membarrier_ready;
	double t;

	kfifo__membarrier_ready = 0;
	t = now_stream(ring, chunk, total);
	kfifo__membarrier_ready = saved;
	return t;
}

static double now_fenced_pingpong(size_t chunk, uint64_t rounds)
{
	unsigned char saved = kfifo__membarrier_ready;
	double t;

	kfifo__membarrier_ready = 0;
	t = now_pingpong(chunk, rounds);
	kfifo__membarrier_ready = saved;
	return t;
}

#define NSIDES 4
static const char *const side_names[NSIDES] = { "base", "now", "now_m16",
						 "now_fenced" };
static const stream_fn streams[NSIDES] = { base_stream, now_stream,
					   now_m16_stream, now_fenced_stream };
static const pingpong_fn pingpongs[NSIDES] = { base_pingpong, now_pingpong,
					       now_m16_pingpong,
					       now_fenced_pingpong };

struct workload {
	const char *name;
	int threads;      /* 1: ping-pong, 2: stream */
	size_t ring, chunk;
	double ops;       /* rounds or chunks at scale 1 */
};

static const struct workload workloads[] = {
	{ "1 thread, in+out 16 B", 1, 4096, 16, 2e7 },
	{ "1 thread, in+out 4096 B", 1, 4096, 4096, 2e6 },
	{ "2 threads, 16 B chunks, 1 MiB ring", 2, 1 << 20, 16, 4e6 },
	{ "2 threads, 4096 B chunks, 1 MiB ring", 2, 1 << 20, 4096, 2.5e5 },
	{ "2 threads, 16 B chunks, 4 KiB ring", 2, 4096, 16, 4e6 },
};
#define NWORK (sizeof(workloads) / sizeof(workloads[0]))

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The @q quantile (0 .. 1) of @n values, interpolated; sorts @v. */
static double quantile(double *v, int n, double q)
{
	double x = q * (n - 1);
	int i = (int)x;

	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return i + 1 < n ? v[i] + (x - i) * (v[i + 1] - v[i]) : v[i];
}

int main(int argc, char **argv)
{
	int reps = 11, r, i, s;
	double scale = 1.0;
	static double ns[NWORK][NSIDES][256], ratio[NWORK][NSIDES][256];

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--scale") && i + 1 < argc)
			scale = atof(argv[++i]);
		else {
			fprintf(stderr, "usage: %s [--reps N] [--scale F]\n", argv[0]);
			return 2;
		}
	}
	if (reps < 1 || reps > 256)
		reps = 11;
	fprintf(stderr, "wait-cost: %d repetitions, scale %g; membarrier %s\n",
		reps, scale, kfifo__membarrier_ready ? "registered" : "not available");
	for (r = 0; r < reps; r++) {
		for (i = 0; i < (int)NWORK; i++) {
			const struct workload *w = &workloads[i];
			uint64_t ops = (uint64_t)(w->ops * scale) + 1;

			for (s = 0; s < NSIDES; s++) {
				/* alternate the order: no side always goes first */
				int k = r % 2 ? NSIDES - 1 - s : s;
				double t = w->threads == 1
						   ? pingpongs[k](w->chunk, ops)
						   : streams[k](w->ring, w->chunk,
								ops * w->chunk);

				ns[i][k][r] = t * 1e9 / (double)ops;
			}
			for (s = 0; s < NSIDES; s++)
				ratio[i][s][r] = ns[i][s][r] / ns[i][0][r];
		}
		fprintf(stderr, "  repetition %d of %d done\n", r + 1, reps);
	}
	printf("| workload (ns per round trip or chunk; median of %d) |", reps);
	for (s = 0; s < NSIDES; s++)
		printf(" %s |", side_names[s]);
	for (s = 1; s < NSIDES; s++)
		printf(" %s/base |", side_names[s]);
	printf(" now/base quartiles |\n|---|");
	for (s = 0; s < 2 * NSIDES; s++)
		printf("---:|");
	printf("\n");
	for (i = 0; i < (int)NWORK; i++) {
		double med[NSIDES], rat[NSIDES];

		for (s = 0; s < NSIDES; s++) {
			med[s] = quantile(ns[i][s], reps, 0.5);
			rat[s] = quantile(ratio[i][s], reps, 0.5);
		}
		printf("| %s |", workloads[i].name);
		for (s = 0; s < NSIDES; s++)
			printf(" %.2f |", med[s]);
		for (s = 1; s < NSIDES; s++)
			printf(" %.3f |", rat[s]);
		printf(" %.3f-%.3f |\n", quantile(ratio[i][1], reps, 0.25),
		       quantile(ratio[i][1], reps, 0.75));
	}
	return 0;
}
#endif
