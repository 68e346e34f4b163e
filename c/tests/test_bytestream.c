/* SPDX-License-Identifier: MIT */
/*
 * test_bytestream.c - docs/spec.md 1.3 row by row: set-up and tear-down, the
 * size queries, in/out and their user and locked variants, skip, reset and
 * reset_out; with the edges (size 1, empty, full, n = UINT_MAX, sizes 0
 * and > 2^31) and every scenario repeated with in = out near UINT_MAX.
 */
#include <kfifo.h>

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "test_harness.h"
#include "test_util.h"

static struct kt_snap snap;
static unsigned char src[4096];
static unsigned char dst[4096];

/* ---- kfifo_alloc ------------------------------------------------------ */

static void test_alloc_rounds_size_up_to_a_power_of_two(void)
{
	static const unsigned int req[][2] = {
		{ 1, 1 },     { 2, 2 },       { 3, 4 },       { 4, 4 },
		{ 5, 8 },     { 7, 8 },       { 8, 8 },       { 9, 16 },
		{ 1000, 1024 }, { 1024, 1024 }, { 1025, 2048 },
		{ 65537, 131072 },
	};
	size_t i;

	for (i = 0; i < sizeof(req) / sizeof(req[0]); i++) {
		struct kfifo f;

		th_context("size=%u", req[i][0]);
		memset(&f, 0xa5, sizeof(f));
		CHECK_INT(kfifo_alloc(&f, req[i][0], KFIFO_GFP_KERNEL), 0);
		CHECK_UINT(kfifo_size(&f), req[i][1]);
		CHECK_UINT(f.size, req[i][1]);
		CHECK(f.buffer != NULL);
		CHECK_UINT(f.in, 0);
		CHECK_UINT(f.out, 0);
		CHECK_UINT(kfifo_len(&f), 0);
		CHECK_UINT(kfifo_avail(&f), req[i][1]);
		CHECK_VALID(&f);
		kfifo_free(&f);
	}
}

static void test_alloc_ignores_gfp_mask(void)
{
	struct kfifo f;

	CHECK_INT(kfifo_alloc(&f, 8, (kfifo_gfp_t)0x12345u), 0);
	CHECK_UINT(kfifo_size(&f), 8);
	CHECK_UINT(kfifo_in(&f, "abc", 3), 3);
	kfifo_free(&f);
	CHECK_INT(kfifo_alloc(&f, 8, KFIFO_GFP_ATOMIC), 0);
	CHECK_UINT(kfifo_size(&f), 8);
	kfifo_free(&f);
}

/* A size-0 fifo (failed set-up, or freed) is valid and every call on it is
 * a harmless no-op with the documented results. */
static void check_size_zero_fifo(struct kfifo *f)
{
	unsigned char b[4] = { 9, 9, 9, 9 };
	unsigned int total = 77;

	CHECK_VALID(f);
	CHECK_UINT(kfifo_size(f), 0);
	CHECK_UINT(kfifo_len(f), 0);
	CHECK_UINT(kfifo_avail(f), 0);
	CHECK_INT(kfifo_is_empty(f), 1);
	/* len == size: the seed's definition makes a size-0 fifo "full" */
	CHECK_INT(kfifo_is_full(f), 1);
	CHECK_UINT(kfifo_in(f, "x", 1), 0);
	CHECK_UINT(kfifo_out(f, b, 4), 0);
	CHECK_UINT(kfifo_in_rec(f, "x", 1, 1), 2);
	CHECK_UINT(kfifo_in_rec(f, "x", 0, 1), 1);
	CHECK_UINT(kfifo_out_rec(f, b, 4, 1, &total), 4);
	CHECK_UINT(total, 0);
	CHECK_UINT(kfifo_peek_rec(f, 1), 0);
	kfifo_skip(f, 3);
	kfifo_skip_rec(f, 2);
	kfifo_reset_out(f);
	CHECK(b[0] == 9 && b[3] == 9);
	CHECK_VALID(f);
	CHECK_UINT(kfifo_len(f), 0);
	CHECK_UINT(kfifo_size(f), 0);
}

static void test_alloc_refuses_size_zero(void)
{
	struct kfifo f;

	memset(&f, 0xa5, sizeof(f));
	CHECK_INT(kfifo_alloc(&f, 0, KFIFO_GFP_KERNEL), -EINVAL);
	CHECK(f.buffer == NULL);
	check_size_zero_fifo(&f);
	kfifo_free(&f);
	check_size_zero_fifo(&f);
}

static void test_alloc_refuses_more_than_2_pow_31(void)
{
	static const unsigned int req[] = { (1u << 31) + 1, 0xc0000000u,
					    UINT_MAX - 1, UINT_MAX };
	size_t i;

	for (i = 0; i < sizeof(req) / sizeof(req[0]); i++) {
		struct kfifo f;

		th_context("size=%u", req[i]);
		memset(&f, 0x5a, sizeof(f));
		CHECK_INT(kfifo_alloc(&f, req[i], KFIFO_GFP_KERNEL), -EINVAL);
		check_size_zero_fifo(&f);
		kfifo_free(&f);
	}
}

/* 2^31 itself is allowed; the allocation may fail on a small machine. */
static void test_alloc_accepts_2_pow_31(void)
{
	struct kfifo f;
	int rc = kfifo_alloc(&f, (1u << 31) - 5, KFIFO_GFP_KERNEL);
	/* not a constant: on 32-bit targets gcc knows no object is 2^31
	 * bytes long (glibc's malloc refuses more than PTRDIFF_MAX, so there
	 * this is -ENOMEM) and rejects a constant index that large */
	volatile size_t last = (1u << 31) - 1;

	CHECK(rc == 0 || rc == -ENOMEM);
	if (rc == 0) {
		CHECK_UINT(kfifo_size(&f), 1u << 31);
		/* wrap at 2^32 on a 2^31 fifo: offsets split at the end */
		f.in = f.out = UINT_MAX - 2;
		CHECK_UINT(kfifo_in(&f, "abcdef", 6), 6);
		CHECK_UINT(f.buffer[last], 'c');
		CHECK_UINT(f.buffer[0], 'd');
		CHECK_UINT(kfifo_out(&f, dst, 10), 6);
		CHECK_MEM(dst, "abcdef", 6);
		CHECK_VALID(&f);
	} else {
		check_size_zero_fifo(&f);
	}
	kfifo_free(&f);
}

/* ---- kfifo_init -------------------------------------------------------- */

static void test_init_uses_caller_buffer(void)
{
	static unsigned char buf[1024];
	unsigned int size;

	for (size = 1; size <= sizeof(buf); size *= 2) {
		struct kfifo f;

		th_context("size=%u", size);
		memset(&f, 0xa5, sizeof(f));
		memset(buf, 0, sizeof(buf));
		CHECK_INT(kfifo_init(&f, buf, size), 0);
		CHECK(f.buffer == buf);
		CHECK_UINT(kfifo_size(&f), size);
		CHECK_UINT(f.in, 0);
		CHECK_UINT(f.out, 0);
		CHECK_VALID(&f);
		kt_pattern(src, size, size);
		CHECK_UINT(kfifo_in(&f, src, size + 1), size);
		CHECK_MEM(buf, src, size);
		CHECK(kt_all_equal(buf, size, sizeof(buf), 0));
		CHECK_INT(kfifo_is_full(&f), 1);
	}
}

static void test_init_refuses_non_power_of_two(void)
{
	static const unsigned int bad[] = { 0, 3, 5, 6, 7, 12, 100, 1023,
					    (1u << 31) + 1, UINT_MAX };
	unsigned char buf[16];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct kfifo f;

		th_context("size=%u", bad[i]);
		memset(&f, 0xa5, sizeof(f));
		memset(buf, 0x3c, sizeof(buf));
		CHECK_INT(kfifo_init(&f, buf, bad[i]), -EINVAL);
		check_size_zero_fifo(&f);
		CHECK(kt_all_equal(buf, 0, sizeof(buf), 0x3c));
		kfifo_free(&f);
		CHECK(kt_all_equal(buf, 0, sizeof(buf), 0x3c));
	}
}

static void test_init_refuses_null_buffer(void)
{
	struct kfifo f;

	memset(&f, 0xa5, sizeof(f));
	CHECK_INT(kfifo_init(&f, NULL, 8), -EINVAL);
	check_size_zero_fifo(&f);
	CHECK_INT(kfifo_init(&f, NULL, 0), -EINVAL);
	check_size_zero_fifo(&f);
	CHECK_INT(kfifo_init(&f, NULL, 1), -EINVAL);
	check_size_zero_fifo(&f);
}

static void test_init_starts_empty_after_earlier_use(void)
{
	unsigned char buf[8];
	struct kfifo f;

	CHECK_INT(kfifo_init(&f, buf, 8), 0);
	f.in = f.out = UINT_MAX - 1;
	CHECK_UINT(kfifo_in(&f, "abc", 3), 3);
	CHECK_INT(kfifo_init(&f, buf, 4), 0);
	CHECK_UINT(f.in, 0);
	CHECK_UINT(f.out, 0);
	CHECK_UINT(kfifo_len(&f), 0);
	CHECK_UINT(kfifo_size(&f), 4);
}

/* ---- kfifo_free -------------------------------------------------------- */

static void test_free_leaves_a_valid_size_zero_fifo(void)
{
	FOR_EACH_START(start) {
		struct kfifo f;

		KT_MAKE(&f, 64, start);
		CHECK_UINT(kfifo_in(&f, "hello", 5), 5);
		kfifo_free(&f);
		CHECK(f.buffer == NULL);
		check_size_zero_fifo(&f);
	}
}

static void test_free_twice_is_harmless(void)
{
	struct kfifo f;

	CHECK_INT(kfifo_alloc(&f, 32, KFIFO_GFP_KERNEL), 0);
	kfifo_free(&f);
	kfifo_free(&f);
	check_size_zero_fifo(&f);
	/* and the fifo can be set up again */
	CHECK_INT(kfifo_alloc(&f, 4, KFIFO_GFP_KERNEL), 0);
	CHECK_UINT(kfifo_in(&f, "abcde", 5), 4);
	kfifo_free(&f);
	kfifo_free(&f);
	check_size_zero_fifo(&f);
}

/* kfifo_free never frees caller memory: the buffer and its bytes stay the
 * caller's, usable for a new fifo.  (ASan would also report a free of this
 * stack buffer; test_wrap checks free() is not even called.) */
static void test_free_of_init_fifo_leaves_caller_buffer_untouched(void)
{
	unsigned char buf[16];
	unsigned char copy[16];
	struct kfifo f;

	CHECK_INT(kfifo_init(&f, buf, 16), 0);
	kt_pattern(src, 16, 7);
	CHECK_UINT(kfifo_in(&f, src, 16), 16);
	memcpy(copy, buf, 16);
	kfifo_free(&f);
	check_size_zero_fifo(&f);
	CHECK_MEM(buf, copy, 16);
	kfifo_free(&f);
	CHECK_MEM(buf, copy, 16);
	/* the caller still owns and can reuse it */
	buf[0] = 42;
	CHECK_INT(kfifo_init(&f, buf, 16), 0);
	CHECK_UINT(kfifo_in(&f, "xyz", 3), 3);
	CHECK_UINT(kfifo_out(&f, dst, 3), 3);
	CHECK_MEM(dst, "xyz", 3);
	kfifo_free(&f);
	CHECK_MEM(buf, "xyz", 3);
}

/* ---- reset, reset_out ------------------------------------------------- */

static void test_reset_empties_and_zeroes_indices(void)
{
	FOR_EACH_START(start) {
		struct kfifo f;

		KT_MAKE(&f, 16, start);
		CHECK_UINT(kfifo_in(&f, "0123456789", 10), 10);
		CHECK_UINT(kfifo_out(&f, dst, 3), 3);
		kfifo_reset(&f);
		CHECK_UINT(f.in, 0);
		CHECK_UINT(f.out, 0);
		CHECK_UINT(kfifo_len(&f), 0);
		CHECK_UINT(kfifo_avail(&f), 16);
		CHECK_INT(kfifo_is_empty(&f), 1);
		CHECK_VALID(&f);
		CHECK_UINT(kfifo_in(&f, "abc", 3), 3);
		CHECK_CONTENT(&f, "abc", 3);
		kfifo_reset(&f); /* twice, and on an empty fifo */
		kfifo_reset(&f);
		CHECK_UINT(kfifo_len(&f), 0);
		kfifo_free(&f);
	}
}

static void test_reset_out_discards_content_from_consumer_side(void)
{
	FOR_EACH_START(start) {
		struct kfifo f;

		KT_MAKE(&f, 16, start);
		CHECK_UINT(kfifo_in(&f, "0123456789", 10), 10);
		kfifo_reset_out(&f);
		CHECK_UINT(f.in, start + 10);
		CHECK_UINT(f.out, start + 10);
		CHECK_UINT(kfifo_len(&f), 0);
		CHECK_UINT(kfifo_avail(&f), 16);
		CHECK_VALID(&f);
		/* on an empty fifo it changes nothing */
		kt_snap_take(&snap, &f);
		kfifo_reset_out(&f);
		CHECK_UNCHANGED(&f, &snap);
		CHECK_UINT(kfifo_in(&f, "abcdefghijklmnopq", 17), 16);
		CHECK_CONTENT(&f, "abcdefghijklmnop", 16);
		kfifo_free(&f);
	}
}

/* ---- size queries ----------------------------------------------------- */

static void check_levels(struct kfifo *f, unsigned int size, unsigned int len)
{
	CHECK_UINT(kfifo_size(f), size);
	CHECK_UINT(kfifo_len(f), len);
	CHECK_UINT(kfifo_avail(f), size - len);
	CHECK_INT(kfifo_is_empty(f), len == 0);
	CHECK_INT(kfifo_is_full(f), len == size);
	CHECK_VALID(f);
}

static void test_size_queries_at_every_fill_level(void)
{
	static const unsigned int sizes[] = { 1, 2, 8, 64 };
	size_t s;

	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		FOR_EACH_START(start) {
			unsigned int size = sizes[s], i;
			struct kfifo f;

			KT_MAKE(&f, size, start);
			check_levels(&f, size, 0);
			for (i = 1; i <= size; i++) {
				unsigned char b = (unsigned char)i;

				CHECK_UINT(kfifo_in(&f, &b, 1), 1);
				check_levels(&f, size, i);
			}
			for (i = size; i > 0; i--) {
				unsigned char b = 0;

				CHECK_UINT(kfifo_out(&f, &b, 1), 1);
				CHECK_UINT(b, (unsigned char)(size - i + 1));
				check_levels(&f, size, i - 1);
			}
			kfifo_free(&f);
		}
	}
}

/* ---- in / out and their user and locked variants ---------------------- */

typedef unsigned int (*in_fn)(struct kfifo *, const void *, unsigned int);
typedef unsigned int (*out_fn)(struct kfifo *, void *, unsigned int);

static kfifo_spinlock_t in_lock = KFIFO_SPINLOCK_INIT;
static kfifo_spinlock_t out_lock = KFIFO_SPINLOCK_INIT;

static unsigned int in_locked(struct kfifo *f, const void *from, unsigned int n)
{
	unsigned int r = kfifo_in_locked(f, from, n, &in_lock);

	/* the lock is released again */
	CHECK_INT(kfifo_spin_trylock(&in_lock), 1);
	kfifo_spin_unlock(&in_lock);
	return r;
}

static unsigned int out_locked(struct kfifo *f, void *to, unsigned int n)
{
	unsigned int r = kfifo_out_locked(f, to, n, &out_lock);

	CHECK_INT(kfifo_spin_trylock(&out_lock), 1);
	kfifo_spin_unlock(&out_lock);
	return r;
}

static const struct {
	const char *name;
	in_fn in;
	out_fn out;
} variants[] = {
	{ "in/out", kfifo_in, kfifo_out },
	{ "from_user/to_user", kfifo_from_user, kfifo_to_user },
	{ "in_locked/out_locked", in_locked, out_locked },
	{ "in/to_user", kfifo_in, kfifo_to_user },
	{ "from_user/out_locked", kfifo_from_user, out_locked },
	{ "in_locked/out", in_locked, kfifo_out },
};
#define NVARIANTS (sizeof(variants) / sizeof(variants[0]))

#define FOR_EACH_VARIANT_AND_START(v, start)                                   \
	for (size_t v = 0; v < NVARIANTS; v++)                                 \
		for (unsigned int start##_i = 0, start = 0;                    \
		     start##_i < KT_NSTARTS &&                                 \
		     ((start = kt_starts[start##_i]),                          \
		      th_context("%s, start=0x%x", variants[v].name, start),   \
		      1);                                                      \
		     start##_i++)

static void test_in_copies_min_of_n_and_avail(void)
{
	FOR_EACH_VARIANT_AND_START(v, start) {
		struct kfifo f;

		KT_MAKE(&f, 16, start);
		kt_pattern(src, 64, 1);
		CHECK_UINT(variants[v].in(&f, src, 10), 10);
		CHECK_CONTENT(&f, src, 10);
		CHECK_UINT(variants[v].in(&f, src + 10, 10), 6);
		CHECK_CONTENT(&f, src, 16);
		CHECK_UINT(f.in, start + 16);
		/* full: refused, nothing changes */
		kt_snap_take(&snap, &f);
		CHECK_UINT(variants[v].in(&f, src, 1), 0);
		CHECK_UNCHANGED(&f, &snap);
		CHECK_UINT(variants[v].in(&f, src, UINT_MAX), 0);
		CHECK_UNCHANGED(&f, &snap);
		kfifo_free(&f);
	}
}

static void test_in_zero_bytes_changes_nothing(void)
{
	FOR_EACH_VARIANT_AND_START(v, start) {
		struct kfifo f;

		KT_MAKE(&f, 8, start);
		kt_snap_take(&snap, &f);
		CHECK_UINT(variants[v].in(&f, src, 0), 0);
		CHECK_UNCHANGED(&f, &snap);
		CHECK_UINT(variants[v].in(&f, "ab", 2), 2);
		kt_snap_take(&snap, &f);
		CHECK_UINT(variants[v].in(&f, src, 0), 0);
		CHECK_UNCHANGED(&f, &snap);
		kfifo_free(&f);
	}
}

static void test_in_n_uint_max_copies_avail(void)
{
	FOR_EACH_VARIANT_AND_START(v, start) {
		struct kfifo f;

		KT_MAKE(&f, 32, start);
		kt_pattern(src, 64, 2);
		CHECK_UINT(variants[v].in(&f, src, 5), 5);
		/* only the 27 free bytes of src are read */
		CHECK_UINT(variants[v].in(&f, src + 5, UINT_MAX), 27);
		CHECK_CONTENT(&f, src, 32);
		CHECK_UINT(variants[v].out(&f, dst, UINT_MAX), 32);
		CHECK_MEM(dst, src, 32);
		CHECK_UINT(kfifo_len(&f), 0);
		kfifo_free(&f);
	}
}

static void test_out_copies_min_of_n_and_len(void)
{
	FOR_EACH_VARIANT_AND_START(v, start) {
		struct kfifo f;

		KT_MAKE(&f, 16, start);
		CHECK_UINT(variants[v].in(&f, "0123456789", 10), 10);
		memset(dst, 0xee, 32);
		CHECK_UINT(variants[v].out(&f, dst, 3), 3);
		CHECK_MEM(dst, "012", 3);
		CHECK(kt_all_equal(dst, 3, 32, 0xee));
		CHECK_CONTENT(&f, "3456789", 7);
		CHECK_UINT(f.out, start + 3);
		memset(dst, 0xee, 32);
		CHECK_UINT(variants[v].out(&f, dst, 100), 7);
		CHECK_MEM(dst, "3456789", 7);
		CHECK(kt_all_equal(dst, 7, 32, 0xee));
		CHECK_UINT(f.out, start + 10);
		check_levels(&f, 16, 0);
		/* empty: refused, nothing changes, the buffer is untouched */
		memset(dst, 0xee, 32);
		kt_snap_take(&snap, &f);
		CHECK_UINT(variants[v].out(&f, dst, 5), 0);
		CHECK_UINT(variants[v].out(&f, dst, UINT_MAX), 0);
		CHECK_UNCHANGED(&f, &snap);
		CHECK(kt_all_equal(dst, 0, 32, 0xee));
		kfifo_free(&f);
	}
}

static void test_out_zero_bytes_changes_nothing(void)
{
	FOR_EACH_VARIANT_AND_START(v, start) {
		struct kfifo f;

		KT_MAKE(&f, 8, start);
		CHECK_UINT(variants[v].in(&f, "abc", 3), 3);
		kt_snap_take(&snap, &f);
		memset(dst, 0xee, 8);
		CHECK_UINT(variants[v].out(&f, dst, 0), 0);
		CHECK_UNCHANGED(&f, &snap);
		CHECK(kt_all_equal(dst, 0, 8, 0xee));
		kfifo_free(&f);
	}
}

/* Data that crosses the end of the buffer comes out whole and in order,
 * for every position of the split. */
static void test_in_out_split_at_every_offset(void)
{
	FOR_EACH_VARIANT_AND_START(v, start) {
		unsigned int off, n;

		for (off = 0; off < 8; off++) {
			for (n = 1; n <= 8; n++) {
				struct kfifo f;

				KT_MAKE(&f, 8, start + off);
				kt_pattern(src, n, off * 8 + n);
				CHECK_UINT(variants[v].in(&f, src, n), n);
				CHECK_CONTENT(&f, src, n);
				CHECK_UINT(variants[v].out(&f, dst, 8), n);
				CHECK_MEM(dst, src, n);
				CHECK_UINT(f.in, start + off + n);
				CHECK_UINT(f.out, start + off + n);
				kfifo_free(&f);
			}
		}
	}
}

/* Many rounds of uneven chunks through a small fifo; every byte checked. */
static void test_stream_of_uneven_chunks(void)
{
	FOR_EACH_VARIANT_AND_START(v, start) {
		unsigned long long put = 0, got = 0;
		unsigned int round;
		struct kfifo f;

		KT_MAKE(&f, 16, start);
		for (round = 0; round < 300; round++) {
			unsigned int want_in = (round * 7) % 19;
			unsigned int want_out = (round * 5) % 17;
			unsigned char chunk[32];
			unsigned int k, i, avail = kfifo_avail(&f);
			unsigned int len = kfifo_len(&f);

			for (i = 0; i < want_in; i++)
				chunk[i] = th_pattern(put + i);
			k = variants[v].in(&f, chunk, want_in);
			CHECK_UINT(k, want_in < avail ? want_in : avail);
			put += k;
			len += k;
			k = variants[v].out(&f, chunk, want_out);
			CHECK_UINT(k, want_out < len ? want_out : len);
			for (i = 0; i < k; i++)
				if (!CHECK_UINT(chunk[i], th_pattern(got + i)))
					break;
			got += k;
			CHECK_UINT(kfifo_len(&f), put - got);
			CHECK_UINT(f.in, (unsigned int)(start + put));
			CHECK_VALID(&f);
		}
		CHECK(put > 1000);
		kfifo_free(&f);
	}
}

/* Decided: unlike the seed, kfifo_out_locked does not set in = out = 0
 * when it empties the fifo (that store would race with a producer). */
static void test_out_locked_does_not_reset_indices_when_empty(void)
{
	FOR_EACH_START(start) {
		kfifo_spinlock_t lock;
		struct kfifo f;

		kfifo_spin_lock_init(&lock);
		KT_MAKE(&f, 8, start);
		CHECK_UINT(kfifo_in(&f, "abcde", 5), 5);
		CHECK_UINT(kfifo_out_locked(&f, dst, 5, &lock), 5);
		CHECK_UINT(f.in, start + 5);
		CHECK_UINT(f.out, start + 5);
		CHECK_INT(kfifo_is_empty(&f), 1);
		CHECK_UINT(kfifo_out_locked(&f, dst, 5, &lock), 0);
		CHECK_UINT(f.out, start + 5);
		kfifo_free(&f);
	}
}

static void test_spinlock_trylock_and_unlock(void)
{
	kfifo_spinlock_t lock;

	kfifo_spin_lock_init(&lock);
	CHECK_INT(kfifo_spin_trylock(&lock), 1);
	CHECK_INT(kfifo_spin_trylock(&lock), 0);
	kfifo_spin_unlock(&lock);
	kfifo_spin_lock(&lock);
	CHECK_INT(kfifo_spin_trylock(&lock), 0);
	kfifo_spin_unlock(&lock);
	CHECK_INT(kfifo_spin_trylock(&lock), 1);
	kfifo_spin_unlock(&lock);
}

/* ---- kfifo_skip ------------------------------------------------------- */

static void test_skip_drops_bytes(void)
{
	FOR_EACH_START(start) {
		struct kfifo f;

		KT_MAKE(&f, 16, start);
		CHECK_UINT(kfifo_in(&f, "0123456789", 10), 10);
		kt_snap_take(&snap, &f);
		kfifo_skip(&f, 0);
		CHECK_UNCHANGED(&f, &snap);
		kfifo_skip(&f, 4);
		CHECK_CONTENT(&f, "456789", 6);
		CHECK_UINT(f.out, start + 4);
		kfifo_skip(&f, 5);
		CHECK_CONTENT(&f, "9", 1);
		kfifo_skip(&f, 1); /* len == kfifo_len: empties */
		CHECK_UINT(f.out, start + 10);
		CHECK_UINT(f.in, start + 10);
		kfifo_skip(&f, 3); /* on an empty fifo: changes nothing */
		CHECK_UINT(f.out, start + 10);
		CHECK_UINT(f.in, start + 10);
		kfifo_free(&f);
	}
}

static void test_skip_more_than_len_empties(void)
{
	static const unsigned int lens[] = { 11, 16, 17, 1000, UINT_MAX - 1,
					     UINT_MAX };
	size_t i;

	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		FOR_EACH_START(start) {
			struct kfifo f;

			KT_MAKE(&f, 16, start);
			CHECK_UINT(kfifo_in(&f, "0123456789", 10), 10);
			kfifo_skip(&f, lens[i]);
			CHECK_UINT(kfifo_len(&f), 0);
			CHECK_UINT(f.out, start + 10);
			CHECK_UINT(f.in, start + 10);
			CHECK_VALID(&f);
			kfifo_free(&f);
		}
	}
}

/* ---- size 1 ----------------------------------------------------------- */

static void test_size_one_fifo(void)
{
	FOR_EACH_START(start) {
		unsigned int total = 99;
		unsigned char b = 0;
		struct kfifo f;

		KT_MAKE(&f, 1, start);
		check_levels(&f, 1, 0);
		CHECK_UINT(kfifo_in(&f, "xy", 2), 1);
		check_levels(&f, 1, 1);
		CHECK_UINT(kfifo_in(&f, "z", 1), 0);
		CHECK_UINT(kfifo_out(&f, &b, 5), 1);
		CHECK_UINT(b, 'x');
		check_levels(&f, 1, 0);
		/* records: a 1-byte fixed record fits, a header-only one too */
		CHECK_UINT(kfifo_in_rec(&f, "q", 1, 0), 0);
		CHECK_UINT(kfifo_in_rec(&f, "q", 1, 0), 2);
		kfifo_reset_out(&f);
		CHECK_UINT(kfifo_in_rec(&f, "q", 1, 1), 2);
		CHECK_UINT(kfifo_in_rec(&f, "q", 0, 1), 0);
		CHECK_UINT(kfifo_peek_rec(&f, 1), 0);
		CHECK_UINT(kfifo_out_rec(&f, &b, 1, 1, &total), 0);
		CHECK_UINT(total, 0);
		CHECK_UINT(kfifo_in_rec(&f, "q", 0, 2), 1);
		check_levels(&f, 1, 0);
		/* "x", the fixed record, the header-only record */
		CHECK_UINT(f.in, start + 3);
		kfifo_free(&f);
	}
}

int main(void)
{
	RUN_TEST(test_alloc_rounds_size_up_to_a_power_of_two);
	RUN_TEST(test_alloc_ignores_gfp_mask);
	RUN_TEST(test_alloc_refuses_size_zero);
	RUN_TEST(test_alloc_refuses_more_than_2_pow_31);
	RUN_TEST(test_alloc_accepts_2_pow_31);
	RUN_TEST(test_init_uses_caller_buffer);
	RUN_TEST(test_init_refuses_non_power_of_two);
	RUN_TEST(test_init_refuses_null_buffer);
	RUN_TEST(test_init_starts_empty_after_earlier_use);
	RUN_TEST(test_free_leaves_a_valid_size_zero_fifo);
	RUN_TEST(test_free_twice_is_harmless);
	RUN_TEST(test_free_of_init_fifo_leaves_caller_buffer_untouched);
	RUN_TEST(test_reset_empties_and_zeroes_indices);
	RUN_TEST(test_reset_out_discards_content_from_consumer_side);
	RUN_TEST(test_size_queries_at_every_fill_level);
	RUN_TEST(test_in_copies_min_of_n_and_avail);
	RUN_TEST(test_in_zero_bytes_changes_nothing);
	RUN_TEST(test_in_n_uint_max_copies_avail);
	RUN_TEST(test_out_copies_min_of_n_and_len);
	RUN_TEST(test_out_zero_bytes_changes_nothing);
	RUN_TEST(test_in_out_split_at_every_offset);
	RUN_TEST(test_stream_of_uneven_chunks);
	RUN_TEST(test_out_locked_does_not_reset_indices_when_empty);
	RUN_TEST(test_spinlock_trylock_and_unlock);
	RUN_TEST(test_skip_drops_bytes);
	RUN_TEST(test_skip_more_than_len_empties);
	RUN_TEST(test_size_one_fifo);
	return th_finish("test_bytestream");
}
