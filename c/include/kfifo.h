/* SPDX-License-Identifier: MIT */
/*
 * kfifo.h - the Linux kernel's lock-free byte FIFO ("new kfifo API v0.3")
 * in userspace C.
 *
 * Written from the contract in docs/spec.md (installed beside the license,
 * share/doc/kfifo/spec.md), not from the kernel sources.  The seed API is
 * kept name for name so that kernel code compiles unchanged; the six known
 * bugs of the seed patches are fixed (see docs/spec.md 1.7).
 *
 * Concurrency in one sentence: one producer and one consumer may use a
 * fifo at the same time without a lock; more of either need a fifo in
 * the matching mode (kfifo_set_mode(), kfifo_shared_create_mode()), which
 * then locks that side itself, or the _locked calls on that side.
 */
#ifndef KFIFO_H
#define KFIFO_H

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#define KFIFO_VERSION_MAJOR 0
#define KFIFO_VERSION_MINOR 1
#define KFIFO_VERSION_PATCH 0
#define KFIFO__STR2(x) #x
#define KFIFO__STR(x) KFIFO__STR2(x)
#define KFIFO_VERSION_STRING                                                   \
	KFIFO__STR(KFIFO_VERSION_MAJOR)                                        \
	"." KFIFO__STR(KFIFO_VERSION_MINOR) "." KFIFO__STR(KFIFO_VERSION_PATCH)
#define KFIFO_VERSION_NUMBER                                                   \
	(KFIFO_VERSION_MAJOR * 10000 + KFIFO_VERSION_MINOR * 100 +             \
	 KFIFO_VERSION_PATCH)

#if defined(__GNUC__) || defined(__clang__)
#define KFIFO_API __attribute__((visibility("default")))
#define KFIFO__MUST_CHECK __attribute__((warn_unused_result))
#define KFIFO__HAVE_CONSTANT_P 1
#else
#define KFIFO_API
#define KFIFO__MUST_CHECK
#define KFIFO__HAVE_CONSTANT_P 0
#endif

/* The cache line size the layout of struct kfifo pads for. */
#define KFIFO__CACHELINE 64
/* The padding between the groups of struct kfifo: two lines, because x86
 * cores fetch lines in 128-byte pairs (the adjacent-line prefetchers,
 * Intel's "spatial", AMD's "up/down"): one line apart, the producer's and
 * the consumer's could still be the two halves of one pair. */
#define KFIFO__PAD (2 * KFIFO__CACHELINE)
/* The bytes of struct kfifo's read-mostly group, @buffer to @kfifo__closed
 * (no padding inside: a pointer, then unsigned ints), and the padding after
 * it that puts @in, and so @out, at a multiple of 16 bytes: each side's
 * group of four words then never straddles a line in memory malloc()
 * returns (16-byte aligned), and the other side's miss on @in's line cannot
 * take the rest of the producer's group with it.  kfifo.c checks both. */
#define KFIFO__HEAD_BYTES (sizeof(unsigned char *) + 5 * sizeof(unsigned int))
#define KFIFO__PAD0 (KFIFO__PAD + (16 - KFIFO__HEAD_BYTES % 16) % 16)
/* private: each side's group is its four hot words (index, caches, futex
 * word: the first 16 bytes, never straddling a line) and then the words of
 * the many-producer/many-consumer mode (lock, hold depth, claim), which a
 * one-producer/one-consumer fifo never touches; the padding after it keeps
 * the next group at a multiple of 16. */
#define KFIFO__SIDE_BYTES (7 * sizeof(unsigned int))
#define KFIFO__PAD_SIDE (KFIFO__PAD + (16 - KFIFO__SIDE_BYTES % 16) % 16)

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct kfifo - a byte FIFO over a power-of-two buffer
 * @buffer: the buffer holding the data
 * @size: the size of the buffer, a power of two (0 for a freed fifo)
 * @flags: private: whether kfifo_free() may free @buffer
 * @in: data is added at offset (in & (size - 1)); written by the producer
 * @out: data is taken from offset (out & (size - 1)); written by the
 *       consumer
 *
 * @in and @out run freely and wrap at 2^32: (in - out) is the fill level.
 * They are accessed with C11 memory-model atomics (acquire/release, see
 * c/src/kfifo_index.h); kernel code that only calls the API never touches
 * them.
 *
 * Each side also keeps, on its own index's cache line, the other side's
 * index as it last read it, and its own index as it last left it: the
 * cached copy is used only while the own index is unchanged, so code that
 * sets @in and @out directly (tests starting near 2^32) stays correct.
 *
 * The members fall into three groups: those both sides read on every call
 * (@buffer, @size, @flags, and the waiter counts, which change only when a
 * thread starts or stops waiting), the producer's (@in, its cache, the
 * futex word it wakes consumers with) and the consumer's (the mirror
 * image).  Padding, not alignment, keeps every two groups at least 128
 * bytes apart, so that they never share a line, nor the 128-byte pair of
 * lines x86 cores fetch together, wherever the struct lies:
 * struct kfifo needs no alignment beyond its pointer's and works in any
 * memory malloc() returns.  All private members zero is an open fifo that
 * nobody waits on: the static initialisers rely on it.
 */
struct kfifo {
	unsigned char *buffer;
	unsigned int size;
	unsigned int flags;
	unsigned int kfifo__data_waiters; /* private: threads waiting for data */
	unsigned int kfifo__room_waiters; /* private: threads waiting for room */
	unsigned int kfifo__closed;       /* private: kfifo_close() ran */
	unsigned char kfifo__pad0[KFIFO__PAD0];
	unsigned int in;
	unsigned int kfifo__in_seen;   /* private, producer's: see kfifo_index.h */
	unsigned int kfifo__out_cache; /* private, producer's: @out + @size */
	unsigned int kfifo__data_seq;  /* private: futex word consumers sleep on */
	unsigned int kfifo__in_lock;   /* private: producers' lock (kfifo_lock.c) */
	unsigned int kfifo__in_hold;   /* private: its holder's nesting depth */
	unsigned int kfifo__in_claim;  /* private: handle's producer claim */
	unsigned char kfifo__pad1[KFIFO__PAD_SIDE];
	unsigned int out;
	unsigned int kfifo__out_seen;  /* private, consumer's */
	unsigned int kfifo__in_cache;  /* private, consumer's */
	unsigned int kfifo__room_seq;  /* private: futex word producers sleep on */
	unsigned int kfifo__out_lock;  /* private: consumers' lock */
	unsigned int kfifo__out_hold;  /* private: its holder's nesting depth */
	unsigned int kfifo__out_claim; /* private: handle's consumer claim */
	unsigned char kfifo__pad2[KFIFO__PAD_SIDE];
};

/* private: kfifo_free() frees only what kfifo_alloc() allocated */
#define KFIFO__OWNS_BUFFER 1u

/* private: a compile-time check that @s is a power of two; the expression
 * is 0 and fails to compile (negative array size) otherwise. */
#define KFIFO__IS_POW2(s) ((s) != 0 && (((s) & ((s) - 1)) == 0))
#define KFIFO__ASSERT_POW2(s) (0 * sizeof(char[KFIFO__IS_POW2(s) ? 1 : -1]))

/**
 * typedef kfifo_spinlock_t - a userspace spinlock for short critical sections
 *
 * Used by the _locked calls.  Initialise with kfifo_spin_lock_init() or
 * KFIFO_SPINLOCK_INIT.  A waiter spins briefly, then yields the CPU.
 */
typedef struct {
	unsigned char locked;
} kfifo_spinlock_t;

#define KFIFO_SPINLOCK_INIT { 0 }

typedef unsigned int kfifo_gfp_t;
#define KFIFO_GFP_KERNEL 0u
#define KFIFO_GFP_ATOMIC 0u

/* ---- declaration macros (docs/spec.md 1.2) ----------------------------- */

#ifdef __cplusplus
static inline struct kfifo kfifo__initializer(unsigned int size, void *buffer)
{
	struct kfifo f = {};
	f.buffer = static_cast<unsigned char *>(buffer);
	f.size = size;
	return f;
}
/**
 * KFIFO_INIT - an initializer for a fifo of @s bytes over buffer @b
 * @s: size of the buffer, a power of two
 * @b: the buffer
 */
#define KFIFO_INIT(s, b) kfifo__initializer((s), (b))
#define KFIFO__LITERAL(s, b) KFIFO_INIT((s), (b))
#else
/* A braced initializer, so that DEFINE_KFIFO works at file scope too (the
 * seed's compound literal is not a constant expression in ISO C). */
#define KFIFO_INIT(s, b)                                                       \
	{ .buffer = (unsigned char *)(b),                                      \
	  .size = (unsigned int)(s),                                           \
	  .flags = 0,                                                          \
	  .in = 0,                                                             \
	  .out = 0 }
#define KFIFO__LITERAL(s, b) ((struct kfifo)KFIFO_INIT((s), (b)))
#endif

/*
 * The three v0.3 declaration macros.  In C the typed API's section below
 * redefines them to pick the form by the number of arguments (INIT_KFIFO:
 * by KFIFO_TYPED_API); the KFIFO__*_V03 macros are the v0.3 bodies.
 */

/**
 * DECLARE_KFIFO - declare a fifo @name together with its @size-byte buffer
 * @name: name of the fifo
 * @size: size of the buffer; must be a compile-time power of two
 *
 * Usable as a member of a struct or union.  The buffer follows the
 * struct kfifo header in memory: unlike the seed (bug 1 of docs/spec.md 1.7)
 * data written to the fifo can never overwrite the header.
 */
#define DECLARE_KFIFO(name, size) KFIFO__DECLARE_V03(name, size)
#define KFIFO__DECLARE_V03(name, size)                                         \
	union {                                                                \
		struct kfifo name;                                             \
		unsigned char name##_buffer[sizeof(struct kfifo) + (size) +    \
					    KFIFO__ASSERT_POW2(size)];         \
	}

/**
 * INIT_KFIFO - initialise a fifo declared with DECLARE_KFIFO
 * @name: name of the fifo
 */
#define INIT_KFIFO(name) KFIFO__INIT_V03(name)
#define KFIFO__INIT_V03(name)                                                  \
	(name) = KFIFO__LITERAL(sizeof(name##_buffer) - sizeof(struct kfifo), \
				name##_buffer + sizeof(struct kfifo))

/**
 * DEFINE_KFIFO - define and initialise a fifo and its buffer
 * @name: name of the fifo
 * @size: size of the buffer; must be a compile-time power of two
 *
 * Usable at file scope or in a block.
 */
#define DEFINE_KFIFO(name, size) KFIFO__DEFINE_V03(name, size)
#define KFIFO__DEFINE_V03(name, size)                                          \
	unsigned char name##_buffer[(size) + KFIFO__ASSERT_POW2(size)];        \
	struct kfifo name = KFIFO_INIT((size), name##_buffer)

/* ---- set-up and tear-down -------------------------------------------- */

/**
 * kfifo_alloc - allocate a fifo buffer
 * @fifo: the fifo to set up
 * @size: the wanted size in bytes, rounded up to a power of two
 * @gfp_mask: accepted for kernel compatibility and ignored
 *
 * Return: 0; -EINVAL if @size is 0 or larger than 2^31; -ENOMEM if the
 * allocation fails.  On failure @fifo is a valid fifo of size 0.
 *
 * Concurrency: not while anyone else uses the fifo.
 */
KFIFO_API KFIFO__MUST_CHECK int kfifo_alloc(struct kfifo *fifo,
					    unsigned int size,
					    kfifo_gfp_t gfp_mask);

/**
 * kfifo_init - set up a fifo over caller memory
 * @fifo: the fifo to set up
 * @buffer: the buffer; the caller keeps ownership
 * @size: the size of @buffer, a power of two (1 included)
 *
 * Return: 0, or -EINVAL if @size is not a power of two or @buffer is NULL;
 * then @fifo is a valid fifo of size 0.
 *
 * Concurrency: not while anyone else uses the fifo.
 */
KFIFO_API int kfifo_init(struct kfifo *fifo, void *buffer, unsigned int size);

/**
 * kfifo_free - free the buffer that kfifo_alloc() allocated
 * @fifo: the fifo
 *
 * Leaves a valid fifo of size 0.  Never frees memory it did not allocate
 * (a kfifo_init() buffer stays the caller's); a second call is harmless.
 *
 * Concurrency: not while anyone else uses the fifo.
 */
KFIFO_API void kfifo_free(struct kfifo *fifo);

/**
 * kfifo_reset - remove the entire fifo content
 * @fifo: the fifo
 *
 * Sets in = out = 0 and reopens a closed fifo (kfifo_close()).
 *
 * Concurrency: not while anyone else uses the fifo.
 */
KFIFO_API void kfifo_reset(struct kfifo *fifo);

/**
 * kfifo_reset_out - skip the entire fifo content from the consumer side
 * @fifo: the fifo
 *
 * Sets out = in.
 *
 * Concurrency: consumer side; safe while one producer runs.
 */
KFIFO_API void kfifo_reset_out(struct kfifo *fifo);

/**
 * kfifo_valid - check the invariants of a fifo
 * @fifo: the fifo
 *
 * Return: 1 if @size is 0 or a power of two, (in - out) <= size, @buffer
 * is not NULL when @size > 0 and a size-0 fifo is empty; 0 otherwise.
 * The tests call it after every operation.
 *
 * Concurrency: either side (reads a snapshot, like kfifo_len()).
 */
KFIFO_API int kfifo_valid(struct kfifo *fifo);

/**
 * kfifo_initialized - whether the fifo has a buffer
 * @fifo: the fifo
 *
 * Mainline 2.6.33-2.6.35 (drivers test it before tearing a fifo down).
 *
 * Return: 1 after a successful kfifo_alloc() or kfifo_init() and for the
 * declaration macros; 0 for a zero-filled struct kfifo, after a failed set-up
 * and after kfifo_free().  (The kernel's returns bool.)
 *
 * Concurrency: any side.
 */
KFIFO_API KFIFO__MUST_CHECK int kfifo_initialized(struct kfifo *fifo);

/* ---- size queries ----------------------------------------------------- */

/**
 * kfifo_size - the size of the fifo buffer in bytes
 * @fifo: the fifo
 *
 * Concurrency: any side.
 */
KFIFO_API KFIFO__MUST_CHECK unsigned int kfifo_size(struct kfifo *fifo);

/**
 * kfifo_len - the number of bytes stored
 * @fifo: the fifo
 *
 * Concurrency: any side; the result is a consistent snapshot (a value
 * the fill level really had while the call ran).
 */
KFIFO_API KFIFO__MUST_CHECK unsigned int kfifo_len(struct kfifo *fifo);

/**
 * kfifo_avail - the number of free bytes, size - len
 * @fifo: the fifo
 *
 * Concurrency: any side; a consistent snapshot.
 */
KFIFO_API KFIFO__MUST_CHECK unsigned int kfifo_avail(struct kfifo *fifo);

/**
 * kfifo_is_empty - whether the fifo holds no byte
 * @fifo: the fifo
 *
 * Concurrency: any side; a consistent snapshot.
 */
KFIFO_API KFIFO__MUST_CHECK int kfifo_is_empty(struct kfifo *fifo);

/**
 * kfifo_is_full - whether the fifo has no free byte
 * @fifo: the fifo
 *
 * Concurrency: any side; a consistent snapshot.
 */
KFIFO_API KFIFO__MUST_CHECK int kfifo_is_full(struct kfifo *fifo);

/* ---- byte stream ------------------------------------------------------ */

/**
 * kfifo_in - put data into the fifo
 * @fifo: the fifo
 * @from: the data to add
 * @n: the number of bytes at @from
 *
 * Copies min(@n, kfifo_avail()) bytes.
 *
 * Return: the number of bytes copied.
 *
 * Concurrency: producer side.  With only one concurrent reader and one
 * concurrent writer no extra locking is needed.
 */
KFIFO_API unsigned int kfifo_in(struct kfifo *fifo, const void *from,
				unsigned int n);

/**
 * kfifo_out - get data from the fifo
 * @fifo: the fifo
 * @to: where to copy the data
 * @n: the size of @to
 *
 * Copies min(@n, kfifo_len()) bytes and removes them from the fifo.
 *
 * Return: the number of bytes copied.
 *
 * Concurrency: consumer side.  With only one concurrent reader and one
 * concurrent writer no extra locking is needed.
 */
KFIFO_API unsigned int kfifo_out(struct kfifo *fifo, void *to, unsigned int n);

/**
 * kfifo_out_peek - copy data from the fifo without removing it
 * @fifo: the fifo
 * @to: where to copy the data
 * @n: the size of @to
 * @offset: how many stored bytes to pass over first
 *
 * Copies min(@n, kfifo_len() - @offset) bytes, starting @offset bytes after
 * the oldest one (none if @offset >= kfifo_len()).  Mainline 2.6.33-2.6.35;
 * for @offset 0 the result is the kernel's.  For @offset > 0 the kernel
 * copied min(@n + @offset, kfifo_len()) bytes into @to, more than @to
 * holds; this copies at most @n.
 *
 * Return: the number of bytes copied.
 *
 * Concurrency: consumer side; with many consumers it holds their lock, so
 * the bytes it copies are not being taken meanwhile.
 */
KFIFO_API KFIFO__MUST_CHECK unsigned int
kfifo_out_peek(struct kfifo *fifo, void *to, unsigned int n,
	       unsigned int offset);

/**
 * kfifo_from_user - put data from "user space" into the fifo
 * @fifo: the fifo
 * @from: the data to add
 * @n: the number of bytes at @from
 *
 * Userspace has no separate user memory: the same as kfifo_in().
 *
 * Return: the number of bytes copied.
 *
 * Concurrency: producer side, as kfifo_in().
 */
KFIFO_API unsigned int kfifo_from_user(struct kfifo *fifo, const void *from,
				       unsigned int n);

/**
 * kfifo_to_user - get data from the fifo into "user space"
 * @fifo: the fifo
 * @to: where to copy the data
 * @n: the size of @to
 *
 * The same as kfifo_out().
 *
 * Return: the number of bytes copied.
 *
 * Concurrency: consumer side, as kfifo_out().
 */
KFIFO_API unsigned int kfifo_to_user(struct kfifo *fifo, void *to,
				     unsigned int n);

/**
 * kfifo_from_user_copied - kfifo_from_user() in its mainline form
 * @fifo: the fifo
 * @from: the data to add
 * @n: the number of bytes at @from
 * @copied: if not NULL, receives the number of bytes copied
 *
 * Copies min(@n, kfifo_avail()) bytes, as kfifo_in().  Mainline 2.6.33 to
 * 2.6.35 declare kfifo_from_user(fifo, from, n, lenout) returning 0 or
 * -EFAULT (2.6.36 and later keep that shape as a macro); a four-argument
 * kfifo_from_user() call comes here.
 *
 * Return: 0.  The kernel's -EFAULT, for a user pointer that faults, has no
 * userspace counterpart.
 *
 * Concurrency: producer side, as kfifo_in().
 */
KFIFO_API KFIFO__MUST_CHECK int kfifo_from_user_copied(struct kfifo *fifo,
							const void *from,
							unsigned int n,
							unsigned int *copied);

/**
 * kfifo_to_user_copied - kfifo_to_user() in its mainline form
 * @fifo: the fifo
 * @to: where to copy the data
 * @n: the size of @to
 * @copied: if not NULL, receives the number of bytes copied
 *
 * Copies min(@n, kfifo_len()) bytes and removes them, as kfifo_out().  A
 * four-argument kfifo_to_user() call comes here.
 *
 * Return: 0.
 *
 * Concurrency: consumer side, as kfifo_out().
 */
KFIFO_API KFIFO__MUST_CHECK int kfifo_to_user_copied(struct kfifo *fifo,
						      void *to, unsigned int n,
						      unsigned int *copied);

/*
 * kfifo_from_user() and kfifo_to_user() take three arguments in the seed
 * (and return the count) and four in mainline (and return 0, the count in
 * the fourth).  These macros pick the function by the number of arguments:
 * both forms compile.  The three-argument functions keep their names and
 * symbols; (kfifo_from_user)(...) and &kfifo_from_user name them.
 */
#define KFIFO__PICK_5TH(a, b, c, d, name, ...) name
#define kfifo_from_user(...)                                                   \
	KFIFO__PICK_5TH(__VA_ARGS__, kfifo_from_user_copied, kfifo_from_user, \
			~)(__VA_ARGS__)
#define kfifo_to_user(...)                                                     \
	KFIFO__PICK_5TH(__VA_ARGS__, kfifo_to_user_copied, kfifo_to_user,     \
			~)(__VA_ARGS__)

/**
 * kfifo_skip - drop bytes from the fifo
 * @fifo: the fifo
 * @len: the number of bytes to drop
 *
 * If @len >= kfifo_len() the fifo is emptied (kfifo_reset_out()).
 *
 * Concurrency: consumer side.
 */
KFIFO_API void kfifo_skip(struct kfifo *fifo, unsigned int len);

/* ---- zero-copy access (docs/spec.md 3.3) ------------------------------ */

/**
 * struct kfifo_region - a run of bytes inside the fifo buffer
 * @data: the first byte
 * @len: the number of bytes
 */
struct kfifo_region {
	unsigned char *data;
	unsigned int len;
};

/**
 * kfifo_in_prepare - describe free space to write into in place
 * @fifo: the fifo
 * @r: receives two regions: @r[0] at the write position, @r[1] at the start
 *     of the buffer when the space wraps around its end (else @r[1].len 0)
 * @n: the number of bytes wanted
 *
 * Describes min(@n, kfifo_avail()) free bytes and publishes nothing: the
 * consumer sees the bytes only after kfifo_in_finish().  When the total is
 * 0 both regions have len 0 (their data is not NULL, so memcpy() of 0
 * bytes from or to it is defined, even for a size-0 fifo).
 *
 * Return: r[0].len + r[1].len.
 *
 * Concurrency: producer side (it counts as the producer's call until the
 * matching kfifo_in_finish()).
 */
KFIFO_API unsigned int kfifo_in_prepare(struct kfifo *fifo,
					struct kfifo_region r[2],
					unsigned int n);

/**
 * kfifo_in_finish - publish bytes written into prepared regions
 * @fifo: the fifo
 * @n: the number of bytes written, from the start of r[0] on
 *
 * Publishes min(@n, kfifo_avail()) bytes at once, with release ordering:
 * the consumer sees them whole, with their content.  The fifo does not
 * remember what was prepared: publish only what was written.
 *
 * Return: the number of bytes published.
 *
 * Concurrency: producer side.
 */
KFIFO_API unsigned int kfifo_in_finish(struct kfifo *fifo, unsigned int n);

/**
 * kfifo_out_prepare - describe stored bytes to read in place
 * @fifo: the fifo
 * @r: receives two regions: @r[0] at the read position, @r[1] at the start
 *     of the buffer when the data wraps around its end (else @r[1].len 0)
 * @n: the number of bytes wanted
 *
 * Describes the min(@n, kfifo_len()) oldest bytes and removes nothing: the
 * producer does not reuse them before kfifo_out_finish().  When the total
 * is 0 both regions have len 0 (data not NULL, as for kfifo_in_prepare()).
 *
 * Return: r[0].len + r[1].len.
 *
 * Concurrency: consumer side (until the matching kfifo_out_finish()).
 */
KFIFO_API unsigned int kfifo_out_prepare(struct kfifo *fifo,
					 struct kfifo_region r[2],
					 unsigned int n);

/**
 * kfifo_out_finish - remove bytes read in place
 * @fifo: the fifo
 * @n: the number of bytes to remove
 *
 * Removes min(@n, kfifo_len()) bytes, with release ordering: the producer
 * overwrites them only after the consumer's reads.
 *
 * Return: the number of bytes removed.
 *
 * Concurrency: consumer side.
 */
KFIFO_API unsigned int kfifo_out_finish(struct kfifo *fifo, unsigned int n);

/* ---- spinlock and locked calls ---------------------------------------- */

/**
 * kfifo_spin_lock_init - initialise a spinlock (unlocked)
 * @lock: the lock
 *
 * Concurrency: before anyone uses the lock.
 */
KFIFO_API void kfifo_spin_lock_init(kfifo_spinlock_t *lock);

/**
 * kfifo_spin_lock - acquire a spinlock
 * @lock: the lock
 *
 * Spins, then yields the CPU, until the lock is free.  Acquire ordering.
 *
 * Concurrency: any thread.
 */
KFIFO_API void kfifo_spin_lock(kfifo_spinlock_t *lock);

/**
 * kfifo_spin_trylock - try to acquire a spinlock without waiting
 * @lock: the lock
 *
 * Return: 1 if the lock was taken, 0 if it is held by someone else.
 *
 * Concurrency: any thread.
 */
KFIFO_API int kfifo_spin_trylock(kfifo_spinlock_t *lock);

/**
 * kfifo_spin_unlock - release a spinlock
 * @lock: the lock, held by the caller
 *
 * Release ordering.
 *
 * Concurrency: the holder.
 */
KFIFO_API void kfifo_spin_unlock(kfifo_spinlock_t *lock);

/**
 * kfifo_in_locked - put data into the fifo under a lock
 * @fifo: the fifo
 * @from: the data to add
 * @n: the number of bytes at @from
 * @lock: the lock shared by all producers
 *
 * Return: the number of bytes copied, as kfifo_in().
 *
 * Concurrency: any number of producers that share @lock, with one
 * consumer (or consumers sharing a lock of their own).
 */
KFIFO_API unsigned int kfifo_in_locked(struct kfifo *fifo, const void *from,
				       unsigned int n, kfifo_spinlock_t *lock);

/**
 * kfifo_out_locked - get data from the fifo under a lock
 * @fifo: the fifo
 * @to: where to copy the data
 * @n: the size of @to
 * @lock: the lock shared by all consumers
 *
 * Return: the number of bytes copied, as kfifo_out().  Unlike the seed it
 * does not reset the indices to 0 when the fifo becomes empty: that store
 * to @in would race with a producer holding a different lock.
 *
 * Concurrency: any number of consumers that share @lock, with one
 * producer (or producers sharing a lock of their own).
 */
KFIFO_API unsigned int kfifo_out_locked(struct kfifo *fifo, void *to,
					unsigned int n, kfifo_spinlock_t *lock);

/* ---- records (docs/spec.md 1.4) ---------------------------------------- */

/**
 * kfifo_rec_max - the longest record a length header can describe
 * @recsize: the size of the length header: 0, 1 or 2
 *
 * The one place the header limit is written: kfifo_in_rec() refuses a
 * longer record (seed bug 4), kfifo_avail_rec() never returns more, and
 * bindings check against it.
 *
 * Return: 255 for @recsize 1, 65535 for 2, UINT_MAX for 0 (a fixed-size
 * record has no header to limit it); 0 for any other @recsize, which no
 * record call accepts.
 *
 * Concurrency: any thread (it reads no fifo).
 */
static inline unsigned int kfifo_rec_max(unsigned int recsize)
{
	return recsize == 0   ? UINT_MAX
	       : recsize == 1 ? 0xffu
	       : recsize == 2 ? 0xffffu
			      : 0;
}

/* private: the out-of-line record calls; kfifo__*_rec_generic take any
 * recsize, kfifo__*_rec<N> a fixed one.  Use the kfifo_*_rec() calls.
 * They are exported from libkfifo.so only because the inline calls below
 * call them from the user's code; no other kfifo__ name is. */
KFIFO_API unsigned int kfifo__in_rec_generic(struct kfifo *fifo,
					     const void *from, unsigned int n,
					     unsigned int recsize);
KFIFO_API unsigned int kfifo__in_rec0(struct kfifo *fifo, const void *from,
				      unsigned int n);
KFIFO_API unsigned int kfifo__in_rec1(struct kfifo *fifo, const void *from,
				      unsigned int n);
KFIFO_API unsigned int kfifo__in_rec2(struct kfifo *fifo, const void *from,
				      unsigned int n);
KFIFO_API unsigned int kfifo__out_rec_generic(struct kfifo *fifo, void *to,
					      unsigned int n,
					      unsigned int recsize,
					      unsigned int *total);
KFIFO_API unsigned int kfifo__out_rec0(struct kfifo *fifo, void *to,
				       unsigned int n, unsigned int *total);
KFIFO_API unsigned int kfifo__out_rec1(struct kfifo *fifo, void *to,
				       unsigned int n, unsigned int *total);
KFIFO_API unsigned int kfifo__out_rec2(struct kfifo *fifo, void *to,
				       unsigned int n, unsigned int *total);
KFIFO_API unsigned int kfifo__peek_rec_generic(struct kfifo *fifo,
					       unsigned int recsize);
KFIFO_API void kfifo__skip_rec_generic(struct kfifo *fifo,
				       unsigned int recsize);

/*
 * The seeds pick a specialised path when @recsize is a compile-time
 * constant.  We keep the idea: a constant 0, 1 or 2 calls a copy of the
 * record code compiled for that header size (no recsize branches on the
 * hot path); anything else calls the generic code.  Both come from the
 * same source in kfifo_rec.c, so the results are identical.
 */
#if KFIFO__HAVE_CONSTANT_P
#define KFIFO__CONST_IS(x, v) (__builtin_constant_p(x) && (x) == (v))
#else
#define KFIFO__CONST_IS(x, v) 0
#endif

/**
 * kfifo_in_rec - put one record into the fifo
 * @fifo: the fifo
 * @from: the record's data
 * @n: the record's length in bytes
 * @recsize: the size of the length header: 0 (fixed-size records), 1
 *           (records of 0-255 bytes) or 2 (0-65535 bytes, little-endian)
 *
 * Stores the header and @n bytes, all or nothing, and publishes them at
 * once: a concurrent reader never sees half a record.
 *
 * Return: 0 on success.  @n + 1 (UINT_MAX if @n is UINT_MAX), storing
 * nothing, if @n + @recsize > kfifo_avail(), if @n does not fit the header
 * or if @recsize is not 0, 1 or 2.
 *
 * Concurrency: producer side.
 */
static inline KFIFO__MUST_CHECK unsigned int
kfifo_in_rec(struct kfifo *fifo, const void *from, unsigned int n,
	     unsigned int recsize)
{
	if (KFIFO__CONST_IS(recsize, 0))
		return kfifo__in_rec0(fifo, from, n);
	if (KFIFO__CONST_IS(recsize, 1))
		return kfifo__in_rec1(fifo, from, n);
	if (KFIFO__CONST_IS(recsize, 2))
		return kfifo__in_rec2(fifo, from, n);
	return kfifo__in_rec_generic(fifo, from, n, recsize);
}

/**
 * kfifo_out_rec - get one record from the fifo
 * @fifo: the fifo
 * @to: where to copy the record's data
 * @n: the capacity of @to
 * @recsize: the size of the length header: 0, 1 or 2
 * @total: if not NULL, receives the record's length L (for @recsize 0,
 *         L = @n; 0 when no header could be read)
 *
 * Copies exactly L bytes (bytes of @to past L are untouched) and removes
 * the header and the data.
 *
 * Return: 0 on success; L if L > @n (nothing removed); @n if the fifo holds
 * less than a whole record or @recsize is not 0, 1 or 2 (nothing removed).
 *
 * Concurrency: consumer side.
 */
static inline KFIFO__MUST_CHECK unsigned int
kfifo_out_rec(struct kfifo *fifo, void *to, unsigned int n,
	      unsigned int recsize, unsigned int *total)
{
	if (KFIFO__CONST_IS(recsize, 0))
		return kfifo__out_rec0(fifo, to, n, total);
	if (KFIFO__CONST_IS(recsize, 1))
		return kfifo__out_rec1(fifo, to, n, total);
	if (KFIFO__CONST_IS(recsize, 2))
		return kfifo__out_rec2(fifo, to, n, total);
	return kfifo__out_rec_generic(fifo, to, n, recsize, total);
}

/**
 * kfifo_from_user_rec - put one record from "user space" into the fifo
 * @fifo: the fifo
 * @from: the record's data
 * @n: the record's length
 * @recsize: the size of the length header: 0, 1 or 2
 *
 * Return: as kfifo_in_rec().
 *
 * Concurrency: producer side.
 */
static inline KFIFO__MUST_CHECK unsigned int
kfifo_from_user_rec(struct kfifo *fifo, const void *from, unsigned int n,
		    unsigned int recsize)
{
	return kfifo_in_rec(fifo, from, n, recsize);
}

/**
 * kfifo_to_user_rec - get one record from the fifo into "user space"
 * @fifo: the fifo
 * @to: where to copy the record's data
 * @n: the capacity of @to
 * @recsize: the size of the length header: 0, 1 or 2
 * @total: if not NULL, receives the record's length
 *
 * Return: as kfifo_out_rec().
 *
 * Concurrency: consumer side.
 */
static inline KFIFO__MUST_CHECK unsigned int
kfifo_to_user_rec(struct kfifo *fifo, void *to, unsigned int n,
		  unsigned int recsize, unsigned int *total)
{
	return kfifo_out_rec(fifo, to, n, recsize, total);
}

/**
 * kfifo_peek_rec - the length of the next record
 * @fifo: the fifo
 * @recsize: the size of the length header: 0, 1 or 2
 *
 * Return: the length in the next record's header; 0 if the fifo holds
 * fewer than @recsize bytes or @recsize is not 0, 1 or 2; kfifo_len() for
 * @recsize 0.
 *
 * Concurrency: consumer side; with many consumers it holds their lock, so
 * the header it reads is not that of a record being taken.
 */
static inline KFIFO__MUST_CHECK unsigned int
kfifo_peek_rec(struct kfifo *fifo, unsigned int recsize)
{
	return kfifo__peek_rec_generic(fifo, recsize);
}

/**
 * kfifo_avail_rec - the longest record that fits now
 * @fifo: the fifo
 * @recsize: the size of the length header: 0, 1 or 2
 *
 * Mainline 2.6.33-2.6.35 returns kfifo_avail() - @recsize (0 when that is
 * not positive).  This is also capped at the header's limit (255 for
 * @recsize 1, 65535 for 2), because kfifo_in_rec() refuses longer records
 * (seed bug 4): kfifo_in_rec() of a record of at most this length succeeds
 * as long as no other producer runs.
 *
 * Return: that length; 0 for a @recsize other than 0, 1 or 2.
 *
 * Concurrency: any side; a consistent snapshot (it only grows while the
 * caller is the one producer).
 */
KFIFO_API KFIFO__MUST_CHECK unsigned int kfifo_avail_rec(struct kfifo *fifo,
							 unsigned int recsize);

/**
 * kfifo_skip_rec - drop the next record
 * @fifo: the fifo
 * @recsize: the size of the length header: 0, 1 or 2
 *
 * If the fifo holds less than a whole record, or @recsize is 0, it is
 * emptied (seed behaviour).  A @recsize other than 0, 1 or 2 changes
 * nothing.
 *
 * Concurrency: consumer side.
 */
static inline void kfifo_skip_rec(struct kfifo *fifo, unsigned int recsize)
{
	kfifo__skip_rec_generic(fifo, recsize);
}

/* ---- waiting and end of stream (docs/spec.md 3.1) --------------------- */

/*
 * A wait returns as soon as its condition holds, sleeping in the kernel
 * meanwhile (Linux: a futex; elsewhere, or with the CMake option
 * KFIFO_WAIT_FALLBACK, a sleep-poll loop, see README.md).  Every call that
 * moves @in wakes the threads waiting for data, every call that moves @out
 * the threads waiting for room; kfifo_close() wakes both.  While nobody
 * waits, those calls make no system call and take no lock.
 *
 * @timeout_ns: < 0 waits without limit, 0 only checks, > 0 waits at most
 * that many nanoseconds counted from the call (wake-ups that find the
 * condition still false do not restart it; CLOCK_MONOTONIC).
 *
 * Results are decided in this order: -EINVAL; -EPIPE; 0 when the
 * condition holds; -ETIMEDOUT.  -EINTR: a signal handler ran while the
 * call slept and the condition still did not hold; retry with the time
 * left.  Every handler installed without SA_RESTART ends the sleep so.
 * One installed with SA_RESTART does not end a wait without limit (the
 * kernel restarts the futex sleep), but it does end a wait with a timeout
 * (the kernel never restarts a timed futex sleep, as it never restarts
 * nanosleep or poll), and any wait of the fallback.  A signal that
 * arrives just before the sleep begins does not end it: wait in slices of
 * bounded length if a handler must be able to end every wait.  A wait
 * never returns 0 while its condition does not hold.
 */

/**
 * kfifo_wait_avail - wait until the fifo has room for @n bytes
 * @fifo: the fifo
 * @n: the free bytes wanted, at most kfifo_size()
 * @timeout_ns: see above
 *
 * Return: 0 once kfifo_avail() >= @n; -EINVAL if @n > kfifo_size() (it
 * could never hold); -EPIPE once the fifo is closed, room or not (nobody
 * will read); -ETIMEDOUT; -EINTR.
 *
 * Concurrency: producer side, or any thread (it reads the indices only).
 * Any number of threads may wait at once.
 */
KFIFO_API KFIFO__MUST_CHECK int kfifo_wait_avail(struct kfifo *fifo,
						 unsigned int n,
						 long long timeout_ns);

/**
 * kfifo_wait_len - wait until the fifo holds @n bytes
 * @fifo: the fifo
 * @n: the stored bytes wanted, at most kfifo_size()
 * @timeout_ns: see above
 *
 * Return: 0 once kfifo_len() >= @n, closed or not; -EINVAL if @n >
 * kfifo_size(); -EPIPE if the fifo is closed and holds fewer than @n bytes
 * (no more will come); -ETIMEDOUT; -EINTR.
 *
 * Concurrency: consumer side, or any thread (it reads the indices only).
 * Any number of threads may wait at once.
 */
KFIFO_API KFIFO__MUST_CHECK int kfifo_wait_len(struct kfifo *fifo,
					       unsigned int n,
					       long long timeout_ns);

/**
 * kfifo_wait_rec - wait until a whole record is stored
 * @fifo: the fifo
 * @recsize: the size of the length header: 1 or 2
 * @timeout_ns: see above
 *
 * Waits until the fifo holds the next record's header and all the data
 * it announces, so that kfifo_out_rec() with a large enough buffer
 * succeeds.
 *
 * Return: 0 once a whole record is stored, closed or not; -EINVAL if
 * @recsize is not 1 or 2 (a record of recsize 0 has no length to wait
 * for); -EPIPE if the fifo is closed and holds no whole record;
 * -ETIMEDOUT; -EINTR.
 *
 * Concurrency: consumer side.  It reads the next header in the buffer:
 * with several consumers that share a spinlock (the _locked calls), only
 * the one that will take the record may wait for it (no other consumer
 * may take records meanwhile).  With KFIFO_MANY_CONSUMERS any consumer
 * may wait: the header is read under the consumers' lock, and another
 * consumer may take the record first (then wait again).
 */
KFIFO_API KFIFO__MUST_CHECK int kfifo_wait_rec(struct kfifo *fifo,
					       unsigned int recsize,
					       long long timeout_ns);

/**
 * kfifo_close - mark the end of the stream
 * @fifo: the fifo
 *
 * Wakes every waiter: from now on kfifo_wait_avail() returns -EPIPE, and
 * kfifo_wait_len() and kfifo_wait_rec() return -EPIPE once their condition
 * cannot hold.  Every other call goes on working, so the consumer drains
 * what is left.  kfifo_reset(), kfifo_init() and kfifo_alloc() reopen the
 * fifo.  Closing twice is harmless.  Waiters still touch @fifo while they
 * return: wait for them before freeing it.
 *
 * Concurrency: any thread, at any time (either side, or a third thread).
 */
KFIFO_API void kfifo_close(struct kfifo *fifo);

/**
 * kfifo_is_closed - whether kfifo_close() ran
 * @fifo: the fifo
 *
 * Return: 1 after kfifo_close() (and before the fifo was reopened), else 0.
 * When it returns 1, everything stored before kfifo_close() is visible.
 *
 * Concurrency: any thread.
 */
KFIFO_API KFIFO__MUST_CHECK int kfifo_is_closed(struct kfifo *fifo);

/* ---- a fifo shared between processes (docs/spec.md 3.2) --------------- */

/*
 * The layout of a shared fifo, version 2.  A process lays it out in memory
 * that several processes map (shm_open(), a file, Python's
 * multiprocessing.shared_memory), possibly at a different address in each,
 * with kfifo_shared_create(); the others attach with kfifo_shared_attach().
 * Each gets a struct kfifo of its own, a process-local handle, on which
 * every call of docs/spec.md 1.3, 1.4, 3.1 and 3.3 works.
 *
 * The layout is a file format: fixed-width 32-bit words at fixed offsets,
 * the same for 32-bit and 64-bit processes (an i686 and an x86-64 process
 * share one fifo), independent of struct kfifo.  Byte by byte:
 *
 *   offset  size  contents
 *   -- cache line 0: read by both sides, written only when a thread
 *      starts or stops waiting and by kfifo_close() / kfifo_reset()
 *        0     4  KFIFO_SHARED_MAGIC ("kfif" on a little-endian machine),
 *                 written last, with release, by the creator
 *        4     4  KFIFO_SHARED_VERSION, the layout version: 3 (2 is
 *                 accepted: the same words, the ones 3 added still 0)
 *        8     4  the size of the data area, a power of two, 1 to 2^31
 *       12     4  flags: KFIFO_SHARED_FLAG_NOTIFY (kfifo_shared_create()
 *                 sets it), KFIFO_SHARED_FLAG_MANY_PRODUCERS and
 *                 KFIFO_SHARED_FLAG_MANY_CONSUMERS (the mode, set at
 *                 creation, never changed); attaching refuses any flag
 *                 outside KFIFO_SHARED_FLAGS_KNOWN
 *       16     4  the number of threads waiting for data
 *       20     4  the number of threads waiting for room
 *       24     4  1 once kfifo_close() ran, else 0
 *       28     4  the producer claim: 0, or the pid of the one process
 *                 that produces into a fifo of one producer (the first
 *                 that did; kfifo_in_lock())
 *       32     4  the consumer claim, the same for the consumer
 *       36    28  reserved, 0
 *   -- cache line 1: the producer's
 *       64     4  in, written by the producer
 *       68     4  the futex word consumers sleep on
 *       72     4  the producers' lock (many producers): 0 free, else the
 *                 holder's thread id (bits 0-29) and bit 31 set while
 *                 threads may sleep on it (a futex word)
 *       76    52  reserved, 0
 *   -- cache line 2: the consumer's
 *      128     4  out, written by the consumer
 *      132     4  the futex word producers sleep on
 *      136     4  the consumers' lock (many consumers), as at 72
 *      140    52  reserved, 0
 *   -- cache line 3: the notifier slots (KFIFO_SHARED_FLAG_NOTIFY),
 *      written when a notifier is armed, signalled, cleared or disarmed
 *      192    64  KFIFO_NOTIFY_SLOTS (16) words, 0 for a free slot, else
 *                 (token << 2) | (pending << 1) | direction: the
 *                 direction 0 data, 1 room; pending 1 while the notifier
 *                 waits to be signalled; token 1 to 2^30 - 1 names the
 *                 notifier's socket: with KFIFO_SHARED_FLAG_NOTIFY_PATH
 *                 the AF_UNIX datagram socket file
 *                 "/dev/shm/.kfifo-notify-" followed by the token in 8
 *                 lower-case hex digits, mode 0600; without it the Linux
 *                 abstract address "\0kfifo-notify-" and the same digits
 *                 (see kfifo_notifier_open())
 *      256  size  the data
 *
 * The words are in the byte order of the machine (a block carried to a
 * machine of the other byte order fails the magic check).  With the
 * mapping aligned to 64 bytes, as mmap() aligns it, @in and @out each own
 * a 64-byte cache line that the other side only reads, and the two lines
 * do not fall in one 128-byte pair either (the unit the adjacent-line
 * prefetcher of x86 fetches): the consumer's line 2 pairs with the empty
 * line 3, which is written only around a notifier's wait, not with the
 * data the producer writes.  KFIFO_SHARED_OFF_* below are these offsets; a
 * change to this table changes KFIFO_SHARED_VERSION.
 *
 * Another version.  kfifo_shared_attach() refuses a block of another
 * layout version with -EINVAL, the same error as for memory that holds no
 * fifo at all (version 2, this layout without the claims and locks, is
 * attached as a fifo of one producer and one consumer).  To tell the two
 * apart, read the two words at KFIFO_SHARED_OFF_MAGIC and
 * KFIFO_SHARED_OFF_VERSION: the magic number with another version is a
 * fifo of another layout (version 1 is what development builds before this one wrote:
 * an image of a 64-bit struct kfifo, @in at offset 92 and @out at 172);
 * create the fifo again with this library, in every process.
 *
 * Waiting and waking work across processes (on Linux a futex without the
 * private flag).  One producer process and one consumer process need no
 * lock; a fifo created with kfifo_shared_create_mode() for many producers
 * or many consumers locks that side itself, across processes, with a lock
 * that survives its holder's death (kfifo_in_lock()).  The _locked calls work across processes when the processes keep
 * the kfifo_spinlock_t in memory they all map (for example right after
 * kfifo_shared_bytes() bytes of the same mapping): a spinlock trusts every
 * process that holds it.
 *
 * The other process is not trusted.  The handle keeps the size and the
 * buffer address to itself (the size in the mapping is read once, by
 * kfifo_shared_attach()), reads every index from the mapping as a value it
 * checks, clamping the fill level to the size, and bounds every loop that
 * reads what the other side writes.  Whatever the other process writes
 * into the mapping, calls on a handle never read or write outside it,
 * every count they return is at most the n asked for, kfifo_len() is at
 * most kfifo_size(), every region lies in the data area, and no wait lasts
 * past its timeout, no side lock is waited for longer than
 * KFIFO_LOCK_PATIENCE_MS; at worst this process reads garbled data, sees
 * the fifo full, empty or closed, or a call fails with -ETIMEDOUT.  kfifo_valid() returns 0 on a handle whose
 * indices are not consistent.
 *
 * A process that dies leaves the fifo as it was: a dead producer looks
 * like one that is not producing and a dead consumer like one that is not
 * consuming.  Waits with a timeout notice nothing more than that; learn of
 * a peer's death from the process itself (waitpid(), a pidfd, a pipe that
 * reaches end of file) and kfifo_close() the fifo, or wait in slices and
 * check between them.
 */
#define KFIFO_SHARED_MAGIC 0x6669666bu
#define KFIFO_SHARED_VERSION 3u
/*
 * Flag: line 3 holds notifier slots and every publisher signals them.
 * kfifo_shared_create() sets it, so that a library from before notifiers
 * (which knows no flag) refuses the block instead of publishing without
 * signalling; on a block without it kfifo_notifier_open() fails.
 */
#define KFIFO_SHARED_FLAG_NOTIFY 1u
/*
 * Flags: the mode (kfifo_shared_create_mode()).  A library of layout
 * version 2 refuses the block (an unknown flag, another version) rather
 * than move an index without the lock.
 */
#define KFIFO_SHARED_FLAG_MANY_PRODUCERS 2u
#define KFIFO_SHARED_FLAG_MANY_CONSUMERS 4u
/*
 * Flag: the notifiers' sockets are files in /dev/shm of mode 0600, which
 * only their owner's uid and root may send to, not abstract names that
 * any local process may flood.  kfifo_shared_create() sets it, so that a
 * library that would signal the abstract names refuses the block.
 */
#define KFIFO_SHARED_FLAG_NOTIFY_PATH 8u
/* the flags kfifo_shared_attach() accepts in the flags word */
#define KFIFO_SHARED_FLAGS_KNOWN                                               \
	(KFIFO_SHARED_FLAG_NOTIFY | KFIFO_SHARED_FLAG_MANY_PRODUCERS |         \
	 KFIFO_SHARED_FLAG_MANY_CONSUMERS | KFIFO_SHARED_FLAG_NOTIFY_PATH)
/* the alignment kfifo_shared_create() and kfifo_shared_attach() need */
#define KFIFO_SHARED_ALIGN 8
#define KFIFO_SHARED_OFF_MAGIC 0
#define KFIFO_SHARED_OFF_VERSION 4
#define KFIFO_SHARED_OFF_SIZE 8
#define KFIFO_SHARED_OFF_FLAGS 12
#define KFIFO_SHARED_OFF_DATA_WAITERS 16
#define KFIFO_SHARED_OFF_ROOM_WAITERS 20
#define KFIFO_SHARED_OFF_CLOSED 24
#define KFIFO_SHARED_OFF_IN_CLAIM 28
#define KFIFO_SHARED_OFF_OUT_CLAIM 32
#define KFIFO_SHARED_OFF_IN 64
#define KFIFO_SHARED_OFF_DATA_SEQ 68
#define KFIFO_SHARED_OFF_IN_LOCK 72
#define KFIFO_SHARED_OFF_OUT 128
#define KFIFO_SHARED_OFF_ROOM_SEQ 132
#define KFIFO_SHARED_OFF_OUT_LOCK 136
#define KFIFO_SHARED_OFF_NOTIFY 192
/* the number of notifier slots of a shared fifo (line 3) */
#define KFIFO_NOTIFY_SLOTS 16
#define KFIFO_SHARED_OFF_DATA 256

/* The table above, checked where the compiler can (C11, C++11). */
#if defined(__cplusplus) && __cplusplus >= 201103L
#define KFIFO__STATIC_ASSERT(c, m) static_assert(c, m)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define KFIFO__STATIC_ASSERT(c, m) _Static_assert(c, m)
#endif
#ifdef KFIFO__STATIC_ASSERT
KFIFO__STATIC_ASSERT(sizeof(unsigned int) == 4,
		     "the shared layout's words are 32-bit unsigned ints");
KFIFO__STATIC_ASSERT(KFIFO_SHARED_OFF_CLOSED / 64 == 0 &&
			     KFIFO_SHARED_OFF_IN / 64 == 1 &&
			     KFIFO_SHARED_OFF_DATA_SEQ / 64 == 1 &&
			     KFIFO_SHARED_OFF_OUT / 64 == 2 &&
			     KFIFO_SHARED_OFF_ROOM_SEQ / 64 == 2,
		     "the header's words on the lines the table gives");
KFIFO__STATIC_ASSERT(KFIFO_SHARED_OFF_IN / 128 != KFIFO_SHARED_OFF_OUT / 128 &&
			     KFIFO_SHARED_OFF_OUT / 128 !=
				     KFIFO_SHARED_OFF_DATA / 128,
		     "in, out and the data in three 128-byte pairs");
KFIFO__STATIC_ASSERT(KFIFO_SHARED_OFF_NOTIFY / 64 == 3 &&
			     KFIFO_SHARED_OFF_NOTIFY + 4 * KFIFO_NOTIFY_SLOTS ==
				     KFIFO_SHARED_OFF_DATA,
		     "the notifier slots fill line 3");
KFIFO__STATIC_ASSERT(KFIFO_SHARED_OFF_DATA % 64 == 0 &&
			     KFIFO_SHARED_OFF_ROOM_SEQ + 4 <=
				     KFIFO_SHARED_OFF_DATA,
		     "the data starts on a line of its own after the header");
#endif

/**
 * kfifo_shared_bytes - the length of mapping a shared fifo needs
 * @size: the fifo size; rounded up to a power of two
 *
 * Return: KFIFO_SHARED_OFF_DATA plus @size rounded up to a power of two,
 * or 0 if @size is 0 or greater than 2^31.
 */
KFIFO_API KFIFO__MUST_CHECK size_t kfifo_shared_bytes(unsigned int size);

/**
 * kfifo_shared_create - lay out a new, empty shared fifo and get a handle
 * @fifo: the handle to set up (process-local memory)
 * @mem: the start of the shared memory, aligned to KFIFO_SHARED_ALIGN (8)
 *       bytes at least (64 keeps the indices on their own cache lines;
 *       mmap() gives a page)
 * @len: the length of @mem, at least kfifo_shared_bytes(@size)
 * @size: the fifo size; rounded up to a power of two (1 to 2^31)
 *
 * Writes the whole header, the magic number last, so that a process that
 * attaches sees either no fifo or a complete one.  The data area is left
 * as it is.  Nobody may use the memory meanwhile.
 *
 * Return: 0, or -EINVAL (@mem NULL or misaligned, @size 0 or above 2^31,
 * @len too short); then *@fifo is a valid fifo of size 0 and @mem is left
 * alone.
 */
KFIFO_API KFIFO__MUST_CHECK int kfifo_shared_create(struct kfifo *fifo,
						    void *mem, size_t len,
						    unsigned int size);

/**
 * kfifo_shared_attach - get a handle to a shared fifo created elsewhere
 * @fifo: the handle to set up (process-local memory)
 * @mem: this process's mapping of the memory the fifo was created in
 * @len: the length of @mem
 *
 * Return: 0, or -EINVAL (@mem NULL or not aligned to KFIFO_SHARED_ALIGN,
 * @len shorter than the header, no magic number, another layout version
 * (see "Another version" above to tell it from garbage), a flag outside
 * KFIFO_SHARED_FLAGS_KNOWN, a size that is not a power of two from 1 to
 * 2^31 or does not fit @len); then *@fifo is a valid fifo of size 0.
 *
 * kfifo_free() on a handle from either call unmaps and frees nothing: it
 * makes the handle a fifo of size 0 and leaves the shared memory, which
 * the caller unmaps.  kfifo_reset() resets the shared fifo for every
 * process; kfifo_init() and kfifo_alloc() turn the handle into an
 * ordinary fifo.
 */
KFIFO_API KFIFO__MUST_CHECK int kfifo_shared_attach(struct kfifo *fifo,
						    void *mem, size_t len);

/**
 * kfifo_is_shared - whether @fifo is a handle to a shared fifo
 * @fifo: the fifo
 *
 * Return: 1 for a handle from kfifo_shared_create() or
 * kfifo_shared_attach() (until kfifo_free(), kfifo_init() or
 * kfifo_alloc()), else 0.
 */
KFIFO_API KFIFO__MUST_CHECK int kfifo_is_shared(struct kfifo *fifo);

/* ---- shared memory blocks to put a shared fifo in ---------------------- */

/*
 * A block is a mapping of a shared memory file, made for kfifo_shared_*():
 * a named POSIX shared memory object (shm_open(), "/dev/shm/NAME" on
 * Linux) that any process of the same user may open by name, or an
 * anonymous memfd sealed against shrinking and growing that travels only
 * as a file descriptor (fork(), SCM_RIGHTS).  Both are backed when they
 * are created, so that memory the system cannot supply is -ENOSPC from
 * the creating call, never a SIGBUS at a later first touch.
 *
 * A peer that can open a named block can shrink it, and this process gets
 * SIGBUS at its next access past the new end; nothing in the mapping can
 * prevent that.  A sealed memfd cannot be shrunk by anyone: give a peer
 * that must not be able to kill you only a sealed block, and attach a
 * descriptor from a peer you do not trust only if it is sealed
 * (kfifo_block_attach_fd() checks).  docs/shared-memory.md has the whole
 * threat model.
 *
 * struct kfifo_block is the caller's memory; the calls fill it in.  After a
 * failed call or kfifo_block_close() it is an empty block (@mem NULL, @fd
 * -1), which kfifo_block_close() accepts again.
 *
 * Concurrency: a struct kfifo_block belongs to one thread at a time; the
 * memory it maps is what processes share (through kfifo_shared_*()).
 */

/* the longest block name, without the leading '/' shm_open() wants */
#define KFIFO_BLOCK_NAME_MAX 250
/* kfifo_block_attach_fd(): accept a descriptor not sealed against shrinking */
#define KFIFO_BLOCK_TRUST_UNSEALED 1u

/**
 * struct kfifo_block - a mapped shared memory block
 * @mem: the mapping (page aligned, so fit for kfifo_shared_create()), or
 *       NULL for an empty block
 * @len: the length of @mem: the whole file, as fstat() gave it before
 *       mapping
 * @fd: the descriptor kept for passing the block on (a memfd, or a
 *      descriptor given to kfifo_block_attach_fd()), else -1; the block
 *      closes it
 * @sealed: 1 if the file is sealed against shrinking (F_SEAL_SHRINK), so
 *          that nobody can make an access to @mem fault; else 0
 * @name: the name of a named block (no leading '/'), "" for a memfd or a
 *        descriptor
 */
struct kfifo_block {
	void *mem;
	size_t len;
	int fd;
	int sealed;
	char name[KFIFO_BLOCK_NAME_MAX + 1];
};

/**
 * kfifo_block_create - create, back and map a new named block
 * @block: filled in on success, an empty block on failure
 * @name: the name without a leading '/' (no '/' in it, not "." or "..",
 *        at most KFIFO_BLOCK_NAME_MAX bytes), or NULL for a new random name
 *        "kfifo_" and 16 hexadecimal digits
 * @len: the length, kfifo_shared_bytes() of the fifo to lay out in it
 * @mode: the file's permission bits (0600: only this user may open it)
 *
 * Creates the object with O_EXCL: a name that exists is never taken over
 * (a random name is retried with another).  Sets its length, reserves its
 * pages (posix_fallocate(), where the file system can), and maps it.  The
 * name stays until kfifo_block_unlink(); on failure nothing is left.
 *
 * Return: 0, or a negative errno: -EINVAL (@len 0, or a bad @name),
 * -ENAMETOOLONG, -EEXIST (@name is taken), -ENOSPC (the memory cannot be
 * reserved), or what shm_open(), ftruncate() or mmap() failed with.
 *
 * Concurrency: any thread, on its own @block.
 */
KFIFO_API KFIFO__MUST_CHECK int kfifo_block_create(struct kfifo_block *block,
						   const char *name, size_t len,
						   unsigned int mode);

/**
 * kfifo_block_create_sealed - create, back, seal and map a new memfd
 * @block: filled in on success (@fd open, close-on-exec, @sealed 1), an
 *         empty block on failure
 * @len: the length, kfifo_shared_bytes() of the fifo to lay out in it
 *
 * The memfd has no name; it lives while a descriptor or a mapping of it
 * does.  It is reserved like a named block, then sealed with F_SEAL_SHRINK,
 * F_SEAL_GROW and F_SEAL_SEAL: its length can never change, and no seal can
 * be removed.  Pass @fd on (fork(), SCM_RIGHTS) for others to attach with
 * kfifo_block_attach_fd().
 *
 * Return: 0, or a negative errno: -EINVAL (@len 0), -ENOSPC, -ENOSYS (no
 * memfd on this system), or what memfd_create(), ftruncate(), fcntl() or
 * mmap() failed with.
 *
 * Concurrency: any thread, on its own @block.
 */
KFIFO_API KFIFO__MUST_CHECK int
kfifo_block_create_sealed(struct kfifo_block *block, size_t len);

/**
 * kfifo_block_open - map an existing named block
 * @block: filled in on success (@fd -1: the descriptor is closed once
 *         mapped), an empty block on failure
 * @name: the name, as kfifo_block_create() took it
 * @min_len: the least length the file must have (KFIFO_SHARED_OFF_DATA
 *           for a shared fifo's header); at least 1 is asked in any case
 *
 * Maps the whole file, its length read with fstat() before mapping.  The
 * contents are not checked: kfifo_shared_attach() does that.  A named
 * block is never sealed.
 *
 * Return: 0, or a negative errno: -ENOENT (no such block), -EISDIR (a
 * directory has that name), -EINVAL (a bad @name, not a regular file,
 * shorter than @min_len), -ENAMETOOLONG, or what shm_open() or mmap()
 * failed with.
 *
 * Concurrency: any thread, on its own @block.
 */
KFIFO_API KFIFO__MUST_CHECK int kfifo_block_open(struct kfifo_block *block,
						 const char *name,
						 size_t min_len);

/**
 * kfifo_block_attach_fd - map the block of a descriptor someone passed
 * @block: filled in on success (@fd a duplicate, close-on-exec: the
 *         caller keeps and closes @fd), an empty block on failure
 * @fd: a descriptor of a shared memory file, open for reading and writing
 * @min_len: as for kfifo_block_open()
 * @flags: 0, or KFIFO_BLOCK_TRUST_UNSEALED
 *
 * Whoever sent @fd keeps a descriptor of the same file.  Unless the file is
 * sealed against shrinking (F_SEAL_SHRINK, as kfifo_block_create_sealed()
 * makes it), the sender can shrink it after this call and kill this
 * process with SIGBUS; so an unsealed file is refused unless @flags has
 * KFIFO_BLOCK_TRUST_UNSEALED.  The seals and the length are read before
 * mapping; @block->sealed tells which was mapped.
 *
 * Return: 0, or a negative errno: -EBADF, -EINVAL (not a regular file,
 * shorter than @min_len), -EPERM (not sealed against shrinking and not
 * trusted), or what dup() or mmap() failed with.
 *
 * Concurrency: any thread, on its own @block.
 */
KFIFO_API KFIFO__MUST_CHECK int kfifo_block_attach_fd(struct kfifo_block *block,
						      int fd, size_t min_len,
						      unsigned int flags);

/**
 * kfifo_block_is_sealed - whether nobody can shrink @block under us
 * @block: a block from one of the calls above
 *
 * Return: 1 if the block is a file sealed against shrinking, else 0 (a
 * named block, a trusted unsealed descriptor, an empty block).
 */
KFIFO_API KFIFO__MUST_CHECK int
kfifo_block_is_sealed(const struct kfifo_block *block);

/**
 * kfifo_block_close - unmap @block and close its descriptor
 * @block: a block, or an empty one (then nothing happens)
 *
 * Leaves an empty block.  A named block's name stays (kfifo_block_unlink()
 * removes it); a memfd goes when its last descriptor and mapping do.
 * Close a fifo's handle on the block (kfifo_free()) first: after this call
 * its memory is gone.
 *
 * Concurrency: not while anyone else in this process uses the mapping.
 */
KFIFO_API void kfifo_block_close(struct kfifo_block *block);

/**
 * kfifo_block_unlink - remove the name of a named block
 * @name: the name, as kfifo_block_create() took it
 *
 * The mappings and descriptors that exist stay valid; the name can no
 * longer be opened, and the memory goes when the last of them does.  Only
 * the creator should call it, once: the name may be taken again after.
 *
 * Return: 0, or a negative errno: -ENOENT (no such name), -EINVAL (a bad
 * name), -ENAMETOOLONG, or what shm_unlink() failed with.
 *
 * Concurrency: any thread.
 */
KFIFO_API KFIFO__MUST_CHECK int kfifo_block_unlink(const char *name);

/* ---- many producers, many consumers ------------------------------------ */

/*
 * The mode of a fifo says how many producers and how many consumers may
 * use it at the same time: one of each (0, the default, lock-free), or
 * many on a side (KFIFO_MANY_PRODUCERS, KFIFO_MANY_CONSUMERS, or both).
 * On a side that has many, every call that moves that side's index (the
 * byte, record and zero-copy calls, kfifo_skip(), kfifo_reset_out(), and
 * the typed API's element, record and kfifo_dma_* calls) takes that side's
 * lock for its duration, kfifo_*_prepare() to the matching
 * kfifo_*_finish() included; so do the calls that read the consumer side
 * without moving it (kfifo_out_peek(), kfifo_peek_rec(), the typed
 * kfifo_peek(), kfifo_out_peek(), kfifo_peek_len() and kfifo_out_linear()),
 * which then never see a record another consumer is taking.  The other
 * side stays lock-free.
 * What is guaranteed then: every byte and record is taken once, each
 * producer's records stay in its order, a record is never split or
 * interleaved with another.
 *
 * The lock is a 32-bit futex word holding its holder's thread id.  A
 * waiter that finds the holder dead (the thread gone, in a shared fifo its
 * process killed) takes the lock over.  An index moves only at the end of
 * a call, so what a dead holder did is undone, never half done: a
 * producer's partly written record is never seen (the next producer writes
 * over it), a consumer's partly read record stays in the fifo for the
 * next consumer.  The wait calls (kfifo_wait_len() ...) take no lock: with
 * many consumers, the data a wait saw may be gone when the consumer comes
 * to take it, and the consumer waits again.
 */
#define KFIFO_MANY_PRODUCERS 1u
#define KFIFO_MANY_CONSUMERS 2u
#define KFIFO_MODE_MASK (KFIFO_MANY_PRODUCERS | KFIFO_MANY_CONSUMERS)

/*
 * The longest a call on a shared fifo waits for a side lock held by a
 * live process (a hostile one may hold it for ever) before it gives up
 * with -ETIMEDOUT, or returns "nothing moved" where it returns a count.
 */
#define KFIFO_LOCK_PATIENCE_MS 10000

/**
 * kfifo_set_mode - let many producers or many consumers use a fifo
 * @fifo: an ordinary fifo (kfifo_init(), kfifo_alloc(), the declaration
 *        macros), not a handle to a shared fifo (see kfifo_shared_create_mode())
 * @mode: 0 (one producer, one consumer), or KFIFO_MANY_PRODUCERS and / or
 *        KFIFO_MANY_CONSUMERS
 *
 * kfifo_init() and kfifo_alloc() set mode 0; call this after them.
 *
 * Return: 0, or -EINVAL (@mode has other bits, @fifo is a handle).
 *
 * Concurrency: not while anyone else uses the fifo.
 */
KFIFO_API KFIFO__MUST_CHECK int kfifo_set_mode(struct kfifo *fifo,
					       unsigned int mode);

/**
 * kfifo_mode - the mode of a fifo
 * @fifo: the fifo or handle
 *
 * Return: 0, KFIFO_MANY_PRODUCERS, KFIFO_MANY_CONSUMERS or both.
 *
 * Concurrency: any thread.
 */
KFIFO_API KFIFO__MUST_CHECK unsigned int kfifo_mode(struct kfifo *fifo);

/**
 * kfifo_shared_create_mode - kfifo_shared_create() with a mode
 * @fifo: the handle to set up (process-local memory)
 * @mem: the start of the shared memory (as for kfifo_shared_create())
 * @len: the length of @mem, at least kfifo_shared_bytes(@size)
 * @size: the fifo size; rounded up to a power of two (1 to 2^31)
 * @mode: as for kfifo_set_mode(); every process that attaches gets it
 *
 * Return: 0, or -EINVAL (as kfifo_shared_create(), or a bad @mode).
 */
KFIFO_API KFIFO__MUST_CHECK int
kfifo_shared_create_mode(struct kfifo *fifo, void *mem, size_t len,
			 unsigned int size, unsigned int mode);

/**
 * kfifo_in_lock - hold the producer side for a sequence of calls
 * @fifo: the fifo
 *
 * With many producers, takes the producers' lock (the calls in between
 * take it again, nested, without waiting); kfifo_in_unlock() gives it
 * back.  With one producer on a shared fifo, claims the producer side for
 * this process: the first process that produces into a fifo of one
 * producer claims it until it calls kfifo_shared_detach() or dies, and
 * another process gets -EBUSY meanwhile (the calls that return a count
 * return 0 then, with errno EBUSY).  With one producer on an ordinary fifo
 * it does nothing.  The index calls make the same claim on their first
 * use, so calling this is needed only to hold the side across calls or to
 * learn why a call moved nothing.
 *
 * Return: 0 (then call kfifo_in_unlock()), -EBUSY (one producer, and
 * another live process claims the side: create the fifo with
 * KFIFO_MANY_PRODUCERS), -ETIMEDOUT (a live holder kept the lock for
 * KFIFO_LOCK_PATIENCE_MS).
 *
 * Concurrency: producer side.
 */
KFIFO_API KFIFO__MUST_CHECK int kfifo_in_lock(struct kfifo *fifo);

/**
 * kfifo_in_unlock - end what kfifo_in_lock() began
 * @fifo: the fifo
 *
 * Concurrency: the thread that called kfifo_in_lock().
 */
KFIFO_API void kfifo_in_unlock(struct kfifo *fifo);

/**
 * kfifo_out_lock - kfifo_in_lock() for the consumer side
 * @fifo: the fifo
 *
 * Return: 0, -EBUSY (one consumer, and another live process claims the
 * side: create the fifo with KFIFO_MANY_CONSUMERS), -ETIMEDOUT.
 *
 * Concurrency: consumer side.
 */
KFIFO_API KFIFO__MUST_CHECK int kfifo_out_lock(struct kfifo *fifo);

/**
 * kfifo_out_unlock - end what kfifo_out_lock() began
 * @fifo: the fifo
 *
 * Concurrency: the thread that called kfifo_out_lock().
 */
KFIFO_API void kfifo_out_unlock(struct kfifo *fifo);

/**
 * kfifo_shared_detach - give up this process's claims on a shared fifo
 * @fifo: a handle
 *
 * Another process may then produce (consume) in a fifo of one producer
 * (consumer) where this one did.  The handle stays usable (its next call
 * claims again).  kfifo_free() of a handle calls it; a process that dies
 * gives its claims up by itself.  Does nothing on an ordinary fifo.
 *
 * Concurrency: not while this process uses the handle.
 */
KFIFO_API void kfifo_shared_detach(struct kfifo *fifo);

/* ---- notifiers: a file descriptor to wait on (event loops) ------------ */

/*
 * A notifier is a file descriptor that becomes readable when, while the
 * notifier is armed, the index of its direction moves: KFIFO_NOTIFY_DATA
 * when @in moves (data was stored), KFIFO_NOTIFY_ROOM when @out moves
 * (room was made); also when the fifo is closed (kfifo_close()), and when
 * the notifier is detached (kfifo_notifier_detach(), before the fifo goes
 * away).  Event loops (epoll, poll, select; Python's asyncio, selectors,
 * trio) wait on it instead of sleeping in a kfifo_wait_*() call.
 *
 * An armed notifier counts as a waiter of its direction, exactly like a
 * thread asleep in kfifo_wait_*(): publishers make no system call and take
 * no lock while nobody waits, and go to the out-of-line wake path, which
 * signals the armed notifiers, only while somebody does.  A notifier is
 * signalled once per wait: after the first signal, publishers leave it
 * alone until kfifo_notifier_clear() asks for the next one.
 *
 * The no-lost-wake recipe (the same as the futex waiters'):
 *
 *     kfifo_notifier_arm(n);
 *     for (;;) {
 *             if (the non-blocking call succeeds)   // kfifo_out(), ...
 *                     break;
 *             wait until kfifo_notifier_fd(n) is readable;
 *             kfifo_notifier_clear(n);
 *     }
 *     kfifo_notifier_disarm(n);      // or stay armed for the next call
 *
 * Arming (and clearing) comes before the check, so a publication that the
 * check misses finds the notifier armed and signals it.  The fd may also
 * be readable when nothing changed (a spurious wake-up): check again.
 *
 * Ordinary fifos: the fd is an eventfd, and the armed notifiers of the
 * process are kept in one registry that publishers consult, under a
 * mutex, only on the wake path (so while a notifier is armed, publishing
 * is not async-signal-safe).  Handles (kfifo_shared_create(),
 * kfifo_shared_attach()): the fd is an AF_UNIX datagram socket bound to
 * a socket file of mode 0600 with a random name in /dev/shm (an abstract
 * name on a block without KFIFO_SHARED_FLAG_NOTIFY_PATH), so that only
 * processes of its uid and root may signal it; recorded while armed in one of the
 * KFIFO_NOTIFY_SLOTS slots of the shared header; a publisher in any
 * process that maps the fifo sends one datagram to each armed notifier of
 * its direction.  So a notifier in one process is woken by a producer or
 * consumer in another, whether it forked, was spawned or attached by
 * name, with no descriptor passed.  Limits: at most KFIFO_NOTIFY_SLOTS
 * notifiers are armed on one shared fifo at a time (kfifo_notifier_arm()
 * then fails with -EBUSY: nothing is lost, wait otherwise); the processes
 * must see the same /dev/shm and run as one user (or publish as root); a
 * slot whose process died is freed by the first publisher that signals
 * it, by a publisher's periodic check of the signalled ones, or by an
 * arm() that finds no free slot.  A signal that cannot be sent (no
 * descriptor, no buffer) stays pending for the next publication
 * (docs/notifiers.md has the fault table).  A hostile
 * process that writes the slots can make this process's notifiers miss
 * signals (wait with a timeout) or make its publishers send one-byte
 * datagrams to other kfifo notifiers' names (spurious wake-ups); nothing
 * else: the slots are words it only compares, exchanges and names.
 *
 * Availability: Linux with futexes; with KFIFO_WAIT_FALLBACK and on other
 * systems kfifo_notifier_open() returns -ENOSYS.
 *
 * Concurrency: the calls on one notifier are not made concurrently with
 * each other (one thread or event loop owns it); they may run while any
 * number of producers and consumers use the fifo.  Detach or close every
 * notifier of a fifo before kfifo_free(), kfifo_init() or kfifo_alloc()
 * of it (or before unmapping a shared fifo).  After fork() a notifier
 * belongs to the parent: in the child only kfifo_notifier_close() works
 * (it closes the child's copy of the fd), the rest return -ECHILD.
 */
#define KFIFO_NOTIFY_DATA 0
#define KFIFO_NOTIFY_ROOM 1

/**
 * struct kfifo_notifier - a notifier (opaque)
 *
 * Made by kfifo_notifier_open(), freed by kfifo_notifier_close(); its
 * members are private to the library.
 */
struct kfifo_notifier;

/**
 * kfifo_notifier_open - make a notifier for one direction of a fifo
 * @np: receives the notifier
 * @fifo: the fifo (an initialised fifo of size > 0, or a handle)
 * @dir: KFIFO_NOTIFY_DATA or KFIFO_NOTIFY_ROOM
 *
 * The notifier starts disarmed, its fd not readable.
 *
 * Return: 0; -EINVAL (@dir unknown, @fifo of size 0); -EOPNOTSUPP (a
 * handle to a block without KFIFO_SHARED_FLAG_NOTIFY); -ENOSYS (no
 * notifiers on this build); -ENOMEM, or the negated errno of eventfd(),
 * socket() or bind().  On failure *@np is NULL.
 *
 * Concurrency: any thread.
 */
KFIFO_API KFIFO__MUST_CHECK int kfifo_notifier_open(struct kfifo_notifier **np,
						    struct kfifo *fifo,
						    int dir);

/**
 * kfifo_notifier_fd - the file descriptor to wait on
 * @n: the notifier
 *
 * Return: the fd (close-on-exec, non-blocking), readable (POLLIN, EPOLLIN)
 * when signalled; it stays readable until kfifo_notifier_clear().  Owned
 * by @n: do not close or read it.
 */
KFIFO_API KFIFO__MUST_CHECK int kfifo_notifier_fd(const struct kfifo_notifier *n);

/**
 * kfifo_notifier_arm - count @n as a waiter of its direction
 * @n: the notifier
 *
 * From its return on, every publication in that direction signals @n
 * (once, until kfifo_notifier_clear()).  Arming an armed notifier only
 * asks for the next signal, as kfifo_notifier_clear() does without
 * draining.
 *
 * Return: 0; -EINVAL once detached; -EBUSY when every slot of a shared
 * fifo is taken; -EOPNOTSUPP if membarrier() failed (a seccomp filter);
 * -ECHILD in the child of a fork() (the notifier is the parent's).
 */
KFIFO_API KFIFO__MUST_CHECK int kfifo_notifier_arm(struct kfifo_notifier *n);

/**
 * kfifo_notifier_armed - whether publishers signal @n now
 * @n: the notifier
 *
 * 1 while @n holds its registration (a slot, for a shared fifo) and
 * counts as a waiter.  0 when disarmed, detached, in a fork()ed child,
 * and when @n lost its slot and found no free one (every slot of a shared
 * fifo taken by live notifiers): kfifo_notifier_clear() then leaves the
 * fd readable, so that its waiter polls, and claims a slot again as soon
 * as one is free.  Reads the slot word: a slot taken from @n since its
 * last clear() shows at once.
 */
KFIFO_API KFIFO__MUST_CHECK int
kfifo_notifier_armed(const struct kfifo_notifier *n);

/**
 * kfifo_notifier_disarm - stop counting @n as a waiter
 * @n: the notifier
 *
 * Publishers no longer signal @n; a signal already sent stays until
 * kfifo_notifier_clear().  Disarming a disarmed notifier does nothing.
 */
KFIFO_API void kfifo_notifier_disarm(struct kfifo_notifier *n);

/**
 * kfifo_notifier_clear - drain the fd and ask for the next signal
 * @n: the notifier
 *
 * Never blocks.  Call it after the fd was readable and before checking the
 * fifo again (the recipe above): a publication after the clear signals
 * the fd again.  On a disarmed or detached notifier it only drains.  It
 * reads at most 64 datagrams (a flood keeps the fd readable: a spurious
 * wake-up).  If @n lost its slot (kfifo_notifier_armed()), it claims one
 * again, or, when none is free, leaves the fd readable.
 */
KFIFO_API void kfifo_notifier_clear(struct kfifo_notifier *n);

/**
 * kfifo_notifier_detach - let go of the fifo, waking whoever waits on @n
 * @n: the notifier
 *
 * Disarms @n, forgets the fifo and makes the fd readable: a waiter wakes
 * and finds out from its own retry.  Afterwards kfifo_notifier_arm()
 * returns -EINVAL.  Call it for every notifier of a fifo before the fifo
 * goes (kfifo_free(), munmap()).
 */
KFIFO_API void kfifo_notifier_detach(struct kfifo_notifier *n);

/**
 * kfifo_notifier_close - disarm, close the fd and free @n
 * @n: the notifier, or NULL (nothing happens)
 */
KFIFO_API void kfifo_notifier_close(struct kfifo_notifier *n);

/* ---- the kernel's typed API (2.6.36 to today) --------------------------- */

/*
 * Mainline (2.6.36 and later) made kfifo a family of typed fifos: a fifo is
 * declared with the type of its elements (DECLARE_KFIFO(fifo, type, size),
 * DECLARE_KFIFO_PTR(fifo, type)) or as a record fifo (STRUCT_KFIFO_REC_1,
 * struct kfifo_rec_ptr_1), and every call is a macro that reads the
 * element type and the record header size from the fifo's C type at
 * compile time, counting in elements.  This section gives C programs that
 * API beside the seed's (v0.3) and 2.6.33-35's, in one header:
 *
 *  - a plain struct kfifo stays the byte fifo of the calls above: every
 *    macro below, handed a struct kfifo *, calls the function of the same
 *    name, with byte counts (mainline's struct kfifo is the typed fifo of
 *    unsigned char, so the two agree);
 *  - names that both APIs use with different argument counts are told
 *    apart by the count (DECLARE_KFIFO, DEFINE_KFIFO, kfifo_skip,
 *    kfifo_out_peek, kfifo_from_user, kfifo_to_user);
 *  - names with one argument count are told apart by the fifo's type
 *    (__builtin_types_compatible_p with struct kfifo *);
 *  - INIT_KFIFO, whose one argument cannot tell a v0.3 fifo (which needs
 *    its name##_buffer) from a typed one, is mainline's when the program
 *    defines KFIFO_TYPED_API before including <kfifo.h>, and the v0.3 one
 *    otherwise.  kfifo_init_typed() is mainline's INIT_KFIFO under any
 *    setting.
 *
 * docs/kernel-compatibility.md has the tables.  An element fifo is a
 * struct kfifo whose @size, @in and @out count elements (kfifo_typed.c):
 * it is lock-free for one producer and one consumer exactly as the byte
 * fifo is, and the _spinlocked calls serialise more of either side.
 *
 * Concurrency, as for the byte calls: kfifo_in, kfifo_put, kfifo_from_user
 * and kfifo_dma_in_* are the producer's; kfifo_out, kfifo_get, kfifo_peek,
 * kfifo_out_peek, kfifo_skip(_count), kfifo_out_linear(_ptr),
 * kfifo_to_user, kfifo_dma_out_* and kfifo_reset_out the consumer's; the
 * size queries either side's; kfifo_alloc, kfifo_init, kfifo_free,
 * kfifo_reset and INIT_KFIFO not while anyone else uses the fifo.
 *
 * The section needs GNU C (typeof, statement expressions,
 * __builtin_choose_expr: gcc and clang), as the kernel does; in C++ and
 * other compilers only the byte API above exists.
 */

/* private: the out-of-line half of the typed API (kfifo_typed.c) */
KFIFO_API unsigned int kfifo__in_elem(struct kfifo *fifo, const void *from,
				      unsigned int n, size_t esize);
KFIFO_API unsigned int kfifo__out_elem(struct kfifo *fifo, void *to,
				       unsigned int n, size_t esize);
KFIFO_API unsigned int kfifo__out_peek_elem(struct kfifo *fifo, void *to,
					    unsigned int n, size_t esize);
KFIFO_API unsigned int kfifo__out_linear(struct kfifo *fifo,
					 unsigned int *tail, unsigned int n);
KFIFO_API unsigned int kfifo__out_linear_r(struct kfifo *fifo,
					   unsigned int *tail, unsigned int n,
					   unsigned int recsize);
KFIFO_API unsigned int kfifo__prepare_elem(struct kfifo *fifo,
					   struct kfifo_region r[2],
					   unsigned int n, size_t esize,
					   int in_side);
KFIFO_API int kfifo__alloc_elem(struct kfifo *fifo, unsigned int n,
				size_t esize);
KFIFO_API int kfifo__init_elem(struct kfifo *fifo, void *buffer,
			       unsigned int bytes, size_t esize);
KFIFO_API unsigned int kfifo__out_r(struct kfifo *fifo, void *to,
				    unsigned int n, unsigned int recsize,
				    int remove);
KFIFO_API unsigned int kfifo__dma_in_prepare_r(struct kfifo *fifo,
					       struct kfifo_region r[2],
					       unsigned int n,
					       unsigned int recsize);
KFIFO_API void kfifo__dma_in_finish_r(struct kfifo *fifo, unsigned int n,
				      unsigned int recsize);
KFIFO_API unsigned int kfifo__dma_out_prepare_r(struct kfifo *fifo,
						struct kfifo_region r[2],
						unsigned int n,
						unsigned int recsize);
KFIFO_API void kfifo__dma_out_finish_r(struct kfifo *fifo,
				       unsigned int recsize);

#if defined(__GNUC__) && !defined(__cplusplus) &&                              \
	!defined(KFIFO__LIBRARY_BUILD)

/* ---- typed fifo declarations ---- */

/*
 * A typed fifo is a struct kfifo in a union with pointers that carry the
 * element type (@type, @const_type), the type the calls take buffers of
 * (@ptr, @ptr_const: void for record fifos and plain struct kfifo) and the
 * record header size (@rectype: a pointer to char[recsize + 1]); none of
 * the pointers is ever set or read, only their types are.  A fifo with a
 * buffer of its own follows the union with it (@buf); a _PTR fifo has a
 * zero-length @buf, which is how the calls tell the two apart.
 */
#define KFIFO__STRUCT_COMMON(t_, recsize_, ptrtype_)                           \
	union {                                                                \
		struct kfifo kfifo;                                            \
		t_ *type;                                                      \
		const t_ *const_type;                                          \
		char (*rectype)[(recsize_) + 1];                               \
		ptrtype_ *ptr;                                                 \
		ptrtype_ const *ptr_const;                                     \
	}

#define KFIFO__STRUCT(t_, size_, recsize_, ptrtype_)                           \
	{                                                                      \
		KFIFO__STRUCT_COMMON(t_, recsize_, ptrtype_);                  \
		t_ buf[((size_) < 2 || ((size_) & ((size_) - 1))) ? -1         \
								   : (size_)];   \
	}

#define KFIFO__STRUCT_PTR(t_, recsize_, ptrtype_)                              \
	{                                                                      \
		KFIFO__STRUCT_COMMON(t_, recsize_, ptrtype_);                  \
		__extension__ t_ buf[0];                                       \
	}

/**
 * STRUCT_KFIFO - the type of a fifo of @size elements of type @t_
 * @t_: the element type (any complete type)
 * @size_: the number of elements, a compile-time power of two, at least 2
 */
#define STRUCT_KFIFO(t_, size_) struct KFIFO__STRUCT(t_, size_, 0, t_)

/**
 * STRUCT_KFIFO_PTR - the type of a fifo of @t_ whose buffer is allocated
 * (kfifo_alloc()) or given (kfifo_init()) at run time
 * @t_: the element type
 */
#define STRUCT_KFIFO_PTR(t_) struct KFIFO__STRUCT_PTR(t_, 0, t_)

/**
 * STRUCT_KFIFO_REC_1 - the type of a record fifo of @size_ bytes whose
 * records have a 1-byte length header (0-255 bytes)
 * @size_: the size in bytes, a compile-time power of two, at least 2
 */
#define STRUCT_KFIFO_REC_1(size_)                                              \
	struct KFIFO__STRUCT(unsigned char, size_, 1, void)

/**
 * STRUCT_KFIFO_REC_2 - as STRUCT_KFIFO_REC_1(), 2-byte header (0-65535)
 * @size_: the size in bytes
 */
#define STRUCT_KFIFO_REC_2(size_)                                              \
	struct KFIFO__STRUCT(unsigned char, size_, 2, void)

/* struct kfifo_rec_ptr_1, _2 - record fifos with a run-time buffer */
struct kfifo_rec_ptr_1 KFIFO__STRUCT_PTR(unsigned char, 1, void);
struct kfifo_rec_ptr_2 KFIFO__STRUCT_PTR(unsigned char, 2, void);

/* private: how the macros see a plain struct kfifo (mainline's own
 * struct kfifo: a _PTR fifo of unsigned char taking void buffers) */
struct kfifo__plain KFIFO__STRUCT_PTR(unsigned char, 0, void);

/* private: @f (a pointer to a fifo) as a typed fifo; a struct kfifo *
 * becomes a struct kfifo__plain * to the same struct kfifo.  So does a
 * void *, which the byte calls' prototypes convert to struct kfifo * and
 * v0.3 code passes (an opaque handle, NULL). */
#define KFIFO__IS_PLAIN(f)                                                     \
	(__builtin_types_compatible_p(__typeof__(f), struct kfifo *) ||        \
	 __builtin_types_compatible_p(__typeof__(f), void *))
#define KFIFO__T(f)                                                            \
	__builtin_choose_expr(KFIFO__IS_PLAIN(f),                              \
			      (struct kfifo__plain *)(void *)(f), (f))
#define KFIFO__K(f) (&KFIFO__T(f)->kfifo)
#define KFIFO__IS_PTR(f) (sizeof(KFIFO__T(f)->buf) == 0)
#define KFIFO__NBUF(f) ((unsigned int)(sizeof(KFIFO__T(f)->buf) /            \
				       sizeof(*KFIFO__T(f)->type)))

/**
 * kfifo_esize - the size of one element in bytes (1 for record fifos and
 * a plain struct kfifo); a compile-time constant
 * @f: a pointer to the fifo
 */
#define kfifo_esize(f) ((unsigned int)sizeof(*KFIFO__T(f)->type))

/**
 * kfifo_recsize - the size of a record fifo's length header: 1 or 2, 0
 * for an element fifo; a compile-time constant
 * @f: a pointer to the fifo
 */
#define kfifo_recsize(f) ((unsigned int)sizeof(*KFIFO__T(f)->rectype) - 1u)

/* Mainline reads the element type with typeof; so may a program. */
#define kfifo__typeof_elem(f) __typeof__(*KFIFO__T(f)->type)

/**
 * DECLARE_KFIFO_PTR - declare a typed fifo whose buffer comes later
 * @fifo: the name
 * @t_: the element type
 *
 * kfifo_alloc() (sizes in elements) or kfifo_init() gives it a buffer.
 */
#define DECLARE_KFIFO_PTR(fifo, t_) STRUCT_KFIFO_PTR(t_) fifo

#define KFIFO__DECLARE_TYPED(fifo, t_, size_) STRUCT_KFIFO(t_, size_) fifo

/*
 * DECLARE_KFIFO - with 3 arguments (fifo, type, size), mainline's: a fifo
 * of @size elements of @type, buffer included (size a power of two, at
 * least 2); INIT_KFIFO (with KFIFO_TYPED_API) or kfifo_init_typed()
 * initialises it.  With 2 arguments, the v0.3 byte fifo above.
 */
#define KFIFO__PICK_4TH(a, b, c, name, ...) name
#undef DECLARE_KFIFO
#define DECLARE_KFIFO(...)                                                     \
	KFIFO__PICK_4TH(__VA_ARGS__, KFIFO__DECLARE_TYPED, KFIFO__DECLARE_V03, \
			~)(__VA_ARGS__)

/*
 * DEFINE_KFIFO - with 3 arguments, mainline's: defines and initialises a
 * typed fifo (file scope or a block).  With 2, the v0.3 one.
 */
#define KFIFO__DEFINE_TYPED(fifo, t_, size_)                                   \
	KFIFO__DECLARE_TYPED(fifo, t_, size_) = {                              \
		.kfifo = { .buffer = (unsigned char *)(fifo).buf,              \
			   .size = (size_) }                                   \
	}
#undef DEFINE_KFIFO
#define DEFINE_KFIFO(...)                                                      \
	KFIFO__PICK_4TH(__VA_ARGS__, KFIFO__DEFINE_TYPED, KFIFO__DEFINE_V03,   \
			~)(__VA_ARGS__)

/* private: INIT_KFIFO's work: a fresh fifo over @buf (NULL for _PTR) */
static inline void kfifo__init_decl(struct kfifo *k, void *buf,
				    unsigned int n)
{
	*k = KFIFO__LITERAL(n, n ? buf : NULL);
}

/**
 * kfifo_init_typed - mainline's INIT_KFIFO, under any setting
 * @fifo: a typed fifo (not a pointer to it), declared with DECLARE_KFIFO
 *        (3 arguments), DECLARE_KFIFO_PTR or the STRUCT_KFIFO types
 *
 * Makes it an empty fifo over its own buffer (a _PTR fifo: of size 0).
 */
#define kfifo_init_typed(fifo)                                                 \
	kfifo__init_decl(&(fifo).kfifo, (fifo).buf, KFIFO__NBUF(&(fifo)))

#ifdef KFIFO_TYPED_API
#undef INIT_KFIFO
#define INIT_KFIFO(fifo) kfifo_init_typed(fifo)
#endif

/* ---- the calls: private inline helpers ---- */

/* Each takes the struct kfifo and the two compile-time constants
 * kfifo_esize() and kfifo_recsize() and folds to one call. */
static inline unsigned int kfifo__t_in(struct kfifo *k, const void *from,
				       unsigned int n, unsigned int esize,
				       unsigned int recsize)
{
	if (recsize)
		return kfifo_in_rec(k, from, n, recsize) == 0 ? n : 0;
	if (esize == 1)
		return (kfifo_in)(k, from, n);
	return kfifo__in_elem(k, from, n, esize);
}

static inline unsigned int kfifo__t_out(struct kfifo *k, void *to,
					unsigned int n, unsigned int esize,
					unsigned int recsize)
{
	unsigned int l, ret;

	if (recsize && n > 0) {
		/* a record that fits @to: the byte core's record call, with
		 * the constant @recsize's fast path (kfifo__out_r() says how
		 * its results read) */
		ret = kfifo_out_rec(k, to, n, recsize, &l);
		if (ret == 0)
			return l;
		if (ret == n)
			return 0;
	}
	if (recsize)
		return kfifo__out_r(k, to, n, recsize, 1);
	if (esize == 1)
		return (kfifo_out)(k, to, n);
	return kfifo__out_elem(k, to, n, esize);
}

static inline unsigned int kfifo__t_peek(struct kfifo *k, void *to,
					 unsigned int n, unsigned int esize,
					 unsigned int recsize)
{
	if (recsize)
		return kfifo__out_r(k, to, n, recsize, 0);
	if (esize == 1)
		return (kfifo_out_peek)(k, to, n, 0);
	return kfifo__out_peek_elem(k, to, n, esize);
}

static inline unsigned int kfifo__t_avail(struct kfifo *k,
					  unsigned int recsize)
{
	return recsize ? kfifo_avail_rec(k, recsize) : (kfifo_avail)(k);
}

static inline void kfifo__t_skip(struct kfifo *k, unsigned int recsize)
{
	if (recsize)
		kfifo_skip_rec(k, recsize);
	else
		(kfifo_skip)(k, 1);
}

static inline unsigned int kfifo__t_peek_len(struct kfifo *k,
					     unsigned int esize,
					     unsigned int recsize)
{
	if (recsize)
		return kfifo_peek_rec(k, recsize);
	return (kfifo_len)(k) * esize;
}

static inline KFIFO__MUST_CHECK int
kfifo__t_alloc(struct kfifo *k, unsigned int n, kfifo_gfp_t gfp,
	       unsigned int esize, int plain, int is_ptr)
{
	if (plain)
		return (kfifo_alloc)(k, n, gfp);
	return is_ptr ? kfifo__alloc_elem(k, n, esize) : -EINVAL;
}

static inline int kfifo__t_init(struct kfifo *k, void *buffer,
				unsigned int bytes, unsigned int esize,
				int plain, int is_ptr)
{
	if (plain)
		return (kfifo_init)(k, buffer, bytes);
	return is_ptr ? kfifo__init_elem(k, buffer, bytes, esize) : -EINVAL;
}

static inline void kfifo__t_free(struct kfifo *k, int is_ptr)
{
	if (is_ptr)
		(kfifo_free)(k);
}

static inline int kfifo__t_from_user(struct kfifo *k, const void *from,
				     unsigned int len, unsigned int *copied,
				     unsigned int esize, unsigned int recsize)
{
	unsigned int c;

	if (recsize)
		c = kfifo_in_rec(k, from, len, recsize) == 0 ? len : 0;
	else
		c = kfifo__t_in(k, from, len / esize, esize, 0) * esize;
	if (copied)
		*copied = c;
	return 0;
}

static inline int kfifo__t_to_user(struct kfifo *k, void *to,
				   unsigned int len, unsigned int *copied,
				   unsigned int esize, unsigned int recsize)
{
	unsigned int c;

	if (recsize)
		c = kfifo__out_r(k, to, len, recsize, 1);
	else
		c = kfifo__t_out(k, to, len / esize, esize, 0) * esize;
	if (copied)
		*copied = c;
	return 0;
}

static inline unsigned int kfifo__t_linear(struct kfifo *k,
					   unsigned int *tail, unsigned int n,
					   unsigned int recsize)
{
	if (recsize)
		return kfifo__out_linear_r(k, tail, n, recsize);
	return kfifo__out_linear(k, tail, n);
}

/* ---- a userspace scatterlist, for kfifo_dma_* ---- */

#ifndef KFIFO_NO_KERNEL_NAMES
#define KFIFO__SG scatterlist
#else
#define KFIFO__SG kfifo_scatterlist
#endif

/* the page size sg_page() and @offset are relative to */
#define KFIFO_SG_PAGE_SIZE 4096u

/**
 * struct scatterlist - one run of bytes of the fifo buffer (userspace)
 * @offset: the offset of the run's first byte in its KFIFO_SG_PAGE_SIZE
 *          page (sg_page())
 * @length: the length of the run in bytes
 * @dma_address: the run's first byte as an integer address, what a driver
 *               would program into a device; in userspace it is the
 *               virtual address (sg_virt()), which code that does its own
 *               "DMA" (a read(), a memcpy()) writes to or reads from
 * @dma_length: equal to @length
 *
 * The kernel's entry names a page and an offset; userspace has no page
 * structs, so sg_page() is the address of the page the run starts in and
 * sg_virt() the run's own address.  kfifo_dma_*_prepare() fill at most two
 * entries (the fifo's free or stored space, split where it wraps), mark
 * the last one (sg_is_last()) and return how many they filled.  Named
 * struct kfifo_scatterlist when KFIFO_NO_KERNEL_NAMES is defined.
 */
struct KFIFO__SG {
	unsigned char *kfifo__addr; /* private: the run's first byte */
	unsigned int offset;
	unsigned int length;
	unsigned long long dma_address;
	unsigned int dma_length;
	unsigned int kfifo__last; /* private: sg_is_last() */
};

static inline void kfifo_sg_init_table(struct KFIFO__SG *sgl,
				       unsigned int nents)
{
	unsigned int i;

	for (i = 0; i < nents; i++)
		sgl[i] = (struct KFIFO__SG){ 0 };
	if (nents)
		sgl[nents - 1].kfifo__last = 1;
}

static inline void *kfifo_sg_virt(const struct KFIFO__SG *sg)
{
	return sg->kfifo__addr;
}

static inline void *kfifo_sg_page(const struct KFIFO__SG *sg)
{
	return sg->kfifo__addr ? sg->kfifo__addr - sg->offset : NULL;
}

static inline int kfifo_sg_is_last(const struct KFIFO__SG *sg)
{
	return sg->kfifo__last != 0;
}

/* private: @r as scatterlist entries, at most @nents */
static inline unsigned int kfifo__sg_fill(struct KFIFO__SG *sgl, int nents,
					  const struct kfifo_region r[2])
{
	unsigned int i, k = 0;

	for (i = 0; i < 2; i++) {
		if (r[i].len == 0 || nents <= 0 || k >= (unsigned int)nents)
			continue;
		sgl[k].kfifo__addr = r[i].data;
		sgl[k].offset = (unsigned int)((uintptr_t)r[i].data &
					       (KFIFO_SG_PAGE_SIZE - 1));
		sgl[k].length = sgl[k].dma_length = r[i].len;
		sgl[k].dma_address = (unsigned long long)(uintptr_t)r[i].data;
		sgl[k].kfifo__last = 0;
		k++;
	}
	if (k)
		sgl[k - 1].kfifo__last = 1;
	return k;
}

static inline unsigned int kfifo__t_dma_prepare(struct kfifo *k,
						struct KFIFO__SG *sgl,
						int nents, unsigned int len,
						unsigned int esize,
						unsigned int recsize,
						int in_side)
{
	struct kfifo_region r[2];

	if (recsize && in_side)
		kfifo__dma_in_prepare_r(k, r, len, recsize);
	else if (recsize)
		kfifo__dma_out_prepare_r(k, r, len, recsize);
	else
		kfifo__prepare_elem(k, r, len, esize, in_side);
	return kfifo__sg_fill(sgl, nents, r);
}

static inline void kfifo__t_dma_finish(struct kfifo *k, unsigned int len,
				       unsigned int esize,
				       unsigned int recsize, int in_side)
{
	if (recsize && in_side)
		kfifo__dma_in_finish_r(k, len, recsize);
	else if (recsize)
		kfifo__dma_out_finish_r(k, recsize);
	else if (in_side)
		kfifo_in_finish(k, len / esize);
	else
		kfifo_out_finish(k, len / esize);
}

/* ---- the calls ---- */

/* private: the typed fifo pointer, evaluated once, and its struct kfifo */
#define KFIFO__TMP(f) __typeof__(KFIFO__T(f)) kfifo__tf = KFIFO__T(f)
#define KFIFO__ARGS kfifo_esize(kfifo__tf), kfifo_recsize(kfifo__tf)
/* private: the buffer argument of kfifo_in/out/out_peek, checked against
 * the element type as mainline does, except that a fifo of 1-byte
 * elements takes any pointer: the kernel builds with -Wno-pointer-sign,
 * and its byte fifos are fed char, signed char and unsigned char alike */
#define KFIFO__BUF(tf, b)                                                      \
	__builtin_choose_expr(sizeof(*(tf)->type) == 1, (void *)(b), (b))

/*
 * Set-up and queries.  For a typed fifo, sizes and counts are in elements
 * (bytes for record fifos), as in mainline; for a struct kfifo *, each is
 * the function of the same name above.
 */
#define kfifo_initialized(f) (kfifo_initialized)(KFIFO__K(f))
#define kfifo_size(f) (kfifo_size)(KFIFO__K(f))
#define kfifo_len(f) (kfifo_len)(KFIFO__K(f))
#define kfifo_is_empty(f) (kfifo_is_empty)(KFIFO__K(f))
#define kfifo_is_full(f) (kfifo_is_full)(KFIFO__K(f))
#define kfifo_reset(f) (kfifo_reset)(KFIFO__K(f))
#define kfifo_reset_out(f) (kfifo_reset_out)(KFIFO__K(f))
#define kfifo_avail(f) kfifo__t_avail(KFIFO__K(f), kfifo_recsize(f))
#define kfifo_peek_len(f)                                                      \
	kfifo__t_peek_len(KFIFO__K(f), kfifo_esize(f), kfifo_recsize(f))
/* kfifo_alloc(fifo, n, gfp): a _PTR fifo gets n elements, rounded up to
 * a power of two (at least 2); -EINVAL for a fifo with its own buffer. */
#define kfifo_alloc(f, n, gfp)                                                 \
	kfifo__t_alloc(KFIFO__K(f), (n), (gfp), kfifo_esize(f),                \
		       KFIFO__IS_PLAIN(f), KFIFO__IS_PTR(f))
/* kfifo_init(fifo, buffer, bytes): a _PTR fifo takes bytes / esize
 * elements rounded down to a power of two (at least 2, else -EINVAL). */
#define kfifo_init(f, buffer, bytes)                                           \
	kfifo__t_init(KFIFO__K(f), (buffer), (bytes), kfifo_esize(f),          \
		      KFIFO__IS_PLAIN(f), KFIFO__IS_PTR(f))
#define kfifo_free(f) kfifo__t_free(KFIFO__K(f), KFIFO__IS_PTR(f))
/* kfifo_alloc_node(fifo, n, gfp, node): userspace has no NUMA node to
 * ask for; kfifo_alloc() */
#define kfifo_alloc_node(f, n, gfp, node) ((void)(node), kfifo_alloc(f, n, gfp))

/* kfifo_skip(fifo): drop one element (record); kfifo_skip(fifo, n): the
 * byte call above.  kfifo_skip_count(fifo, n): drop n elements. */
#define KFIFO__PICK_3RD(a, b, name, ...) name
#define KFIFO__SKIP1(f) kfifo__t_skip(KFIFO__K(f), kfifo_recsize(f))
#define kfifo_skip(...)                                                        \
	KFIFO__PICK_3RD(__VA_ARGS__, kfifo_skip, KFIFO__SKIP1, ~)(__VA_ARGS__)
#define kfifo_skip_count(f, n) (kfifo_skip)(KFIFO__K(f), (n))

/* kfifo_put(fifo, val): store one element by value; 1, or 0 when full */
#define kfifo_put(f, val)                                                      \
	__extension__({                                                        \
		KFIFO__TMP(f);                                                 \
		__typeof__(*kfifo__tf->const_type) kfifo__tv = (val);          \
		kfifo__t_in(&kfifo__tf->kfifo, &kfifo__tv, 1, KFIFO__ARGS);    \
	})

/* kfifo_get(fifo, ptr): take one element into *ptr; 1, or 0 when empty */
#define kfifo_get(f, p)                                                        \
	__extension__({                                                        \
		KFIFO__TMP(f);                                                 \
		__typeof__(kfifo__tf->ptr) kfifo__tp = (p);                    \
		kfifo__t_out(&kfifo__tf->kfifo, kfifo__tp, 1, KFIFO__ARGS);    \
	})

/* kfifo_peek(fifo, ptr): copy the oldest element into *ptr, keep it */
#define kfifo_peek(f, p)                                                       \
	__extension__({                                                        \
		KFIFO__TMP(f);                                                 \
		__typeof__(kfifo__tf->ptr) kfifo__tp = (p);                    \
		kfifo__t_peek(&kfifo__tf->kfifo, kfifo__tp, 1, KFIFO__ARGS);   \
	})

/* kfifo_in(fifo, buf, n): n elements (one record of n bytes) in */
#define kfifo_in(f, b, n)                                                      \
	__extension__({                                                        \
		KFIFO__TMP(f);                                                 \
		__typeof__(kfifo__tf->ptr_const) kfifo__tb = KFIFO__BUF(kfifo__tf, b);              \
		kfifo__t_in(&kfifo__tf->kfifo, kfifo__tb, (n), KFIFO__ARGS);   \
	})

/* kfifo_out(fifo, buf, n): up to n elements (one record) out */
#define kfifo_out(f, b, n)                                                     \
	__extension__({                                                        \
		KFIFO__TMP(f);                                                 \
		__typeof__(kfifo__tf->ptr) kfifo__tb = KFIFO__BUF(kfifo__tf, b);                    \
		kfifo__t_out(&kfifo__tf->kfifo, kfifo__tb, (n), KFIFO__ARGS);  \
	})

/* kfifo_out_peek(fifo, buf, n): as kfifo_out(), removing nothing;
 * kfifo_out_peek(fifo, buf, n, offset): the byte call above */
#define KFIFO__OUT_PEEK3(f, b, n)                                              \
	__extension__({                                                        \
		KFIFO__TMP(f);                                                 \
		__typeof__(kfifo__tf->ptr) kfifo__tb = KFIFO__BUF(kfifo__tf, b);                    \
		kfifo__t_peek(&kfifo__tf->kfifo, kfifo__tb, (n), KFIFO__ARGS); \
	})
#define kfifo_out_peek(...)                                                    \
	KFIFO__PICK_5TH(__VA_ARGS__, kfifo_out_peek, KFIFO__OUT_PEEK3, ~)      \
	(__VA_ARGS__)

/* the _spinlocked forms take @lock around the call; userspace has no
 * interrupts to save, so the _noirqsave forms are the same */
#define kfifo_in_spinlocked(f, b, n, lock)                                     \
	__extension__({                                                        \
		kfifo_spinlock_t *kfifo__tl = (lock);                          \
		unsigned int kfifo__tr;                                        \
		kfifo_spin_lock(kfifo__tl);                                    \
		kfifo__tr = kfifo_in((f), (b), (n));                           \
		kfifo_spin_unlock(kfifo__tl);                                  \
		kfifo__tr;                                                     \
	})
#define kfifo_out_spinlocked(f, b, n, lock)                                    \
	__extension__({                                                        \
		kfifo_spinlock_t *kfifo__tl = (lock);                          \
		unsigned int kfifo__tr;                                        \
		kfifo_spin_lock(kfifo__tl);                                    \
		kfifo__tr = kfifo_out((f), (b), (n));                          \
		kfifo_spin_unlock(kfifo__tl);                                  \
		kfifo__tr;                                                     \
	})
#define kfifo_in_spinlocked_noirqsave kfifo_in_spinlocked
#define kfifo_out_spinlocked_noirqsave kfifo_out_spinlocked
#define kfifo_in_locked kfifo_in_spinlocked
#define kfifo_out_locked kfifo_out_spinlocked
#define kfifo_is_empty_spinlocked(f, lock)                                     \
	__extension__({                                                        \
		kfifo_spinlock_t *kfifo__tl = (lock);                          \
		int kfifo__tr;                                                 \
		kfifo_spin_lock(kfifo__tl);                                    \
		kfifo__tr = kfifo_is_empty(f);                                 \
		kfifo_spin_unlock(kfifo__tl);                                  \
		kfifo__tr;                                                     \
	})
#define kfifo_is_empty_spinlocked_noirqsave kfifo_is_empty_spinlocked

/* kfifo_from_user(fifo, from, len, copied), kfifo_to_user(...): @len
 * and *@copied in bytes, as mainline; 0.  Three arguments: the v0.3
 * byte calls above. */
#define KFIFO__FROM_USER4(f, from, len, copied)                                \
	kfifo__t_from_user(KFIFO__K(f), (from), (len), (copied),               \
			   kfifo_esize(f), kfifo_recsize(f))
#define KFIFO__TO_USER4(f, to, len, copied)                                    \
	kfifo__t_to_user(KFIFO__K(f), (to), (len), (copied), kfifo_esize(f),   \
			 kfifo_recsize(f))
#undef kfifo_from_user
#undef kfifo_to_user
#define kfifo_from_user(...)                                                   \
	KFIFO__PICK_5TH(__VA_ARGS__, KFIFO__FROM_USER4, kfifo_from_user, ~)    \
	(__VA_ARGS__)
#define kfifo_to_user(...)                                                     \
	KFIFO__PICK_5TH(__VA_ARGS__, KFIFO__TO_USER4, kfifo_to_user, ~)        \
	(__VA_ARGS__)

/* kfifo_out_linear(fifo, &tail, n): how many of the oldest n elements
 * (of the next record's bytes) lie in one run from buffer index *tail;
 * kfifo_out_linear_ptr(fifo, &ptr, n): the same with *ptr the address */
#define kfifo_out_linear(f, tail, n)                                           \
	kfifo__t_linear(KFIFO__K(f), (tail), (n), kfifo_recsize(f))
#define kfifo_out_linear_ptr(f, p, n)                                          \
	__extension__({                                                        \
		KFIFO__TMP(f);                                                 \
		unsigned int kfifo__tt = 0;                                    \
		unsigned int kfifo__tn =                                       \
			kfifo_out_linear(kfifo__tf, &kfifo__tt, (n));          \
		*(p) = (void *)(kfifo__tf->kfifo.buffer +                      \
				(size_t)kfifo__tt * kfifo_esize(kfifo__tf));   \
		kfifo__tn;                                                     \
	})

/* kfifo_dma_in_prepare(fifo, sgl, nents, n): scatterlist entries for room
 * for n elements (a record of n bytes); the number of entries filled.
 * kfifo_dma_in_finish(fifo, bytes): publish what was written (a record of
 * that many bytes).  The _out_ pair mirrors them on the stored data. */
#define kfifo_dma_in_prepare(f, sgl, nents, n)                                 \
	kfifo__t_dma_prepare(KFIFO__K(f), (sgl), (nents), (n), kfifo_esize(f), \
			     kfifo_recsize(f), 1)
#define kfifo_dma_out_prepare(f, sgl, nents, n)                                \
	kfifo__t_dma_prepare(KFIFO__K(f), (sgl), (nents), (n), kfifo_esize(f), \
			     kfifo_recsize(f), 0)
#define kfifo_dma_in_finish(f, bytes)                                          \
	kfifo__t_dma_finish(KFIFO__K(f), (bytes), kfifo_esize(f),              \
			    kfifo_recsize(f), 1)
#define kfifo_dma_out_finish(f, bytes)                                         \
	kfifo__t_dma_finish(KFIFO__K(f), (bytes), kfifo_esize(f),              \
			    kfifo_recsize(f), 0)

#ifndef KFIFO_NO_KERNEL_NAMES
#define sg_init_table(sgl, n) kfifo_sg_init_table((sgl), (n))
#define sg_virt(sg) kfifo_sg_virt(sg)
#define sg_page(sg) kfifo_sg_page(sg)
#define sg_is_last(sg) kfifo_sg_is_last(sg)
#define sg_dma_address(sg) ((sg)->dma_address)
#define sg_dma_len(sg) ((sg)->dma_length)
#endif

#endif /* GNU C, not C++ */

/* ---- kernel names (docs/spec.md 1.6) ---------------------------------- */

#ifndef KFIFO_NO_KERNEL_NAMES
typedef kfifo_gfp_t gfp_t;
typedef kfifo_spinlock_t spinlock_t;
#ifndef GFP_KERNEL
#define GFP_KERNEL KFIFO_GFP_KERNEL
#endif
#ifndef GFP_ATOMIC
#define GFP_ATOMIC KFIFO_GFP_ATOMIC
#endif
#ifndef __user
#define __user
#endif
#ifndef __must_check
#define __must_check KFIFO__MUST_CHECK
#endif
#define spin_lock_init(lock) kfifo_spin_lock_init(lock)
#define spin_lock(lock) kfifo_spin_lock(lock)
#define spin_unlock(lock) kfifo_spin_unlock(lock)
#define spin_trylock(lock) kfifo_spin_trylock(lock)
#define DEFINE_SPINLOCK(x) spinlock_t x = KFIFO_SPINLOCK_INIT
#endif

#ifdef __cplusplus
}
#endif

#endif /* KFIFO_H */
