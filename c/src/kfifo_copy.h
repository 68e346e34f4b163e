/* SPDX-License-Identifier: MIT */
/*
 * kfifo_copy.h - moving bytes in and out of the buffer at a free-running
 * index, and reading a record's length header.  Private: nothing here is
 * part of the API.
 */
#ifndef KFIFO_COPY_H
#define KFIFO_COPY_H

/* the library defines the functions the typed API's macros shadow */
#define KFIFO__LIBRARY_BUILD 1
#include <kfifo.h>

#include <string.h>

/*
 * The copy that crosses the end of the buffer, out of line (kfifo.c): the
 * rare case, kept out of the callers so that their fast path needs fewer
 * registers saved around the one memcpy.
 */
void kfifo__copy_in_wrap(struct kfifo *fifo, unsigned int off,
			 const void *from, unsigned int n);
void kfifo__copy_out_wrap(struct kfifo *fifo, unsigned int off, void *to,
			  unsigned int n);

/*
 * Copy @n bytes (0 < @n <= size) into the buffer at index @idx, splitting
 * at the end of the buffer.  One branch decides the split.
 */
static inline __attribute__((always_inline)) void
kfifo__copy_in(struct kfifo *fifo, unsigned int idx, const void *from,
	       unsigned int n)
{
	unsigned int off = idx & (fifo->size - 1);

	if (__builtin_expect(n <= fifo->size - off, 1))
		memcpy(fifo->buffer + off, from, n);
	else
		kfifo__copy_in_wrap(fifo, off, from, n);
}

/* Copy @n bytes (0 < @n <= size) out of the buffer from index @idx. */
static inline __attribute__((always_inline)) void
kfifo__copy_out(struct kfifo *fifo, unsigned int idx, void *to,
		unsigned int n)
{
	unsigned int off = idx & (fifo->size - 1);

	if (__builtin_expect(n <= fifo->size - off, 1))
		memcpy(to, fifo->buffer + off, n);
	else
		kfifo__copy_out_wrap(fifo, off, to, n);
}

static inline unsigned char kfifo__byte_at(struct kfifo *fifo,
					   unsigned int idx)
{
	return fifo->buffer[idx & (fifo->size - 1)];
}

static inline void kfifo__set_byte_at(struct kfifo *fifo, unsigned int idx,
				      unsigned char v)
{
	fifo->buffer[idx & (fifo->size - 1)] = v;
}

/* The length in the @recsize-byte header (1 or 2, little-endian) at index
 * @idx; the caller checked that the header is stored. */
static inline unsigned int kfifo__rec_header(struct kfifo *fifo,
					     unsigned int idx,
					     unsigned int recsize)
{
	unsigned int l = kfifo__byte_at(fifo, idx);

	if (recsize == 2)
		l |= (unsigned int)kfifo__byte_at(fifo, idx + 1) << 8;
	return l;
}

#endif /* KFIFO_COPY_H */
