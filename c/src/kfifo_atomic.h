/* SPDX-License-Identifier: MIT */
/*
 * kfifo_atomic.h - how the indices are read and stored, the test hook
 * after every store, the Debug invariant check, and the CPU pause of every
 * spin loop.  Private: nothing here is part of the API.
 *
 * We use the compiler's C11 atomic builtins on plain unsigned ints, which
 * is what <stdatomic.h> expands to, so that struct kfifo keeps the seed's
 * plain layout and kfifo.h stays usable from C++.
 */
#ifndef KFIFO_ATOMIC_H
#define KFIFO_ATOMIC_H

#include "kfifo_kind.h"

KFIFO__INLINE unsigned int kfifo__load_relaxed(const unsigned int *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

KFIFO__INLINE unsigned int kfifo__load_acquire(const unsigned int *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

/*
 * Test builds of the library (KFIFO_TEST_HOOKS, c/tests/CMakeLists.txt)
 * tell the test program about every index store right after it: a test
 * then looks at the fifo exactly as the other side could at that moment,
 * which makes the unlucky interleaving deterministic (test_publish.c).
 */
#ifdef KFIFO_TEST_HOOKS
void kfifo__test_index_stored(const unsigned int *index);
#else
#define kfifo__test_index_stored(index) ((void)0)
#endif

KFIFO__INLINE void kfifo__store_release(unsigned int *p, unsigned int v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
	kfifo__test_index_stored(p);
}

/*
 * Debug builds (KFIFO_DEBUG, which CMake defines for CMAKE_BUILD_TYPE=Debug)
 * check the invariants of kfifo_valid() after every store of an index.
 * The check reads a consistent snapshot, so it holds while the other side
 * runs; not on a handle: another process may break them at any time.
 */
#ifdef KFIFO_DEBUG
#include <assert.h>
#define kfifo__debug_check(fifo, kind)                                         \
	assert((kind) == KFIFO__HANDLE || kfifo_valid(fifo))
#else
#define kfifo__debug_check(fifo, kind) ((void)0)
#endif

/*
 * One pause of a spin loop (the waits' spin, the spinlock): it tells the
 * CPU that this is a spin, which saves power and lets the other hardware
 * thread of the core run.  The callers read the watched word with atomic
 * loads, so no barrier is needed; where there is no pause instruction a
 * compiler barrier at least keeps the loop a loop.
 */
KFIFO__INLINE void kfifo__cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
#endif
}

#endif /* KFIFO_ATOMIC_H */
