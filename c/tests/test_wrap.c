/* SPDX-License-Identifier: MIT */
/*
 * test_wrap.c - what only link-time wrapping (GNU ld --wrap, see
 * CMakeLists.txt) can show:
 *   - kfifo_alloc() returns -ENOMEM and leaves a valid size-0 fifo when
 *     the allocation (aligned_alloc) fails, and asks for a buffer on a
 *     cache line (the size, when smaller);
 *   - the size limit is exactly 2^31: 2^31 (and what rounds up to it) is
 *     asked of malloc, 2^31 + 1 is refused without asking, and no test
 *     allocates 2 GiB for it (the wrapper hands out a small block);
 *   - kfifo_free() frees exactly the buffer kfifo_alloc() allocated, once,
 *     and never a kfifo_init() / DEFINE_KFIFO / INIT_KFIFO buffer;
 *   - the inline record calls dispatch a compile-time-constant recsize to
 *     the specialised instance and a run-time one to the generic code.
 */
#include <kfifo.h>

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "test_harness.h"

/* ---- the wrappers ----------------------------------------------------- */

void *__real_aligned_alloc(size_t align, size_t n);
void __real_free(void *p);
void *__wrap_aligned_alloc(size_t align, size_t n);
void __wrap_free(void *p);

static int fail_mallocs;
static int fake_big_mallocs; /* hand out fake_block for requests >= 1 GiB */
static unsigned char fake_block[64];
static unsigned long mallocs;
static size_t last_malloc_size;
static size_t last_malloc_align;
static void *last_malloc;
static unsigned long frees;
static void *last_freed;

void *__wrap_aligned_alloc(size_t align, size_t n)
{
	mallocs++;
	last_malloc_align = align;
	if (fail_mallocs) {
		fail_mallocs--;
		return NULL;
	}
	last_malloc_size = n;
	if (fake_big_mallocs && n >= (1u << 30))
		last_malloc = fake_block;
	else
		last_malloc = __real_aligned_alloc(align, n);
	return last_malloc;
}

void __wrap_free(void *p)
{
	if (p != NULL) {
		frees++;
		last_freed = p;
	}
	if (p != fake_block)
		__real_free(p);
}

static unsigned long calls_const[2][3]; /* [in, out][recsize] */
static unsigned long calls_generic[2];

#define WRAP_IN(R)                                                             \
	unsigned int __real_kfifo__in_rec##R(struct kfifo *, const void *,     \
					     unsigned int);                    \
	unsigned int __wrap_kfifo__in_rec##R(struct kfifo *, const void *,     \
					     unsigned int);                    \
	unsigned int __wrap_kfifo__in_rec##R(struct kfifo *f, const void *p,   \
					     unsigned int n)                   \
	{                                                                      \
		calls_const[0][R]++;                                           \
		return __real_kfifo__in_rec##R(f, p, n);                       \
	}
#define WRAP_OUT(R)                                                            \
	unsigned int __real_kfifo__out_rec##R(struct kfifo *, void *,          \
					      unsigned int, unsigned int *);   \
	unsigned int __wrap_kfifo__out_rec##R(struct kfifo *, void *,          \
					      unsigned int, unsigned int *);   \
	unsigned int __wrap_kfifo__out_rec##R(struct kfifo *f, void *p,        \
					      unsigned int n, unsigned int *t) \
	{                                                                      \
		calls_const[1][R]++;                                           \
		return __real_kfifo__out_rec##R(f, p, n, t);                   \
	}

WRAP_IN(0)
WRAP_IN(1)
WRAP_IN(2)
WRAP_OUT(0)
WRAP_OUT(1)
WRAP_OUT(2)

unsigned int __real_kfifo__in_rec_generic(struct kfifo *, const void *,
					  unsigned int, unsigned int);
unsigned int __wrap_kfifo__in_rec_generic(struct kfifo *, const void *,
					  unsigned int, unsigned int);
unsigned int __wrap_kfifo__in_rec_generic(struct kfifo *f, const void *p,
					  unsigned int n, unsigned int r)
{
	calls_generic[0]++;
	return __real_kfifo__in_rec_generic(f, p, n, r);
}

unsigned int __real_kfifo__out_rec_generic(struct kfifo *, void *,
					   unsigned int, unsigned int,
					   unsigned int *);
unsigned int __wrap_kfifo__out_rec_generic(struct kfifo *, void *,
					   unsigned int, unsigned int,
					   unsigned int *);
unsigned int __wrap_kfifo__out_rec_generic(struct kfifo *f, void *p,
					   unsigned int n, unsigned int r,
					   unsigned int *t)
{
	calls_generic[1]++;
	return __real_kfifo__out_rec_generic(f, p, n, r, t);
}

/* ---- the tests -------------------------------------------------------- */

static void test_alloc_returns_enomem_when_malloc_fails(void)
{
	struct kfifo f;

	memset(&f, 0xa5, sizeof(f));
	fail_mallocs = 1;
	CHECK_INT(kfifo_alloc(&f, 64, GFP_KERNEL), -ENOMEM);
	CHECK_INT(fail_mallocs, 0); /* malloc was really asked */
	CHECK_INT(kfifo_valid(&f), 1);
	CHECK_UINT(kfifo_size(&f), 0);
	CHECK_UINT(kfifo_len(&f), 0);
	CHECK(f.buffer == NULL);
	CHECK_UINT(kfifo_in(&f, "abc", 3), 0);
	frees = 0;
	kfifo_free(&f);
	CHECK_UINT(frees, 0);
	/* and the next attempt works */
	CHECK_INT(kfifo_alloc(&f, 64, GFP_KERNEL), 0);
	CHECK_UINT(kfifo_size(&f), 64);
	kfifo_free(&f);
}

/* The limit is exactly 2^31.  The buffer is never touched here, so the
 * wrapper can answer the 2 GiB request with a 64-byte block. */
static void test_alloc_limit_is_exactly_2_pow_31(void)
{
	static const unsigned int accepted[] = { 1u << 31, (1u << 31) - 1,
						 (1u << 30) + 1 };
	static const unsigned int refused[] = { (1u << 31) + 1,
						(1u << 31) + 2, UINT_MAX };
	struct kfifo f;
	size_t i;

	fake_big_mallocs = 1;
	for (i = 0; i < sizeof(accepted) / sizeof(accepted[0]); i++) {
		th_context("size %u", accepted[i]);
		mallocs = 0;
		last_malloc_size = 0;
		CHECK_INT(kfifo_alloc(&f, accepted[i], GFP_KERNEL), 0);
		CHECK_UINT(mallocs, 1);
		CHECK_UINT(last_malloc_size, 1u << 31);
		CHECK(f.buffer == fake_block);
		CHECK_UINT(kfifo_size(&f), 1u << 31);
		CHECK_UINT(kfifo_avail(&f), 1u << 31);
		CHECK_INT(kfifo_valid(&f), 1);
		frees = 0;
		kfifo_free(&f);
		CHECK_UINT(frees, 1);
		CHECK(last_freed == fake_block);
	}
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		th_context("size %u", refused[i]);
		mallocs = 0;
		CHECK_INT(kfifo_alloc(&f, refused[i], GFP_KERNEL), -EINVAL);
		CHECK_UINT(mallocs, 0);
		CHECK_UINT(kfifo_size(&f), 0);
		CHECK(f.buffer == NULL);
		CHECK_INT(kfifo_valid(&f), 1);
	}
	fake_big_mallocs = 0;
}

static void test_alloc_puts_the_buffer_on_a_cache_line(void)
{
	static const unsigned int sizes[] = { 1, 2, 8, 32, 64, 100, 4096,
					      1u << 20 };
	struct kfifo f;
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t want;

		th_context("size %u", sizes[i]);
		CHECK_INT(kfifo_alloc(&f, sizes[i], GFP_KERNEL), 0);
		want = kfifo_size(&f) < 64 ? kfifo_size(&f) : 64;
		CHECK_UINT(last_malloc_align, want);
		CHECK_UINT((uintptr_t)f.buffer % want, 0);
		kfifo_free(&f);
	}
}

static void test_free_frees_exactly_the_allocated_buffer_once(void)
{
	struct kfifo f;
	void *buffer;

	CHECK_INT(kfifo_alloc(&f, 1000, GFP_KERNEL), 0);
	buffer = f.buffer;
	CHECK(buffer == last_malloc);
	CHECK(last_malloc_size >= 1024);
	CHECK_UINT(kfifo_in(&f, "abc", 3), 3);
	frees = 0;
	last_freed = NULL;
	kfifo_free(&f);
	CHECK_UINT(frees, 1);
	CHECK(last_freed == buffer);
	kfifo_free(&f); /* the second call frees nothing */
	CHECK_UINT(frees, 1);
}

static void test_free_never_frees_caller_memory(void)
{
	static unsigned char heap_like[64];
	DEFINE_KFIFO(defined, 16);
	struct {
		DECLARE_KFIFO(fifo, 8);
	} s;
	struct kfifo f;

	frees = 0;
	CHECK_INT(kfifo_init(&f, heap_like, 64), 0);
	kfifo_free(&f);
	kfifo_free(&f);
	kfifo_free(&defined);
	INIT_KFIFO(s.fifo);
	kfifo_free(&s.fifo);
	CHECK_UINT(frees, 0);
	/* a fifo allocated, then re-initialised over caller memory, must
	 * not free the caller's buffer either (the allocation leaks, as in
	 * the kernel: kfifo_init does not free) */
	{
		void *mem = NULL;

		CHECK_INT(kfifo_alloc(&f, 8, GFP_KERNEL), 0);
		mem = f.buffer;
		CHECK_INT(kfifo_init(&f, heap_like, 8), 0);
		kfifo_free(&f);
		CHECK_UINT(frees, 0);
		__real_free(mem);
	}
}

static void test_constant_recsize_calls_the_specialised_instance(void)
{
	volatile unsigned int vr1 = 1, vr2 = 2, vr0 = 0;
	unsigned char buf[16];
	unsigned int total;
	struct kfifo f;
	int optimised = 0;

#ifdef __OPTIMIZE__
	optimised = 1;
#endif
	CHECK_INT(kfifo_alloc(&f, 64, GFP_KERNEL), 0);
	memset(calls_const, 0, sizeof(calls_const));
	memset(calls_generic, 0, sizeof(calls_generic));

	/* run-time recsize: always the generic code */
	CHECK_UINT(kfifo_in_rec(&f, "ab", 2, vr1), 0);
	CHECK_UINT(kfifo_in_rec(&f, "ab", 2, vr2), 0);
	CHECK_UINT(kfifo_in_rec(&f, "ab", 2, vr0), 0);
	CHECK_UINT(kfifo_out_rec(&f, buf, 16, vr1, &total), 0);
	CHECK_UINT(kfifo_out_rec(&f, buf, 16, vr2, &total), 0);
	CHECK_UINT(kfifo_out_rec(&f, buf, 2, vr0, &total), 0);
	CHECK_UINT(calls_generic[0], 3);
	CHECK_UINT(calls_generic[1], 3);
	CHECK_UINT(calls_const[0][0] + calls_const[0][1] + calls_const[0][2], 0);
	CHECK_UINT(calls_const[1][0] + calls_const[1][1] + calls_const[1][2], 0);

	/* constant recsize: the specialised instance, when optimising
	 * (__builtin_constant_p sees through the inline call only then) */
	memset(calls_generic, 0, sizeof(calls_generic));
	CHECK_UINT(kfifo_in_rec(&f, "ab", 2, 0), 0);
	CHECK_UINT(kfifo_in_rec(&f, "ab", 2, 1), 0);
	CHECK_UINT(kfifo_from_user_rec(&f, "ab", 2, 2), 0);
	CHECK_UINT(kfifo_out_rec(&f, buf, 2, 0, &total), 0);
	CHECK_UINT(kfifo_out_rec(&f, buf, 16, 1, &total), 0);
	CHECK_UINT(kfifo_to_user_rec(&f, buf, 16, 2, &total), 0);
	CHECK_UINT(kfifo_len(&f), 0);
	if (optimised) {
		CHECK_UINT(calls_const[0][0], 1);
		CHECK_UINT(calls_const[0][1], 1);
		CHECK_UINT(calls_const[0][2], 1);
		CHECK_UINT(calls_const[1][0], 1);
		CHECK_UINT(calls_const[1][1], 1);
		CHECK_UINT(calls_const[1][2], 1);
		CHECK_UINT(calls_generic[0] + calls_generic[1], 0);
	} else {
		printf("  (not optimised: the constant path is not taken)\n");
		CHECK_UINT(calls_generic[0] + calls_const[0][0] +
				   calls_const[0][1] + calls_const[0][2], 3);
	}
	/* a constant recsize other than 0, 1, 2 goes to the generic code */
	memset(calls_generic, 0, sizeof(calls_generic));
	CHECK_UINT(kfifo_in_rec(&f, "ab", 2, 3), 3);
	CHECK_UINT(kfifo_out_rec(&f, buf, 16, 3, &total), 16);
	CHECK_UINT(calls_generic[0], 1);
	CHECK_UINT(calls_generic[1], 1);
	kfifo_free(&f);
}

int main(void)
{
	RUN_TEST(test_alloc_returns_enomem_when_malloc_fails);
	RUN_TEST(test_alloc_puts_the_buffer_on_a_cache_line);
	RUN_TEST(test_alloc_limit_is_exactly_2_pow_31);
	RUN_TEST(test_free_frees_exactly_the_allocated_buffer_once);
	RUN_TEST(test_free_never_frees_caller_memory);
	RUN_TEST(test_constant_recsize_calls_the_specialised_instance);
	return th_finish("test_wrap");
}
