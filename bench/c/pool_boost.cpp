// SPDX-License-Identifier: MIT
//
// pool_boost.cpp - Boost.Lockfree queue<T> (many producers, many
// consumers) for bench/c/pool_bench.c, behind a C interface.
#include <boost/lockfree/queue.hpp>

#include <string.h>

template <size_t N> struct chunk {
	unsigned char b[N];
};
typedef boost::lockfree::queue<chunk<8> > q8;
typedef boost::lockfree::queue<chunk<256> > q256;

extern "C" void *pool_boost_create(size_t size, size_t slots)
{
	if (size == 8)
		return new q8(slots);
	return new q256(slots);
}

extern "C" void pool_boost_destroy(void *q, size_t size)
{
	if (size == 8)
		delete static_cast<q8 *>(q);
	else
		delete static_cast<q256 *>(q);
}

extern "C" int pool_boost_push(void *q, size_t size, const void *p)
{
	if (size == 8) {
		chunk<8> c;
		memcpy(c.b, p, 8);
		return static_cast<q8 *>(q)->bounded_push(c);
	}
	chunk<256> c;
	memcpy(c.b, p, 256);
	return static_cast<q256 *>(q)->bounded_push(c);
}

extern "C" int pool_boost_pop(void *q, size_t size, void *p)
{
	if (size == 8) {
		chunk<8> c;
		if (!static_cast<q8 *>(q)->pop(c))
			return 0;
		memcpy(p, c.b, 8);
		return 1;
	}
	chunk<256> c;
	if (!static_cast<q256 *>(q)->pop(c))
		return 0;
	memcpy(p, c.b, 256);
	return 1;
}
