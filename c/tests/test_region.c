/* SPDX-License-Identifier: MIT */
/*
 * test_region.c - zero-copy access (docs/spec.md 3.3): kfifo_in_prepare,
 * kfifo_in_finish, kfifo_out_prepare, kfifo_out_finish.
 *
 * Row by row: one region, or two when the space or the data wraps around
 * the end of the buffer (and the second has len 0 otherwise); clamping to
 * kfifo_avail() / kfifo_len(); prepare publishes and removes nothing;
 * finish clamps, also past what was prepared; n = 0; a size-1 and a size-0
 * fifo; interplay with kfifo_in / kfifo_out; every scenario with in = out
 * near 2^32.  Then threads: one producer and one consumer that use only
 * prepare/finish, checking every byte in place (run under TSan by
 * run-c-tests.sh).
 *
 * Environment: KFIFO_STRESS_BYTES=<n>, as test_stress (the stream here
 * moves n/2 bytes).
 */
#define _POSIX_C_SOURCE 200809L
#include <kfifo.h>

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "test_harness.h"
#include "test_threads.h"
#include "test_util.h"

#ifndef KFIFO_STRESS_BYTES_DEFAULT
#define KFIFO_STRESS_BYTES_DEFAULT 20000000ULL
#endif

static unsigned char src[4096];
static unsigned char dst[4096];

/* The regions of a prepare that returned @total at index @idx of a
 * @size-byte fifo: r[0] at the index, r[1] at the start of the buffer. */
static int check_regions(struct kfifo *f, const struct kfifo_region *r,
			 unsigned int idx, unsigned int total,
			 unsigned int want_first, unsigned int want_second)
{
	int ok = CHECK_UINT(r[0].len + r[1].len, total);

	ok &= CHECK_UINT(r[0].len, want_first);
	ok &= CHECK_UINT(r[1].len, want_second);
	if (total > 0) {
		ok &= CHECK(r[0].data == f->buffer + (idx & (f->size - 1)));
		ok &= CHECK(r[1].data == f->buffer);
	}
	return ok;
}

/* Write @n bytes into the regions, in order, from @from. */
static void fill(const struct kfifo_region *r, const unsigned char *from,
		 unsigned int n)
{
	unsigned int a = n < r[0].len ? n : r[0].len;

	memcpy(r[0].data, from, a);
	memcpy(r[1].data, from + a, n - a);
}

/* Read the regions' bytes, in order, into @to. */
static void gather(const struct kfifo_region *r, unsigned char *to)
{
	memcpy(to, r[0].data, r[0].len);
	memcpy(to + r[0].len, r[1].data, r[1].len);
}

/* ---- prepare ----------------------------------------------------------- */

static void test_in_prepare_one_region_when_space_does_not_wrap(void)
{
	FOR_EACH_START(start) {
		struct kfifo_region r[2];
		struct kfifo f;

		KT_MAKE(&f, 64, start);
		/* the write position is (start & 63); ask for what fits
		 * before the end of the buffer */
		{
			unsigned int room = 64 - (start & 63);

			CHECK_UINT(kfifo_in_prepare(&f, r, room), room);
			check_regions(&f, r, start, room, room, 0);
			CHECK(r[1].data == f.buffer);
		}
		kfifo_free(&f);
	}
}

static void test_in_prepare_two_regions_when_space_wraps(void)
{
	FOR_EACH_START(start) {
		struct kfifo_region r[2];
		struct kfifo f;
		unsigned int i;

		KT_MAKE(&f, 64, start);
		/* move the fifo to 10 bytes before the end of the buffer */
		while ((f.in & 63) != 54) {
			CHECK_UINT(kfifo_in(&f, "x", 1), 1);
			kfifo_skip(&f, 1);
		}
		CHECK_UINT(kfifo_in_prepare(&f, r, 64), 64);
		check_regions(&f, r, f.in, 64, 10, 54);
		kt_pattern(src, 64, 7);
		fill(r, src, 64);
		CHECK_UINT(kfifo_in_finish(&f, 64), 64);
		CHECK_CONTENT(&f, src, 64);
		CHECK(kfifo_is_full(&f));
		for (i = 0; i < 10; i++)
			CHECK_UINT(f.buffer[54 + i], src[i]);
		CHECK_UINT(f.buffer[0], src[10]);
		kfifo_free(&f);
	}
}

static void test_out_prepare_two_regions_when_data_wraps(void)
{
	FOR_EACH_START(start) {
		struct kfifo_region r[2];
		struct kfifo f;
		unsigned int out;

		KT_MAKE(&f, 32, start);
		while ((f.in & 31) != 29) {
			CHECK_UINT(kfifo_in(&f, "x", 1), 1);
			kfifo_skip(&f, 1);
		}
		kt_pattern(src, 20, 11);
		CHECK_UINT(kfifo_in(&f, src, 20), 20);
		out = f.out;
		CHECK_UINT(kfifo_out_prepare(&f, r, 100), 20);
		check_regions(&f, r, out, 20, 3, 17);
		gather(r, dst);
		CHECK_MEM(dst, src, 20);
		/* a prepare that fits before the end has one region */
		CHECK_UINT(kfifo_out_prepare(&f, r, 3), 3);
		check_regions(&f, r, out, 3, 3, 0);
		CHECK_UINT(kfifo_out_finish(&f, 20), 20);
		CHECK(kfifo_is_empty(&f));
		CHECK_UINT(f.out, out + 20);
		kfifo_free(&f);
	}
}

static void test_prepare_clamps_to_avail_and_len(void)
{
	FOR_EACH_START(start) {
		struct kfifo_region r[2];
		struct kfifo f;

		KT_MAKE(&f, 16, start);
		CHECK_UINT(kfifo_in(&f, "0123456789", 10), 10);
		CHECK_UINT(kfifo_in_prepare(&f, r, 100), 6);
		CHECK_UINT(r[0].len + r[1].len, 6);
		CHECK_UINT(kfifo_in_prepare(&f, r, UINT_MAX), 6);
		CHECK_UINT(kfifo_in_prepare(&f, r, 5), 5);
		CHECK_UINT(r[0].len + r[1].len, 5);
		CHECK_UINT(kfifo_out_prepare(&f, r, 100), 10);
		CHECK_UINT(kfifo_out_prepare(&f, r, UINT_MAX), 10);
		CHECK_UINT(kfifo_out_prepare(&f, r, 4), 4);
		gather(r, dst);
		CHECK_MEM(dst, "0123", 4);
		/* a full fifo has no space, an empty one no data */
		CHECK_UINT(kfifo_in(&f, "abcdef", 6), 6);
		CHECK_UINT(kfifo_in_prepare(&f, r, 1), 0);
		CHECK_UINT(r[0].len + r[1].len, 0);
		kfifo_reset_out(&f);
		CHECK_UINT(kfifo_out_prepare(&f, r, 1), 0);
		CHECK_UINT(r[0].len + r[1].len, 0);
		kfifo_free(&f);
	}
}

static void test_prepare_publishes_and_removes_nothing(void)
{
	static struct kt_snap snap;

	FOR_EACH_START(start) {
		struct kfifo_region r[2];
		struct kfifo f;

		KT_MAKE(&f, 64, start);
		CHECK_UINT(kfifo_in(&f, "abc", 3), 3);
		/* written into the regions but not finished: invisible */
		CHECK_UINT(kfifo_in_prepare(&f, r, 10), 10);
		fill(r, (const unsigned char *)"0123456789", 10);
		CHECK_UINT(f.in, start + 3);
		CHECK_UINT(kfifo_len(&f), 3);
		CHECK_CONTENT(&f, "abc", 3);
		CHECK_UINT(kfifo_out(&f, dst, sizeof(dst)), 3);
		CHECK_MEM(dst, "abc", 3);
		/* preparing again describes the same space, still unpublished */
		CHECK_UINT(kfifo_in_prepare(&f, r, 10), 10);
		gather(r, dst);
		CHECK_MEM(dst, "0123456789", 10);
		CHECK_UINT(kfifo_len(&f), 0);
		/* out_prepare removes nothing: the fifo stays as it was */
		CHECK_UINT(kfifo_in(&f, "defg", 4), 4);
		kt_snap_take(&snap, &f);
		CHECK_UINT(kfifo_out_prepare(&f, r, 10), 4);
		CHECK_UINT(kfifo_out_prepare(&f, r, 2), 2);
		CHECK_UNCHANGED(&f, &snap);
		CHECK_UINT(kfifo_avail(&f), 60);
		kfifo_free(&f);
	}
}

/* ---- finish ------------------------------------------------------------ */

static void test_finish_publishes_in_order_and_in_parts(void)
{
	FOR_EACH_START(start) {
		struct kfifo_region r[2];
		struct kfifo f;

		KT_MAKE(&f, 16, start);
		kt_pattern(src, 16, 3);
		CHECK_UINT(kfifo_in_prepare(&f, r, 10), 10);
		fill(r, src, 10);
		CHECK_UINT(kfifo_in_finish(&f, 4), 4);
		CHECK_CONTENT(&f, src, 4);
		/* the rest of what was written follows at the new position */
		CHECK_UINT(kfifo_in_prepare(&f, r, 6), 6);
		gather(r, dst);
		CHECK_MEM(dst, src + 4, 6);
		CHECK_UINT(kfifo_in_finish(&f, 6), 6);
		CHECK_CONTENT(&f, src, 10);
		/* the consumer takes them in two parts too */
		CHECK_UINT(kfifo_out_prepare(&f, r, 7), 7);
		gather(r, dst);
		CHECK_MEM(dst, src, 7);
		CHECK_UINT(kfifo_out_finish(&f, 7), 7);
		CHECK_CONTENT(&f, src + 7, 3);
		CHECK_UINT(kfifo_out_finish(&f, 3), 3);
		CHECK(kfifo_is_empty(&f));
		CHECK_UINT(f.in, start + 10);
		CHECK_UINT(f.out, start + 10);
		kfifo_free(&f);
	}
}

static void test_finish_larger_than_prepared_is_clamped(void)
{
	FOR_EACH_START(start) {
		struct kfifo_region r[2];
		struct kfifo f;

		KT_MAKE(&f, 16, start);
		CHECK_UINT(kfifo_in(&f, "0123456789", 10), 10);
		CHECK_UINT(kfifo_in_prepare(&f, r, 100), 6);
		fill(r, (const unsigned char *)"abcdef", 6);
		/* finish clamps to the free space, never past a full fifo */
		CHECK_UINT(kfifo_in_finish(&f, 100), 6);
		CHECK_UINT(f.in, start + 16);
		CHECK_CONTENT(&f, "0123456789abcdef", 16);
		CHECK_UINT(kfifo_in_finish(&f, UINT_MAX), 0);
		CHECK_UINT(f.in, start + 16);
		CHECK_UINT(kfifo_out_prepare(&f, r, 3), 3);
		/* out_finish clamps to what is stored */
		CHECK_UINT(kfifo_out_finish(&f, 1000), 16);
		CHECK_UINT(f.out, start + 16);
		CHECK_UINT(kfifo_out_finish(&f, UINT_MAX), 0);
		CHECK_UINT(f.out, start + 16);
		CHECK_VALID(&f);
		kfifo_free(&f);
	}
}

static void test_n_zero_does_nothing(void)
{
	static struct kt_snap snap;

	FOR_EACH_START(start) {
		struct kfifo_region r[2];
		struct kfifo f;

		KT_MAKE(&f, 8, start);
		CHECK_UINT(kfifo_in(&f, "abc", 3), 3);
		kt_snap_take(&snap, &f);
		memset(r, 0x5a, sizeof(r));
		CHECK_UINT(kfifo_in_prepare(&f, r, 0), 0);
		CHECK_UINT(r[0].len, 0);
		CHECK_UINT(r[1].len, 0);
		memset(r, 0x5a, sizeof(r));
		CHECK_UINT(kfifo_out_prepare(&f, r, 0), 0);
		CHECK_UINT(r[0].len, 0);
		CHECK_UINT(r[1].len, 0);
		CHECK_UINT(kfifo_in_finish(&f, 0), 0);
		CHECK_UINT(kfifo_out_finish(&f, 0), 0);
		CHECK_UNCHANGED(&f, &snap);
		kfifo_free(&f);
	}
}

static void test_size_one_fifo(void)
{
	FOR_EACH_START(start) {
		struct kfifo_region r[2];
		struct kfifo f;
		unsigned int i;

		KT_MAKE(&f, 1, start);
		for (i = 0; i < 5; i++) {
			CHECK_UINT(kfifo_in_prepare(&f, r, 3), 1);
			check_regions(&f, r, f.in, 1, 1, 0);
			r[0].data[0] = (unsigned char)('a' + i);
			CHECK_UINT(kfifo_in_prepare(&f, r, 1), 1);
			CHECK_UINT(kfifo_in_finish(&f, 2), 1);
			CHECK_UINT(kfifo_in_prepare(&f, r, 1), 0);
			CHECK_UINT(kfifo_in_finish(&f, 1), 0);
			CHECK_UINT(kfifo_out_prepare(&f, r, 9), 1);
			check_regions(&f, r, f.out, 1, 1, 0);
			CHECK_UINT(r[0].data[0], 'a' + i);
			CHECK_UINT(kfifo_out_finish(&f, 9), 1);
			CHECK_UINT(kfifo_out_prepare(&f, r, 9), 0);
		}
		CHECK_UINT(f.in, start + 5);
		CHECK_VALID(&f);
		kfifo_free(&f);
	}
}

static void test_size_zero_fifo_has_no_regions(void)
{
	struct kfifo_region r[2];
	struct kfifo f;

	CHECK_INT(kfifo_alloc(&f, 8, GFP_KERNEL), 0);
	kfifo_free(&f);
	CHECK_UINT(kfifo_in_prepare(&f, r, 5), 0);
	CHECK_UINT(r[0].len + r[1].len, 0);
	/* not NULL: a memcpy of 0 bytes is defined */
	CHECK(r[0].data != NULL && r[1].data != NULL);
	fill(r, src, 0);
	CHECK_UINT(kfifo_out_prepare(&f, r, 5), 0);
	CHECK_UINT(r[0].len + r[1].len, 0);
	CHECK(r[0].data != NULL && r[1].data != NULL);
	gather(r, dst);
	CHECK_UINT(kfifo_in_finish(&f, 5), 0);
	CHECK_UINT(kfifo_out_finish(&f, 5), 0);
	CHECK_VALID(&f);
}

/* The zero-copy calls and the copying calls work on the same stream. */
static void test_regions_and_copying_calls_mix(void)
{
	FOR_EACH_START(start) {
		struct kfifo_region r[2];
		struct kfifo f;
		unsigned long long wpos = 0, rpos = 0;
		unsigned int round;

		KT_MAKE(&f, 32, start);
		for (round = 0; round < 200; round++) {
			unsigned int n = round % 23 + 1, k, i;

			for (i = 0; i < n; i++)
				src[i] = th_pattern(wpos + i);
			if (round & 1) {
				k = kfifo_in_prepare(&f, r, n);
				fill(r, src, k);
				CHECK_UINT(kfifo_in_finish(&f, k), k);
			} else {
				k = kfifo_in(&f, src, n);
			}
			wpos += k;
			n = round % 19 + 1;
			if (round % 3) {
				k = kfifo_out_prepare(&f, r, n);
				gather(r, dst);
				CHECK_UINT(kfifo_out_finish(&f, k), k);
			} else {
				k = kfifo_out(&f, dst, n);
			}
			for (i = 0; i < k; i++)
				if (!CHECK_UINT(dst[i], th_pattern(rpos + i)))
					break;
			rpos += k;
			CHECK_UINT(kfifo_len(&f), wpos - rpos);
		}
		CHECK_UINT(f.in, (unsigned int)(start + wpos));
		kfifo_free(&f);
	}
}

/* ---- threads: one producer, one consumer, prepare/finish only ---------- */

static unsigned long long stress_bytes;
struct stream {
	struct kfifo fifo;
	unsigned long long total; /* lowered by the producer when its time
				   * budget is spent (atomic) */
};

/* Writes the stream in place; finishes all, or only a part, of what it
 * prepared (the rest is written again at the next prepare). */
static void *producer(void *arg)
{
	struct stream *t = (struct stream *)arg;
	unsigned long long pos = 0;
	uint32_t s = 2024;
	unsigned int spins = 0;

	while (pos < t->total && !kt_stopped()) {
		struct kfifo_region r[2];
		unsigned int want = kt_xorshift32(&s) % (2 * t->fifo.size) + 1;
		unsigned int k, i, done;

		if (kt_budget_spent()) {
			__atomic_store_n(&t->total, pos, __ATOMIC_RELAXED);
			break;
		}
		if (want > t->total - pos)
			want = (unsigned int)(t->total - pos);
		k = kfifo_in_prepare(&t->fifo, r, want);
		if (k == 0) {
			kt_backoff(&spins);
			continue;
		}
		if (r[0].len + r[1].len != k)
			kt_thread_error("in_prepare regions", pos, r[0].len + r[1].len, k);
		for (i = 0; i < r[0].len; i++)
			r[0].data[i] = th_pattern(pos + i);
		for (i = 0; i < r[1].len; i++)
			r[1].data[i] = th_pattern(pos + r[0].len + i);
		if (kt_xorshift32(&s) % 4 == 0)
			k = k / 2 + 1;
		done = kfifo_in_finish(&t->fifo, k);
		if (done != k)
			kt_thread_error("in_finish count", pos, done, k);
		pos += done;
	}
	return NULL;
}

/* Checks the stream in place, then releases all or part of it. */
static void *consumer(void *arg)
{
	struct stream *t = (struct stream *)arg;
	unsigned long long pos = 0;
	uint32_t s = 77;
	unsigned int spins = 0;

	while (pos < __atomic_load_n(&t->total, __ATOMIC_RELAXED) &&
	       !kt_stopped()) {
		struct kfifo_region r[2];
		unsigned int want = kt_xorshift32(&s) % (2 * t->fifo.size) + 1;
		unsigned int k, done;

		k = kfifo_out_prepare(&t->fifo, r, want);
		if (k == 0) {
			kt_backoff(&spins);
			continue;
		}
		if (!kt_stream_ok(r[0].data, r[0].len, pos) ||
		    !kt_stream_ok(r[1].data, r[1].len, pos + r[0].len))
			return NULL;
		if (kt_xorshift32(&s) % 4 == 0)
			k = k / 2 + 1;
		done = kfifo_out_finish(&t->fifo, k);
		if (done != k)
			kt_thread_error("out_finish count", pos, done, k);
		pos += done;
	}
	return NULL;
}

static void test_one_producer_one_consumer_in_place(void)
{
	static const unsigned int sizes[] = { 64, 4096 };
	size_t i;

	for (i = 0; i < 2; i++) {
		struct stream t;
		pthread_t p, c;

		th_context("size %u", sizes[i]);
		kt_threads_reset();
		CHECK_INT(kfifo_alloc(&t.fifo, sizes[i], GFP_KERNEL), 0);
		t.fifo.in = t.fifo.out = UINT_MAX - 1000;
		t.total = stress_bytes / 4;
		kt_budget_start();
		CHECK_INT(pthread_create(&c, NULL, consumer, &t), 0);
		CHECK_INT(pthread_create(&p, NULL, producer, &t), 0);
		pthread_join(p, NULL);
		pthread_join(c, NULL);
		printf("  %llu bytes through a %u-byte fifo in place%s\n", t.total,
		       sizes[i], t.total < stress_bytes / 4 ?
		       " - time budget spent, stopped early" : "");
		CHECK(t.total > 0);
		CHECK_UINT(kt_thread_errors, 0);
		CHECK_UINT(kfifo_len(&t.fifo), 0);
		CHECK_UINT(t.fifo.in, (unsigned int)(UINT_MAX - 1000 + t.total));
		CHECK_VALID(&t.fifo);
		kfifo_free(&t.fifo);
	}
}

int main(void)
{
	stress_bytes = th_env_ull("KFIFO_STRESS_BYTES", KFIFO_STRESS_BYTES_DEFAULT);
	RUN_TEST(test_in_prepare_one_region_when_space_does_not_wrap);
	RUN_TEST(test_in_prepare_two_regions_when_space_wraps);
	RUN_TEST(test_out_prepare_two_regions_when_data_wraps);
	RUN_TEST(test_prepare_clamps_to_avail_and_len);
	RUN_TEST(test_prepare_publishes_and_removes_nothing);
	RUN_TEST(test_finish_publishes_in_order_and_in_parts);
	RUN_TEST(test_finish_larger_than_prepared_is_clamped);
	RUN_TEST(test_n_zero_does_nothing);
	RUN_TEST(test_size_one_fifo);
	RUN_TEST(test_size_zero_fifo_has_no_regions);
	RUN_TEST(test_regions_and_copying_calls_mix);
	RUN_TEST(test_one_producer_one_consumer_in_place);
	return th_finish("test_region");
}
