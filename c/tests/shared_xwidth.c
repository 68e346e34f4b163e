/* SPDX-License-Identifier: MIT */
/*
 * shared_xwidth.c - one shared fifo used by programs of different pointer
 * widths: the layout (kfifo.h, version 2) is a file format, so a 64-bit
 * and a 32-bit process share a fifo in a file both map.  Each step is a
 * separate run, so that run-c-tests.sh can mix the gcc build's (x86-64)
 * and the m32 build's (i686) binaries:
 *
 *   shared_xwidth create FILE   lay a 64-byte fifo out in FILE, indices
 *                               near 2^32, and store a record
 *   shared_xwidth answer FILE   attach, take that record, store a reply
 *   shared_xwidth check FILE    attach, take the reply
 *
 * ctest runs the three steps with one binary.  Exit status 0: the step
 * saw what it expected.
 */
#define _GNU_SOURCE
#include <kfifo.h>

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int fail(const char *what)
{
	fprintf(stderr, "shared_xwidth (%u-bit): %s\n",
		(unsigned int)(8 * sizeof(void *)), what);
	return 1;
}

/* Take one record (recsize 1) and compare its first @n bytes with @want. */
static int take(struct kfifo *f, const char *want, size_t n)
{
	char buf[256];
	unsigned int total = 0;

	if (kfifo_out_rec(f, buf, sizeof(buf), 1, &total) != 0)
		return fail("no whole record to take");
	if (total < n || memcmp(buf, want, n) != 0)
		return fail("the record is not the one stored");
	printf("shared_xwidth (%u-bit): took \"%.*s\"\n",
	       (unsigned int)(8 * sizeof(void *)), (int)total, buf);
	return 0;
}

static int put(struct kfifo *f, const char *what)
{
	char msg[64];
	int n = snprintf(msg, sizeof(msg), "%s from %u-bit", what,
			 (unsigned int)(8 * sizeof(void *)));

	return kfifo_in_rec(f, msg, (unsigned int)n, 1) == 0 ? 0
							    : fail("record refused");
}

int main(int argc, char **argv)
{
	size_t len = kfifo_shared_bytes(64);
	struct kfifo f;
	unsigned char *mem;
	int fd;

	if (argc != 3)
		return fail("usage: shared_xwidth create|answer|check FILE");
	fd = open(argv[2], O_RDWR | O_CREAT, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)len) != 0)
		return fail("cannot open FILE");
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED)
		return fail("cannot map FILE");
	if (strcmp(argv[1], "create") == 0) {
		if (kfifo_shared_create(&f, mem, len, 64) != 0)
			return fail("create refused");
		/* near 2^32, so the other width's steps wrap the indices */
		__atomic_store_n((unsigned int *)(void *)(mem + KFIFO_SHARED_OFF_IN),
				 UINT_MAX - 9, __ATOMIC_RELAXED);
		__atomic_store_n((unsigned int *)(void *)(mem + KFIFO_SHARED_OFF_OUT),
				 UINT_MAX - 9, __ATOMIC_RELAXED);
		if (kfifo_shared_attach(&f, mem, len) != 0)
			return fail("attach after create refused");
		return put(&f, "hello");
	}
	if (kfifo_shared_attach(&f, mem, len) != 0)
		return fail("attach refused");
	if (kfifo_size(&f) != 64 || !kfifo_valid(&f))
		return fail("the fifo is not the 64-byte fifo created");
	if (strcmp(argv[1], "answer") == 0)
		return take(&f, "hello from", 10) || put(&f, "reply");
	if (strcmp(argv[1], "check") == 0)
		return take(&f, "reply from", 10) ||
		       (kfifo_len(&f) != 0 ? fail("bytes left over") : 0);
	return fail("unknown step");
}
