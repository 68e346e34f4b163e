/* SPDX-License-Identifier: MIT */
/*
 * test_seed_bugs.c - one regression test per seed bug of docs/spec.md 1.7.
 * Each test describes how the seed code fails it.
 */
#include <kfifo.h>

#include <limits.h>
#include <string.h>

#include "test_harness.h"
#include "test_util.h"

static unsigned char src[1024];
static unsigned char dst[1024];

/* Bug 1: the seed's INIT_KFIFO points the buffer at the start of the
 * union, over the struct kfifo header: writing data corrupts size, in and
 * out.  Ours puts the data after the header. */
static void test_seed_bug1_init_kfifo_buffer_does_not_overlap_header(void)
{
	struct {
		DECLARE_KFIFO(fifo, 32);
	} s;
	unsigned char *hdr_begin = (unsigned char *)&s.fifo;
	unsigned char *hdr_end = hdr_begin + sizeof(struct kfifo);
	unsigned int round;

	INIT_KFIFO(s.fifo);
	CHECK_UINT(kfifo_size(&s.fifo), 32);
	CHECK(s.fifo.buffer >= hdr_end || s.fifo.buffer + 32 <= hdr_begin);
	CHECK(s.fifo.buffer + 32 <= (unsigned char *)&s + sizeof(s));
	memset(src, 0xff, sizeof(src));
	for (round = 0; round < 10; round++) {
		CHECK_UINT(kfifo_in(&s.fifo, src, 32), 32);
		CHECK_UINT(kfifo_size(&s.fifo), 32);
		CHECK_UINT(kfifo_len(&s.fifo), 32);
		CHECK_VALID(&s.fifo);
		CHECK_UINT(kfifo_out(&s.fifo, dst, 32), 32);
		CHECK_MEM(dst, src, 32);
		CHECK_UINT(kfifo_size(&s.fifo), 32);
	}
	CHECK_UINT(s.fifo.in, 320);
	CHECK_UINT(s.fifo.out, 320);
}

/* Bug 2: the seed's __kfifo_out_n copies n bytes (the caller's capacity)
 * instead of the record's L: it writes past the record into the caller's
 * buffer, returns the following record's bytes and, worse, removes them. */
static void test_seed_bug2_out_rec_copies_record_length_not_capacity(void)
{
	unsigned int r;

	for (r = 1; r <= 2; r++) {
		FOR_EACH_START(start) {
			unsigned int total = 0;
			struct kfifo f;

			KT_MAKE(&f, 64, start);
			CHECK_UINT(kfifo_in_rec(&f, "abc", 3, r == 1 ? 1 : 2), 0);
			CHECK_UINT(kfifo_in_rec(&f, "defgh", 5, r == 1 ? 1 : 2), 0);
			memset(dst, 0xee, 64);
			CHECK_UINT(kfifo_out_rec(&f, dst, 40, r, &total), 0);
			CHECK_UINT(total, 3);
			CHECK_MEM(dst, "abc", 3);
			CHECK(kt_all_equal(dst, 3, 64, 0xee));
			CHECK_UINT(kfifo_len(&f), r + 5);
			CHECK_UINT(kfifo_peek_rec(&f, r), 5);
			memset(dst, 0xee, 64);
			CHECK_UINT(kfifo_out_rec(&f, dst, 40, r, &total), 0);
			CHECK_MEM(dst, "defgh", 5);
			CHECK(kt_all_equal(dst, 5, 64, 0xee));
			kfifo_free(&f);
		}
	}
}

/* Bug 3: the seed's __kfifo_peek_generic returns kfifo_avail() for recsize
 * 0 while the inline (constant) path returns kfifo_len(). */
static void test_seed_bug3_peek_rec_recsize0_returns_len_on_both_paths(void)
{
	FOR_EACH_START(start) {
		volatile unsigned int zero = 0;
		struct kfifo f;

		KT_MAKE(&f, 64, start);
		CHECK_UINT(kfifo_in(&f, src, 10), 10);
		CHECK_UINT(kfifo_peek_rec(&f, 0), 10);
		CHECK_UINT(kfifo_peek_rec(&f, zero), 10);
		CHECK_UINT(kfifo__peek_rec_generic(&f, 0), 10);
		CHECK_UINT(kfifo_avail(&f), 54); /* what the seed returned */
		kfifo_free(&f);
	}
}

/* Bug 4: with recsize 1 and n > 255 (or 2 and n > 65535) the seed stores
 * a truncated header (n & 0xff) and the data, so the reader takes a
 * short record and then garbage.  Ours refuses the record. */
static void test_seed_bug4_in_rec_refuses_record_too_long_for_header(void)
{
	static unsigned char big[65537];
	volatile unsigned int one = 1, two = 2;

	FOR_EACH_START(start) {
		struct kfifo f;

		KT_MAKE(&f, 1u << 17, start);
		CHECK_UINT(kfifo_in_rec(&f, big, 256, 1), 257);
		CHECK_UINT(kfifo_in_rec(&f, big, 256, one), 257);
		CHECK_UINT(kfifo_in_rec(&f, big, 300, 1), 301);
		CHECK_UINT(kfifo_in_rec(&f, big, 65536, 2), 65537);
		CHECK_UINT(kfifo_in_rec(&f, big, 65536, two), 65537);
		CHECK_UINT(kfifo_in_rec(&f, big, 65537, 2), 65538);
		CHECK_UINT(kfifo_from_user_rec(&f, big, 256, 1), 257);
		CHECK_UINT(kfifo_len(&f), 0);
		CHECK_UINT(f.in, start);
		/* the limits themselves are accepted */
		CHECK_UINT(kfifo_in_rec(&f, big, 255, 1), 0);
		CHECK_UINT(kfifo_in_rec(&f, big, 65535, 2), 0);
		CHECK_UINT(kfifo_len(&f), 256 + 65537);
		kfifo_free(&f);
	}
}

/* Bug 5: on an empty fifo the seed's kfifo_out_rec and kfifo_peek_rec read
 * the stale header of a record already taken, report its length, and the
 * constant path's __kfifo_out_n then fails in confusing ways.  Ours sees
 * an empty fifo: *total = 0, peek 0, nothing removed. */
static void test_seed_bug5_out_rec_and_peek_rec_see_empty_fifo_not_stale_header(void)
{
	unsigned int r;

	for (r = 1; r <= 2; r++) {
		FOR_EACH_START(start) {
			volatile unsigned int vr = r;
			unsigned int total = 0;
			struct kfifo f;

			KT_MAKE(&f, 16, start);
			CHECK_UINT(kfifo_in_rec(&f, "stale", 5, vr), 0);
			CHECK_UINT(kfifo_out_rec(&f, dst, 16, vr, &total), 0);
			CHECK_UINT(total, 5);
			/* the header bytes are still in the buffer, the fifo is empty */
			CHECK_UINT(f.buffer[start & 15], 5);
			CHECK_UINT(kfifo_peek_rec(&f, vr), 0);
			CHECK_UINT(kfifo_peek_rec(&f, r == 1 ? 1 : 2), 0);
			total = 99;
			CHECK_UINT(kfifo_out_rec(&f, dst, 16, vr, &total), 16);
			CHECK_UINT(total, 0);
			total = 99;
			if (r == 1)
				CHECK_UINT(kfifo_out_rec(&f, dst, 3, 1, &total), 3);
			else
				CHECK_UINT(kfifo_out_rec(&f, dst, 3, 2, &total), 3);
			CHECK_UINT(total, 0);
			CHECK_UINT(f.out, start + r + 5);
			CHECK_UINT(f.in, start + r + 5);
			kfifo_free(&f);
		}
	}
}

/* Bug 6 (docs/spec.md 1.7): the seed declares `unsigned int off;`, then does
 * `off += __kfifo_off(...)` in kfifo_in/kfifo_out: the offset is garbage.
 * Ours writes byte i of every kfifo_in at buffer[(in + i) & (size - 1)]
 * and reads from buffer[(out + i) & (size - 1)], and nowhere else. */
static void test_seed_bug6_in_and_out_use_the_index_offset_only(void)
{
	FOR_EACH_START(start) {
		unsigned int off, i;

		for (off = 0; off < 16; off++) {
			unsigned char buf[16];
			struct kfifo f;

			CHECK_INT(kfifo_init(&f, buf, 16), 0);
			f.in = f.out = start + off;
			memset(buf, 0xee, 16);
			kt_pattern(src, 5, off);
			CHECK_UINT(kfifo_in(&f, src, 5), 5);
			for (i = 0; i < 16; i++) {
				unsigned int pos = (i - ((start + off) & 15)) & 15;

				if (pos < 5)
					CHECK_UINT(buf[i], src[pos]);
				else
					CHECK_UINT(buf[i], 0xee);
			}
			/* out reads exactly those bytes back, from out's offset */
			buf[(start + off) & 15] ^= 0x5a;
			CHECK_UINT(kfifo_out(&f, dst, 16), 5);
			CHECK_UINT(dst[0], src[0] ^ 0x5a);
			CHECK_MEM(dst + 1, src + 1, 4);
		}
	}
}

int main(void)
{
	RUN_TEST(test_seed_bug1_init_kfifo_buffer_does_not_overlap_header);
	RUN_TEST(test_seed_bug2_out_rec_copies_record_length_not_capacity);
	RUN_TEST(test_seed_bug3_peek_rec_recsize0_returns_len_on_both_paths);
	RUN_TEST(test_seed_bug4_in_rec_refuses_record_too_long_for_header);
	RUN_TEST(test_seed_bug5_out_rec_and_peek_rec_see_empty_fifo_not_stale_header);
	RUN_TEST(test_seed_bug6_in_and_out_use_the_index_offset_only);
	return th_finish("test_seed_bugs");
}
