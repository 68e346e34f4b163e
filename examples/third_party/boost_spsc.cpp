// SPDX-License-Identifier: MIT
//
// boost_spsc.cpp - Boost.Lockfree's spsc_queue<unsigned char> behind an
// extern "C" face, for kfifo.testing's CFifo (ctypes calls C, not C++).
//
// spsc_queue(n) sized at run time holds exactly n elements (it keeps n + 1
// slots): capacity model "exact".  Its indices are masked size_t, so there
// is no start hook.
#include <boost/lockfree/spsc_queue.hpp>
#include <cstddef>
#include <new>

typedef boost::lockfree::spsc_queue<unsigned char> queue;

extern "C" {

queue *spsc_new(size_t n)
{
	return new (std::nothrow) queue(n);
}

void spsc_free(queue *q) { delete q; }

size_t spsc_push(queue *q, const unsigned char *from, size_t n) { return q->push(from, n); }

size_t spsc_pop(queue *q, unsigned char *to, size_t n) { return q->pop(to, n); }

size_t spsc_read_available(const queue *q) { return q->read_available(); }

size_t spsc_write_available(const queue *q) { return q->write_available(); }

void spsc_reset(queue *q) { q->reset(); }

bool spsc_empty(queue *q) { return q->empty(); }

}  // extern "C"
