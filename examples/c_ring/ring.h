/* SPDX-License-Identifier: MIT */
/*
 * ring.h - a small byte ring buffer with length-prefixed records, the kind
 * of FIFO a C program carries around.  It is the example of
 * docs/testing-your-fifo.rst: test_ring.py tests it against kfifo's model
 * through ctypes, and compiling it with -DRING_PLANTED_BUG plants an
 * off-by-one at the buffer's end that the test catches.
 *
 * The indices run freely and wrap at 2^32; the fill level is in - out; the
 * size is a power of two.  Records have a 2-byte little-endian length header.
 * Single-threaded: no atomics, no locks.
 */
#ifndef RING_H
#define RING_H

struct ring;

/* A ring of at least size bytes (rounded up to a power of two); NULL if size
 * is 0, larger than 2^31, or memory is short. */
struct ring *ring_new(unsigned int size);
void ring_free(struct ring *r);
/* Test hook: both indices set to start (so that tests cross 2^32). */
void ring_set_start(struct ring *r, unsigned int start);

unsigned int ring_size(const struct ring *r);
unsigned int ring_len(const struct ring *r);
unsigned int ring_avail(const struct ring *r);

/* Copies min(n, avail) bytes in / min(n, len) bytes out; returns the count. */
unsigned int ring_put(struct ring *r, const void *from, unsigned int n);
unsigned int ring_get(struct ring *r, void *to, unsigned int n);
void ring_drop(struct ring *r, unsigned int n);

/* One record of n bytes (n <= 65535): 0 if stored, n + 1 if not. */
unsigned int ring_put_rec(struct ring *r, const void *from, unsigned int n);
/* The next record into to (capacity n): 0 when taken, its length L when
 * L > n, n when the ring holds no whole record; *total = L. */
unsigned int ring_get_rec(struct ring *r, void *to, unsigned int n, unsigned int *total);
/* Length of the next record, 0 if there is no header. */
unsigned int ring_peek_rec(const struct ring *r);
/* Drops the next record; empties the ring if it holds no whole record. */
void ring_skip_rec(struct ring *r);

#endif
