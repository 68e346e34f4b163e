// SPDX-License-Identifier: MIT
//
// test_cxx.cpp - the public header from C++ (docs/spec.md 1.1: "usable from
// C++"): extern "C" linkage of every call, the declaration macros, the
// inline record dispatch, the kernel names, the mainline calls (with the
// argument-count dispatch of kfifo_from_user/kfifo_to_user) and the
// zero-copy calls, at -Wall -Wextra -Wpedantic -Werror.
#include <kfifo.h>

#include <climits>
#include <cstring>

#include "test_harness.h"

DEFINE_KFIFO(cxx_file_fifo, 16);

namespace {

struct Device {
	int before;
	DECLARE_KFIFO(fifo, 32);
	int after;
};

unsigned char buf[64];
unsigned char out[64];

void test_cxx_byte_stream()
{
	struct kfifo f;

	CHECK_INT(kfifo_alloc(&f, 10, GFP_KERNEL), 0);
	CHECK_UINT(kfifo_size(&f), 16);
	f.in = f.out = UINT_MAX - 3;
	CHECK_UINT(kfifo_in(&f, "0123456789", 10), 10);
	CHECK_UINT(kfifo_len(&f), 10);
	CHECK_UINT(kfifo_avail(&f), 6);
	CHECK_INT(kfifo_is_empty(&f), 0);
	CHECK_INT(kfifo_is_full(&f), 0);
	CHECK_UINT(kfifo_out(&f, out, 4), 4);
	CHECK_MEM(out, "0123", 4);
	kfifo_skip(&f, 2);
	CHECK_UINT(kfifo_to_user(&f, out, 64), 4);
	CHECK_MEM(out, "6789", 4);
	CHECK_UINT(kfifo_from_user(&f, "ab", 2), 2);
	kfifo_reset_out(&f);
	kfifo_reset(&f);
	CHECK_INT(kfifo_valid(&f), 1);
	kfifo_free(&f);
	CHECK_INT(kfifo_init(&f, buf, 64), 0);
	CHECK_INT(kfifo_init(&f, buf, 63), -EINVAL);
}

void test_cxx_records_and_locks()
{
	struct kfifo f;
	spinlock_t lock;
	unsigned int total = 0;
	volatile unsigned int two = 2;

	spin_lock_init(&lock);
	CHECK_INT(kfifo_alloc(&f, 64, GFP_ATOMIC), 0);
	CHECK_UINT(kfifo_in_rec(&f, "hello", 5, 1), 0);
	CHECK_UINT(kfifo_in_rec(&f, "world!", 6, two), 0);
	CHECK_UINT(kfifo_from_user_rec(&f, "x", 1, 0), 0);
	CHECK_UINT(kfifo_peek_rec(&f, 1), 5);
	CHECK_UINT(kfifo_out_rec(&f, out, 64, 1, &total), 0);
	CHECK_UINT(total, 5);
	CHECK_UINT(kfifo_to_user_rec(&f, out, 64, two, &total), 0);
	CHECK_MEM(out, "world!", 6);
	kfifo_skip_rec(&f, 0);
	CHECK_UINT(kfifo_len(&f), 0);
	CHECK_UINT(kfifo_in_locked(&f, "abc", 3, &lock), 3);
	CHECK_UINT(kfifo_out_locked(&f, out, 3, &lock), 3);
	CHECK_MEM(out, "abc", 3);
	kfifo_free(&f);
}

void test_cxx_declaration_macros()
{
	DEFINE_KFIFO(local, 8);
	Device d;
	struct kfifo k = KFIFO_INIT(64, buf);

	d.before = d.after = 12345;
	INIT_KFIFO(d.fifo);
	CHECK_UINT(kfifo_size(&d.fifo), 32);
	std::memset(out, 0xff, sizeof(out));
	CHECK_UINT(kfifo_in(&d.fifo, out, 64), 32);
	CHECK_INT(d.before, 12345);
	CHECK_INT(d.after, 12345);
	CHECK_UINT(kfifo_size(&d.fifo), 32);
	CHECK_UINT(kfifo_size(&local), 8);
	CHECK_UINT(kfifo_in(&local, "abcdefghij", 10), 8);
	CHECK_UINT(kfifo_size(&cxx_file_fifo), 16);
	CHECK_UINT(kfifo_in(&cxx_file_fifo, "abc", 3), 3);
	CHECK_UINT(kfifo_size(&k), 64);
	CHECK(k.buffer == buf);
}

// The mainline 2.6.33-2.6.35 calls, the four-argument user copies and the
// zero-copy calls from C++.
void test_cxx_mainline_calls()
{
	struct kfifo f;
	unsigned int copied = 0;

	CHECK_INT(kfifo_alloc(&f, 16, GFP_KERNEL), 0);
	CHECK_INT(kfifo_initialized(&f), 1);
	CHECK_INT(kfifo_from_user(&f, "abcdef", 6, &copied), 0);
	CHECK_UINT(copied, 6);
	CHECK_UINT(kfifo_from_user(&f, "gh", 2), 2);
	CHECK_UINT(kfifo_out_peek(&f, out, 3, 2), 3);
	CHECK_MEM(out, "cde", 3);
	CHECK_UINT(kfifo_avail_rec(&f, 1), 7);
	CHECK_INT(kfifo_to_user(&f, out, 4, &copied), 0);
	CHECK_UINT(copied, 4);
	CHECK_UINT(kfifo_to_user(&f, out, 64), 4);
	CHECK_MEM(out, "efgh", 4);
	kfifo_free(&f);
	CHECK_INT(kfifo_initialized(&f), 0);
}

void test_cxx_zero_copy()
{
	struct kfifo f;
	struct kfifo_region r[2];

	CHECK_INT(kfifo_alloc(&f, 8, GFP_KERNEL), 0);
	f.in = f.out = UINT_MAX - 1;
	CHECK_UINT(kfifo_in_prepare(&f, r, 5), 5);
	CHECK_UINT(r[0].len, 2);
	CHECK_UINT(r[1].len, 3);
	std::memcpy(r[0].data, "ab", 2);
	std::memcpy(r[1].data, "cde", 3);
	CHECK_UINT(kfifo_in_finish(&f, 5), 5);
	CHECK_UINT(kfifo_out_prepare(&f, r, 8), 5);
	CHECK_MEM(r[0].data, "ab", 2);
	CHECK_MEM(r[1].data, "cde", 3);
	CHECK_UINT(kfifo_out_finish(&f, 5), 5);
	CHECK_INT(kfifo_is_empty(&f), 1);
	kfifo_free(&f);
}

} // namespace

int main()
{
	RUN_TEST(test_cxx_byte_stream);
	RUN_TEST(test_cxx_records_and_locks);
	RUN_TEST(test_cxx_declaration_macros);
	RUN_TEST(test_cxx_mainline_calls);
	RUN_TEST(test_cxx_zero_copy);
	return th_finish("test_cxx");
}
