/* SPDX-License-Identifier: MIT */
/*
 * test_macros.c - the declaration macros of docs/spec.md 1.2: KFIFO_INIT,
 * DECLARE_KFIFO in a struct and in a union, INIT_KFIFO, DEFINE_KFIFO at
 * file and block scope; a full fifo never touches its neighbours or its
 * own header; the declared sizes are exact (the union is the header plus
 * size bytes, name_buffer of DEFINE_KFIFO is size bytes) and the data lies
 * right after the header.  (Non-powers of two are rejected at compile time: see the
 * compile_*_KFIFO_size_* ctest cases and compile_pow2.c.)
 */
#include <kfifo.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "test_harness.h"
#include "test_util.h"

#define CANARY 0x0123456789abcdefull

static unsigned char src[1024];
static unsigned char dst[1024];

/* file scope */
DEFINE_KFIFO(file_fifo, 64);
DEFINE_KFIFO(file_fifo_one, 1);
static DEFINE_KFIFO(static_file_fifo, 8);

/* Fill a fifo completely many times over (so that in and out wrap around
 * the buffer), checking the content, then leave it full. */
static void exercise(struct kfifo *f, unsigned int size)
{
	unsigned int round;

	for (round = 0; round < 2 * size + 3; round++) {
		kt_pattern(src, size, round);
		CHECK_UINT(kfifo_in(f, src, size + 1), size);
		CHECK_INT(kfifo_is_full(f), 1);
		CHECK_UINT(kfifo_size(f), size);
		CHECK_UINT(kfifo_out(f, dst, size), size);
		CHECK_MEM(dst, src, size);
		/* shift the position by one byte for the next round */
		CHECK_UINT(kfifo_in(f, src, 1), 1);
		kfifo_skip(f, 1);
	}
	memset(src, 0xff, size);
	CHECK_UINT(kfifo_in(f, src, size), size);
	CHECK_VALID(f);
}

static void test_kfifo_init_initializer(void)
{
	static unsigned char buf[16];
	struct kfifo f = KFIFO_INIT(16, buf);
	struct kfifo g = (struct kfifo)KFIFO_INIT(4, buf);

	CHECK(f.buffer == buf);
	CHECK_UINT(kfifo_size(&f), 16);
	CHECK_UINT(f.in, 0);
	CHECK_UINT(f.out, 0);
	CHECK_UINT(kfifo_len(&f), 0);
	CHECK_VALID(&f);
	exercise(&f, 16);
	CHECK_UINT(kfifo_size(&g), 4);
	CHECK_VALID(&g);
	/* kfifo_free never frees a KFIFO_INIT buffer */
	kfifo_free(&f);
	CHECK_UINT(kfifo_size(&f), 0);
	CHECK(kt_all_equal(buf, 0, 16, 0xff));
}

static void test_define_kfifo_at_file_scope(void)
{
	CHECK(file_fifo.buffer == file_fifo_buffer);
	CHECK_UINT(sizeof(file_fifo_buffer), 64);
	CHECK_UINT(kfifo_size(&file_fifo), 64);
	CHECK_UINT(kfifo_len(&file_fifo), 0);
	CHECK_VALID(&file_fifo);
	exercise(&file_fifo, 64);
	CHECK_UINT(kfifo_size(&file_fifo_one), 1);
	exercise(&file_fifo_one, 1);
	CHECK_UINT(kfifo_size(&static_file_fifo), 8);
	exercise(&static_file_fifo, 8);
	kfifo_free(&static_file_fifo);
	CHECK_UINT(kfifo_size(&static_file_fifo), 0);
}

static void test_define_kfifo_in_a_block(void)
{
	DEFINE_KFIFO(local, 32);
	static DEFINE_KFIFO(local_static, 2);

	CHECK(local.buffer == local_buffer);
	CHECK_UINT(kfifo_size(&local), 32);
	CHECK_UINT(local.in, 0);
	CHECK_UINT(local.out, 0);
	CHECK_VALID(&local);
	exercise(&local, 32);
	{
		DEFINE_KFIFO(inner, 4);

		CHECK_UINT(kfifo_size(&inner), 4);
		exercise(&inner, 4);
	}
	CHECK_UINT(kfifo_size(&local_static), 2);
	exercise(&local_static, 2);
	kfifo_free(&local); /* not allocated: must not be freed */
	CHECK_UINT(kfifo_size(&local), 0);
}

struct with_neighbours {
	uint64_t before;
	DECLARE_KFIFO(fifo, 64);
	uint64_t after;
	DECLARE_KFIFO(small, 1);
	uint64_t last;
};

static void test_declare_kfifo_in_a_struct_leaves_neighbours_alone(void)
{
	struct with_neighbours s;
	struct kfifo header;

	s.before = s.after = s.last = CANARY;
	INIT_KFIFO(s.fifo);
	INIT_KFIFO(s.small);
	CHECK_UINT(kfifo_size(&s.fifo), 64);
	CHECK_UINT(kfifo_size(&s.small), 1);
	CHECK_UINT(kfifo_len(&s.fifo), 0);
	CHECK_VALID(&s.fifo);
	CHECK_VALID(&s.small);
	/* the buffer lies inside the union, after the header */
	CHECK((unsigned char *)s.fifo.buffer >=
	      (unsigned char *)&s.fifo + sizeof(struct kfifo));
	CHECK(s.fifo.buffer + 64 <= (unsigned char *)&s.after);
	exercise(&s.fifo, 64);
	exercise(&s.small, 1);
	header = s.fifo;
	CHECK_UINT(s.before, CANARY);
	CHECK_UINT(s.after, CANARY);
	CHECK_UINT(s.last, CANARY);
	/* the header survived a full buffer */
	CHECK(header.buffer == s.fifo.buffer);
	CHECK_UINT(s.fifo.size, 64);
	CHECK_UINT(kfifo_len(&s.fifo), 64);
	CHECK_UINT(kfifo_size(&s.small), 1);
	CHECK_UINT(kfifo_len(&s.small), 1);
	CHECK_UINT(kfifo_out(&s.fifo, dst, 100), 64);
	CHECK(kt_all_equal(dst, 0, 64, 0xff));
	/* INIT_KFIFO again empties it */
	INIT_KFIFO(s.fifo);
	CHECK_UINT(kfifo_len(&s.fifo), 0);
	CHECK_UINT(s.fifo.in, 0);
}

union with_kfifo {
	DECLARE_KFIFO(fifo, 16);
	uint64_t word;
};

struct holds_union {
	uint64_t before;
	union with_kfifo u;
	uint64_t after;
};

static void test_declare_kfifo_in_a_union(void)
{
	struct holds_union h;

	h.before = h.after = CANARY;
	INIT_KFIFO(h.u.fifo);
	CHECK_UINT(kfifo_size(&h.u.fifo), 16);
	CHECK_VALID(&h.u.fifo);
	CHECK(sizeof(union with_kfifo) >= sizeof(struct kfifo) + 16);
	exercise(&h.u.fifo, 16);
	CHECK_UINT(h.before, CANARY);
	CHECK_UINT(h.after, CANARY);
	CHECK_UINT(kfifo_size(&h.u.fifo), 16);
	CHECK_UINT(kfifo_len(&h.u.fifo), 16);
}

/* A DECLARE_KFIFO fifo wraps at 2^32 like any other. */
static void test_declared_fifo_wraps_near_uint_max(void)
{
	FOR_EACH_START(start) {
		struct with_neighbours s;

		s.before = s.after = s.last = CANARY;
		INIT_KFIFO(s.fifo);
		s.fifo.in = s.fifo.out = start;
		exercise(&s.fifo, 64);
		CHECK_UINT(s.before, CANARY);
		CHECK_UINT(s.after, CANARY);
		CHECK_UINT(s.fifo.size, 64);
	}
}

/* ---- sizes and placement ------------------------------------------------ */

#define CANARY_BYTES 64
#define CANARY_BYTE 0xc5

/*
 * A fifo declared with DECLARE_KFIFO(fifo, @size) inside a struct, a canary
 * after it.  @buffer_member and @member_size are the union's byte array and
 * its sizeof.  The union holds exactly the header and @size bytes; the data
 * lies right after the header and ends where the union's array ends;
 * filling the fifo completely, at every offset, touches neither the header
 * nor the canary.
 */
static void check_declared(struct kfifo *f, const unsigned char *buffer_member,
			   size_t member_size, const unsigned char *canary,
			   unsigned int size)
{
	const struct kfifo header = *f;
	unsigned int round;

	th_context("DECLARE_KFIFO size %u", size);
	CHECK_UINT(member_size, sizeof(struct kfifo) + size);
	CHECK(buffer_member == (const unsigned char *)f);
	CHECK_UINT(kfifo_size(f), size);
	CHECK(f->buffer == (unsigned char *)f + sizeof(struct kfifo));
	CHECK(f->buffer + size == buffer_member + member_size);
	CHECK(f->buffer + size <= canary);
	for (round = 0; round < size + 2 && round < 70; round++) {
		memset(src, 0x80 | round, size);
		CHECK_UINT(kfifo_in(f, src, size + 1), size);
		CHECK_UINT(kfifo_out(f, dst, size), size);
		CHECK_MEM(dst, src, size);
		CHECK_UINT(kfifo_in(f, src, 1), 1);
		kfifo_skip(f, 1);
	}
	memset(src, 0xff, size);
	CHECK_UINT(kfifo_in(f, src, size), size);
	CHECK(kt_all_equal(canary, 0, CANARY_BYTES, CANARY_BYTE));
	CHECK(f->buffer == header.buffer);
	CHECK_UINT(f->size, size);
	CHECK_UINT(kfifo_len(f), size);
}

#define DECLARED_CASE(SIZE)                                                    \
	do {                                                                   \
		struct {                                                       \
			DECLARE_KFIFO(fifo, SIZE);                             \
			unsigned char canary[CANARY_BYTES];                    \
		} *h = malloc(sizeof(*h));                                     \
		if (!CHECK(h != NULL))                                         \
			break;                                                 \
		memset(h, 0, sizeof(*h));                                      \
		memset(h->canary, CANARY_BYTE, CANARY_BYTES);                  \
		INIT_KFIFO(h->fifo);                                           \
		check_declared(&h->fifo, h->fifo_buffer,                       \
			       sizeof(h->fifo_buffer), h->canary, SIZE);       \
		free(h);                                                       \
	} while (0)

static void test_declare_kfifo_size_and_placement(void)
{
	DECLARED_CASE(1);
	DECLARED_CASE(2);
	DECLARED_CASE(64);
	DECLARED_CASE(1024);
}

/* DEFINE_KFIFO(name, @size): a @size-byte name_buffer, and the fifo over
 * exactly that buffer. */
#define DEFINED_CASE(SIZE)                                                     \
	do {                                                                   \
		DEFINE_KFIFO(d, SIZE);                                         \
		th_context("DEFINE_KFIFO size %u", SIZE);                      \
		CHECK_UINT(sizeof(d_buffer), SIZE);                            \
		CHECK(d.buffer == d_buffer);                                   \
		CHECK_UINT(kfifo_size(&d), SIZE);                              \
		CHECK_UINT(kfifo_len(&d), 0);                                  \
		exercise(&d, SIZE);                                            \
		CHECK(kt_all_equal(d_buffer, 0, SIZE, 0xff));                  \
	} while (0)

static void test_define_kfifo_size_and_placement(void)
{
	DEFINED_CASE(1u);
	DEFINED_CASE(8u);
	DEFINED_CASE(512u);
	th_context("file scope");
	CHECK_UINT(sizeof(file_fifo_one_buffer), 1);
	CHECK(file_fifo_one.buffer == file_fifo_one_buffer);
	CHECK_UINT(sizeof(static_file_fifo_buffer), 8);
}

int main(void)
{
	RUN_TEST(test_kfifo_init_initializer);
	RUN_TEST(test_define_kfifo_at_file_scope);
	RUN_TEST(test_define_kfifo_in_a_block);
	RUN_TEST(test_declare_kfifo_in_a_struct_leaves_neighbours_alone);
	RUN_TEST(test_declare_kfifo_in_a_union);
	RUN_TEST(test_declared_fifo_wraps_near_uint_max);
	RUN_TEST(test_declare_kfifo_size_and_placement);
	RUN_TEST(test_define_kfifo_size_and_placement);
	return th_finish("test_macros");
}
