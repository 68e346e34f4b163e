/* SPDX-License-Identifier: MIT */
/*
 * test_no_kernel_names.c - docs/spec.md 1.6: with KFIFO_NO_KERNEL_NAMES defined
 * before <kfifo.h>, none of the kernel names is defined, so a program may
 * use them for its own things; the prefixed names always exist.
 */
#define KFIFO_NO_KERNEL_NAMES
#include <kfifo.h>

#include "test_harness.h"

#if defined(GFP_KERNEL) || defined(GFP_ATOMIC) || defined(__user) ||          \
	defined(__must_check) || defined(spin_lock_init) ||                   \
	defined(spin_lock) || defined(spin_unlock) || defined(DEFINE_SPINLOCK)
#error "KFIFO_NO_KERNEL_NAMES must keep the kernel names undefined"
#endif

/* The program's own meanings of the kernel names: these would clash with
 * typedefs or macros from the header. */
typedef double gfp_t;
typedef struct {
	const char *owner;
} spinlock_t;
static int spin_lock_init(spinlock_t *l)
{
	l->owner = "mine";
	return 7;
}
enum { GFP_KERNEL = 3, GFP_ATOMIC = 4 };

static void test_prefixed_names_exist_and_kernel_names_are_free(void)
{
	kfifo_spinlock_t klock = KFIFO_SPINLOCK_INIT;
	kfifo_gfp_t kgfp = KFIFO_GFP_KERNEL;
	spinlock_t mine;
	gfp_t g = 0.5;
	unsigned char buf[8];
	struct kfifo f;

	CHECK_INT(spin_lock_init(&mine), 7);
	CHECK(mine.owner[0] == 'm');
	CHECK(g == 0.5);
	CHECK_INT(GFP_KERNEL + GFP_ATOMIC, 7);
	kfifo_spin_lock_init(&klock);
	CHECK_INT(kfifo_alloc(&f, 8, kgfp), 0);
	CHECK_UINT(kfifo_in_locked(&f, "abc", 3, &klock), 3);
	CHECK_UINT(kfifo_out_locked(&f, buf, 8, &klock), 3);
	CHECK_MEM(buf, "abc", 3);
	kfifo_free(&f);
	CHECK_INT(kfifo_alloc(&f, 8, KFIFO_GFP_ATOMIC), 0);
	kfifo_free(&f);
}

int main(void)
{
	RUN_TEST(test_prefixed_names_exist_and_kernel_names_are_free);
	return th_finish("test_no_kernel_names");
}
