/* SPDX-License-Identifier: MIT */
/*
 * kfifo_internal.h - private helpers shared by the kfifo sources.
 *
 * Nothing here is part of the API: names carry the kfifo__ prefix.
 */
#ifndef KFIFO_INTERNAL_H
#define KFIFO_INTERNAL_H

#include <kfifo.h>

#include <string.h>

static inline unsigned int kfifo__load_relaxed(const unsigned int *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline unsigned int kfifo__load_acquire(const unsigned int *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void kfifo__store_release(unsigned int *p, unsigned int v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

/*
 * The fill level as seen by a third party.  @out is read on both sides of
 * @in: if it did not move, (in - out) is a level the fifo really had at the
 * moment @in was read.  Each retry means the consumer made progress, so the
 * loop is lock-free.
 */
static inline unsigned int kfifo__snapshot_len(struct kfifo *fifo)
{
	unsigned int out, in;

	do {
		out = kfifo__load_acquire(&fifo->out);
		in = kfifo__load_acquire(&fifo->in);
	} while (out != kfifo__load_acquire(&fifo->out));
	return in - out;
}

/*
 * Copy @n bytes (0 < @n <= size) into the buffer at index @idx, splitting
 * at the end of the buffer.  One branch decides the split.
 */
static inline void kfifo__copy_in(struct kfifo *fifo, unsigned int idx,
				  const void *from, unsigned int n)
{
	unsigned int off = idx & (fifo->size - 1);
	unsigned int first = fifo->size - off;

	if (n <= first) {
		memcpy(fifo->buffer + off, from, n);
	} else {
		memcpy(fifo->buffer + off, from, first);
		memcpy(fifo->buffer, (const unsigned char *)from + first,
		       n - first);
	}
}

/* Copy @n bytes (0 < @n <= size) out of the buffer from index @idx. */
static inline void kfifo__copy_out(struct kfifo *fifo, unsigned int idx,
				   void *to, unsigned int n)
{
	unsigned int off = idx & (fifo->size - 1);
	unsigned int first = fifo->size - off;

	if (n <= first) {
		memcpy(to, fifo->buffer + off, n);
	} else {
		memcpy(to, fifo->buffer + off, first);
		memcpy((unsigned char *)to + first, fifo->buffer, n - first);
	}
}

static inline unsigned char kfifo__byte_at(struct kfifo *fifo, unsigned int idx)
{
	return fifo->buffer[idx & (fifo->size - 1)];
}

static inline void kfifo__set_byte_at(struct kfifo *fifo, unsigned int idx,
				      unsigned char v)
{
	fifo->buffer[idx & (fifo->size - 1)] = v;
}

#endif /* KFIFO_INTERNAL_H */
