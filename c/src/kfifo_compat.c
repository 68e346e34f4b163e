/* SPDX-License-Identifier: MIT */
/*
 * kfifo_compat.c - the calls of the mainline <linux/kfifo.h> of 2.6.33 to
 * 2.6.35 that the seed API lacks: kfifo_initialized(), kfifo_out_peek(),
 * kfifo_avail_rec() and the four-argument kfifo_from_user() /
 * kfifo_to_user() (README.md, "Kernel compatibility", has the table).
 *
 * Each is written in terms of the seed calls or of the same index helpers,
 * so it follows the same memory-model rules (kfifo.c explains them).
 */
#include "kfifo_internal.h"

#include <limits.h>

int kfifo_initialized(struct kfifo *fifo)
{
	return fifo->buffer != NULL;
}

unsigned int kfifo_out_peek(struct kfifo *fifo, void *to, unsigned int n,
			    unsigned int offset)
{
	int sh = kfifo__shared(fifo);
	unsigned int out = kfifo__own_out(fifo, sh);
	unsigned int need = n > UINT_MAX - offset ? UINT_MAX : n + offset;
	unsigned int len = kfifo__len_for(fifo, out, need, sh);

	if (offset >= len)
		return 0;
	if (n > len - offset)
		n = len - offset;
	if (n > 0)
		kfifo__copy_out(fifo, out + offset, to, n);
	return n;
}

int kfifo_from_user_copied(struct kfifo *fifo, const void *from,
			   unsigned int n, unsigned int *copied)
{
	unsigned int k = kfifo_in(fifo, from, n);

	if (copied)
		*copied = k;
	return 0;
}

int kfifo_to_user_copied(struct kfifo *fifo, void *to, unsigned int n,
			 unsigned int *copied)
{
	unsigned int k = kfifo_out(fifo, to, n);

	if (copied)
		*copied = k;
	return 0;
}

unsigned int kfifo_avail_rec(struct kfifo *fifo, unsigned int recsize)
{
	/* the longest record each header size can describe (API.md 1.4) */
	static const unsigned int header_max[3] = { UINT_MAX, 0xffu, 0xffffu };
	unsigned int avail;

	if (recsize > 2)
		return 0;
	avail = fifo->size - kfifo__snapshot_len(fifo);
	if (avail <= recsize)
		return 0;
	avail -= recsize;
	return avail < header_max[recsize] ? avail : header_max[recsize];
}
