/* SPDX-License-Identifier: MIT */
/*
 * test_records.c - docs/spec.md 1.4 row by row: in_rec, out_rec, from_user_rec,
 * to_user_rec, peek_rec, skip_rec; the wire format; the edges (zero-length
 * records, 255 / 65535 bytes and one more, recsize 3, n = UINT_MAX, a
 * header split across the end of the buffer); every scenario with in = out
 * near UINT_MAX; and the compile-time-constant recsize path giving the
 * same results as the run-time one.
 */
#include <kfifo.h>
#include "kfifo_binding.h" /* kfifo__in_rec_open, kfifo__out_rec_len */

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "test_harness.h"
#include "test_util.h"

static struct kt_snap snap;
static unsigned char src[1u << 17];
static unsigned char dst[1u << 17];

/* The record calls with a run-time recsize: a volatile read keeps the
 * compiler from seeing a constant, so the generic path runs. */
static unsigned int rt(unsigned int recsize)
{
	volatile unsigned int v = recsize;

	return v;
}

/* ---- in_rec ----------------------------------------------------------- */

static void test_in_rec_stores_header_then_data(void)
{
	FOR_EACH_START(start) {
		unsigned char raw[16];
		struct kfifo f;

		KT_MAKE(&f, 64, start);
		CHECK_UINT(kfifo_in_rec(&f, "abc", 3, 0), 0);
		CHECK_UINT(kfifo_in_rec(&f, "defg", 4, 1), 0);
		CHECK_UINT(kfifo_in_rec(&f, "hi", 2, 2), 0);
		CHECK_UINT(f.in, start + 3 + 5 + 4);
		CHECK_CONTENT(&f, "abc\004defg\002\000hi", 12);
		CHECK_UINT(kfifo_out(&f, raw, sizeof(raw)), 12);
		CHECK_MEM(raw, "abc\004defg\002\000hi", 12);
		kfifo_free(&f);
	}
}

static void test_in_rec_recsize2_header_is_little_endian(void)
{
	FOR_EACH_START(start) {
		struct kfifo f;

		KT_MAKE(&f, 1024, start);
		kt_pattern(src, 0x1ff, 3);
		CHECK_UINT(kfifo_in_rec(&f, src, 0x1ff, 2), 0);
		CHECK_UINT(f.buffer[start & 1023], 0xff);
		CHECK_UINT(f.buffer[(start + 1) & 1023], 0x01);
		CHECK_UINT(kfifo_len(&f), 0x1ff + 2);
		CHECK_UINT(kfifo_peek_rec(&f, 2), 0x1ff);
		CHECK_UINT(kfifo_peek_rec(&f, 1), 0xff);
		kfifo_free(&f);
	}
}

static void test_in_rec_exact_fit_fills_the_fifo(void)
{
	unsigned int r;

	for (r = 0; r <= 2; r++) {
		FOR_EACH_START(start) {
			struct kfifo f;

			KT_MAKE(&f, 32, start);
			kt_pattern(src, 32, r);
			CHECK_UINT(kfifo_in_rec(&f, src, 32 - r, rt(r)), 0);
			CHECK_INT(kfifo_is_full(&f), 1);
			kfifo_reset_out(&f);
			CHECK_UINT(kfifo_in(&f, src, 5), 5);
			CHECK_UINT(kfifo_in_rec(&f, src, 27 - r, rt(r)), 0);
			CHECK_INT(kfifo_is_full(&f), 1);
			kfifo_free(&f);
		}
	}
}

static void test_in_rec_refuses_record_without_room_and_changes_nothing(void)
{
	unsigned int r;

	for (r = 0; r <= 2; r++) {
		FOR_EACH_START(start) {
			struct kfifo f;

			KT_MAKE(&f, 32, start);
			CHECK_UINT(kfifo_in(&f, "0123456789", 10), 10);
			kt_snap_take(&snap, &f);
			/* n + recsize == avail + 1 */
			CHECK_UINT(kfifo_in_rec(&f, src, 23 - r, rt(r)), 24 - r);
			CHECK_UNCHANGED(&f, &snap);
			CHECK_UINT(kfifo_from_user_rec(&f, src, 23 - r, rt(r)),
				   24 - r);
			CHECK_UNCHANGED(&f, &snap);
			CHECK_UINT(kfifo_in_rec(&f, src, 100, rt(r)), 101);
			CHECK_UNCHANGED(&f, &snap);
			kfifo_free(&f);
		}
	}
}

static void test_in_rec_zero_length_records(void)
{
	FOR_EACH_START(start) {
		unsigned int total = 5, i;
		struct kfifo f;

		KT_MAKE(&f, 8, start);
		CHECK_UINT(kfifo_in_rec(&f, src, 0, 0), 0);
		CHECK_UINT(kfifo_len(&f), 0);
		CHECK_UINT(kfifo_in_rec(&f, src, 0, 1), 0);
		CHECK_UINT(kfifo_in_rec(&f, src, 0, 2), 0);
		CHECK_CONTENT(&f, "\0\0\0", 3);
		CHECK_UINT(kfifo_peek_rec(&f, 1), 0);
		memset(dst, 0xee, 8);
		CHECK_UINT(kfifo_out_rec(&f, dst, 8, 1, &total), 0);
		CHECK_UINT(total, 0);
		CHECK(kt_all_equal(dst, 0, 8, 0xee));
		CHECK_UINT(kfifo_len(&f), 2);
		total = 5;
		CHECK_UINT(kfifo_out_rec(&f, dst, 0, 2, &total), 0);
		CHECK_UINT(total, 0);
		CHECK_UINT(kfifo_len(&f), 0);
		CHECK_UINT(f.out, start + 3);
		/* fill it with header-only records (bounded: a broken refusal
		 * value must fail the test, not hang it) */
		for (i = 0; i < 100 && kfifo_in_rec(&f, src, 0, 1) == 0; i++)
			;
		CHECK_UINT(i, 8);
		CHECK_INT(kfifo_is_full(&f), 1);
		CHECK_UINT(kfifo_in_rec(&f, src, 0, 1), 1);
		kfifo_free(&f);
	}
}

static void test_in_rec_header_limits_255_and_65535(void)
{
	FOR_EACH_START(start) {
		unsigned int total = 0;
		struct kfifo f;

		KT_MAKE(&f, 1u << 17, start);
		kt_pattern(src, 65536, 5);
		/* recsize 1: 255 fits, 256 is refused although there is room */
		CHECK_UINT(kfifo_in_rec(&f, src, 255, 1), 0);
		kt_snap_take(&snap, &f);
		CHECK_UINT(kfifo_in_rec(&f, src, 256, 1), 257);
		CHECK_UINT(kfifo_in_rec(&f, src, 256, rt(1)), 257);
		CHECK_UINT(kfifo_in_rec(&f, src, 65535, 1), 65536);
		CHECK_UNCHANGED(&f, &snap);
		CHECK_UINT(kfifo_out_rec(&f, dst, 300, 1, &total), 0);
		CHECK_UINT(total, 255);
		CHECK_MEM(dst, src, 255);
		/* recsize 2: 65535 fits, 65536 is refused */
		CHECK_UINT(kfifo_in_rec(&f, src, 65535, 2), 0);
		CHECK_UINT(f.buffer[(f.out) & (f.size - 1)], 0xff);
		CHECK_UINT(f.buffer[(f.out + 1) & (f.size - 1)], 0xff);
		kt_snap_take(&snap, &f);
		CHECK_UINT(kfifo_in_rec(&f, src, 65536, 2), 65537);
		CHECK_UINT(kfifo_in_rec(&f, src, 65536, rt(2)), 65537);
		CHECK_UNCHANGED(&f, &snap);
		CHECK_UINT(kfifo_peek_rec(&f, 2), 65535);
		CHECK_UINT(kfifo_out_rec(&f, dst, 65534, 2, &total), 65535);
		CHECK_UINT(total, 65535);
		CHECK_UNCHANGED(&f, &snap);
		CHECK_UINT(kfifo_out_rec(&f, dst, 65535, 2, &total), 0);
		CHECK_MEM(dst, src, 65535);
		CHECK_UINT(kfifo_len(&f), 0);
		/* recsize 0 has no header limit */
		CHECK_UINT(kfifo_in_rec(&f, src, 65536, 0), 0);
		CHECK_UINT(kfifo_len(&f), 65536);
		kfifo_free(&f);
	}
}

/* The header limit is one public rule: kfifo_rec_max() gives it, and
 * kfifo_in_rec() takes exactly the records up to it. */
static void test_rec_max_is_the_limit_in_rec_applies(void)
{
	static const unsigned int bad[] = { 3, 4, 255, 65536, UINT_MAX };
	unsigned int recsize;
	size_t i;
	struct kfifo f;

	CHECK_UINT(kfifo_rec_max(0), UINT_MAX);
	CHECK_UINT(kfifo_rec_max(1), 255);
	CHECK_UINT(kfifo_rec_max(2), 65535);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_UINT(kfifo_rec_max(rt(bad[i])), 0);
	KT_MAKE(&f, 1u << 17, 0);
	for (recsize = 1; recsize <= 2; recsize++) {
		th_context("recsize=%u", recsize);
		CHECK_UINT(kfifo_in_rec(&f, src, kfifo_rec_max(recsize),
					rt(recsize)), 0);
		CHECK_UINT(kfifo_in_rec(&f, src, kfifo_rec_max(recsize) + 1,
					rt(recsize)),
			   kfifo_rec_max(recsize) + 2);
		kfifo_reset(&f);
	}
	kfifo_free(&f);
}

static void test_in_rec_refuses_bad_recsize(void)
{
	static const unsigned int bad[] = { 3, 4, 8, 255, 256, 65536,
					    UINT_MAX };
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		FOR_EACH_START(start) {
			struct kfifo f;

			KT_MAKE(&f, 64, start);
			CHECK_UINT(kfifo_in(&f, "ab", 2), 2);
			kt_snap_take(&snap, &f);
			CHECK_UINT(kfifo_in_rec(&f, src, 5, bad[i]), 6);
			CHECK_UINT(kfifo_in_rec(&f, src, 0, bad[i]), 1);
			CHECK_UINT(kfifo_from_user_rec(&f, src, 5, bad[i]), 6);
			CHECK_UINT(kfifo_in_rec(&f, src, UINT_MAX, bad[i]),
				   UINT_MAX);
			CHECK_UNCHANGED(&f, &snap);
			kfifo_free(&f);
		}
	}
	{
		struct kfifo f;

		KT_MAKE(&f, 64, 0);
		CHECK_UINT(kfifo_in_rec(&f, src, 5, 3), 6);
		CHECK_UINT(kfifo_len(&f), 0);
		kfifo_free(&f);
	}
}

/* n + recsize must not overflow: UINT_MAX - 1 + 2 would be 0 < avail. */
static void test_in_rec_n_uint_max_is_refused_without_overflow(void)
{
	unsigned int r;

	for (r = 0; r <= 3; r++) {
		FOR_EACH_START(start) {
			unsigned char tiny[1] = { 0 };
			struct kfifo f;

			th_context("recsize=%u start=0x%x", r, start);
			KT_MAKE(&f, 16, start);
			kt_snap_take(&snap, &f);
			CHECK_UINT(kfifo_in_rec(&f, tiny, UINT_MAX, rt(r)),
				   UINT_MAX);
			CHECK_UINT(kfifo_in_rec(&f, tiny, UINT_MAX - 1, rt(r)),
				   UINT_MAX);
			if (r > 0)
				CHECK_UINT(kfifo_in_rec(&f, tiny, UINT_MAX - r, rt(r)),
					   UINT_MAX - r + 1);
			CHECK_UINT(kfifo_from_user_rec(&f, tiny, UINT_MAX, rt(r)),
				   UINT_MAX);
			CHECK_UNCHANGED(&f, &snap);
			kfifo_free(&f);
		}
	}
	{
		unsigned char tiny[1] = { 0 };
		struct kfifo f;

		KT_MAKE(&f, 16, 0);
		CHECK_UINT(kfifo_in_rec(&f, tiny, UINT_MAX, 0), UINT_MAX);
		CHECK_UINT(kfifo_in_rec(&f, tiny, UINT_MAX, 1), UINT_MAX);
		CHECK_UINT(kfifo_in_rec(&f, tiny, UINT_MAX - 1, 2), UINT_MAX);
		CHECK_UINT(kfifo_in_rec(&f, tiny, UINT_MAX - 2, 2), UINT_MAX - 1);
		CHECK_UINT(kfifo_len(&f), 0);
		kfifo_free(&f);
	}
}

/* ---- out_rec ---------------------------------------------------------- */

static void test_out_rec_takes_one_record(void)
{
	unsigned int r;

	for (r = 1; r <= 2; r++) {
		FOR_EACH_START(start) {
			unsigned int total = 0;
			struct kfifo f;

			KT_MAKE(&f, 64, start);
			CHECK_UINT(kfifo_in_rec(&f, "hello", 5, rt(r)), 0);
			CHECK_UINT(kfifo_in_rec(&f, "kfifo!", 6, rt(r)), 0);
			memset(dst, 0xee, 64);
			CHECK_UINT(kfifo_out_rec(&f, dst, 32, rt(r), &total), 0);
			CHECK_UINT(total, 5);
			CHECK_MEM(dst, "hello", 5);
			/* bytes past the record's length are untouched */
			CHECK(kt_all_equal(dst, 5, 64, 0xee));
			CHECK_UINT(f.out, start + r + 5);
			CHECK_UINT(kfifo_peek_rec(&f, rt(r)), 6);
			memset(dst, 0xee, 64);
			CHECK_UINT(kfifo_to_user_rec(&f, dst, 6, rt(r), &total), 0);
			CHECK_UINT(total, 6);
			CHECK_MEM(dst, "kfifo!", 6);
			CHECK(kt_all_equal(dst, 6, 64, 0xee));
			CHECK_UINT(kfifo_len(&f), 0);
			CHECK_UINT(f.out, start + 2 * r + 11);
			kfifo_free(&f);
		}
	}
}

static void test_out_rec_leaves_record_when_buffer_too_small(void)
{
	unsigned int r, n;

	for (r = 1; r <= 2; r++) {
		FOR_EACH_START(start) {
			struct kfifo f;

			KT_MAKE(&f, 64, start);
			CHECK_UINT(kfifo_in_rec(&f, "0123456789", 10, rt(r)), 0);
			kt_snap_take(&snap, &f);
			for (n = 0; n < 10; n++) {
				unsigned int total = 0;

				memset(dst, 0xee, 64);
				CHECK_UINT(kfifo_out_rec(&f, dst, n, rt(r), &total), 10);
				CHECK_UINT(total, 10);
				CHECK_UINT(kfifo_to_user_rec(&f, dst, n, rt(r), NULL), 10);
				CHECK_UNCHANGED(&f, &snap);
				CHECK(kt_all_equal(dst, 0, 64, 0xee));
			}
			CHECK_UINT(kfifo_out_rec(&f, dst, 10, rt(r), NULL), 0);
			CHECK_MEM(dst, "0123456789", 10);
			kfifo_free(&f);
		}
	}
}

static void test_out_rec_on_empty_fifo_reads_no_header(void)
{
	unsigned int r;

	for (r = 0; r <= 2; r++) {
		FOR_EACH_START(start) {
			unsigned int total = 1234;
			struct kfifo f;

			KT_MAKE(&f, 16, start);
			/* stale bytes where a header would be */
			memset(f.buffer, 7, 16);
			kt_snap_take(&snap, &f);
			memset(dst, 0xee, 16);
			CHECK_UINT(kfifo_out_rec(&f, dst, 9, rt(r), &total), 9);
			/* no header: 0; recsize 0: total = n, as in the seed */
			CHECK_UINT(total, r == 0 ? 9 : 0);
			CHECK_UINT(kfifo_to_user_rec(&f, dst, 9, rt(r), NULL), 9);
			CHECK_UNCHANGED(&f, &snap);
			CHECK(kt_all_equal(dst, 0, 16, 0xee));
			kfifo_free(&f);
		}
	}
}

static void test_out_rec_with_only_part_of_a_header(void)
{
	FOR_EACH_START(start) {
		unsigned int total = 1234;
		struct kfifo f;

		KT_MAKE(&f, 16, start);
		CHECK_UINT(kfifo_in(&f, "\003", 1), 1);
		kt_snap_take(&snap, &f);
		CHECK_UINT(kfifo_out_rec(&f, dst, 8, 2, &total), 8);
		CHECK_UINT(total, 0);
		CHECK_UINT(kfifo_out_rec(&f, dst, 8, rt(2), &total), 8);
		CHECK_UINT(total, 0);
		CHECK_UINT(kfifo_peek_rec(&f, 2), 0);
		CHECK_UNCHANGED(&f, &snap);
		kfifo_free(&f);
	}
}

/* A header announcing more bytes than the fifo holds: nothing removed. */
static void test_out_rec_leaves_incomplete_record(void)
{
	unsigned int r;

	for (r = 1; r <= 2; r++) {
		FOR_EACH_START(start) {
			unsigned int total = 0;
			struct kfifo f;

			KT_MAKE(&f, 32, start);
			if (r == 1)
				CHECK_UINT(kfifo_in(&f, "\012abcd", 5), 5);
			else
				CHECK_UINT(kfifo_in(&f, "\012\000abcd", 6), 6);
			kt_snap_take(&snap, &f);
			memset(dst, 0xee, 32);
			CHECK_UINT(kfifo_out_rec(&f, dst, 20, rt(r), &total), 20);
			CHECK_UINT(total, 10);
			/* L > n is checked first */
			CHECK_UINT(kfifo_out_rec(&f, dst, 9, rt(r), &total), 10);
			CHECK_UINT(total, 10);
			CHECK_UINT(kfifo_out_rec(&f, dst, 10, rt(r), &total), 10);
			CHECK_UNCHANGED(&f, &snap);
			CHECK(kt_all_equal(dst, 0, 32, 0xee));
			CHECK_UINT(kfifo_peek_rec(&f, rt(r)), 10);
			/* completing it makes it readable */
			CHECK_UINT(kfifo_in(&f, "efghij", 6), 6);
			CHECK_UINT(kfifo_out_rec(&f, dst, 10, rt(r), &total), 0);
			CHECK_MEM(dst, "abcdefghij", 10);
			CHECK_UINT(kfifo_len(&f), 0);
			kfifo_free(&f);
		}
	}
}

static void test_out_rec_recsize0_takes_exactly_n_bytes(void)
{
	FOR_EACH_START(start) {
		unsigned int total = 0;
		struct kfifo f;

		KT_MAKE(&f, 16, start);
		CHECK_UINT(kfifo_in(&f, "0123456789", 10), 10);
		memset(dst, 0xee, 16);
		CHECK_UINT(kfifo_out_rec(&f, dst, 4, 0, &total), 0);
		CHECK_UINT(total, 4);
		CHECK_MEM(dst, "0123", 4);
		CHECK(kt_all_equal(dst, 4, 16, 0xee));
		kt_snap_take(&snap, &f);
		CHECK_UINT(kfifo_out_rec(&f, dst, 7, 0, &total), 7);
		CHECK_UINT(total, 7);
		CHECK_UNCHANGED(&f, &snap);
		CHECK_UINT(kfifo_out_rec(&f, dst, 0, 0, &total), 0);
		CHECK_UINT(total, 0);
		CHECK_UNCHANGED(&f, &snap);
		CHECK_UINT(kfifo_to_user_rec(&f, dst, 6, rt(0), &total), 0);
		CHECK_UINT(total, 6);
		CHECK_MEM(dst, "456789", 6);
		CHECK_UINT(kfifo_len(&f), 0);
		CHECK_UINT(f.out, start + 10);
		kfifo_free(&f);
	}
}

static void test_out_rec_refuses_bad_recsize(void)
{
	static const unsigned int bad[] = { 3, 4, 256, UINT_MAX };
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		FOR_EACH_START(start) {
			unsigned int total = 1234;
			struct kfifo f;

			KT_MAKE(&f, 16, start);
			CHECK_UINT(kfifo_in_rec(&f, "abc", 3, 1), 0);
			kt_snap_take(&snap, &f);
			memset(dst, 0xee, 16);
			CHECK_UINT(kfifo_out_rec(&f, dst, 8, bad[i], &total), 8);
			CHECK_UINT(total, 0);
			CHECK_UINT(kfifo_to_user_rec(&f, dst, 8, bad[i], NULL), 8);
			CHECK_UINT(kfifo_peek_rec(&f, bad[i]), 0);
			kfifo_skip_rec(&f, bad[i]);
			CHECK_UNCHANGED(&f, &snap);
			CHECK(kt_all_equal(dst, 0, 16, 0xee));
			kfifo_free(&f);
		}
	}
}

/* ---- peek_rec, skip_rec ---------------------------------------------- */

static void test_peek_rec_returns_next_length_and_removes_nothing(void)
{
	FOR_EACH_START(start) {
		struct kfifo f;

		KT_MAKE(&f, 64, start);
		CHECK_UINT(kfifo_peek_rec(&f, 0), 0);
		CHECK_UINT(kfifo_peek_rec(&f, 1), 0);
		CHECK_UINT(kfifo_peek_rec(&f, 2), 0);
		CHECK_UINT(kfifo_in_rec(&f, "abcdefg", 7, 1), 0);
		kt_snap_take(&snap, &f);
		CHECK_UINT(kfifo_peek_rec(&f, 1), 7);
		CHECK_UINT(kfifo_peek_rec(&f, rt(1)), 7);
		/* recsize 0: the fill level, on both paths */
		CHECK_UINT(kfifo_peek_rec(&f, 0), 8);
		CHECK_UINT(kfifo_peek_rec(&f, rt(0)), 8);
		/* recsize 2 reads two header bytes: 7 | 'a' << 8 */
		CHECK_UINT(kfifo_peek_rec(&f, 2), 7u | ('a' << 8));
		CHECK_UINT(kfifo_peek_rec(&f, 3), 0);
		CHECK_UINT(kfifo_peek_rec(&f, UINT_MAX), 0);
		CHECK_UNCHANGED(&f, &snap);
		kfifo_free(&f);
	}
}

static void test_skip_rec_removes_exactly_one_record(void)
{
	unsigned int r;

	for (r = 1; r <= 2; r++) {
		FOR_EACH_START(start) {
			struct kfifo f;

			KT_MAKE(&f, 64, start);
			CHECK_UINT(kfifo_in_rec(&f, "abc", 3, rt(r)), 0);
			CHECK_UINT(kfifo_in_rec(&f, "", 0, rt(r)), 0);
			CHECK_UINT(kfifo_in_rec(&f, "xyzw", 4, rt(r)), 0);
			kfifo_skip_rec(&f, rt(r));
			CHECK_UINT(f.out, start + r + 3);
			CHECK_UINT(kfifo_peek_rec(&f, rt(r)), 0);
			kfifo_skip_rec(&f, rt(r));
			CHECK_UINT(f.out, start + 2 * r + 3);
			CHECK_UINT(kfifo_peek_rec(&f, rt(r)), 4);
			kfifo_skip_rec(&f, rt(r));
			CHECK_UINT(kfifo_len(&f), 0);
			CHECK_UINT(f.out, start + 3 * r + 7);
			/* on an empty fifo it stays empty, indices kept */
			kfifo_skip_rec(&f, rt(r));
			CHECK_UINT(f.out, start + 3 * r + 7);
			CHECK_UINT(f.in, start + 3 * r + 7);
			kfifo_free(&f);
		}
	}
}

/* Seed behaviour: less than a whole record, or recsize 0, empties it. */
static void test_skip_rec_empties_fifo_on_incomplete_record_or_recsize0(void)
{
	FOR_EACH_START(start) {
		struct kfifo f;

		KT_MAKE(&f, 32, start);
		CHECK_UINT(kfifo_in(&f, "\011abc", 4), 4);
		kfifo_skip_rec(&f, 1);
		CHECK_UINT(kfifo_len(&f), 0);
		CHECK_UINT(f.out, start + 4);
		CHECK_UINT(kfifo_in(&f, "\005", 1), 1); /* half a 2-byte header */
		kfifo_skip_rec(&f, 2);
		CHECK_UINT(kfifo_len(&f), 0);
		CHECK_UINT(f.out, start + 5);
		CHECK_UINT(kfifo_in_rec(&f, "abc", 3, 1), 0);
		kfifo_skip_rec(&f, 0);
		CHECK_UINT(kfifo_len(&f), 0);
		CHECK_UINT(f.out, start + 9);
		CHECK_UINT(f.in, start + 9);
		CHECK_VALID(&f);
		kfifo_free(&f);
	}
}

/* ---- wire format across the end of the buffer ------------------------ */

static void test_record_split_across_buffer_end_at_every_offset(void)
{
	unsigned int r, off, n;

	for (r = 0; r <= 2; r++) {
		FOR_EACH_START(start) {
			for (off = 0; off < 16; off++) {
				for (n = 0; n + r <= 16; n += 3) {
					unsigned int total = 0;
					struct kfifo f;

					KT_MAKE(&f, 16, start + off);
					kt_pattern(src, n, off + 16 * n);
					CHECK_UINT(kfifo_in_rec(&f, src, n, rt(r)), 0);
					if (r > 0)
						CHECK_UINT(kfifo_peek_rec(&f, rt(r)), n);
					if (r > 0)
						CHECK_UINT(f.buffer[(start + off) & 15],
							   n & 0xff);
					if (r == 2)
						CHECK_UINT(f.buffer[(start + off + 1) & 15],
							   0);
					memset(dst, 0xee, 32);
					CHECK_UINT(kfifo_out_rec(&f, dst, r ? 16 : n,
								 rt(r), &total), 0);
					CHECK_UINT(total, n);
					CHECK_MEM(dst, src, n);
					CHECK(kt_all_equal(dst, n, 32, 0xee));
					CHECK_UINT(f.out, start + off + r + n);
					CHECK_UINT(kfifo_len(&f), 0);
					kfifo_free(&f);
				}
			}
		}
	}
}

/* A long mixed sequence of records of all lengths; all checked. */
static void test_record_stream_through_small_fifo(void)
{
	static unsigned char expect[64];
	unsigned int r;

	for (r = 0; r <= 2; r++) {
		FOR_EACH_START(start) {
			unsigned int lens[512], seq_in = 0, seq_out = 0, round;
			unsigned int refused = 0;
			struct kfifo f;

			KT_MAKE(&f, 64, start);
			for (round = 0; round < 600; round++) {
				unsigned int n = r ? (round * 13) % 40 : 6;
				unsigned int cap = r ? 64 : 6, total = 0, ret;

				kt_pattern(src, n, seq_in);
				ret = kfifo_in_rec(&f, src, n, rt(r));
				if (ret == 0) {
					lens[seq_in++ % 512] = n;
				} else {
					CHECK_UINT(ret, n + 1);
					CHECK(kfifo_avail(&f) < n + r);
					refused++;
				}
				if (round % 4 < 2)
					continue;
				ret = kfifo_out_rec(&f, dst, cap, rt(r), &total);
				if (seq_out == seq_in) {
					CHECK_UINT(ret, cap);
					CHECK_UINT(total, r ? 0 : cap);
					continue;
				}
				CHECK_UINT(ret, 0);
				CHECK_UINT(total, lens[seq_out % 512]);
				kt_pattern(expect, total, seq_out);
				CHECK_MEM(dst, expect, total);
				seq_out++;
			}
			CHECK(seq_in > 200);
			CHECK(refused > 10);
			CHECK(seq_out + 70 > seq_in);
			CHECK_VALID(&f);
			kfifo_free(&f);
		}
	}
}

/* ---- constant recsize vs run-time recsize ----------------------------- */

#define LOGMAX 16384
struct rec_log {
	unsigned long long v[LOGMAX];
	unsigned int n;
};

static void log_put(struct rec_log *log, unsigned long long v)
{
	if (log->n < LOGMAX)
		log->v[log->n++] = v;
}

static void log_fifo(struct rec_log *log, struct kfifo *f)
{
	unsigned int i;

	log_put(log, f->in);
	log_put(log, f->out);
	for (i = 0; i < 64; i++)
		log_put(log, dst[i]);
}

/*
 * One scenario, written once as a macro so that R can be a literal (the
 * compile-time-constant path) or a run-time value (the generic path).
 */
#define REC_SCENARIO(log, f, R)                                                \
	do {                                                                   \
		static const unsigned int lens[] = { 0, 1, 5, 17, 255, 256,    \
						     300, 1000, 65535, 65536,  \
						     UINT_MAX - 1, UINT_MAX }; \
		static const unsigned int caps[] = { 0, 1, 4, 5, 16, 17, 64 }; \
		unsigned int i_, total_;                                       \
		for (i_ = 0; i_ < 12; i_++) {                                  \
			log_put((log), kfifo_in_rec((f), src, lens[i_], R));   \
			log_put((log), kfifo_in_rec((f), src + 1, i_ * 3, R)); \
			log_put((log), kfifo_from_user_rec((f), src, i_, R));  \
			log_fifo((log), (f));                                  \
		}                                                              \
		for (i_ = 0; i_ < 40; i_++) {                                  \
			memset(dst, 0xee, 64);                                 \
			total_ = 0xabcdu;                                      \
			log_put((log), kfifo_peek_rec((f), R));                \
			log_put((log), kfifo_out_rec((f), dst, caps[i_ % 7], R, \
						     &total_));                \
			log_put((log), total_);                                \
			log_fifo((log), (f));                                  \
			total_ = 0xabcdu;                                      \
			log_put((log), kfifo_to_user_rec((f), dst,             \
							 caps[(i_ + 3) % 7], R, \
							 &total_));            \
			log_put((log), total_);                                \
			log_put((log), kfifo_out_rec((f), dst, 64, R, NULL));  \
			log_fifo((log), (f));                                  \
			if (i_ % 5 == 4)                                       \
				kfifo_skip_rec((f), R);                        \
			log_put((log), kfifo_in_rec((f), src, i_, R));         \
		}                                                              \
		kfifo_reset_out(f);                                            \
		log_put((log), kfifo_out_rec((f), dst, 9, R, &total_));        \
		log_put((log), total_);                                        \
		log_put((log), kfifo_peek_rec((f), R));                        \
		kfifo_skip_rec((f), R);                                        \
		log_fifo((log), (f));                                          \
	} while (0)

static struct rec_log log_const, log_runtime;

static void run_const(unsigned int recsize, unsigned int start)
{
	struct kfifo f;

	KT_MAKE(&f, 128, start);
	memset(f.buffer, 0, 128);
	memset(dst, 0xee, sizeof(dst));
	log_const.n = 0;
	if (recsize == 0)
		REC_SCENARIO(&log_const, &f, 0);
	else if (recsize == 1)
		REC_SCENARIO(&log_const, &f, 1);
	else if (recsize == 2)
		REC_SCENARIO(&log_const, &f, 2);
	else
		REC_SCENARIO(&log_const, &f, 3);
	kfifo_free(&f);
}

static void run_runtime(unsigned int recsize, unsigned int start)
{
	volatile unsigned int vr = recsize;
	struct kfifo f;

	KT_MAKE(&f, 128, start);
	memset(f.buffer, 0, 128);
	memset(dst, 0xee, sizeof(dst));
	log_runtime.n = 0;
	REC_SCENARIO(&log_runtime, &f, vr);
	kfifo_free(&f);
}

static void test_constant_recsize_gives_same_results_as_runtime_recsize(void)
{
	unsigned int r, i;

	kt_pattern(src, 70000, 11);
	for (r = 0; r <= 3; r++) {
		FOR_EACH_START(start) {
			th_context("recsize=%u start=0x%x", r, start);
			run_const(r, start);
			run_runtime(r, start);
			CHECK(log_const.n > 300 && log_const.n < LOGMAX);
			CHECK_UINT(log_const.n, log_runtime.n);
			for (i = 0; i < log_const.n && i < log_runtime.n; i++)
				if (!CHECK_UINT(log_const.v[i], log_runtime.v[i])) {
					th_context("recsize=%u start=0x%x log entry %u",
						   r, start, i);
					break;
				}
		}
	}
}

/* The same through the specialised instances themselves, whatever the
 * optimisation level decided for the inline dispatch above. */
static void test_specialised_instances_match_generic(void)
{
	unsigned int r, i;

	for (r = 0; r <= 2; r++) {
		FOR_EACH_START(start) {
			struct kfifo a, b;

			KT_MAKE(&a, 64, start);
			KT_MAKE(&b, 64, start);
			memset(a.buffer, 0, 64);
			memset(b.buffer, 0, 64);
			for (i = 0; i < 200; i++) {
				unsigned int n = (i * 7) % 70, cap = (i * 11) % 70;
				unsigned int ta = 1, tb = 2, ra, rb;
				unsigned char da[70], db[70];

				switch (r) {
				case 0: ra = kfifo__in_rec0(&a, src, n); break;
				case 1: ra = kfifo__in_rec1(&a, src, n); break;
				default: ra = kfifo__in_rec2(&a, src, n); break;
				}
				rb = kfifo__in_rec_generic(&b, src, n, r);
				CHECK_UINT(ra, rb);
				memset(da, 0xee, sizeof(da));
				memset(db, 0xee, sizeof(db));
				if (i % 2) {
					switch (r) {
					case 0: ra = kfifo__out_rec0(&a, da, cap, &ta); break;
					case 1: ra = kfifo__out_rec1(&a, da, cap, &ta); break;
					default: ra = kfifo__out_rec2(&a, da, cap, &ta); break;
					}
					rb = kfifo__out_rec_generic(&b, db, cap, r, &tb);
					CHECK_UINT(ra, rb);
					CHECK_UINT(ta, tb);
					CHECK_MEM(da, db, sizeof(da));
				}
				CHECK_UINT(a.in, b.in);
				CHECK_UINT(a.out, b.out);
				CHECK_UINT(kfifo_len(&a), kfifo_len(&b));
				CHECK_MEM(a.buffer, b.buffer, 64);
			}
			kfifo_free(&a);
			kfifo_free(&b);
		}
	}
}

/*
 * kfifo__in_rec_open(), the binding's put_rec: the same answers and the
 * same bytes as kfifo_in_rec() at every length across the inline copy's
 * bounds (1, 4, 8, 16, 32 bytes) and every offset, records crossing the
 * end and refusals for room included; and once the fifo is closed, @n + 1
 * with nothing stored.  out_rec takes each back intact.
 */
static void test_in_rec_open_matches_in_rec_and_refuses_closed(void)
{
	unsigned int r, n, i;

	for (r = 0; r <= 2; r++) {
		FOR_EACH_START(start) {
			struct kfifo a, b;
			unsigned int ta, tb;

			KT_MAKE(&a, 64, start);
			KT_MAKE(&b, 64, start);
			for (i = 0; i < 41 * 3; i++) {
				n = i % 41;
				kt_pattern(src, n, i);
				CHECK_UINT(kfifo__in_rec_open(&a, src, n, rt(r)),
					   kfifo_in_rec(&b, src, n, rt(r)));
				CHECK_UINT(a.in, b.in);
				CHECK_UINT(kfifo_len(&a), kfifo_len(&b));
				memset(dst, 0, 128);
				if (r == 0) {
					/* fixed-size: no header says the length */
					CHECK_UINT(kfifo_out(&a, dst, n), n);
					CHECK_UINT(kfifo_out(&b, dst + 64, n), n);
				} else {
					CHECK_UINT(kfifo_out_rec(&a, dst, 64, rt(r),
								 &ta), 0);
					CHECK_UINT(kfifo_out_rec(&b, dst + 64, 64,
								 rt(r), &tb), 0);
					CHECK_UINT(ta, n);
					CHECK_UINT(tb, n);
				}
				CHECK_MEM(dst, src, n);
				CHECK_MEM(dst + 64, src, n);
			}
			/* no room: both refuse, nothing changes */
			CHECK_UINT(kfifo_in(&a, src, 50), 50);
			kt_snap_take(&snap, &a);
			CHECK_UINT(kfifo__in_rec_open(&a, src, 20, rt(r)), 21);
			CHECK_UNCHANGED(&a, &snap);
			kfifo_reset(&a);
			kfifo_close(&a);
			kt_snap_take(&snap, &a);
			CHECK_UINT(kfifo__in_rec_open(&a, src, 5, rt(r)), 6);
			CHECK_UINT(kfifo__in_rec_open(&a, src, 5, 1), 6);
			CHECK_UNCHANGED(&a, &snap);
			CHECK_UINT(kfifo_len(&a), 0);
			kfifo_free(&a);
			kfifo_free(&b);
		}
	}
}

/*
 * kfifo__out_rec_len(), the binding's get_rec refilling a bytes object:
 * takes the next record only when it has the length asked for, at every
 * length across the inline copy's bounds and every offset (records
 * across the end included); another length gives that length + 1 and an
 * empty fifo, a partial record or a bad recsize UINT_MAX, nothing taken.
 */
static void test_out_rec_len_takes_only_that_length(void)
{
	unsigned int r, n, i;

	for (r = 1; r <= 2; r++) {
		FOR_EACH_START(start) {
			struct kfifo f;

			KT_MAKE(&f, 64, start);
			CHECK_UINT(kfifo__out_rec_len(&f, dst, 4, rt(r)),
				   UINT_MAX);
			for (i = 0; i < 41 * 3; i++) {
				n = i % 41;
				kt_pattern(src, n, i);
				CHECK_UINT(kfifo_in_rec(&f, src, n, rt(r)), 0);
				kt_snap_take(&snap, &f);
				CHECK_UINT(kfifo__out_rec_len(&f, dst, n + 1, rt(r)),
					   n + 1);
				if (n > 0)
					CHECK_UINT(kfifo__out_rec_len(&f, dst, n - 1,
								      rt(r)),
						   n + 1);
				CHECK_UNCHANGED(&f, &snap);
				memset(dst, 0, 64);
				CHECK_UINT(kfifo__out_rec_len(&f, dst, n, rt(r)), 0);
				CHECK_MEM(dst, src, n);
				CHECK_UINT(kfifo_len(&f), 0);
			}
			/* a header without all its data, a bad recsize */
			CHECK_UINT(kfifo_in(&f, "\005ab", 3), 3);
			kt_snap_take(&snap, &f);
			CHECK_UINT(kfifo__out_rec_len(&f, dst, 5, 1), UINT_MAX);
			CHECK_UINT(kfifo__out_rec_len(&f, dst, 5, rt(0)),
				   UINT_MAX);
			CHECK_UINT(kfifo__out_rec_len(&f, dst, 5, rt(3)),
				   UINT_MAX);
			CHECK_UINT(kfifo__out_rec_len(&f, dst, 256, 1),
				   UINT_MAX);
			CHECK_UNCHANGED(&f, &snap);
			kfifo_free(&f);
		}
	}
}

int main(void)
{
	RUN_TEST(test_in_rec_stores_header_then_data);
	RUN_TEST(test_in_rec_recsize2_header_is_little_endian);
	RUN_TEST(test_in_rec_exact_fit_fills_the_fifo);
	RUN_TEST(test_in_rec_refuses_record_without_room_and_changes_nothing);
	RUN_TEST(test_in_rec_zero_length_records);
	RUN_TEST(test_in_rec_header_limits_255_and_65535);
	RUN_TEST(test_rec_max_is_the_limit_in_rec_applies);
	RUN_TEST(test_in_rec_refuses_bad_recsize);
	RUN_TEST(test_in_rec_n_uint_max_is_refused_without_overflow);
	RUN_TEST(test_out_rec_takes_one_record);
	RUN_TEST(test_out_rec_leaves_record_when_buffer_too_small);
	RUN_TEST(test_out_rec_on_empty_fifo_reads_no_header);
	RUN_TEST(test_out_rec_with_only_part_of_a_header);
	RUN_TEST(test_out_rec_leaves_incomplete_record);
	RUN_TEST(test_out_rec_recsize0_takes_exactly_n_bytes);
	RUN_TEST(test_out_rec_refuses_bad_recsize);
	RUN_TEST(test_peek_rec_returns_next_length_and_removes_nothing);
	RUN_TEST(test_skip_rec_removes_exactly_one_record);
	RUN_TEST(test_skip_rec_empties_fifo_on_incomplete_record_or_recsize0);
	RUN_TEST(test_record_split_across_buffer_end_at_every_offset);
	RUN_TEST(test_record_stream_through_small_fifo);
	RUN_TEST(test_constant_recsize_gives_same_results_as_runtime_recsize);
	RUN_TEST(test_specialised_instances_match_generic);
	RUN_TEST(test_in_rec_open_matches_in_rec_and_refuses_closed);
	RUN_TEST(test_out_rec_len_takes_only_that_length);
	return th_finish("test_records");
}
