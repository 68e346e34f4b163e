/* SPDX-License-Identifier: MIT */
/*
 * test_util.h - kfifo-specific helpers for the C tests: the list of start
 * indices every scenario is repeated with (near 2^32, so that in and out
 * wrap during the test), snapshots for "a refused call changes nothing",
 * and content checks that look at the buffer itself.
 */
#ifndef KFIFO_TEST_UTIL_H
#define KFIFO_TEST_UTIL_H

#include <kfifo.h>

#include <limits.h>

#include "test_harness.h"

/* Every scenario runs once per start index: in = out = start on a fresh
 * fifo.  0 is the plain case; the others make in and out wrap at 2^32
 * within the first few bytes, or in the middle of a large record. */
static const unsigned int kt_starts[] = {
	0u,
	UINT_MAX,
	UINT_MAX - 1u,
	UINT_MAX - 2u,
	UINT_MAX - 4u,
	UINT_MAX - 15u,
	UINT_MAX - 300u,
	UINT_MAX - 40000u,
	0x7fffffffu,
};
#define KT_NSTARTS (sizeof(kt_starts) / sizeof(kt_starts[0]))

static inline unsigned int kt_start_ctx(unsigned int start)
{
	if (start > UINT_MAX / 2)
		th_context("start=UINT_MAX-%u", UINT_MAX - start);
	else
		th_context("start=%u", start);
	return start;
}

/* for (each start) { ... } with the start shown in failure messages */
#define FOR_EACH_START(var)                                                    \
	for (unsigned int var##_i = 0, var = 0;                                \
	     var##_i < KT_NSTARTS &&                                           \
	     ((var = kt_start_ctx(kt_starts[var##_i])), 1);                    \
	     var##_i++)

/* kfifo_alloc(size), then in = out = start (the fields are public). */
#define KT_MAKE(f, size, start)                                                \
	do {                                                                   \
		CHECK_INT(kfifo_alloc((f), (size), KFIFO_GFP_KERNEL), 0);      \
		(f)->in = (f)->out = (start);                                  \
	} while (0)

static inline void kt_pattern(unsigned char *buf, unsigned int n,
			      unsigned int seed)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		buf[i] = th_pattern((unsigned long long)seed * 1000003u + i);
}

/* ---- snapshots: a refused call must change nothing ------------------- */

struct kt_snap {
	struct kfifo f;
	unsigned char bytes[1u << 17];
};

static inline void kt_snap_take(struct kt_snap *s, struct kfifo *f)
{
	s->f = *f;
	if (f->size && f->size <= sizeof(s->bytes))
		memcpy(s->bytes, f->buffer, f->size);
}

static inline int kt_check_unchanged(struct kfifo *f, const struct kt_snap *s,
				     const char *file, int line)
{
	th_checks++;
	if (f->buffer != s->f.buffer || f->size != s->f.size ||
	    f->in != s->f.in || f->out != s->f.out) {
		th_fail(file, line,
			"fifo changed: size/in/out %u/%u/%u, before %u/%u/%u",
			f->size, f->in, f->out, s->f.size, s->f.in, s->f.out);
		return 0;
	}
	if (f->size && f->size <= sizeof(s->bytes) &&
	    memcmp(s->bytes, f->buffer, f->size) != 0) {
		th_fail(file, line, "fifo buffer bytes changed");
		return 0;
	}
	if (kfifo_valid(f) != 1) {
		th_fail(file, line, "kfifo_valid() is not 1");
		return 0;
	}
	return 1;
}

#define CHECK_UNCHANGED(f, s) kt_check_unchanged((f), (s), __FILE__, __LINE__)

/* The fifo holds exactly the @n bytes at @want, oldest first: checked in
 * the buffer itself, so that nothing is removed. */
static inline int kt_check_content(struct kfifo *f, const void *want,
				   unsigned int n, const char *file, int line)
{
	const unsigned char *w = (const unsigned char *)want;
	unsigned int i;

	th_checks++;
	if (kfifo_valid(f) != 1) {
		th_fail(file, line, "kfifo_valid() is not 1");
		return 0;
	}
	if (kfifo_len(f) != n || f->in - f->out != n) {
		th_fail(file, line, "kfifo_len() is %u, expected %u",
			kfifo_len(f), n);
		return 0;
	}
	for (i = 0; i < n; i++) {
		unsigned char b = f->buffer[(f->out + i) & (f->size - 1)];

		if (b != w[i]) {
			th_fail(file, line,
				"content byte %u of %u is 0x%02x, expected 0x%02x",
				i, n, b, w[i]);
			return 0;
		}
	}
	return 1;
}

#define CHECK_CONTENT(f, want, n)                                              \
	kt_check_content((f), (want), (n), __FILE__, __LINE__)

/* Every byte of @buf[@from, @to) still equals @fill. */
static inline int kt_all_equal(const unsigned char *buf, unsigned int from,
			       unsigned int to, unsigned char fill)
{
	unsigned int i;

	for (i = from; i < to; i++)
		if (buf[i] != fill)
			return 0;
	return 1;
}

#define CHECK_VALID(f) CHECK_INT(kfifo_valid(f), 1)

#endif /* KFIFO_TEST_UTIL_H */
