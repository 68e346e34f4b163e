/* SPDX-License-Identifier: MIT */
/*
 * compile_pow2.c - compiled (never run) by ctest with -DKT_SIZE=<n> and
 * -DKT_USE_DECLARE or -DKT_USE_DEFINE: it must compile when n is a power
 * of two and fail to compile otherwise.
 */
#include <kfifo.h>

#ifdef KT_USE_DECLARE
struct holder {
	int before;
	DECLARE_KFIFO(fifo, KT_SIZE);
	int after;
};

unsigned int kt_size(struct holder *h);
unsigned int kt_size(struct holder *h)
{
	INIT_KFIFO(h->fifo);
	return kfifo_size(&h->fifo);
}
#endif

#ifdef KT_USE_DEFINE
DEFINE_KFIFO(kt_fifo, KT_SIZE);
#endif

int kt_dummy(void);
int kt_dummy(void)
{
	return 0;
}
