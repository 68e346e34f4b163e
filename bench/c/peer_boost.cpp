// SPDX-License-Identifier: MIT
//
// peer_boost.cpp - Boost.Lockfree spsc_queue in the C benchmark.
//
// Two ways a Boost user moves data, both measured:
//   boost_bytes  spsc_queue<char> with its array API, push(const char *, n)
//                and pop(char *, n): a byte stream like kfifo_in/kfifo_out;
//   boost_elemN  spsc_queue<chunk of N bytes> with push(const T &) and
//                pop(T &): one element per chunk, the element-queue way
//                (N = 8, 16, 64, 512, 4096, 65536).
// Both are header-only templates, so their hot path is inlined into the
// loops of bench_harness.h; kfifo's is a call into libkfifo.a.
#include <boost/lockfree/spsc_queue.hpp>
#include <boost/version.hpp>

#include "bench_harness.h"

typedef boost::lockfree::spsc_queue<char> boost_byteq;

static void *boost_bytes_create(size_t bytes, size_t)
{
	return new boost_byteq(bytes);
}
static void boost_bytes_destroy(void *ctx)
{
	delete static_cast<boost_byteq *>(ctx);
}
static inline size_t boost_bytes_write(void *ctx, const void *p, size_t n)
{
	return static_cast<boost_byteq *>(ctx)->push(
		static_cast<const char *>(p), n);
}
static inline size_t boost_bytes_read(void *ctx, void *p, size_t n)
{
	return static_cast<boost_byteq *>(ctx)->pop(static_cast<char *>(p), n);
}
BENCH_DEFINE(boost_bytes)

#define BOOST_ELEM(N)                                                          \
	struct boost_chunk##N {                                                \
		unsigned char b[N];                                            \
	};                                                                     \
	typedef boost::lockfree::spsc_queue<boost_chunk##N> boost_q##N;        \
	static void *boost_elem##N##_create(size_t bytes, size_t)              \
	{                                                                      \
		size_t n = bytes / N;                                          \
		return new boost_q##N(n > 1 ? n : 2);                          \
	}                                                                      \
	static void boost_elem##N##_destroy(void *ctx)                         \
	{                                                                      \
		delete static_cast<boost_q##N *>(ctx);                         \
	}                                                                      \
	static inline size_t boost_elem##N##_write(void *ctx, const void *p,   \
						   size_t)                     \
	{                                                                      \
		return static_cast<boost_q##N *>(ctx)->push(                   \
			       *static_cast<const boost_chunk##N *>(p))        \
			       ? N                                             \
			       : 0;                                            \
	}                                                                      \
	static inline size_t boost_elem##N##_read(void *ctx, void *p, size_t)  \
	{                                                                      \
		return static_cast<boost_q##N *>(ctx)->pop(                    \
			       *static_cast<boost_chunk##N *>(p))              \
			       ? N                                             \
			       : 0;                                            \
	}                                                                      \
	BENCH_DEFINE(boost_elem##N)

BOOST_ELEM(8)
BOOST_ELEM(16)
BOOST_ELEM(64)
BOOST_ELEM(512)
BOOST_ELEM(4096)
BOOST_ELEM(65536)

extern "C" const char *boost_version(void)
{
	return BOOST_LIB_VERSION;
}

// The element queue for a chunk size, or NULL when there is none.
extern "C" double (*boost_elem_stream_for(size_t chunk))(size_t, size_t,
							 uint64_t)
{
	switch (chunk) {
	case 8: return boost_elem8_stream;
	case 16: return boost_elem16_stream;
	case 64: return boost_elem64_stream;
	case 512: return boost_elem512_stream;
	case 4096: return boost_elem4096_stream;
	case 65536: return boost_elem65536_stream;
	}
	return NULL;
}
