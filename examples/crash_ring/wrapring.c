/* SPDX-License-Identifier: MIT */
/*
 * wrapring.c - a byte ring with two classic bugs, for the crash-safe runs of
 * kfifo.testing (docs/testing-your-fifo.rst, "A ring that crashes").
 *
 * Its fill level is computed in 64 bits from the 32-bit free-running
 * indices: correct until the producer index wraps 2**32 before the
 * consumer's, when "used" goes negative and the copy out of the ring is
 * handed a length near 2**64.  The process dies by SIGSEGV.
 *
 * With -DWRAPRING_GARBAGE it instead has a correct fill level, and a read
 * that wraps the buffer's end takes its first bytes after the wrap from past
 * the end of the buffer (heap memory nobody wrote to, different from run to
 * run) instead of from its start.
 */
#include <stdlib.h>
#include <string.h>

struct wrapring {
	unsigned char *data;
	unsigned int size; /* a power of two */
	unsigned int in, out;
};

struct wrapring *wrapring_new(unsigned int size)
{
	struct wrapring *r = malloc(sizeof(*r));
	unsigned int rounded = 1;

	if (!r)
		return NULL;
	while (rounded < size)
		rounded <<= 1;
	r->data = malloc(rounded); /* not zeroed: what a reader sees is only what was written */
	if (!r->data) {
		free(r);
		return NULL;
	}
	r->size = rounded;
	r->in = r->out = 0;
	return r;
}

void wrapring_free(struct wrapring *r)
{
	if (r) {
		free(r->data);
		free(r);
	}
}

void wrapring_set_start(struct wrapring *r, unsigned int start) { r->in = r->out = start; }

static long long used(const struct wrapring *r)
{
#ifdef WRAPRING_GARBAGE
	return (unsigned int)(r->in - r->out);
#else
	return (long long)r->in - (long long)r->out; /* the bug: negative once in wraps 2**32 */
#endif
}

unsigned int wrapring_len(const struct wrapring *r) { return (unsigned int)used(r); }

unsigned int wrapring_put(struct wrapring *r, const void *from, unsigned int n)
{
	unsigned int room = r->size - (unsigned int)used(r);
	unsigned int off = r->in & (r->size - 1), first;

	if (n > room)
		n = room;
	first = n < r->size - off ? n : r->size - off;
	memcpy(r->data + off, from, first);
	memcpy(r->data, (const unsigned char *)from + first, n - first);
	r->in += n;
	return n;
}

unsigned int wrapring_get(struct wrapring *r, void *to, unsigned int n)
{
	long long have = used(r);
	unsigned int off = r->out & (r->size - 1);
	size_t len = n, first;

	if ((long long)n > have)
		len = (size_t)have; /* near 2**64 when have < 0 */
	first = len < r->size - off ? len : r->size - off;
	memcpy(to, r->data + off, first);
#ifdef WRAPRING_GARBAGE
	/* the second bug: the wrapped part is read from past the buffer's end */
	memcpy((unsigned char *)to + first, r->data + r->size, len - first < 16 ? len - first : 16);
	memcpy((unsigned char *)to + first + 16, r->data + 16, len - first < 16 ? 0 : len - first - 16);
#else
	memcpy((unsigned char *)to + first, r->data, len - first);
#endif
	r->out += (unsigned int)len;
	return (unsigned int)len;
}
