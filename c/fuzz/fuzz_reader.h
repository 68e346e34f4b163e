/* SPDX-License-Identifier: MIT */
/*
 * fuzz_reader.h - the fuzz targets' view of their input: bytes and
 * little-endian words taken from the front, zeros once it runs out.
 */
#ifndef FUZZ_READER_H
#define FUZZ_READER_H

#include <stddef.h>
#include <stdint.h>

struct reader {
	const uint8_t *p;
	size_t left;
};

static inline unsigned int get8(struct reader *r)
{
	if (r->left == 0)
		return 0;
	r->left--;
	return *r->p++;
}

static inline unsigned int get32(struct reader *r)
{
	unsigned int v = get8(r);

	v |= get8(r) << 8;
	v |= get8(r) << 16;
	return v | get8(r) << 24;
}

#endif /* FUZZ_READER_H */
