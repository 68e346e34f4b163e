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
typedef boost::lockfree::queue<chunk<4096> > q4k;

extern "C" void *pool_boost_create(size_t size, size_t slots)
{
	if (size == 8)
		return new q8(slots);
	if (size == 256)
		return new q256(slots);
	return new q4k(slots);
}

extern "C" void pool_boost_destroy(void *q, size_t size)
{
	if (size == 8)
		delete static_cast<q8 *>(q);
	else if (size == 256)
		delete static_cast<q256 *>(q);
	else
		delete static_cast<q4k *>(q);
}

template <size_t N> static int push(void *q, const void *p)
{
	chunk<N> c;

	memcpy(c.b, p, N);
	return static_cast<boost::lockfree::queue<chunk<N> > *>(q)->bounded_push(c);
}

template <size_t N> static int pop(void *q, void *p)
{
	chunk<N> c;

	if (!static_cast<boost::lockfree::queue<chunk<N> > *>(q)->pop(c))
		return 0;
	memcpy(p, c.b, N);
	return 1;
}

extern "C" int pool_boost_push(void *q, size_t size, const void *p)
{
	if (size == 8)
		return push<8>(q, p);
	if (size == 256)
		return push<256>(q, p);
	return push<4096>(q, p);
}

extern "C" int pool_boost_pop(void *q, size_t size, void *p)
{
	if (size == 8)
		return pop<8>(q, p);
	if (size == 256)
		return pop<256>(q, p);
	return pop<4096>(q, p);
}
