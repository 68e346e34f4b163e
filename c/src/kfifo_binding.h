/* SPDX-License-Identifier: MIT */
/*
 * kfifo_binding.h - calls for a binding that links libkfifo.a (the Python
 * extension, swig/): not part of the API, so not in kfifo.h, and not
 * exported from libkfifo.so (no KFIFO_API: the library is built with
 * hidden visibility).  Each saves a binding a second call on a hot path;
 * c/tests/test_records.c checks them against the public calls.
 */
#ifndef KFIFO_BINDING_H
#define KFIFO_BINDING_H

#include <kfifo.h>

/*
 * kfifo_in_rec() that also refuses (@n + 1) once the fifo is closed
 * (kfifo_close(), docs/spec.md 3.1): a put_rec() that never stores into
 * a fifo its consumer has left.
 */
unsigned int kfifo__in_rec_open(struct kfifo *fifo, const void *from,
				unsigned int n, unsigned int recsize);

/*
 * kfifo_out_rec() of the next record only if it is @n bytes long
 * (returns 0); else, removing nothing, its length + 1, or UINT_MAX when
 * there is no whole record: a get_rec() that fills an object of the
 * length it guessed, and learns the length when the guess was wrong.
 */
unsigned int kfifo__out_rec_len(struct kfifo *fifo, void *to, unsigned int n,
				unsigned int recsize);

/*
 * kfifo_wait_len(@n) (@record 0) or kfifo_wait_rec(@n as recsize) (@record
 * 1) for a caller that takes what it waited for as soon as this returns
 * 0: on a fifo of many consumers it waits as an exclusive waiter
 * (kfifo_wake.h), whom a publication wakes alone.  A caller that may not
 * take (a wait for its own sake) uses the public calls.
 */
int kfifo__wait_take(struct kfifo *fifo, unsigned int n, int record,
		     long long timeout_ns);

#endif /* KFIFO_BINDING_H */
