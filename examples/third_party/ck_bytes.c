/* SPDX-License-Identifier: MIT */
/*
 * ck_bytes.c - Concurrency Kit's ck_ring (a ring of pointers) seen as a byte
 * fifo for kfifo.testing: one byte per slot, carried in the slot's pointer.
 *
 * ck_ring_init() takes a power of two and the ring holds one entry less
 * (capacity model "pow2-1"); its functions are static inline in ck_ring.h,
 * so a test reaches them only through a small compiled file like this one.
 * ck_bytes_set_start() moves the free-running indices near 2**32 so that
 * the test crosses their wrap.
 */
#include <ck_ring.h>
#include <stdint.h>
#include <stdlib.h>

struct ck_bytes {
	struct ck_ring ring;
	struct ck_ring_buffer *slots;
};

struct ck_bytes *ck_bytes_new(unsigned int size)
{
	struct ck_bytes *b = malloc(sizeof(*b));
	unsigned int rounded = 2;

	if (!b)
		return NULL;
	while (rounded < size)
		rounded <<= 1;
	b->slots = calloc(rounded, sizeof(*b->slots));
	if (!b->slots) {
		free(b);
		return NULL;
	}
	ck_ring_init(&b->ring, rounded);
	return b;
}

void ck_bytes_free(struct ck_bytes *b)
{
	if (b) {
		free(b->slots);
		free(b);
	}
}

void ck_bytes_set_start(struct ck_bytes *b, unsigned int start)
{
	b->ring.p_head = b->ring.p_tail = b->ring.c_head = start;
}

unsigned int ck_bytes_put(struct ck_bytes *b, const unsigned char *from, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!ck_ring_enqueue_spsc(&b->ring, b->slots, (void *)(uintptr_t)from[i]))
			break;
	return i;
}

unsigned int ck_bytes_get(struct ck_bytes *b, unsigned char *to, unsigned int n)
{
	unsigned int i;
	void *slot;

	for (i = 0; i < n; i++) {
		if (!ck_ring_dequeue_spsc(&b->ring, b->slots, &slot))
			break;
		to[i] = (unsigned char)(uintptr_t)slot;
	}
	return i;
}

unsigned int ck_bytes_len(const struct ck_bytes *b) { return ck_ring_size(&b->ring); }
unsigned int ck_bytes_capacity(const struct ck_bytes *b) { return ck_ring_capacity(&b->ring) - 1; }
unsigned int ck_bytes_avail(const struct ck_bytes *b) { return ck_bytes_capacity(b) - ck_bytes_len(b); }
