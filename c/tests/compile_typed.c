/* SPDX-License-Identifier: MIT */
/*
 * compile_typed.c - compiled (never run) by ctest with -DKT_CASE=<n> and
 * the kernel's -Werror=incompatible-pointer-types: case 0 must compile,
 * every other case is a type error the kernel's typed macros also reject
 * and must fail to compile.
 */
#define KFIFO_TYPED_API
#include <kfifo.h>

struct other {
	int a, b;
};

int kt_case(void);
int kt_case(void)
{
	DECLARE_KFIFO(ints, int, 8);
	int v = 1;
	short s = 0;
	long l[2] = { 0, 0 };
	struct other o = { 1, 2 };
	unsigned int n = 0;

	INIT_KFIFO(ints);
#if KT_CASE == 0
	n += kfifo_put(&ints, v);
	n += kfifo_get(&ints, &v);
	n += kfifo_in(&ints, &v, 1);
	n += kfifo_out(&ints, &v, 1);
	(void)s, (void)l, (void)o;
#elif KT_CASE == 1
	n += kfifo_put(&ints, o); /* a struct into an int fifo */
#elif KT_CASE == 2
	n += kfifo_get(&ints, &s); /* a short * for an int */
#elif KT_CASE == 3
	n += kfifo_in(&ints, l, 2); /* a long buffer into an int fifo */
#elif KT_CASE == 4
	n += kfifo_out(&ints, &o, 1); /* a struct buffer out of it */
#elif KT_CASE == 5
	n += kfifo_peek(&ints, l); /* a long * for an int */
#elif KT_CASE == 6
	DECLARE_KFIFO(bad, int, 6); /* not a power of two */
	INIT_KFIFO(bad);
#elif KT_CASE == 7
	DECLARE_KFIFO(bad, int, 1); /* fewer than 2 elements */
	INIT_KFIFO(bad);
#elif KT_CASE == 8
	n += kfifo_len(&v); /* not a fifo */
#endif
	return (int)n;
}
