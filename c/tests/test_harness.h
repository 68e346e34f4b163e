/* SPDX-License-Identifier: MIT */
/*
 * test_harness.h - a tiny test harness for the kfifo C tests.
 *
 * A test is a `static void test_xxx(void)` run by RUN_TEST().  The CHECK
 * macros count every check, and on failure print file:line, the test name,
 * the context string set by th_context() (for example the start index of
 * a wraparound run), the expression and both values.  th_finish() prints
 * the totals and returns the exit status: 0 only if no check failed and at
 * least one check ran.  Usable from C11 and C++.
 */
#ifndef KFIFO_TEST_HARNESS_H
#define KFIFO_TEST_HARNESS_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long th_checks;
static unsigned long th_failures;
static unsigned int th_tests;
static unsigned int th_failed_tests;
static const char *th_test_name = "(none)";
static char th_ctx[256];

#define TH_MAX_REPORTS 60

static inline void th_context(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(th_ctx, sizeof(th_ctx), fmt, ap);
	va_end(ap);
}

static inline void th_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	th_failures++;
	if (th_failures > TH_MAX_REPORTS) {
		if (th_failures == TH_MAX_REPORTS + 1)
			fprintf(stderr, "(further failures not shown)\n");
		return;
	}
	fprintf(stderr, "%s:%d: FAIL in %s%s%s%s: ", file, line, th_test_name,
		th_ctx[0] ? " [" : "", th_ctx, th_ctx[0] ? "]" : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static inline int th_check(int ok, const char *file, int line,
			   const char *expr)
{
	th_checks++;
	if (!ok)
		th_fail(file, line, "CHECK(%s)", expr);
	return ok;
}

static inline int th_check_uint(unsigned long long got,
				unsigned long long want, const char *file,
				int line, const char *ge, const char *we)
{
	th_checks++;
	if (got != want)
		th_fail(file, line, "%s == %s: got %llu (0x%llx), expected %llu (0x%llx)",
			ge, we, got, got, want, want);
	return got == want;
}

static inline int th_check_int(long long got, long long want,
			       const char *file, int line, const char *ge,
			       const char *we)
{
	th_checks++;
	if (got != want)
		th_fail(file, line, "%s == %s: got %lld, expected %lld", ge,
			we, got, want);
	return got == want;
}

static inline int th_check_mem(const void *got, const void *want, size_t n,
			       const char *file, int line, const char *ge,
			       const char *we)
{
	const unsigned char *g = (const unsigned char *)got;
	const unsigned char *w = (const unsigned char *)want;
	size_t i;

	th_checks++;
	for (i = 0; i < n; i++) {
		if (g[i] != w[i]) {
			th_fail(file, line,
				"memory %s == %s (%zu bytes): first difference at offset %zu: got 0x%02x, expected 0x%02x",
				ge, we, n, i, g[i], w[i]);
			return 0;
		}
	}
	return 1;
}

/* Each CHECK evaluates its arguments once and returns whether it passed. */
#define CHECK(cond) th_check(!!(cond), __FILE__, __LINE__, #cond)
#define CHECK_UINT(got, want)                                                  \
	th_check_uint((unsigned long long)(got), (unsigned long long)(want),   \
		      __FILE__, __LINE__, #got, #want)
#define CHECK_INT(got, want)                                                   \
	th_check_int((long long)(got), (long long)(want), __FILE__, __LINE__,  \
		     #got, #want)
#define CHECK_MEM(got, want, n)                                                \
	th_check_mem((got), (want), (n), __FILE__, __LINE__, #got, #want)

typedef void (*th_test_fn)(void);

static inline void th_run(const char *name, th_test_fn fn)
{
	unsigned long before = th_failures;
	unsigned long checks = th_checks;

	th_test_name = name;
	th_ctx[0] = '\0';
	fn();
	th_tests++;
	if (th_failures != before) {
		th_failed_tests++;
		printf("FAIL %s (%lu of %lu checks failed)\n", name,
		       th_failures - before, th_checks - checks);
	} else {
		printf("ok   %s (%lu checks)\n", name, th_checks - checks);
	}
	fflush(stdout);
	th_ctx[0] = '\0';
	th_test_name = "(none)";
}

#define RUN_TEST(fn) th_run(#fn, fn)

static inline int th_finish(const char *program)
{
	printf("%s: %u tests, %lu checks, %u tests failed, %lu checks failed\n",
	       program, th_tests, th_checks, th_failed_tests, th_failures);
	if (th_checks == 0) {
		printf("%s: no check ran: that is a failure too\n", program);
		return 1;
	}
	return th_failures ? 1 : 0;
}

/* ---- helpers shared by the tests ------------------------------------- */

/* A byte that depends on every bit of its position: a stream of these
 * shows a lost, repeated or reordered chunk of any length. */
static inline unsigned char th_pattern(unsigned long long pos)
{
	unsigned long long x = pos * 0x9E3779B97F4A7C15ull;

	x ^= x >> 29;
	return (unsigned char)(x ^ (x >> 17) ^ (x >> 41));
}

/* Read an unsigned environment variable, or @def when unset or bad. */
static inline unsigned long long th_env_ull(const char *name,
					    unsigned long long def)
{
	const char *s = getenv(name);
	char *end;
	unsigned long long v;

	if (s == NULL || *s == '\0')
		return def;
	v = strtoull(s, &end, 0);
	if (*end != '\0') {
		/* also accept 1e8 and friends */
		double d = strtod(s, &end);

		if (*end != '\0' || !(d >= 0.0 && d < 1.8e19)) {
			fprintf(stderr, "ignoring %s=%s: not a number\n",
				name, s);
			return def;
		}
		v = (unsigned long long)d;
	}
	return v;
}

#endif /* KFIFO_TEST_HARNESS_H */
