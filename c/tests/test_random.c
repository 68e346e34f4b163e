/* SPDX-License-Identifier: MIT */
/*
 * test_random.c - randomized differential test: long random sequences of
 * every operation (in, out, from_user, to_user in both forms, the locked
 * calls, skip, reset, reset_out, the record calls with constant and
 * run-time recsize, peek_rec, skip_rec, the zero-copy prepare/finish calls,
 * out_peek, avail_rec, close, the waits, alloc, init, free) on a real fifo
 * and on the model
 * of kfifo_model.h, comparing every return value, *total, every output
 * byte, the indices, the content and kfifo_valid() after every operation.
 *
 * Environment:
 *   KFIFO_TEST_SEED=<n>          first seed (default: from the clock;
 *                                always printed)
 *   KFIFO_RANDOM_SEQUENCES=<n>   sequences, seeds seed, seed+1, ... (200;
 *                                20 under ThreadSanitizer: single-threaded,
 *                                it gains little there)
 *   KFIFO_RANDOM_OPS=<n>         operations per sequence (10000)
 * A failure prints the line that reproduces it.
 */
#define _POSIX_C_SOURCE 200809L
#include <kfifo.h>

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "kfifo_model.h"
#include "test_harness.h"

#ifndef KFIFO_RANDOM_SEQUENCES_DEFAULT
#define KFIFO_RANDOM_SEQUENCES_DEFAULT 200ULL
#endif

struct rng {
	uint64_t s;
};

static uint64_t rng_next(struct rng *r)
{
	/* xorshift64* */
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545F4914F6CDD1Dull;
}

/* uniform in [0, n) for n > 0 */
static unsigned int rng_below(struct rng *r, unsigned int n)
{
	return (unsigned int)((rng_next(r) >> 32) % n);
}

static unsigned int rng_pick(struct rng *r, const unsigned int *weights,
			     unsigned int count)
{
	unsigned int sum = 0, i, x;

	for (i = 0; i < count; i++)
		sum += weights[i];
	x = rng_below(r, sum);
	for (i = 0; i < count; i++) {
		if (x < weights[i])
			return i;
		x -= weights[i];
	}
	return count - 1;
}

/* Sizes that matter: near 0, around the fill level and free space, the
 * header limits, the top of the unsigned range. */
static unsigned int gen_count(struct rng *r, const struct kmodel *m,
			      unsigned int recsize, int rec)
{
	unsigned int len = kmodel_len(m), avail = kmodel_avail(m);
	int d = (int)rng_below(r, 3) - 1;

	switch (rng_below(r, rec ? 12 : 8)) {
	case 0: return 0;
	case 1: return rng_below(r, 9);
	case 2: return rng_below(r, m->size + 3);
	case 3: return (unsigned int)((int)len + d);
	case 4: return (unsigned int)((int)avail + d);
	case 5: return (unsigned int)((int)avail - (int)(recsize > 2 ? 0 : recsize) + d);
	case 6: return rng_below(r, 4) ? rng_below(r, 64) : UINT_MAX - rng_below(r, 3);
	case 7: return (unsigned int)((int)kmodel_peek_rec(m, recsize) + d);
	case 8: return 255 + rng_below(r, 2);
	case 9: return 65535 + rng_below(r, 2);
	case 10: return (unsigned int)((int)kmodel_peek_rec(m, recsize) + d);
	default: return rng_below(r, 300);
	}
}

static unsigned int gen_recsize(struct rng *r, unsigned int usual)
{
	static const unsigned int odd[] = { 3, 4, 255, 256, 65536, UINT_MAX };

	if (rng_below(r, 100) < 85)
		return usual;
	if (rng_below(r, 100) < 80)
		return rng_below(r, 3);
	return odd[rng_below(r, sizeof(odd) / sizeof(odd[0]))];
}

static unsigned int gen_size(struct rng *r, int for_init)
{
	static const unsigned int bad[] = { 0, 3, 6, 100, (1u << 31) + 1,
					    UINT_MAX };

	switch (rng_below(r, 20)) {
	case 0: return bad[rng_below(r, sizeof(bad) / sizeof(bad[0]))];
	case 1: return for_init ? KMODEL_MAX : 65537; /* records of 65535 */
	case 2: return rng_below(r, 300) + 1;         /* rounded by alloc */
	default: return 1u << rng_below(r, 9);        /* 1 .. 256 */
	}
}

static unsigned int gen_start(struct rng *r)
{
	switch (rng_below(r, 4)) {
	case 0: return 0;
	case 1: return (unsigned int)rng_next(r);
	default: return UINT_MAX - rng_below(r, 600);
	}
}

static void gen_op(struct rng *r, const struct kmodel *m, unsigned int usual,
		   struct kop *op)
{
	/* weights, in the order of enum kop_kind */
	static const unsigned int weights[KOP_COUNT] = {
		120, 100, 25, 25, 25, 25, 40, 8, 15, /* in .. reset_out */
		140, 140, 25, 25, 50, 50,            /* records */
		60, 60, 60, 60, 25, 15,              /* prepare/finish, out_peek,
							avail_rec */
		4, 20, 20, 20,                       /* close, waits */
		6, 6, 2                              /* alloc, init, free */
	};

	memset(op, 0, sizeof(*op));
	op->kind = rng_pick(r, weights, KOP_COUNT);
	op->recsize = gen_recsize(r, usual);
	op->flags = (rng_below(r, 2) ? KOP_CONST_RECSIZE : 0) |
		    (rng_below(r, 10) == 0 ? KOP_TOTAL_NULL : 0) |
		    (rng_below(r, 2) ? KOP_COPIED : 0) |
		    (rng_below(r, 8) == 0 ? KOP_WAIT_BLOCK : 0);
	op->fill = (unsigned char)rng_next(r);
	op->seed = (unsigned int)rng_next(r);
	switch (op->kind) {
	case KOP_ALLOC:
		op->n = gen_size(r, 0);
		op->start = gen_start(r);
		break;
	case KOP_INIT:
		op->n = gen_size(r, 1);
		op->start = gen_start(r);
		if (rng_below(r, 10) == 0)
			op->flags |= KOP_NULL_BUFFER;
		break;
	case KOP_IN_REC:
	case KOP_OUT_REC:
	case KOP_FROM_USER_REC:
	case KOP_TO_USER_REC:
		op->n = gen_count(r, m, op->recsize, 1);
		break;
	case KOP_OUT_PEEK:
		op->n = gen_count(r, m, op->recsize, 0);
		op->offset = gen_count(r, m, op->recsize, 0);
		break;
	default:
		op->n = gen_count(r, m, op->recsize, 0);
		break;
	}
}

static struct kdiff diff;

/* One sequence; returns 0 when the fifo and the model agreed throughout. */
static int run_sequence(uint64_t seed, unsigned long ops,
			unsigned long *kinds)
{
	struct kop history[16];
	struct rng r;
	unsigned long i;
	unsigned int usual;
	const char *err;
	struct kop op;

	r.s = seed * 0x9E3779B97F4A7C15ull + 1;
	usual = rng_below(&r, 3);
	memset(&op, 0, sizeof(op));
	op.kind = KOP_ALLOC;
	op.n = 1u << rng_below(&r, 9);
	op.start = gen_start(&r);
	for (i = 0; i < ops; i++) {
		if (i > 0)
			gen_op(&r, &diff.model, usual, &op);
		if (i % 1000 == 999)
			usual = rng_below(&r, 3);
		history[i % 16] = op;
		kinds[op.kind]++;
		err = kdiff_apply(&diff, &op);
		if (err) {
			char desc[160];
			unsigned long j;

			th_context("seed %llu, op %lu", (unsigned long long)seed, i);
			fprintf(stderr, "last operations (oldest first):\n");
			for (j = i >= 15 ? i - 15 : 0; j <= i; j++) {
				kdiff_describe(&history[j % 16], desc, sizeof(desc));
				fprintf(stderr, "  op %lu: %s\n", j, desc);
			}
			th_fail(__FILE__, __LINE__, "%s", err);
			fprintf(stderr,
				"reproduce: KFIFO_TEST_SEED=%llu KFIFO_RANDOM_SEQUENCES=1 KFIFO_RANDOM_OPS=%lu\n",
				(unsigned long long)seed, ops);
			return 1;
		}
	}
	return 0;
}

static void test_random_sequences_agree_with_model(void)
{
	unsigned long long seed = th_env_ull("KFIFO_TEST_SEED", 0);
	unsigned long long nseq = th_env_ull("KFIFO_RANDOM_SEQUENCES",
					     KFIFO_RANDOM_SEQUENCES_DEFAULT);
	unsigned long long ops = th_env_ull("KFIFO_RANDOM_OPS", 10000);
	unsigned long kinds[KOP_COUNT] = { 0 };
	unsigned long long s;
	unsigned int k;

	if (seed == 0)
		seed = (unsigned long long)time(NULL) % 1000000007ull + 1;
	printf("test_random: KFIFO_TEST_SEED=%llu KFIFO_RANDOM_SEQUENCES=%llu KFIFO_RANDOM_OPS=%llu\n",
	       seed, nseq, ops);
	if (!CHECK_INT(kdiff_open(&diff), 0))
		return;
	for (s = 0; s < nseq; s++) {
		th_checks++;
		if (run_sequence(seed + s, (unsigned long)ops, kinds))
			break;
	}
	printf("test_random: %lu operations, by kind:", diff.ops);
	for (k = 0; k < KOP_COUNT; k++)
		printf(" %s %lu", kop_names[k], kinds[k]);
	printf("\n");
	/* every kind of operation ran */
	for (k = 0; k < KOP_COUNT && nseq * ops >= 100000; k++)
		CHECK(kinds[k] > 0);
	kdiff_close(&diff);
}

/* The executor itself must notice a difference: feed it a fifo that was
 * changed behind the model's back. */
static void test_executor_detects_a_planted_difference(void)
{
	struct kop op;

	if (!CHECK_INT(kdiff_open(&diff), 0))
		return;
	memset(&op, 0, sizeof(op));
	op.kind = KOP_ALLOC;
	op.n = 16;
	CHECK(kdiff_apply(&diff, &op) == NULL);
	op.kind = KOP_IN;
	op.n = 5;
	CHECK(kdiff_apply(&diff, &op) == NULL);
	diff.fifo.buffer[diff.fifo.out & 15] ^= 1; /* corrupt one byte */
	op.kind = KOP_PEEK_REC;
	op.recsize = 0;
	CHECK(kdiff_apply(&diff, &op) != NULL);
	diff.fifo.buffer[diff.fifo.out & 15] ^= 1;
	CHECK(kdiff_apply(&diff, &op) == NULL);
	diff.model.out++; /* the model thinks one byte is gone */
	diff.model.data[0] = diff.model.data[1];
	op.kind = KOP_OUT;
	op.n = 1;
	CHECK(kdiff_apply(&diff, &op) != NULL);
	kdiff_close(&diff);
}

int main(void)
{
	RUN_TEST(test_executor_detects_a_planted_difference);
	RUN_TEST(test_random_sequences_agree_with_model);
	return th_finish("test_random");
}
