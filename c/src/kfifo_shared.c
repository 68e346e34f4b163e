/* SPDX-License-Identifier: MIT */
/*
 * kfifo_shared.c - a fifo in memory that several processes map (docs/spec.md
 * 3.2).
 *
 * The mapping starts with a header of fixed-width words, layout version 3
 * (kfifo.h documents it byte by byte, struct kfifo__shm is its C view and
 * the asserts below tie the two together), and the data follows it.  A
 * handle is an ordinary struct kfifo with the flag KFIFO__SHARED, its
 * private @buffer pointing at the data in the mapping: kfifo__shm() finds
 * the header right before it, so every call reads and writes the indices,
 * the wait words and the closed flag there, and keeps @buffer, @size and
 * the index caches in the handle, where the other process cannot reach
 * them.  What the calls do against a hostile peer is written where they
 * read: kfifo__clamp() cuts every fill level to the size, and the retry
 * loops are bounded (kfifo_kind.h, kfifo_index.h, kfifo_wake.c).
 */
#include "kfifo_atomic.h"

#include <stdint.h>
#include <string.h>

#define KFIFO__SHM_AT(member, off)                                             \
	_Static_assert(offsetof(struct kfifo__shm, member) == (off),           \
		       "struct kfifo__shm: " #member " not at " #off)
KFIFO__SHM_AT(magic, KFIFO_SHARED_OFF_MAGIC);
KFIFO__SHM_AT(version, KFIFO_SHARED_OFF_VERSION);
KFIFO__SHM_AT(size, KFIFO_SHARED_OFF_SIZE);
KFIFO__SHM_AT(flags, KFIFO_SHARED_OFF_FLAGS);
KFIFO__SHM_AT(data_waiters, KFIFO_SHARED_OFF_DATA_WAITERS);
KFIFO__SHM_AT(room_waiters, KFIFO_SHARED_OFF_ROOM_WAITERS);
KFIFO__SHM_AT(closed, KFIFO_SHARED_OFF_CLOSED);
KFIFO__SHM_AT(in_claim, KFIFO_SHARED_OFF_IN_CLAIM);
KFIFO__SHM_AT(out_claim, KFIFO_SHARED_OFF_OUT_CLAIM);
KFIFO__SHM_AT(in, KFIFO_SHARED_OFF_IN);
KFIFO__SHM_AT(data_seq, KFIFO_SHARED_OFF_DATA_SEQ);
KFIFO__SHM_AT(in_lock, KFIFO_SHARED_OFF_IN_LOCK);
KFIFO__SHM_AT(out, KFIFO_SHARED_OFF_OUT);
KFIFO__SHM_AT(room_seq, KFIFO_SHARED_OFF_ROOM_SEQ);
KFIFO__SHM_AT(out_lock, KFIFO_SHARED_OFF_OUT_LOCK);
KFIFO__SHM_AT(notify, KFIFO_SHARED_OFF_NOTIFY);
_Static_assert(sizeof(struct kfifo__shm) == KFIFO_SHARED_OFF_DATA,
	       "the data follows the header");
_Static_assert(_Alignof(struct kfifo__shm) <= KFIFO_SHARED_ALIGN &&
		       (KFIFO_SHARED_ALIGN & (KFIFO_SHARED_ALIGN - 1)) == 0,
	       "KFIFO_SHARED_ALIGN aligns the header's words");

static int kfifo__usable(const void *mem)
{
	return mem != NULL &&
	       ((uintptr_t)mem & (KFIFO_SHARED_ALIGN - 1)) == 0;
}

/* Make @fifo a handle to the header at @mem, size @size, with the mode of
 * the header's @flags (read once: a peer that changes them later cannot
 * make this handle skip a lock).  The caches start from the indices as
 * they are (a cached value may be behind the other side's index, never
 * ahead of it). */
static void kfifo__make_handle(struct kfifo *fifo, struct kfifo__shm *shm,
			       unsigned int size, unsigned int flags)
{
	fifo->buffer = (unsigned char *)shm + KFIFO_SHARED_OFF_DATA;
	fifo->size = size;
	fifo->flags = KFIFO__SHARED |
		      (flags & KFIFO_SHARED_FLAG_MANY_PRODUCERS ? KFIFO__MANY_IN
								: 0u) |
		      (flags & KFIFO_SHARED_FLAG_MANY_CONSUMERS ? KFIFO__MANY_OUT
								: 0u);
	fifo->kfifo__in_seen = fifo->kfifo__in_cache =
		kfifo__load_acquire(&shm->in);
	fifo->kfifo__out_seen = kfifo__load_acquire(&shm->out);
	/* the producer's cache is @out plus the size (kfifo_index.h) */
	fifo->kfifo__out_cache = fifo->kfifo__out_seen + size;
}

size_t kfifo_shared_bytes(unsigned int size)
{
	unsigned int rounded = kfifo__roundup_pow2(size);

	return rounded == 0 ? 0 : (size_t)KFIFO_SHARED_OFF_DATA + rounded;
}

int kfifo_shared_create_mode(struct kfifo *fifo, void *mem, size_t len,
			     unsigned int size, unsigned int mode)
{
	size_t need = kfifo_shared_bytes(size);
	struct kfifo__shm *shm = mem;

	kfifo__clear(fifo);
	if (!kfifo__usable(mem) || need == 0 || len < need ||
	    (mode & ~KFIFO_MODE_MASK) != 0)
		return -EINVAL;
	memset(shm, 0, sizeof(*shm));
	shm->version = KFIFO_SHARED_VERSION;
	shm->size = (unsigned int)(need - KFIFO_SHARED_OFF_DATA);
	/* publishers of this library signal the notifier slots */
	shm->flags = KFIFO_SHARED_FLAG_NOTIFY | KFIFO_SHARED_FLAG_NOTIFY_PATH |
		     (mode & KFIFO_MANY_PRODUCERS ? KFIFO_SHARED_FLAG_MANY_PRODUCERS
						  : 0u) |
		     (mode & KFIFO_MANY_CONSUMERS ? KFIFO_SHARED_FLAG_MANY_CONSUMERS
						  : 0u);
	/* last, with release: who reads the magic sees the rest */
	__atomic_store_n(&shm->magic, KFIFO_SHARED_MAGIC, __ATOMIC_RELEASE);
	kfifo__make_handle(fifo, shm, shm->size, shm->flags);
	return 0;
}

int kfifo_shared_create(struct kfifo *fifo, void *mem, size_t len,
			unsigned int size)
{
	return kfifo_shared_create_mode(fifo, mem, len, size, 0);
}

int kfifo_shared_attach(struct kfifo *fifo, void *mem, size_t len)
{
	struct kfifo__shm *shm = mem;
	unsigned int size, version, flags;

	kfifo__clear(fifo);
	if (!kfifo__usable(mem) || len < KFIFO_SHARED_OFF_DATA)
		return -EINVAL;
	/* another layout version (1: kfifo 0.1.0) is refused like garbage;
	 * kfifo.h says how a caller tells the two apart.  Version 2 is this
	 * layout before the claims and locks: one producer, one consumer. */
	if (__atomic_load_n(&shm->magic, __ATOMIC_ACQUIRE) != KFIFO_SHARED_MAGIC)
		return -EINVAL;
	version = __atomic_load_n(&shm->version, __ATOMIC_RELAXED);
	flags = __atomic_load_n(&shm->flags, __ATOMIC_RELAXED);
	if ((version != KFIFO_SHARED_VERSION && version != 2u) ||
	    (flags & ~(version == 2u ? KFIFO_SHARED_FLAG_NOTIFY
				     : KFIFO_SHARED_FLAGS_KNOWN)) != 0)
		return -EINVAL;
	/* read once: the handle keeps its own copy from here on */
	size = __atomic_load_n(&shm->size, __ATOMIC_RELAXED);
	if (!KFIFO__IS_POW2(size) || size > (1u << 31) ||
	    len - KFIFO_SHARED_OFF_DATA < size)
		return -EINVAL;
	kfifo__make_handle(fifo, shm, size, flags);
	return 0;
}

int kfifo_is_shared(struct kfifo *fifo)
{
	return kfifo__kind(fifo) == KFIFO__HANDLE;
}
