/* SPDX-License-Identifier: MIT */
/*
 * test_harness_selftest.c - the harness itself can fail.
 *
 * Without arguments: runs failing and passing checks inside a test and
 * verifies the counts, the return values of the CHECK macros, and that
 * th_finish() would report failure; then resets the counters and exits 0.
 * With --fail: one deliberately failing check, so that the binary must
 * exit non-zero (ctest runs it with WILL_FAIL).
 */
#include <kfifo.h>

#include <string.h>

#include "test_harness.h"

static int results[8];

static void deliberately_failing(void)
{
	results[0] = CHECK(1 == 2);
	results[1] = CHECK_UINT(3u, 4u);
	results[2] = CHECK_INT(-1, 1);
	results[3] = CHECK_MEM("abc", "abd", 3);
	results[4] = CHECK(1 == 1);
	results[5] = CHECK_UINT(UINT_MAX, 0xffffffffu);
	results[6] = CHECK_INT(-EINVAL, -EINVAL);
	results[7] = CHECK_MEM("abc", "abc", 3);
}

static void nothing(void)
{
}

int main(int argc, char **argv)
{
	unsigned long checks, failures;
	unsigned int failed_tests;
	int status_if_failed, status_if_no_checks;

	if (argc > 1 && strcmp(argv[1], "--fail") == 0) {
		RUN_TEST(deliberately_failing);
		return th_finish("test_harness_selftest --fail");
	}
	printf("(the four FAIL lines below are expected)\n");
	RUN_TEST(deliberately_failing);
	checks = th_checks;
	failures = th_failures;
	failed_tests = th_failed_tests;
	status_if_failed = th_finish("inner");
	th_checks = th_failures = 0;
	th_tests = th_failed_tests = 0;
	RUN_TEST(nothing);
	status_if_no_checks = th_finish("inner, no checks");

	th_checks = th_failures = 0;
	th_tests = th_failed_tests = 0;
	RUN_TEST(nothing);
	if (checks != 8 || failures != 4 || failed_tests != 1 ||
	    status_if_failed != 1 || status_if_no_checks != 1 ||
	    results[0] || results[1] || results[2] || results[3] ||
	    !results[4] || !results[5] || !results[6] || !results[7]) {
		printf("harness self-test FAILED: checks %lu failures %lu failed tests %u status %d/%d\n",
		       checks, failures, failed_tests, status_if_failed,
		       status_if_no_checks);
		return 1;
	}
	printf("harness self-test passed: failures are counted and reported\n");
	th_checks = 1; /* th_finish needs at least one check */
	return th_finish("test_harness_selftest");
}
