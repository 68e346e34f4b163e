/* SPDX-License-Identifier: MIT */
/*
 * test_shared.c - a fifo shared between processes (docs/spec.md 3.2).
 *
 * First in one process: kfifo_shared_bytes() at its edges, every refusal
 * of kfifo_shared_create() / kfifo_shared_attach() leaving a valid size-0
 * fifo (and create leaving the memory alone), the header words at the
 * offsets kfifo.h documents, two handles over the same memory (one
 * producing, one consuming) through every call of docs/spec.md 1.3, 1.4, 3.1
 * and 3.3, indices near 2^32 written into the mapping, and kfifo_free()
 * leaving the mapping alone.  Then across fork(): a byte stream and a
 * record stream through a 64-byte fifo with both sides blocking (the child
 * using the inherited handle, or attaching to its own mapping of a memfd
 * at another address), wake-ups from the other process (a non-private
 * futex), and a peer that is SIGKILLed mid-stream.
 *
 * Every child arms its own alarm() (alarms are not inherited) and reports
 * through its exit status; the parent arms the watchdog of
 * test_wait_util.h, so a hang fails instead of blocking CI.
 */
#define _GNU_SOURCE
#include <kfifo.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_harness.h"
#include "test_shm_util.h"
#include "test_util.h"
#include "test_wait_util.h"

/* The fifo size of the cross-process tests: small, so both sides block. */
#define XP_SIZE 64u

/* The handle is a valid, empty, unshared fifo of size 0. */
static void check_size0(struct kfifo *f)
{
	unsigned char b = 0;

	CHECK_UINT(kfifo_size(f), 0);
	CHECK_UINT(kfifo_len(f), 0);
	CHECK_INT(kfifo_valid(f), 1);
	CHECK_INT(kfifo_is_shared(f), 0);
	CHECK_INT(kfifo_is_closed(f), 0);
	CHECK_UINT(kfifo_in(f, &b, 1), 0);
	CHECK_UINT(kfifo_out(f, &b, 1), 0);
}

/* ---- in one process ---------------------------------------------------- */

static void test_shared_bytes_edges(void)
{
	CHECK_UINT(kfifo_shared_bytes(0), 0);
	CHECK_UINT(kfifo_shared_bytes(1), KFIFO_SHARED_OFF_DATA + 1);
	CHECK_UINT(kfifo_shared_bytes(2), KFIFO_SHARED_OFF_DATA + 2);
	CHECK_UINT(kfifo_shared_bytes(3), KFIFO_SHARED_OFF_DATA + 4);
	CHECK_UINT(kfifo_shared_bytes(4), KFIFO_SHARED_OFF_DATA + 4);
	CHECK_UINT(kfifo_shared_bytes(65), KFIFO_SHARED_OFF_DATA + 128);
	CHECK_UINT(kfifo_shared_bytes((1u << 30) + 1),
		   KFIFO_SHARED_OFF_DATA + (1ull << 31));
	CHECK_UINT(kfifo_shared_bytes(1u << 31),
		   KFIFO_SHARED_OFF_DATA + (1ull << 31));
	CHECK_UINT(kfifo_shared_bytes((1u << 31) + 1), 0);
	CHECK_UINT(kfifo_shared_bytes(UINT_MAX), 0);
}

/* A create that must be refused: -EINVAL, a size-0 handle, @mem as it was. */
static void expect_create_refused(unsigned char *mem, size_t len,
				  unsigned int size, const char *what)
{
	static unsigned char before[4096];
	struct kfifo f;
	size_t keep = len < sizeof(before) ? len : sizeof(before);

	th_context("create: %s", what);
	memset(&f, 0xff, sizeof(f)); /* a handle full of garbage */
	if (mem)
		memcpy(before, mem, keep);
	CHECK_INT(kfifo_shared_create(&f, mem, len, size), -EINVAL);
	check_size0(&f);
	if (mem)
		CHECK_MEM(mem, before, keep);
}

static void test_create_refuses_bad_arguments(void)
{
	size_t len = kfifo_shared_bytes(64);
	unsigned char *mem = map_shared(2 * len);
	struct kfifo f;

	memset(mem, 0xab, 2 * len);
	expect_create_refused(NULL, len, 64, "NULL");
	expect_create_refused(mem + 1, len, 64, "misaligned by 1");
	expect_create_refused(mem + 4, len, 64, "misaligned by 4");
	expect_create_refused(mem, len - 1, 64, "len short by 1");
	expect_create_refused(mem, len - 1, 63, "len short by 1, size rounded");
	expect_create_refused(mem, KFIFO_SHARED_OFF_DATA, 1, "no data byte");
	expect_create_refused(mem, len, 0, "size 0");
	expect_create_refused(mem, len, 128, "size > len");
	expect_create_refused(mem, len, (1u << 31) + 1, "size > 2^31");
	expect_create_refused(mem, len, UINT_MAX, "size UINT_MAX");
	th_context("create: exact len");
	CHECK_INT(kfifo_shared_create(&f, mem, len, 64), 0);
	CHECK_UINT(kfifo_size(&f), 64);
	CHECK_INT(kfifo_is_shared(&f), 1);
	th_context("create: size 33 rounds to 64 in exact len");
	CHECK_INT(kfifo_shared_create(&f, mem, len, 33), 0);
	CHECK_UINT(kfifo_size(&f), 64);
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_SIZE), 64);
	th_context("create: size 1");
	CHECK_INT(kfifo_shared_create(&f, mem, kfifo_shared_bytes(1), 1), 0);
	CHECK_UINT(kfifo_size(&f), 1);
	munmap(mem, 2 * len);
}

static void expect_attach_refused(unsigned char *mem, size_t len,
				  const char *what)
{
	struct kfifo f;

	th_context("attach: %s", what);
	memset(&f, 0xff, sizeof(f));
	CHECK_INT(kfifo_shared_attach(&f, mem, len), -EINVAL);
	check_size0(&f);
}

static void test_attach_refuses_bad_memory(void)
{
	size_t len = kfifo_shared_bytes(64);
	unsigned char *mem = map_shared(2 * len);
	struct kfifo p, f;

	CHECK_INT(kfifo_shared_create(&p, mem, len, 64), 0);
	expect_attach_refused(NULL, len, "NULL");
	expect_attach_refused(mem + 8, len, "another address (no magic)");
	expect_attach_refused(mem + 4, len, "misaligned");
	expect_attach_refused(mem, len - 1, "len short by 1");
	expect_attach_refused(mem, KFIFO_SHARED_OFF_DATA - 1, "len < header");
	expect_attach_refused(mem, 0, "len 0");

	set_word(mem, KFIFO_SHARED_OFF_MAGIC, KFIFO_SHARED_MAGIC ^ 1u);
	expect_attach_refused(mem, len, "bad magic");
	set_word(mem, KFIFO_SHARED_OFF_MAGIC, KFIFO_SHARED_MAGIC);
	set_word(mem, KFIFO_SHARED_OFF_VERSION, KFIFO_SHARED_VERSION + 1);
	expect_attach_refused(mem, len, "other version");
	set_word(mem, KFIFO_SHARED_OFF_VERSION, 0);
	expect_attach_refused(mem, len, "version 0");
	set_word(mem, KFIFO_SHARED_OFF_VERSION, KFIFO_SHARED_VERSION);
	set_word(mem, KFIFO_SHARED_OFF_FLAGS, KFIFO_SHARED_FLAGS_KNOWN + 1);
	expect_attach_refused(mem, len, "a flag version 3 does not define");
	set_word(mem, KFIFO_SHARED_OFF_VERSION, 2);
	set_word(mem, KFIFO_SHARED_OFF_FLAGS,
		 KFIFO_SHARED_FLAG_NOTIFY | KFIFO_SHARED_FLAG_MANY_CONSUMERS);
	expect_attach_refused(mem, len, "a flag version 2 does not define");
	set_word(mem, KFIFO_SHARED_OFF_VERSION, KFIFO_SHARED_VERSION);
	set_word(mem, KFIFO_SHARED_OFF_FLAGS, 0x80000000u);
	expect_attach_refused(mem, len, "the top flag");
	set_word(mem, KFIFO_SHARED_OFF_FLAGS, 0);
	th_context("attach: a block without notifier slots (flags 0)");
	CHECK_INT(kfifo_shared_attach(&f, mem, len), 0);
	set_word(mem, KFIFO_SHARED_OFF_FLAGS, KFIFO_SHARED_FLAG_NOTIFY);
	set_word(mem, KFIFO_SHARED_OFF_SIZE, 48);
	expect_attach_refused(mem, len, "size not a power of two");
	set_word(mem, KFIFO_SHARED_OFF_SIZE, 0);
	expect_attach_refused(mem, len, "size 0");
	set_word(mem, KFIFO_SHARED_OFF_SIZE, 128);
	expect_attach_refused(mem, len, "size > len");
	set_word(mem, KFIFO_SHARED_OFF_SIZE, 0x80000001u);
	expect_attach_refused(mem, len, "size 2^31 + 1");
	set_word(mem, KFIFO_SHARED_OFF_SIZE, 1u << 31);
	expect_attach_refused(mem, len, "size 2^31 > len");

	set_word(mem, KFIFO_SHARED_OFF_SIZE, 64);
	th_context("attach: exact len");
	CHECK_INT(kfifo_shared_attach(&f, mem, len), 0);
	CHECK_UINT(kfifo_size(&f), 64);
	CHECK_INT(kfifo_is_shared(&f), 1);
	th_context("attach: longer len, the header's size counts");
	CHECK_INT(kfifo_shared_attach(&f, mem, 2 * len), 0);
	CHECK_UINT(kfifo_size(&f), 64);
	set_word(mem, KFIFO_SHARED_OFF_SIZE, 32);
	CHECK_INT(kfifo_shared_attach(&f, mem, len), 0);
	CHECK_UINT(kfifo_size(&f), 32);
	munmap(mem, 2 * len);
}

/* The layout is a file format: the same numbers on every target (this
 * test runs in the -m32 stage too). */
static void test_layout_version_3_offsets(void)
{
	CHECK_UINT(KFIFO_SHARED_VERSION, 3);
	CHECK_UINT(KFIFO_SHARED_OFF_IN_CLAIM, 28);
	CHECK_UINT(KFIFO_SHARED_OFF_OUT_CLAIM, 32);
	CHECK_UINT(KFIFO_SHARED_OFF_IN_LOCK, 72);
	CHECK_UINT(KFIFO_SHARED_OFF_OUT_LOCK, 136);
	CHECK_UINT(KFIFO_SHARED_FLAG_MANY_PRODUCERS, 2);
	CHECK_UINT(KFIFO_SHARED_FLAG_MANY_CONSUMERS, 4);
	CHECK_UINT(KFIFO_SHARED_OFF_MAGIC, 0);
	CHECK_UINT(KFIFO_SHARED_OFF_VERSION, 4);
	CHECK_UINT(KFIFO_SHARED_OFF_SIZE, 8);
	CHECK_UINT(KFIFO_SHARED_OFF_FLAGS, 12);
	CHECK_UINT(KFIFO_SHARED_OFF_DATA_WAITERS, 16);
	CHECK_UINT(KFIFO_SHARED_OFF_ROOM_WAITERS, 20);
	CHECK_UINT(KFIFO_SHARED_OFF_CLOSED, 24);
	CHECK_UINT(KFIFO_SHARED_OFF_IN, 64);
	CHECK_UINT(KFIFO_SHARED_OFF_DATA_SEQ, 68);
	CHECK_UINT(KFIFO_SHARED_OFF_OUT, 128);
	CHECK_UINT(KFIFO_SHARED_OFF_ROOM_SEQ, 132);
	CHECK_UINT(KFIFO_SHARED_OFF_NOTIFY, 192);
	CHECK_UINT(KFIFO_NOTIFY_SLOTS, 16);
	CHECK_UINT(KFIFO_SHARED_FLAG_NOTIFY, 1);
	CHECK_UINT(KFIFO_SHARED_FLAG_NOTIFY_PATH, 8);
	CHECK_UINT(KFIFO_SHARED_FLAGS_KNOWN, 15);
	CHECK_UINT(KFIFO_SHARED_OFF_DATA, 256);
	CHECK_UINT(kfifo_shared_bytes(64), 320);
}

/*
 * A block of layout version 1, as earlier builds laid it out (an image of a
 * 64-bit struct kfifo: the magic over the buffer pointer, @in at 92, @out
 * at 172), is refused with -EINVAL and the memory left alone; the two
 * words kfifo.h names tell it from garbage.
 */
static void test_attach_refuses_a_version_1_block(void)
{
	size_t len = kfifo_shared_bytes(64);
	unsigned char *mem = map_shared(len), before[320];
	struct kfifo f;

	memset(mem, 0, len);
	set_word(mem, 0, KFIFO_SHARED_MAGIC);
	set_word(mem, 4, 1);
	set_word(mem, 8, 64);
	set_word(mem, 92, 5); /* in */
	set_word(mem, 172, 2); /* out */
	memcpy(before, mem, sizeof(before));
	expect_attach_refused(mem, len, "layout version 1");
	CHECK_MEM(mem, before, sizeof(before));
	/* how a caller tells "another version" from "no fifo" */
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_MAGIC), KFIFO_SHARED_MAGIC);
	CHECK(get_word(mem, KFIFO_SHARED_OFF_VERSION) != KFIFO_SHARED_VERSION);
	/* created again, it is a version-2 fifo */
	CHECK_INT(kfifo_shared_create(&f, mem, len, 64), 0);
	CHECK_INT(kfifo_shared_attach(&f, mem, len), 0);
	CHECK_UINT(kfifo_len(&f), 0);
	munmap(mem, len);
}

static void test_header_words_at_documented_offsets(void)
{
	size_t len = kfifo_shared_bytes(16);
	unsigned char *mem = map_shared(len), zero[KFIFO_SHARED_OFF_DATA];
	unsigned char data[16], b[16];
	struct kfifo f;
	struct kt_waiter w;
	size_t off;

	memset(mem, 0xee, len);
	memset(zero, 0, sizeof(zero));
	CHECK_INT(kfifo_shared_create(&f, mem, len, 16), 0);
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_MAGIC), KFIFO_SHARED_MAGIC);
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_VERSION), KFIFO_SHARED_VERSION);
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_SIZE), 16);
	/* "kfif" on a little-endian machine */
	if (*(unsigned char *)&(unsigned int){ 1 } == 1)
		CHECK_MEM(mem, "kfif", 4);
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_FLAGS),
		   KFIFO_SHARED_FLAG_NOTIFY | KFIFO_SHARED_FLAG_NOTIFY_PATH);
	/* everything else of the header 0, the data area left as it was */
	CHECK_MEM(mem + 16, zero, KFIFO_SHARED_OFF_DATA - 16);
	memset(data, 0xee, sizeof(data));
	CHECK_MEM(mem + KFIFO_SHARED_OFF_DATA, data, 16);

	kt_pattern(data, sizeof(data), 7);
	CHECK_UINT(kfifo_in(&f, data, 5), 5);
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_IN), 5);
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_OUT), 0);
	CHECK_MEM(mem + KFIFO_SHARED_OFF_DATA, data, 5);
	CHECK_UINT(kfifo_out(&f, b, 3), 3);
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_OUT), 3);
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_IN), 5);
	CHECK_UINT(kfifo_in_rec(&f, data, 4, 1), 0);
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_IN), 10);
	CHECK_UINT(mem[KFIFO_SHARED_OFF_DATA + 5], 4); /* the header byte */

	/* a waiter counts itself at its offset while it sleeps */
	CHECK_UINT(kfifo_out(&f, b, 16), 7);
	kt_watchdog(20, "header: waiter");
	kt_waiter_start(&w, &f, KT_LEN, 1, 10000 * KT_MS);
	CHECK(kt_waiter_asleep(&w));
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_DATA_WAITERS), 1);
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_ROOM_WAITERS), 0);
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_DATA_SEQ) & 1u, 1);
	CHECK_UINT(kfifo_in(&f, data, 1), 1);
	CHECK_INT(kt_waiter_join(&w), 0);
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_DATA_WAITERS), 0);
	kt_watchdog(0, "");

	kfifo_close(&f);
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_CLOSED), 1);
	kfifo_reset(&f);
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_CLOSED), 0);
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_IN), 0);
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_OUT), 0);
	/* the producer and consumer claims name this process */
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_IN_CLAIM), (unsigned)getpid());
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_OUT_CLAIM), (unsigned)getpid());
	/* the unused bytes stay 0 */
	for (off = 36; off < KFIFO_SHARED_OFF_DATA; off += 4)
		if (off != KFIFO_SHARED_OFF_IN && off != KFIFO_SHARED_OFF_OUT &&
		    off != KFIFO_SHARED_OFF_DATA_SEQ &&
		    off != KFIFO_SHARED_OFF_ROOM_SEQ)
			CHECK_UINT(get_word(mem, off), 0);
	munmap(mem, len);
}

/* A producer handle (the creator) and a consumer handle (attached) over
 * one mapping, starting at in = out = @start written into the mapping. */
struct pair {
	unsigned char *mem;
	size_t len;
	struct kfifo prod, cons;
};

static void pair_open(struct pair *p, unsigned int size, unsigned int start)
{
	p->len = kfifo_shared_bytes(size);
	p->mem = map_shared(p->len);
	CHECK_INT(kfifo_shared_create(&p->prod, p->mem, p->len, size), 0);
	set_word(p->mem, KFIFO_SHARED_OFF_IN, start);
	set_word(p->mem, KFIFO_SHARED_OFF_OUT, start);
	CHECK_INT(kfifo_shared_attach(&p->cons, p->mem, p->len), 0);
	CHECK_UINT(kfifo_len(&p->prod), 0);
	CHECK_UINT(kfifo_len(&p->cons), 0);
}

static void pair_close(struct pair *p)
{
	kfifo_free(&p->prod);
	kfifo_free(&p->cons);
	munmap(p->mem, p->len);
}

static void test_two_handles_byte_stream(void)
{
	FOR_EACH_START(start) {
		struct pair p;
		unsigned char src[300], dst[300];
		unsigned long long pos_in = 0, pos_out = 0;
		unsigned int i, k, n;

		pair_open(&p, 128, start);
		for (i = 0; i < 200; i++) {
			n = 1 + i * 37 % 130;
			for (k = 0; k < n; k++)
				src[k] = th_pattern(pos_in + k);
			k = kfifo_in(&p.prod, src, n);
			CHECK(k <= n && k <= 128);
			pos_in += k;
			CHECK_UINT(get_word(p.mem, KFIFO_SHARED_OFF_IN),
				   (unsigned int)(start + pos_in));
			CHECK_UINT(kfifo_len(&p.cons), pos_in - pos_out);
			CHECK_UINT(kfifo_avail(&p.prod), 128 - (pos_in - pos_out));
			n = 1 + i * 53 % 140;
			k = kfifo_out(&p.cons, dst, n);
			for (n = 0; n < k; n++)
				if (dst[n] != th_pattern(pos_out + n))
					break;
			CHECK_UINT(n, k);
			pos_out += k;
			CHECK_UINT(get_word(p.mem, KFIFO_SHARED_OFF_OUT),
				   (unsigned int)(start + pos_out));
			CHECK_INT(kfifo_valid(&p.prod), 1);
			CHECK_INT(kfifo_valid(&p.cons), 1);
		}
		CHECK(pos_out > 1000);
		/* full and empty seen from both handles */
		memset(src, 1, sizeof(src));
		kfifo_skip(&p.cons, 1000);
		CHECK_INT(kfifo_is_empty(&p.prod), 1);
		CHECK_UINT(kfifo_in(&p.prod, src, 300), 128);
		CHECK_INT(kfifo_is_full(&p.cons), 1);
		CHECK_UINT(kfifo_in(&p.prod, src, 1), 0);
		kfifo_reset_out(&p.cons);
		CHECK_INT(kfifo_is_empty(&p.prod), 1);
		pair_close(&p);
	}
}

static void test_two_handles_peek_and_skip(void)
{
	FOR_EACH_START(start) {
		struct pair p;
		unsigned char src[64], dst[64];

		pair_open(&p, 64, start);
		kt_pattern(src, sizeof(src), start);
		CHECK_UINT(kfifo_in(&p.prod, src, 40), 40);
		CHECK_UINT(kfifo_out_peek(&p.cons, dst, 10, 0), 10);
		CHECK_MEM(dst, src, 10);
		CHECK_UINT(kfifo_out_peek(&p.cons, dst, 64, 35), 5);
		CHECK_MEM(dst, src + 35, 5);
		CHECK_UINT(kfifo_out_peek(&p.cons, dst, 1, 40), 0);
		CHECK_UINT(kfifo_len(&p.cons), 40);
		kfifo_skip(&p.cons, 30);
		CHECK_UINT(kfifo_len(&p.prod), 10);
		CHECK_UINT(kfifo_out(&p.cons, dst, 64), 10);
		CHECK_MEM(dst, src + 30, 10);
		/* skip more than stored: empty, no further */
		CHECK_UINT(kfifo_in(&p.prod, src, 3), 3);
		kfifo_skip(&p.cons, 1000);
		CHECK_UINT(kfifo_len(&p.cons), 0);
		CHECK_UINT(get_word(p.mem, KFIFO_SHARED_OFF_OUT),
			   get_word(p.mem, KFIFO_SHARED_OFF_IN));
		CHECK_UINT(get_word(p.mem, KFIFO_SHARED_OFF_IN), start + 43);
		pair_close(&p);
	}
}

static void test_two_handles_records(void)
{
	FOR_EACH_START(start) {
		struct pair p;
		unsigned char src[600], dst[600];
		unsigned int total, r;

		kt_pattern(src, sizeof(src), 3);
		pair_open(&p, 512, start);
		/* recsize 1: lengths 0, 1, the header maximum 255, 256 refused */
		CHECK_UINT(kfifo_in_rec(&p.prod, src, 0, 1), 0);
		CHECK_UINT(kfifo_in_rec(&p.prod, src, 1, 1), 0);
		CHECK_UINT(kfifo_in_rec(&p.prod, src, 255, 1), 0);
		CHECK_UINT(kfifo_in_rec(&p.prod, src, 256, 1), 257);
		CHECK_UINT(kfifo_len(&p.cons), 1 + 2 + 256);
		CHECK_UINT(kfifo_avail_rec(&p.prod, 1), 512 - 259 - 1);
		CHECK_UINT(kfifo_peek_rec(&p.cons, 1), 0);
		total = 99;
		CHECK_UINT(kfifo_out_rec(&p.cons, dst, 0, 1, &total), 0);
		CHECK_UINT(total, 0);
		CHECK_UINT(kfifo_peek_rec(&p.cons, 1), 1);
		CHECK_UINT(kfifo_out_rec(&p.cons, dst, 1, 1, &total), 0);
		CHECK_UINT(total, 1);
		CHECK_UINT(dst[0], src[0]);
		CHECK_UINT(kfifo_peek_rec(&p.cons, 1), 255);
		/* too small a buffer: the length back, nothing removed */
		CHECK_UINT(kfifo_out_rec(&p.cons, dst, 254, 1, &total), 255);
		CHECK_UINT(kfifo_len(&p.cons), 256);
		CHECK_UINT(kfifo_out_rec(&p.cons, dst, 255, 1, &total), 0);
		CHECK_UINT(total, 255);
		CHECK_MEM(dst, src, 255);
		CHECK_INT(kfifo_wait_rec(&p.cons, 1, 0), -ETIMEDOUT);

		/* recsize 2: 0, and the size limit: size - 2 fits, not more */
		CHECK_UINT(kfifo_in_rec(&p.prod, src, 0, 2), 0);
		CHECK_UINT(kfifo_out_rec(&p.cons, dst, 10, 2, &total), 0);
		CHECK_UINT(total, 0);
		CHECK_UINT(kfifo_avail_rec(&p.prod, 2), 510);
		CHECK_UINT(kfifo_in_rec(&p.prod, src, 511, 2), 512);
		CHECK_UINT(kfifo_in_rec(&p.prod, src, 510, 2), 0);
		CHECK_INT(kfifo_is_full(&p.cons), 1);
		CHECK_UINT(kfifo_in_rec(&p.prod, src, 0, 2), 1);
		CHECK_INT(kfifo_wait_rec(&p.cons, 2, 0), 0);
		CHECK_UINT(kfifo_peek_rec(&p.cons, 2), 510);
		CHECK_UINT(kfifo_out_rec(&p.cons, dst, 600, 2, &total), 0);
		CHECK_UINT(total, 510);
		CHECK_MEM(dst, src, 510);

		/* skip_rec, and a record stream that wraps */
		for (r = 0; r < 100; r++) {
			unsigned int n = r * 13 % 200;

			CHECK_UINT(kfifo_in_rec(&p.prod, src + r, n, 2), 0);
			if (r % 3 == 0) {
				CHECK_UINT(kfifo_peek_rec(&p.cons, 2), n);
				kfifo_skip_rec(&p.cons, 2);
				continue;
			}
			CHECK_UINT(kfifo_out_rec(&p.cons, dst, n, 2, &total), 0);
			CHECK_UINT(total, n);
			CHECK_MEM(dst, src + r, n);
		}
		CHECK_UINT(kfifo_len(&p.cons), 0);
		CHECK_INT(kfifo_valid(&p.cons), 1);
		pair_close(&p);
	}
}

/* Both regions inside the data area of the mapping. */
static int regions_inside(const struct pair *p, const struct kfifo_region r[2],
			  unsigned int size)
{
	const unsigned char *lo = p->mem + KFIFO_SHARED_OFF_DATA;
	int i;

	for (i = 0; i < 2; i++)
		if (r[i].data < lo || r[i].data > lo + size ||
		    r[i].len > (size_t)(lo + size - r[i].data))
			return 0;
	return 1;
}

static void test_two_handles_regions(void)
{
	FOR_EACH_START(start) {
		struct pair p;
		struct kfifo_region r[2];
		unsigned char src[64], dst[64];
		unsigned int k, got;

		pair_open(&p, 32, start);
		kt_pattern(src, sizeof(src), 11);
		for (k = 0; k < 20; k++) {
			unsigned int n = 1 + k * 7 % 32, m;

			got = kfifo_in_prepare(&p.prod, r, n);
			CHECK(got <= n);
			CHECK_UINT(r[0].len + r[1].len, got);
			CHECK(regions_inside(&p, r, 32));
			memcpy(r[0].data, src, r[0].len);
			memcpy(r[1].data, src + r[0].len, r[1].len);
			/* nothing visible before finish */
			m = kfifo_len(&p.cons);
			CHECK_UINT(kfifo_in_finish(&p.prod, got), got);
			CHECK_UINT(kfifo_len(&p.cons), m + got);

			got = kfifo_out_prepare(&p.cons, r, m + got);
			CHECK_UINT(got, kfifo_len(&p.cons));
			CHECK(regions_inside(&p, r, 32));
			memcpy(dst, r[0].data, r[0].len);
			memcpy(dst + r[0].len, r[1].data, r[1].len);
			CHECK_UINT(kfifo_out_finish(&p.cons, 1000), got);
			if (k > 0)
				CHECK_MEM(dst + m, src, got - m);
			/* leave a few bytes behind, so the next round wraps */
			CHECK_UINT(kfifo_in(&p.prod, src, k % 5), k % 5);
			CHECK_UINT(kfifo_out(&p.cons, dst, k % 3), k % 5 < k % 3 ? k % 5 : k % 3);
		}
		/* a full fifo: nothing to prepare, regions still in the area */
		kfifo_skip(&p.cons, 64);
		CHECK_UINT(kfifo_in(&p.prod, src, 64), 32);
		CHECK_UINT(kfifo_in_prepare(&p.prod, r, 5), 0);
		CHECK(regions_inside(&p, r, 32));
		CHECK_UINT(kfifo_in_finish(&p.prod, 5), 0);
		pair_close(&p);
	}
}

static void test_close_and_reset_seen_by_the_other_handle(void)
{
	struct pair p;
	unsigned char b[8] = "abcdefg";

	pair_open(&p, 16, UINT_MAX - 2);
	CHECK_INT(kfifo_is_closed(&p.cons), 0);
	CHECK_UINT(kfifo_in(&p.prod, b, 5), 5);
	kfifo_close(&p.prod);
	CHECK_INT(kfifo_is_closed(&p.cons), 1);
	/* everything else goes on working; waits say end of stream */
	CHECK_INT(kfifo_wait_avail(&p.prod, 1, 1000 * KT_MS), -EPIPE);
	CHECK_INT(kfifo_wait_len(&p.cons, 5, -1), 0);
	CHECK_INT(kfifo_wait_len(&p.cons, 6, -1), -EPIPE);
	CHECK_UINT(kfifo_out(&p.cons, b, 8), 5);
	CHECK_INT(kfifo_wait_len(&p.cons, 1, -1), -EPIPE);
	CHECK_INT(kfifo_wait_rec(&p.cons, 1, -1), -EPIPE);
	/* close from the consumer's handle, twice: harmless */
	kfifo_close(&p.cons);
	kfifo_close(&p.cons);
	CHECK_INT(kfifo_is_closed(&p.prod), 1);
	/* kfifo_reset through either handle reopens and empties for both */
	CHECK_UINT(kfifo_in(&p.prod, b, 3), 3);
	kfifo_reset(&p.cons);
	CHECK_INT(kfifo_is_closed(&p.prod), 0);
	CHECK_UINT(kfifo_len(&p.prod), 0);
	CHECK_UINT(get_word(p.mem, KFIFO_SHARED_OFF_IN), 0);
	CHECK_UINT(kfifo_in(&p.prod, b, 4), 4);
	CHECK_UINT(kfifo_out(&p.cons, b, 8), 4);
	CHECK_MEM(b, "abcd", 4);
	CHECK_INT(kfifo_wait_avail(&p.prod, 16, 0), 0);
	CHECK_INT(kfifo_wait_len(&p.cons, 1, 0), -ETIMEDOUT);
	CHECK_INT(kfifo_wait_len(&p.cons, 17, 0), -EINVAL);
	pair_close(&p);
}

/* Handles made before and after the indices were written by hand. */
static void test_indices_written_near_2_32(void)
{
	FOR_EACH_START(start) {
		struct pair p;
		struct kfifo late;
		unsigned char src[40], dst[40];

		pair_open(&p, 16, 0);
		/* written after both handles exist: their caches must notice */
		set_word(p.mem, KFIFO_SHARED_OFF_IN, start);
		set_word(p.mem, KFIFO_SHARED_OFF_OUT, start);
		kt_pattern(src, sizeof(src), start);
		CHECK_UINT(kfifo_in(&p.prod, src, 40), 16);
		CHECK_UINT(get_word(p.mem, KFIFO_SHARED_OFF_IN), start + 16);
		CHECK_UINT(kfifo_out(&p.cons, dst, 7), 7);
		CHECK_MEM(dst, src, 7);
		CHECK_UINT(kfifo_in(&p.prod, src + 16, 40), 7);
		/* a handle attached now starts from the indices as they are */
		CHECK_INT(kfifo_shared_attach(&late, p.mem, p.len), 0);
		CHECK_UINT(kfifo_len(&late), 16);
		CHECK_UINT(kfifo_out(&late, dst, 40), 16);
		CHECK_MEM(dst, src + 7, 16);
		CHECK_UINT(get_word(p.mem, KFIFO_SHARED_OFF_OUT), start + 23);
		CHECK_INT(kfifo_valid(&late), 1);
		kfifo_free(&late);
		pair_close(&p);
	}
}

static void test_free_leaves_the_memory(void)
{
	struct pair p;
	unsigned char *copy, b[4] = "xyz";

	pair_open(&p, 64, 5);
	CHECK_UINT(kfifo_in(&p.prod, b, 3), 3);
	kfifo_close(&p.prod);
	copy = malloc(p.len);
	memcpy(copy, p.mem, p.len);
	/* the mapping came from mmap: a free() of it would crash; all it
	 * changes is this process's producer claim, given up */
	kfifo_free(&p.prod);
	memset(copy + KFIFO_SHARED_OFF_IN_CLAIM, 0, 4);
	CHECK_MEM(p.mem, copy, p.len);
	check_size0(&p.prod);
	kfifo_free(&p.prod); /* twice: harmless */
	check_size0(&p.prod);
	/* the other handle still works */
	CHECK_UINT(kfifo_out(&p.cons, b, 4), 3);
	CHECK_MEM(b, "xyz", 3);
	CHECK_INT(kfifo_is_closed(&p.cons), 1);
	/* kfifo_init turns a handle into an ordinary fifo */
	CHECK_INT(kfifo_init(&p.cons, copy, 64), 0);
	CHECK_INT(kfifo_is_shared(&p.cons), 0);
	CHECK_INT(kfifo_is_closed(&p.cons), 0);
	CHECK_INT(get_word(p.mem, KFIFO_SHARED_OFF_CLOSED), 1);
	kfifo_free(&p.cons);
	munmap(p.mem, p.len);
	free(copy);
}

/*
 * Regression: kfifo_out_rec() with the consumer's cached @in ahead of the
 * true one (another process moved @in back) and a header announcing more
 * than the data area holds used to compute a wrapped fill level and copy
 * the record out of the buffer.  The mapping is malloc'd at exactly its
 * length, so AddressSanitizer sees any byte read past it.
 */
static void test_out_rec_after_peer_moved_in_back(void)
{
	size_t len = kfifo_shared_bytes(4);
	unsigned char *mem = malloc(len), dst[300], src[2] = { 1, 2 };
	struct kfifo prod, cons;
	unsigned int total = 0;

	CHECK_INT(kfifo_shared_create(&prod, mem, len, 4), 0);
	CHECK_INT(kfifo_shared_attach(&cons, mem, len), 0);
	CHECK_UINT(kfifo_in_rec(&prod, src, 2, 2), 0);
	/* the consumer reads in (4) into its cache: the buffer is too small */
	CHECK_UINT(kfifo_out_rec(&cons, dst, 1, 2, &total), 2);
	/* the peer: a header of 200, and in back to out */
	mem[KFIFO_SHARED_OFF_DATA] = 200;
	mem[KFIFO_SHARED_OFF_DATA + 1] = 0;
	set_word(mem, KFIFO_SHARED_OFF_IN, 0);
	CHECK_UINT(kfifo_out_rec(&cons, dst, sizeof(dst), 2, &total), sizeof(dst));
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_OUT), 0);
	CHECK_UINT(kfifo_len(&cons), 0);
	free(mem);
}

/* ---- across processes -------------------------------------------------- */

/* fork(); the child runs @fn(@arg) under its own alarm and exits with its
 * result. */
static pid_t spawn(int (*fn)(void *), void *arg)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(2);
	}
	if (pid == 0) {
		alarm(60);
		_exit(fn(arg));
	}
	return pid;
}

/* Reap @pid; 1 if it exited with status 0. */
static int reaped_ok(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return 0;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "child %d: %s %d\n", (int)pid,
			WIFEXITED(status) ? "exit" : "signal",
			WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		return 0;
	}
	return 1;
}

static unsigned long long stream_bytes(void)
{
	/* both sides block every ~64 bytes: a few microseconds per round
	 * trip plainly, much more under the sanitizers */
	return th_env_ull("KFIFO_SHARED_STREAM_BYTES", 1u << 20);
}

struct stream_arg {
	struct kfifo *fifo;          /* the inherited handle, or NULL: attach */
	int fd;                      /* the memfd to map and attach to */
	size_t len;
	const unsigned char *parent; /* the parent's mapping (for a check) */
	unsigned long long bytes;
	unsigned int recsize;        /* 0: a byte stream */
};

/* Producer: @bytes bytes of th_pattern in chunks of 1 .. 100, waiting for
 * room for each chunk (up to half the fifo); then close. */
static int produce_bytes(struct kfifo *f, unsigned long long bytes)
{
	unsigned char chunk[128];
	unsigned long long pos = 0;
	unsigned int n, k, w, i = 0;

	while (pos < bytes) {
		n = 1 + (i++ * 29) % 100;
		if (n > bytes - pos)
			n = (unsigned int)(bytes - pos);
		/* at most half the fifo: the consumer waits for at most the
		 * other half, so the two never wait for each other */
		w = n < XP_SIZE / 2 ? n : XP_SIZE / 2;
		if (kfifo_wait_avail(f, w, -1) != 0)
			return 10;
		for (k = 0; k < n; k++)
			chunk[k] = th_pattern(pos + k);
		k = kfifo_in(f, chunk, n);
		if (k < w || k > n)
			return 11;
		pos += k;
	}
	kfifo_close(f);
	return 0;
}

/* Producer of records: lengths 0 .. size - recsize, the record's bytes
 * derived from its sequence number. */
static int produce_records(struct kfifo *f, unsigned long long count,
			   unsigned int recsize)
{
	unsigned char rec[XP_SIZE];
	unsigned long long seq;
	unsigned int n, k;

	for (seq = 0; seq < count; seq++) {
		n = (unsigned int)(seq * 7 % (XP_SIZE - recsize + 1));
		for (k = 0; k < n; k++)
			rec[k] = th_pattern(seq * 1000 + k);
		if (kfifo_wait_avail(f, n + recsize, -1) != 0)
			return 20;
		if (kfifo_in_rec(f, rec, n, recsize) != 0)
			return 21;
	}
	kfifo_close(f);
	return 0;
}

static int stream_child(void *p)
{
	struct stream_arg *a = p;
	struct kfifo own;
	unsigned char *mem;

	if (a->fifo == NULL) {
		/* a mapping of our own, at another address */
		mem = mmap(NULL, a->len, PROT_READ | PROT_WRITE, MAP_SHARED,
			   a->fd, 0);
		if (mem == MAP_FAILED || mem == a->parent)
			return 30;
		if (kfifo_shared_attach(&own, mem, a->len) != 0 ||
		    kfifo_size(&own) != XP_SIZE)
			return 31;
		a->fifo = &own;
	}
	return a->recsize ? produce_records(a->fifo, a->bytes, a->recsize)
			  : produce_bytes(a->fifo, a->bytes);
}

/* The parent's consumer side of a byte stream: returns the bytes seen in
 * order, stops at the first mismatch. */
static unsigned long long consume_bytes(struct kfifo *f)
{
	unsigned char buf[XP_SIZE + 16];
	unsigned long long pos = 0;
	unsigned int k, i, want = 1;
	int ret;

	for (;;) {
		ret = kfifo_wait_len(f, want, -1);
		if (ret == -EPIPE) {
			/* fewer than @want: take what is left, then the end */
			if (want == 1)
				break;
			want = 1;
			continue;
		}
		if (!CHECK_INT(ret, 0))
			break;
		k = (unsigned int)(pos % 17) + 50;
		k = kfifo_out(f, buf, k > want ? k : want);
		if (!CHECK(k >= want))
			break;
		for (i = 0; i < k; i++)
			if (buf[i] != th_pattern(pos + i)) {
				CHECK_UINT(buf[i], th_pattern(pos + i));
				return pos + i;
			}
		pos += k;
		/* now and then wait for half the fifo, so the producer blocks */
		want = pos % 7 == 0 ? XP_SIZE / 2 : 1;
	}
	CHECK_INT(kfifo_is_closed(f), 1);
	CHECK_UINT(kfifo_len(f), 0);
	return pos;
}

static void test_fork_byte_stream_inherited_handle(void)
{
	size_t len = kfifo_shared_bytes(XP_SIZE);
	unsigned char *mem = map_shared(len);
	struct kfifo f;
	struct stream_arg a;
	long long t0 = kt_now_ns();
	pid_t pid;

	kt_watchdog(120, "byte stream across fork");
	CHECK_INT(kfifo_shared_create(&f, mem, len, XP_SIZE), 0);
	memset(&a, 0, sizeof(a));
	a.fifo = &f; /* the child uses the handle it inherits */
	a.bytes = stream_bytes();
	pid = spawn(stream_child, &a);
	CHECK_UINT(consume_bytes(&f), a.bytes);
	CHECK(reaped_ok(pid));
	printf("  %llu bytes through a %u-byte fifo across fork in %.3f s\n",
	       a.bytes, XP_SIZE, (double)(kt_now_ns() - t0) / 1e9);
	kt_watchdog(0, "");
	munmap(mem, len);
}

/* A memfd the child maps again (another address) and attaches to. */
static int make_memfd(size_t len)
{
	int fd = memfd_create("kfifo-test-shared", 0);

	if (fd < 0 || ftruncate(fd, (off_t)len) != 0) {
		perror("memfd_create/ftruncate");
		exit(2);
	}
	return fd;
}

static void test_fork_byte_stream_attached_memfd(void)
{
	size_t len = kfifo_shared_bytes(XP_SIZE);
	int fd = make_memfd(len);
	unsigned char *mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
				  MAP_SHARED, fd, 0);
	struct kfifo f;
	struct stream_arg a;
	pid_t pid;

	kt_watchdog(120, "byte stream, child attached to a memfd");
	CHECK(mem != MAP_FAILED);
	CHECK_INT(kfifo_shared_create(&f, mem, len, XP_SIZE), 0);
	memset(&a, 0, sizeof(a));
	a.fd = fd;
	a.len = len;
	a.parent = mem;
	a.bytes = stream_bytes() / 2;
	pid = spawn(stream_child, &a);
	CHECK_UINT(consume_bytes(&f), a.bytes);
	CHECK(reaped_ok(pid));
	kt_watchdog(0, "");
	munmap(mem, len);
	close(fd);
}

static void test_fork_record_stream_attached_memfd(void)
{
	static const unsigned int recsizes[] = { 1, 2 };
	size_t len = kfifo_shared_bytes(XP_SIZE);
	unsigned int i;

	for (i = 0; i < 2; i++) {
		unsigned int recsize = recsizes[i], n, k, total;
		int fd = make_memfd(len), ret;
		unsigned char *mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
					  MAP_SHARED, fd, 0);
		unsigned char rec[XP_SIZE];
		unsigned long long seq = 0;
		struct kfifo f;
		struct stream_arg a;
		pid_t pid;

		th_context("recsize %u", recsize);
		kt_watchdog(120, "record stream across fork");
		CHECK_INT(kfifo_shared_create(&f, mem, len, XP_SIZE), 0);
		memset(&a, 0, sizeof(a));
		a.fd = fd;
		a.len = len;
		a.parent = mem;
		a.recsize = recsize;
		a.bytes = stream_bytes() / 64; /* records */
		pid = spawn(stream_child, &a);
		while ((ret = kfifo_wait_rec(&f, recsize, -1)) == 0) {
			n = (unsigned int)(seq * 7 % (XP_SIZE - recsize + 1));
			if (!CHECK_UINT(kfifo_out_rec(&f, rec, sizeof(rec),
						      recsize, &total), 0) ||
			    !CHECK_UINT(total, n))
				break;
			for (k = 0; k < n; k++)
				if (rec[k] != th_pattern(seq * 1000 + k))
					break;
			if (!CHECK_UINT(k, n))
				break;
			seq++;
		}
		CHECK_INT(ret, -EPIPE);
		CHECK_UINT(seq, a.bytes);
		CHECK_UINT(kfifo_len(&f), 0);
		CHECK(reaped_ok(pid));
		kt_watchdog(0, "");
		munmap(mem, len);
		close(fd);
	}
}

struct wake_arg {
	unsigned char *mem;
	struct kfifo *fifo;
	size_t waiters_off;  /* the word that shows the parent waits */
	int action;          /* 0: put a byte, 1: take a byte, 2: close */
};

/* Wait until the parent sleeps in its wait (its count at the documented
 * offset, plus a little time to get into the futex), then act. */
static int wake_child(void *p)
{
	struct wake_arg *a = p;
	unsigned char b = 42;

	while (get_word(a->mem, a->waiters_off) == 0)
		kt_sleep_ns(KT_MS / 10);
	kt_sleep_ns(30 * KT_MS);
	if (a->action == 0)
		return kfifo_in(a->fifo, &b, 1) == 1 ? 0 : 40;
	if (a->action == 1)
		return kfifo_out(a->fifo, &b, 1) == 1 ? 0 : 41;
	kfifo_close(a->fifo);
	return 0;
}

/*
 * A waiter in the parent is woken by the child within a bounded time: with
 * a process-private futex the wake would not reach it and it would sleep
 * until its 5 s timeout (and then return 0 too: the time tells).
 */
static void test_waiter_woken_by_other_process(void)
{
	static const char *names[] = { "data", "room", "close" };
	size_t len = kfifo_shared_bytes(XP_SIZE);
	unsigned char *mem = map_shared(len), fill[XP_SIZE];
	struct kfifo f;
	struct wake_arg a;
	int action, ret;

	memset(fill, 7, sizeof(fill));
	for (action = 0; action < 3; action++) {
		long long t0, took;
		pid_t pid;

		th_context("woken by: %s", names[action]);
		kt_watchdog(30, "waiter woken by another process");
		CHECK_INT(kfifo_shared_create(&f, mem, len, XP_SIZE), 0);
		if (action == 1)
			CHECK_UINT(kfifo_in(&f, fill, XP_SIZE), XP_SIZE);
		a.mem = mem;
		a.fifo = &f;
		a.action = action;
		a.waiters_off = action == 1 ? KFIFO_SHARED_OFF_ROOM_WAITERS
					    : KFIFO_SHARED_OFF_DATA_WAITERS;
		pid = spawn(wake_child, &a);
		t0 = kt_now_ns();
		ret = action == 1 ? kfifo_wait_avail(&f, 1, 5000 * KT_MS)
				  : kfifo_wait_len(&f, 1, 5000 * KT_MS);
		took = kt_now_ns() - t0;
		CHECK_INT(ret, action == 2 ? -EPIPE : 0);
		/* the child sleeps 30 ms after it sees us wait */
		CHECK(took >= 30 * KT_MS);
		/* (no upper bound: the result says it was woken, not timed
		 * out, and a busy machine may take its time to run us) */
		CHECK(reaped_ok(pid));
		kt_watchdog(0, "");
	}
	munmap(mem, len);
}

static int endless_producer(void *p)
{
	/* never closes: it is killed while it waits for room */
	return produce_bytes(p, ULLONG_MAX);
}

/*
 * The peer dies mid-stream (SIGKILL while it waits for room, its waiter
 * count left at 1 in the mapping): waits with a timeout end on time, and
 * the survivor drains what was stored, in order.
 */
static void test_peer_killed_mid_stream(void)
{
	size_t len = kfifo_shared_bytes(XP_SIZE);
	unsigned char *mem = map_shared(len), buf[XP_SIZE];
	unsigned long long pos = 0;
	unsigned int k, i;
	long long t0, c0, took;
	struct kfifo f;
	pid_t pid;
	int status;

	kt_watchdog(30, "peer killed mid-stream");
	CHECK_INT(kfifo_shared_create(&f, mem, len, XP_SIZE), 0);
	pid = spawn(endless_producer, &f);
	/* take some of the stream, then let the producer fill the fifo and
	 * block */
	while (pos < 5000) {
		CHECK_INT(kfifo_wait_len(&f, 1, 5000 * KT_MS), 0);
		k = kfifo_out(&f, buf, sizeof(buf));
		for (i = 0; i < k; i++)
			if (!CHECK_UINT(buf[i], th_pattern(pos + i)))
				break;
		pos += k;
	}
	/* it waits for room for at most half the fifo: more than half full
	 * and a waiter counted means it is (about to be) asleep for good */
	while (get_word(mem, KFIFO_SHARED_OFF_ROOM_WAITERS) == 0 ||
	       kfifo_len(&f) <= XP_SIZE / 2)
		kt_sleep_ns(KT_MS / 10);
	kill(pid, SIGKILL);
	CHECK_INT(waitpid(pid, &status, 0), pid);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_ROOM_WAITERS), 1);

	/* drain what is stored (it waited for room for a whole chunk) */
	k = kfifo_len(&f);
	CHECK(k > XP_SIZE / 2);
	CHECK_UINT(kfifo_out(&f, buf, sizeof(buf)), k);
	for (i = 0; i < k; i++)
		if (!CHECK_UINT(buf[i], th_pattern(pos + i)))
			break;
	/* nothing more comes, and nobody closes: the timeout ends it */
	t0 = kt_now_ns();
	c0 = kt_cpu_ns();
	CHECK_INT(kfifo_wait_len(&f, 1, 100 * KT_MS), -ETIMEDOUT);
	took = kt_now_ns() - t0;
	/* no sooner than asked; not spinning past it (CPU time: the wall
	 * clock's overshoot is the machine's load, kt_cpu_ns()) */
	CHECK(took >= 100 * KT_MS && kt_cpu_ns() - c0 < 100 * KT_MS + 400 * KT_MS);
	CHECK_INT(kfifo_wait_rec(&f, 1, 20 * KT_MS), -ETIMEDOUT);
	/* the survivor can still use the fifo (a producer's wait too) */
	CHECK_UINT(kfifo_in(&f, buf, XP_SIZE), XP_SIZE);
	t0 = kt_now_ns();
	c0 = kt_cpu_ns();
	CHECK_INT(kfifo_wait_avail(&f, 1, 50 * KT_MS), -ETIMEDOUT);
	took = kt_now_ns() - t0;
	CHECK(took >= 50 * KT_MS && kt_cpu_ns() - c0 < 50 * KT_MS + 400 * KT_MS);
	kfifo_close(&f);
	CHECK_INT(kfifo_wait_avail(&f, 1, -1), -EPIPE);
	kt_watchdog(0, "");
	munmap(mem, len);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	RUN_TEST(test_shared_bytes_edges);
	RUN_TEST(test_create_refuses_bad_arguments);
	RUN_TEST(test_attach_refuses_bad_memory);
	RUN_TEST(test_layout_version_3_offsets);
	RUN_TEST(test_attach_refuses_a_version_1_block);
	RUN_TEST(test_header_words_at_documented_offsets);
	RUN_TEST(test_two_handles_byte_stream);
	RUN_TEST(test_two_handles_peek_and_skip);
	RUN_TEST(test_two_handles_records);
	RUN_TEST(test_two_handles_regions);
	RUN_TEST(test_close_and_reset_seen_by_the_other_handle);
	RUN_TEST(test_indices_written_near_2_32);
	RUN_TEST(test_free_leaves_the_memory);
	RUN_TEST(test_out_rec_after_peer_moved_in_back);
	RUN_TEST(test_fork_byte_stream_inherited_handle);
	RUN_TEST(test_fork_byte_stream_attached_memfd);
	RUN_TEST(test_fork_record_stream_attached_memfd);
	RUN_TEST(test_waiter_woken_by_other_process);
	RUN_TEST(test_peer_killed_mid_stream);
	return th_finish("test_shared");
}
