/* SPDX-License-Identifier: MIT */
/*
 * ab_bench.c - one row of the A/B benchmark (scripts/bench-ab.sh), timed
 * once, against the library it is linked with.
 *
 * scripts/bench-ab.sh compiles this file twice, each time against the
 * header and the sources of one revision of the library, and runs the two
 * binaries in turn, row by row, so that the two revisions are measured
 * seconds apart under the same load (paired runs): what it compares is the
 * library, not the driver, which is this file in both.  Only calls that
 * release 0.2 already had are used, so any revision since builds it.
 *
 * Usage: ab-bench ROW [SCALE [--polls]]; prints one figure (the unit is in
 * the list from ab-bench --list, higher is better except for ns).
 *
 * --polls (msg8 and the stream rows): the same run through kfifo_in and
 * kfifo_out wrappers that count, and two more figures after the first:
 * the share of the consumer's calls that found the fifo empty and the share
 * of the producer's calls that found less room than they asked for.  They
 * say which case a timed run sat in (docs/performance.md, "Which case a
 * run is in"): a consumer that has caught up polls an empty fifo between
 * messages, one that lags never does, and a full fifo cuts the producer's
 * calls short.  Each counter is a plain word of one thread, on a line of
 * its own, read after both threads are joined.
 *
 * Rows (two threads pinned to CPUs 0 and 1, one producer one consumer,
 * the loops of bench_harness.h, a 1 MiB fifo):
 *   msg8        8-byte messages, kfifo_in / kfifo_out
 *   msg8_avail  8-byte messages, kfifo_avail() >= 8 then kfifo_in (a
 *               producer that checks first); kfifo_out
 *   msg8_rec0   8-byte fixed-size records, kfifo_in_rec / kfifo_out_rec
 *               with recsize 0 (all or nothing)
 *   rec16       16-byte records with a 1-byte header (recsize 1)
 *   stream16 ... stream65536   kfifo_in / kfifo_out of that chunk, GB/s
 *   ping16      one thread, 16 bytes in then out, ns per round trip
 *   c2c         no fifo: one cache line handed between the two pinned
 *               threads and back, ns per hand-over.  It measures the
 *               machine, not the library (both sides run the same code):
 *               on the shared VMs this project is measured on it comes in
 *               two speeds, a few tens of ns when the two virtual CPUs sit
 *               on nearby cores and several times that when they do not,
 *               and every two-thread row moves with it.  scripts/bench-ab.sh
 *               --modes uses it to sort the pairs by the machine's speed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <kfifo.h>

#include "bench_harness.h"
#include "bench_kfifo.h"

#define AB_RING (1u << 20)

/* Where the struct starts past a 128-byte boundary: $AB_OFFSET, default
 * 48, where kfifo-bench's malloc() puts it (a multiple of 16, as malloc()
 * gives); fixed, so that the heap's history does not move the index lines
 * from one run or revision to the next. */
static size_t kf_offset(void)
{
	const char *e = getenv("AB_OFFSET");

	return (e ? (size_t)atoi(e) : 48) % 128 & ~(size_t)15;
}

static void *kf_create(size_t bytes, size_t chunk)
{
	unsigned char *mem = aligned_alloc(128, 1024);
	struct kfifo *f;

	(void)chunk;
	if (mem == NULL || sizeof(*f) + 128 > 1024)
		bench_fail("kfifo", "out of memory");
	f = (struct kfifo *)(void *)(mem + kf_offset());
	if (kfifo_alloc(f, (unsigned int)bytes, 0) != 0)
		bench_fail("kfifo", "out of memory");
	return f;
}
static void kf_destroy(void *ctx)
{
	kfifo_free(ctx);
	free((unsigned char *)ctx - kf_offset());
}

#define msg8_create kf_create
#define msg8_destroy kf_destroy
BENCH_KFIFO_BYTES(msg8)

#define avail_create kf_create
#define avail_destroy kf_destroy
static inline size_t avail_write(void *ctx, const void *p, size_t n)
{
	if (kfifo_avail(ctx) < n)
		return 0;
	return kfifo_in(ctx, p, (unsigned int)n);
}
static inline size_t avail_read(void *ctx, void *p, size_t n)
{
	return kfifo_out(ctx, p, (unsigned int)n);
}
BENCH_DEFINE(avail)

/* --polls: msg8 with the counts (each side's on its own 128 bytes) */
static struct ab_polls {
	unsigned long calls, misses;
	unsigned char pad[128 - 2 * sizeof(unsigned long)];
} __attribute__((aligned(128))) producer_polls, consumer_polls;

#define polls_create kf_create
#define polls_destroy kf_destroy
static inline size_t polls_write(void *ctx, const void *p, size_t n)
{
	size_t w = kfifo_in(ctx, p, (unsigned int)n);

	producer_polls.calls++;
	producer_polls.misses += w < n;
	return w;
}
static inline size_t polls_read(void *ctx, void *p, size_t n)
{
	size_t r = kfifo_out(ctx, p, (unsigned int)n);

	consumer_polls.calls++;
	consumer_polls.misses += r == 0;
	return r;
}
BENCH_DEFINE(polls)

#define rec0_create kf_create
#define rec0_destroy kf_destroy
BENCH_KFIFO_RECORDS(rec0, 0)

#define rec1_create kf_create
#define rec1_destroy kf_destroy
BENCH_KFIFO_RECORDS(rec1, 1)

/*
 * The c2c row: round trips of one line between CPUs 0 and 1, at most
 * @rounds of them and at most ~0.25 s (on a loaded machine every hand-over
 * can cost a time slice; the row must still end soon).
 */
#define C2C_STOP (-1)
struct c2c_arg {
	_Alignas(128) long turn;  /* odd: the echo thread's move; atomic */
};

static void *c2c_echo(void *p)
{
	struct c2c_arg *a = p;
	long want = 1, t;

	bench_pin(1);
	for (;;) {
		while ((t = __atomic_load_n(&a->turn, __ATOMIC_ACQUIRE)) != want &&
		       t != C2C_STOP)
			bench_relax();
		if (t == C2C_STOP)
			return NULL;
		__atomic_store_n(&a->turn, want + 1, __ATOMIC_RELEASE);
		want += 2;
	}
}

static double c2c_handover(uint64_t rounds)
{
	static struct c2c_arg a;
	pthread_t echo;
	double t0, t1;
	uint64_t k;

	a.turn = 0;
	bench_pin(0);
	if (pthread_create(&echo, NULL, c2c_echo, &a) != 0)
		bench_fail("c2c", "pthread_create");
	t0 = t1 = bench_now();
	for (k = 0; k < rounds; k++) {
		long want = (long)(2 * k);

		if (k % 256 == 0 && (t1 = bench_now()) - t0 > 0.25)
			break;
		while (__atomic_load_n(&a.turn, __ATOMIC_ACQUIRE) != want)
			bench_relax();
		__atomic_store_n(&a.turn, want + 1, __ATOMIC_RELEASE);
	}
	while (__atomic_load_n(&a.turn, __ATOMIC_ACQUIRE) != (long)(2 * k))
		bench_relax();
	t1 = bench_now();
	__atomic_store_n(&a.turn, C2C_STOP, __ATOMIC_RELEASE);
	pthread_join(echo, NULL);
	return (t1 - t0) * 1e9 / (double)(2 * (k ? k : 1));
}

typedef double (*stream_fn)(size_t, size_t, uint64_t);

static const struct row {
	const char *name, *unit;
	stream_fn fn;    /* NULL: the one-thread round trip, or c2c */
	size_t chunk;
	uint64_t total;  /* bytes per run at scale 1 */
} rows[] = {
	{ "msg8", "Mmsg/s", msg8_stream, 8, 8ull << 22 },
	{ "msg8_avail", "Mmsg/s", avail_stream, 8, 8ull << 21 },
	{ "msg8_rec0", "Mmsg/s", rec0_stream, 8, 8ull << 22 },
	{ "rec16", "Mrec/s", rec1_stream, 16, 16ull << 21 },
	{ "stream16", "GB/s", msg8_stream, 16, 16ull << 22 },
	{ "stream64", "GB/s", msg8_stream, 64, 64ull << 20 },
	{ "stream512", "GB/s", msg8_stream, 512, 256ull << 20 },
	{ "stream4096", "GB/s", msg8_stream, 4096, 512ull << 20 },
	{ "stream65536", "GB/s", msg8_stream, 65536, 512ull << 20 },
	{ "ping16", "ns", NULL, 16, 4000000 },
	{ "c2c", "ns", NULL, 1, 1000000 },
};
#define NROWS (sizeof(rows) / sizeof(rows[0]))

int main(int argc, char **argv)
{
	double scale = argc > 2 ? atof(argv[2]) : 1.0;
	int polls = argc > 3 && strcmp(argv[3], "--polls") == 0;
	size_t i;

	if (argc < 2 || argc > 4 || (argc == 4 && !polls) || scale <= 0) {
		fprintf(stderr,
			"usage: ab-bench ROW [SCALE [--polls]] | --list\n");
		return 2;
	}
	for (i = 0; i < NROWS; i++) {
		const struct row *r = &rows[i];
		uint64_t total = (uint64_t)((double)r->total * scale);

		if (strcmp(argv[1], "--list") == 0) {
			printf("%s %s\n", r->name, r->unit);
			continue;
		}
		if (strcmp(argv[1], r->name) != 0)
			continue;
		total -= total % r->chunk;
		if (total < 64 * r->chunk)
			total = 64 * r->chunk;
		if (polls && r->fn != msg8_stream) {
			fprintf(stderr, "ab-bench: --polls counts msg8 and "
					"the stream rows only\n");
			return 2;
		}
		if (strcmp(r->name, "c2c") == 0) {
			printf("%.4f\n", c2c_handover(total));
		} else if (r->fn == NULL) {
			double s = msg8_pingpong(r->chunk, total);

			printf("%.4f\n", s * 1e9 / (double)total);
		} else {
			/* msg8_stream's loop, through the counting wrappers */
			stream_fn fn = polls ? polls_stream : r->fn;
			double s = fn(AB_RING, r->chunk, total);

			if (strcmp(r->unit, "GB/s") == 0)
				printf("%.4f", (double)total / s / 1e9);
			else
				printf("%.4f",
				       (double)(total / r->chunk) / s / 1e6);
			if (polls)
				printf(" %.4f %.4f",
				       (double)consumer_polls.misses /
					       (double)consumer_polls.calls,
				       (double)producer_polls.misses /
					       (double)producer_polls.calls);
			printf("\n");
		}
		return 0;
	}
	if (strcmp(argv[1], "--list") == 0)
		return 0;
	fprintf(stderr, "ab-bench: no row %s (--list)\n", argv[1]);
	return 2;
}
