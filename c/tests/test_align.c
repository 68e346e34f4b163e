/* SPDX-License-Identifier: MIT */
/*
 * test_align.c - struct kfifo works in any memory malloc() returns
 * (docs/spec.md 1.1): it needs no alignment beyond alignof(max_align_t), yet the
 * producer's and the consumer's members never share a cache line.
 *
 * Built twice by ctest: as is (under UBSan in the ASan+UBSan stage, whose
 * alignment check catches a misaligned member access), and with
 * -O2 -mavx512f as test_align_avx512, run only on CPUs with AVX-512F:
 * when struct kfifo was declared 64-byte aligned, gcc copied it with
 * aligned 64-byte stores and the calloc() reproduction below crashed.
 */
#include <kfifo.h>

#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "test_harness.h"

/* The reproduction from the issue: a driver struct, calloc()ed. */
struct port {
	int id;
	DECLARE_KFIFO(rx, 256);
};

__attribute__((noinline)) static void init_port(struct port *p)
{
	INIT_KFIFO(p->rx);
}

static void test_kfifo_needs_no_alignment_beyond_max_align_t(void)
{
	CHECK(alignof(struct kfifo) <= alignof(max_align_t));
	CHECK(alignof(struct port) <= alignof(max_align_t));
	printf("  sizeof(struct kfifo) %zu, alignof %zu\n",
	       sizeof(struct kfifo), alignof(struct kfifo));
}

static void test_calloced_driver_struct_with_declare_kfifo(void)
{
	struct port *p = (struct port *)calloc(1, sizeof(*p));
	unsigned char c = 0;

	if (!CHECK(p != NULL))
		return;
	init_port(p);
	CHECK_UINT(kfifo_in(&p->rx, "a", 1), 1);
	CHECK_UINT(kfifo_size(&p->rx), 256);
	CHECK_INT(kfifo_wait_len(&p->rx, 1, 0), 0);
	CHECK_UINT(kfifo_out(&p->rx, &c, 1), 1);
	CHECK_UINT(c, 'a');
	CHECK_INT(kfifo_valid(&p->rx), 1);
	free(p);
}

/* Every call on a fifo placed at each 8-byte offset of a cache line. */
static void test_every_call_works_at_any_offset(void)
{
	static unsigned char mem[sizeof(struct kfifo) + 128];
	unsigned char buf[64], out[64];
	unsigned int off, total = 0;
	uintptr_t base = ((uintptr_t)mem + 63) & ~(uintptr_t)63;

	for (off = 0; off < 64; off += (unsigned int)alignof(struct kfifo)) {
		struct kfifo *f = (struct kfifo *)(base + off);
		struct kfifo copy;

		th_context("offset %u", off);
		memset(buf, (int)(0x80 + off), sizeof(buf)); /* headers too long */
		if (!CHECK_INT(kfifo_alloc(f, 64, GFP_KERNEL), 0))
			return;
		CHECK_UINT(kfifo_in(f, buf, 40), 40);
		CHECK_UINT(kfifo_out(f, out, 30), 30);
		CHECK_MEM(out, buf, 30);
		CHECK_UINT(kfifo_in_rec(f, buf, 20, 2), 0);
		CHECK_INT(kfifo_wait_rec(f, 2, 0), -ETIMEDOUT); /* 10 bytes first */
		kfifo_skip(f, 10);
		CHECK_INT(kfifo_wait_rec(f, 2, 0), 0);
		CHECK_UINT(kfifo_out_rec(f, out, 64, 2, &total), 0);
		CHECK_UINT(total, 20);
		CHECK_INT(kfifo_wait_avail(f, 64, -1), 0);
		kfifo_close(f);
		CHECK_INT(kfifo_is_closed(f), 1);
		copy = *f; /* a struct copy, as INIT_KFIFO does */
		CHECK_UINT(copy.size, 64);
		kfifo_reset(f);
		CHECK_INT(kfifo_valid(f), 1);
		kfifo_free(f);
	}
}

/* The 64-byte lines (or, with @unit 128, the pairs of lines x86 cores
 * fetch together) a member's bytes fall on, from @base. */
#define LINE_OF(base, m, unit) (((base) + offsetof(struct kfifo, m)) / (unit))
#define LAST_LINE_OF(base, m, unit)                                            \
	(((base) + offsetof(struct kfifo, m) + sizeof(unsigned int) - 1) /     \
	 (unit))

/*
 * Wherever the struct starts, the lines of the read-mostly group (buffer
 * .. closed), the producer's (in .. in_claim) and the consumer's (out ..
 * out_claim) are three different sets, and the memory after the struct
 * (a DECLARE_KFIFO buffer) is on none of the consumer's lines; and the
 * same holds for 128-byte pairs of lines (kfifo.h, KFIFO__PAD).
 */
static void test_groups_never_share_a_cache_line(void)
{
	size_t base, unit;

	for (unit = 64; unit <= 128; unit *= 2)
		for (base = 0; base < unit; base += alignof(struct kfifo)) {
			size_t shared_last = LAST_LINE_OF(base, kfifo__closed, unit);
			size_t prod_first = LINE_OF(base, in, unit);
			size_t prod_last = LAST_LINE_OF(base, kfifo__in_claim, unit);
			size_t cons_first = LINE_OF(base, out, unit);
			size_t cons_last = LAST_LINE_OF(base, kfifo__out_claim, unit);

			th_context("struct at offset %zu of a %zu-byte unit", base,
				   unit);
			CHECK(offsetof(struct kfifo, buffer) == 0);
			CHECK(shared_last < prod_first);
			CHECK(prod_last < cons_first);
			CHECK(cons_last < (base + sizeof(struct kfifo)) / unit);
		}
}

int main(void)
{
	RUN_TEST(test_kfifo_needs_no_alignment_beyond_max_align_t);
	RUN_TEST(test_calloced_driver_struct_with_declare_kfifo);
	RUN_TEST(test_every_call_works_at_any_offset);
	RUN_TEST(test_groups_never_share_a_cache_line);
	return th_finish("test_align");
}
