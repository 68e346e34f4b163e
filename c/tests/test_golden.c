/* SPDX-License-Identifier: MIT */
/*
 * test_golden.c - three small programs in the spirit of the kernel's
 * samples/kfifo (a byte stream, records, a fifo of integers), written
 * fresh.  Their output is compared with golden.expected.
 *
 *   test_golden golden.expected   run and compare (the ctest)
 *   test_golden                   print the output (to review or refresh
 *                                 golden.expected after a deliberate change)
 */
#include <kfifo.h>

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "test_harness.h"

static char output[16384];
static size_t output_len;

static void emit(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(output + output_len, sizeof(output) - output_len, fmt, ap);
	va_end(ap);
	if (n > 0)
		output_len += (size_t)n;
	if (output_len >= sizeof(output))
		output_len = sizeof(output) - 1;
}

static void emit_bytes(const char *label, const unsigned char *p,
		       unsigned int n)
{
	unsigned int i;

	emit("%s \"", label);
	for (i = 0; i < n; i++) {
		if (p[i] >= 0x20 && p[i] < 0x7f)
			emit("%c", p[i]);
		else
			emit("\\x%02x", p[i]);
	}
	emit("\" (%u)\n", n);
}

static void emit_state(struct kfifo *f)
{
	emit("  size %u len %u avail %u empty %d full %d\n", kfifo_size(f),
	     kfifo_len(f), kfifo_avail(f), kfifo_is_empty(f), kfifo_is_full(f));
}

/* A byte stream: put a greeting and some digits, skip, take, overfill. */
static void bytestream_example(void)
{
	unsigned char buf[64];
	struct kfifo f;
	unsigned int i, n;

	emit("== bytestream example ==\n");
	emit("alloc(20): %d\n", kfifo_alloc(&f, 20, GFP_KERNEL));
	emit_state(&f);
	emit("in \"hello\": %u\n", kfifo_in(&f, "hello", 5));
	for (i = 0; i < 10; i++) {
		unsigned char c = (unsigned char)('0' + i);

		n = kfifo_in(&f, &c, 1);
		if (n != 1)
			emit("in '%c' failed\n", c);
	}
	emit("in '0'..'9' one by one\n");
	emit_state(&f);
	kfifo_skip(&f, 1);
	emit("skip 1\n");
	n = kfifo_out(&f, buf, 4);
	emit_bytes("out 4:", buf, n);
	n = kfifo_in(&f, "ABCDEFGHIJKLMNOPQRSTUVWXYZ", 26);
	emit("in 26 letters: %u stored\n", n);
	emit_state(&f);
	n = kfifo_out(&f, buf, sizeof(buf));
	emit_bytes("out all:", buf, n);
	emit_state(&f);
	n = kfifo_out(&f, buf, sizeof(buf));
	emit("out on empty: %u\n", n);
	kfifo_free(&f);
	emit("free\n");
	emit_state(&f);
}

/* Records with 1- and 2-byte headers: peek, a too-small buffer, skip. */
static void record_example(void)
{
	static const char *const msgs[] = { "abc", "", "kfifo record",
					    "0123456789abcdef" };
	unsigned char buf[512];
	unsigned int i, ret, total;
	struct kfifo f;

	emit("== record example ==\n");
	emit("alloc(64): %d\n", kfifo_alloc(&f, 64, GFP_KERNEL));
	for (i = 0; i < 4; i++) {
		unsigned int n = (unsigned int)strlen(msgs[i]);

		ret = kfifo_in_rec(&f, msgs[i], n, 1);
		emit("in_rec \"%s\" (%u): ret %u, len %u\n", msgs[i], n, ret,
		     kfifo_len(&f));
	}
	ret = kfifo_in_rec(&f, "this record is too long to fit", 30, 1);
	emit("in_rec 30 bytes: ret %u, len %u\n", ret, kfifo_len(&f));
	emit("peek_rec: %u\n", kfifo_peek_rec(&f, 1));
	ret = kfifo_out_rec(&f, buf, 2, 1, &total);
	emit("out_rec into 2 bytes: ret %u, total %u, len %u\n", ret, total,
	     kfifo_len(&f));
	for (i = 0; i < 100 && !kfifo_is_empty(&f); i++) {
		unsigned int peek = kfifo_peek_rec(&f, 1);

		ret = kfifo_out_rec(&f, buf, sizeof(buf), 1, &total);
		emit("peek %u, out_rec ret %u total %u:", peek, ret, total);
		emit_bytes("", buf, total);
	}
	ret = kfifo_out_rec(&f, buf, 8, 1, &total);
	emit("out_rec on empty: ret %u, total %u\n", ret, total);
	kfifo_free(&f);

	emit("alloc(1024): %d\n", kfifo_alloc(&f, 1000, GFP_KERNEL));
	memset(buf, 'r', 300);
	emit("in_rec 300 bytes, recsize 1: ret %u\n", kfifo_in_rec(&f, buf, 300, 1));
	emit("in_rec 300 bytes, recsize 2: ret %u\n", kfifo_in_rec(&f, buf, 300, 2));
	emit("in_rec 5 bytes, recsize 2: ret %u\n", kfifo_in_rec(&f, "tail!", 5, 2));
	emit_state(&f);
	emit("peek_rec(2): %u\n", kfifo_peek_rec(&f, 2));
	kfifo_skip_rec(&f, 2);
	emit("skip_rec(2)\n");
	ret = kfifo_out_rec(&f, buf, sizeof(buf), 2, &total);
	emit("out_rec: ret %u, total %u:", ret, total);
	emit_bytes("", buf, total);
	emit_state(&f);
	kfifo_free(&f);
}

/* A fifo of ints, stored as sizeof(int)-byte elements, crossing 2^32. */
static void int_example(void)
{
	struct kfifo f;
	int i, v;

	emit("== int example ==\n");
	emit("alloc(%u): %d\n", 8 * (unsigned int)sizeof(int),
	     kfifo_alloc(&f, 8 * sizeof(int), GFP_KERNEL));
	f.in = f.out = UINT_MAX - 5;
	for (i = 0; i < 10; i++) {
		v = i * i - 7;
		if (kfifo_in(&f, &v, sizeof(v)) != sizeof(v)) {
			emit("fifo full at %d: %u ints stored\n", v,
			     kfifo_len(&f) / (unsigned int)sizeof(int));
			break;
		}
	}
	emit("ints:");
	/* bounded loops: a broken fifo fails the comparison, never hangs */
	for (i = 0; i < 100 && kfifo_out(&f, &v, sizeof(v)) == sizeof(v); i++)
		emit(" %d", v);
	emit("\n");
	for (i = 100; i < 105; i++)
		if (kfifo_in(&f, &i, sizeof(i)) != sizeof(i))
			emit("in %d failed\n", i);
	kfifo_skip(&f, 2 * sizeof(int));
	emit("after skipping two:");
	for (i = 0; i < 100 && kfifo_out(&f, &v, sizeof(v)) == sizeof(v); i++)
		emit(" %d", v);
	emit("\n");
	emit("in and out wrapped: in %s out %s\n",
	     f.in < UINT_MAX - 5 ? "yes" : "no",
	     f.out < UINT_MAX - 5 ? "yes" : "no");
	emit("valid %d\n", kfifo_valid(&f));
	kfifo_free(&f);
}

static char expected[16384];

static void test_golden_output_matches_expected(const char *path)
{
	FILE *fp = fopen(path, "rb");
	size_t n, i, line = 1;

	if (!CHECK(fp != NULL)) {
		fprintf(stderr, "cannot open %s\n", path);
		return;
	}
	n = fread(expected, 1, sizeof(expected) - 1, fp);
	fclose(fp);
	expected[n] = '\0';
	CHECK_UINT(output_len, n);
	for (i = 0; i < n && i < output_len; i++) {
		if (output[i] != expected[i])
			break;
		if (output[i] == '\n')
			line++;
	}
	if (!CHECK(i == n && i == output_len)) {
		fprintf(stderr, "output differs from %s at line %zu\n--- got:\n%s--- expected:\n%s",
			path, line, output, expected);
	}
}

static const char *expected_path;

static void test_golden(void)
{
	test_golden_output_matches_expected(expected_path);
}

int main(int argc, char **argv)
{
	bytestream_example();
	record_example();
	int_example();
	if (argc < 2) {
		fputs(output, stdout);
		return 0;
	}
	expected_path = argv[1];
	RUN_TEST(test_golden);
	return th_finish("test_golden");
}
