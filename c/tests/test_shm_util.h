/* SPDX-License-Identifier: MIT */
/*
 * test_shm_util.h - what the tests of shared fifos (test_shared.c,
 * test_notify.c) share: memory mapped MAP_SHARED, so that fork()ed
 * children see it, and the header's words read and written by offset.
 */
#ifndef KFIFO_TEST_SHM_UTIL_H
#define KFIFO_TEST_SHM_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

static inline unsigned int *word(void *mem, size_t off)
{
	return (unsigned int *)(void *)((unsigned char *)mem + off);
}

static inline unsigned int get_word(void *mem, size_t off)
{
	return __atomic_load_n(word(mem, off), __ATOMIC_ACQUIRE);
}

static inline void set_word(void *mem, size_t off, unsigned int v)
{
	__atomic_store_n(word(mem, off), v, __ATOMIC_RELEASE);
}

/* @len bytes of page-aligned memory shared with children (MAP_SHARED). */
static inline unsigned char *map_shared(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	return p;
}

#endif /* KFIFO_TEST_SHM_UTIL_H */
