/* SPDX-License-Identifier: MIT */
/*
 * kfifo_shared.c - a fifo in memory that several processes map (API.md
 * 3.2).
 *
 * The mapping starts with an image of struct kfifo (kfifo.h documents the
 * offsets that matter, the asserts below tie them to the struct), and the
 * data follows it.  A handle is an ordinary struct kfifo with the flag
 * KFIFO__SHARED, its private @buffer pointing at the data in the mapping:
 * kfifo__ctl() finds the header right before it, so every call reads and
 * writes the indices, the wait words and the closed flag there, and keeps
 * @buffer, @size and the index caches in the handle, where the other
 * process cannot reach them.  What the calls do against a hostile peer is
 * written where they read: kfifo__used() clamps every fill level, and the
 * retry loops are bounded (kfifo_internal.h, kfifo_wait.c).
 */
#include "kfifo_internal.h"

#include <stdint.h>

_Static_assert(sizeof(struct kfifo) == KFIFO_SHARED_OFF_DATA,
	       "the data follows the header image");
_Static_assert(offsetof(struct kfifo, size) == KFIFO_SHARED_OFF_SIZE, "");
_Static_assert(offsetof(struct kfifo, flags) == 12, "reserved word");
_Static_assert(offsetof(struct kfifo, kfifo__data_waiters) ==
		       KFIFO_SHARED_OFF_DATA_WAITERS, "");
_Static_assert(offsetof(struct kfifo, kfifo__room_waiters) ==
		       KFIFO_SHARED_OFF_ROOM_WAITERS, "");
_Static_assert(offsetof(struct kfifo, kfifo__closed) ==
		       KFIFO_SHARED_OFF_CLOSED, "");
_Static_assert(offsetof(struct kfifo, in) == KFIFO_SHARED_OFF_IN, "");
_Static_assert(offsetof(struct kfifo, kfifo__data_seq) ==
		       KFIFO_SHARED_OFF_DATA_SEQ, "");
_Static_assert(offsetof(struct kfifo, out) == KFIFO_SHARED_OFF_OUT, "");
_Static_assert(offsetof(struct kfifo, kfifo__room_seq) ==
		       KFIFO_SHARED_OFF_ROOM_SEQ, "");
/* magic and version take the place of @buffer, which the image never uses */
_Static_assert(offsetof(struct kfifo, buffer) == KFIFO_SHARED_OFF_MAGIC &&
		       sizeof(unsigned char *) >= 8,
	       "magic and version overlay the buffer pointer");
_Static_assert(KFIFO_SHARED_OFF_IN / KFIFO__CACHELINE == 1 &&
		       KFIFO_SHARED_OFF_DATA_SEQ / KFIFO__CACHELINE == 1 &&
		       KFIFO_SHARED_OFF_OUT / KFIFO__CACHELINE == 2 &&
		       KFIFO_SHARED_OFF_ROOM_SEQ / KFIFO__CACHELINE == 2 &&
		       KFIFO_SHARED_OFF_CLOSED / KFIFO__CACHELINE == 0,
	       "the groups of a 64-byte aligned mapping, as kfifo.h says");

/* The 32-bit word at @off of the mapping @mem. */
static unsigned int *kfifo__word(void *mem, size_t off)
{
	return (unsigned int *)(void *)((unsigned char *)mem + off);
}

static int kfifo__usable(const void *mem)
{
	return mem != NULL &&
	       ((uintptr_t)mem & (_Alignof(struct kfifo) - 1)) == 0;
}

/* Make @fifo a handle to the header at @mem, size @size.  The caches start
 * from the indices as they are (a cached value may be behind the other
 * side's index, never ahead of it). */
static void kfifo__make_handle(struct kfifo *fifo, void *mem,
			       unsigned int size)
{
	struct kfifo *c = mem;

	fifo->buffer = (unsigned char *)mem + KFIFO_SHARED_OFF_DATA;
	fifo->size = size;
	fifo->flags = KFIFO__SHARED;
	fifo->kfifo__in_seen = fifo->kfifo__in_cache =
		kfifo__load_acquire(&c->in);
	fifo->kfifo__out_seen = fifo->kfifo__out_cache =
		kfifo__load_acquire(&c->out);
}

size_t kfifo_shared_bytes(unsigned int size)
{
	unsigned int rounded = 1;

	if (size == 0 || size > (1u << 31))
		return 0;
	while (rounded < size)
		rounded <<= 1;
	return (size_t)KFIFO_SHARED_OFF_DATA + rounded;
}

int kfifo_shared_create(struct kfifo *fifo, void *mem, size_t len,
			unsigned int size)
{
	size_t need = kfifo_shared_bytes(size);

	kfifo__clear(fifo);
	if (!kfifo__usable(mem) || need == 0 || len < need)
		return -EINVAL;
	memset(mem, 0, KFIFO_SHARED_OFF_DATA);
	*kfifo__word(mem, KFIFO_SHARED_OFF_VERSION) = KFIFO_SHARED_VERSION;
	*kfifo__word(mem, KFIFO_SHARED_OFF_SIZE) =
		(unsigned int)(need - KFIFO_SHARED_OFF_DATA);
	/* last, with release: who reads the magic sees the rest */
	__atomic_store_n(kfifo__word(mem, KFIFO_SHARED_OFF_MAGIC),
			 KFIFO_SHARED_MAGIC, __ATOMIC_RELEASE);
	kfifo__make_handle(fifo, mem, (unsigned int)(need - KFIFO_SHARED_OFF_DATA));
	return 0;
}

int kfifo_shared_attach(struct kfifo *fifo, void *mem, size_t len)
{
	unsigned int size;

	kfifo__clear(fifo);
	if (!kfifo__usable(mem) || len < KFIFO_SHARED_OFF_DATA)
		return -EINVAL;
	if (__atomic_load_n(kfifo__word(mem, KFIFO_SHARED_OFF_MAGIC),
			    __ATOMIC_ACQUIRE) != KFIFO_SHARED_MAGIC ||
	    __atomic_load_n(kfifo__word(mem, KFIFO_SHARED_OFF_VERSION),
			    __ATOMIC_RELAXED) != KFIFO_SHARED_VERSION)
		return -EINVAL;
	/* read once: the handle keeps its own copy from here on */
	size = __atomic_load_n(kfifo__word(mem, KFIFO_SHARED_OFF_SIZE),
			       __ATOMIC_RELAXED);
	if (!KFIFO__IS_POW2(size) || size > (1u << 31) ||
	    len - KFIFO_SHARED_OFF_DATA < size)
		return -EINVAL;
	kfifo__make_handle(fifo, mem, size);
	return 0;
}

int kfifo_is_shared(struct kfifo *fifo)
{
	return kfifo__shared(fifo);
}
