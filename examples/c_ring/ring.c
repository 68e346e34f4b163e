/* SPDX-License-Identifier: MIT */
/* ring.c - see ring.h.  Written for the kfifo.testing example. */
#include "ring.h"

#include <stdlib.h>
#include <string.h>

#define RING_HEADER 2u

struct ring {
	unsigned char *data;
	unsigned int size; /* a power of two */
	unsigned int in;   /* free-running: data goes to in & (size - 1) */
	unsigned int out;  /* free-running: data comes from out & (size - 1) */
};

struct ring *ring_new(unsigned int size)
{
	struct ring *r;
	unsigned int rounded = 1;

	if (size == 0 || size > (1u << 31))
		return NULL;
	while (rounded < size)
		rounded <<= 1;
	r = malloc(sizeof(*r));
	if (!r)
		return NULL;
	/* Zeroed: a byte the ring forgets to write then reads back the same in
	 * every run, so a failing example replays (malloc'd garbage would make
	 * the planted bug's failure flaky). */
	r->data = calloc(rounded, 1);
	if (!r->data) {
		free(r);
		return NULL;
	}
	r->size = rounded;
	r->in = r->out = 0;
	return r;
}

void ring_free(struct ring *r)
{
	if (r) {
		free(r->data);
		free(r);
	}
}

void ring_set_start(struct ring *r, unsigned int start)
{
	r->in = r->out = start;
}

unsigned int ring_size(const struct ring *r) { return r->size; }
unsigned int ring_len(const struct ring *r) { return r->in - r->out; }
unsigned int ring_avail(const struct ring *r) { return r->size - ring_len(r); }

/* Copies n bytes to ring position pos, continuing at the buffer's start. */
static void copy_in(struct ring *r, unsigned int pos, const unsigned char *from, unsigned int n)
{
	unsigned int off = pos & (r->size - 1);
#ifdef RING_PLANTED_BUG
	/* The planted bug: one byte short of the buffer's end. */
	unsigned int first = n < r->size - off - 1 ? n : r->size - off - 1;
#else
	unsigned int first = n < r->size - off ? n : r->size - off;
#endif

	memcpy(r->data + off, from, first);
	memcpy(r->data, from + first, n - first);
}

static void copy_out(const struct ring *r, unsigned int pos, unsigned char *to, unsigned int n)
{
	unsigned int off = pos & (r->size - 1);
	unsigned int first = n < r->size - off ? n : r->size - off;

	memcpy(to, r->data + off, first);
	memcpy(to + first, r->data, n - first);
}

unsigned int ring_put(struct ring *r, const void *from, unsigned int n)
{
	if (n > ring_avail(r))
		n = ring_avail(r);
	copy_in(r, r->in, from, n);
	r->in += n;
	return n;
}

unsigned int ring_get(struct ring *r, void *to, unsigned int n)
{
	if (n > ring_len(r))
		n = ring_len(r);
	copy_out(r, r->out, to, n);
	r->out += n;
	return n;
}

void ring_drop(struct ring *r, unsigned int n)
{
	if (n >= ring_len(r))
		r->out = r->in;
	else
		r->out += n;
}

unsigned int ring_put_rec(struct ring *r, const void *from, unsigned int n)
{
	unsigned char header[RING_HEADER];

	/* n > avail first: then n + RING_HEADER cannot overflow. */
	if (n > 0xffffu || n > ring_avail(r) || n + RING_HEADER > ring_avail(r))
		return n == 0xffffffffu ? n : n + 1;
	header[0] = (unsigned char)(n & 0xff);
	header[1] = (unsigned char)(n >> 8);
	copy_in(r, r->in, header, RING_HEADER);
	copy_in(r, r->in + RING_HEADER, from, n);
	r->in += RING_HEADER + n;
	return 0;
}

unsigned int ring_peek_rec(const struct ring *r)
{
	unsigned char header[RING_HEADER];

	if (ring_len(r) < RING_HEADER)
		return 0;
	copy_out(r, r->out, header, RING_HEADER);
	return header[0] | (unsigned int)header[1] << 8;
}

unsigned int ring_get_rec(struct ring *r, void *to, unsigned int n, unsigned int *total)
{
	unsigned int length = ring_peek_rec(r);

	*total = length;
	if (ring_len(r) < RING_HEADER)
		return n;
	if (length > n)
		return length;
	if (ring_len(r) < RING_HEADER + length)
		return n;
	copy_out(r, r->out + RING_HEADER, to, length);
	r->out += RING_HEADER + length;
	return 0;
}

void ring_skip_rec(struct ring *r)
{
	unsigned int whole = RING_HEADER + ring_peek_rec(r);

	if (ring_len(r) < RING_HEADER || whole > ring_len(r))
		r->out = r->in;
	else
		r->out += whole;
}
