/* SPDX-License-Identifier: MIT */
/*
 * sample_inttype.c - a fifo of int, written as a kernel module would be,
 * in the spirit of the kernel's samples/kfifo/inttype-example (written
 * from its behaviour, not its text): counts are in elements, kfifo_put()
 * takes a value, kfifo_get()/kfifo_peek() a pointer to an int.  Built
 * with DEFINE_KFIFO (3 arguments) and, with -DDYNAMIC, DECLARE_KFIFO_PTR
 * and kfifo_alloc().  Prints "test passed".
 */
#include <kfifo.h>

#include "kernel_shim.h"

#define FIFO_SIZE 32

#ifdef DYNAMIC
static DECLARE_KFIFO_PTR(numbers, int);
#else
static DEFINE_KFIFO(numbers, int, FIFO_SIZE);
#endif

static DEFINE_SPINLOCK(numbers_lock);

static const int expected[] = {
	13, 14, 15, 16, 17, 18, 19, -1, -2, -3, 100, 101, 102, 103,
	104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114, 115, 116,
	117, 118, 119, 120, 121,
};

static int check_numbers(void)
{
	int buf[10];
	int v;
	unsigned int i, n, copied;

	printk(KERN_INFO "int fifo test start\n");
	if (kfifo_size(&numbers) != FIFO_SIZE || kfifo_esize(&numbers) != 4)
		return -1;

	/* ten ints at once, counted in elements */
	for (i = 0; i != 10; i++)
		buf[i] = 10 + (int)i;
	n = kfifo_in(&numbers, buf, 10);
	if (n != 10 || kfifo_len(&numbers) != 10 ||
	    kfifo_avail(&numbers) != FIFO_SIZE - 10)
		return -2;
	/* and ten more by value */
	for (i = 0; i != 10; i++)
		kfifo_put(&numbers, 20 + (int)i);

	/* skip one, skip two more, peek the next */
	kfifo_skip(&numbers);
	kfifo_skip_count(&numbers, 2);
	if (!kfifo_peek(&numbers, &v) || v != 13 || kfifo_len(&numbers) != 17)
		return -3;

	/* take the 10 from 20 on out of the middle: first 7 (13..19) are
	 * rotated to the back, then the 20s are dropped */
	for (i = 0; i != 7; i++) {
		if (!kfifo_get(&numbers, &v))
			return -4;
		kfifo_put(&numbers, v);
	}
	n = kfifo_out(&numbers, buf, 10);
	if (n != 10 || buf[0] != 20 || buf[9] != 29)
		return -5;
	/* three negatives through the locked calls */
	buf[0] = -1;
	buf[1] = -2;
	buf[2] = -3;
	if (kfifo_in_spinlocked(&numbers, buf, 3, &numbers_lock) != 3)
		return -6;
	/* the user-copy calls count bytes */
	if (kfifo_to_user(&numbers, buf, 2 * sizeof(int), &copied) != 0 ||
	    copied != 2 * sizeof(int) || buf[0] != 13 || buf[1] != 14)
		return -7;
	if (kfifo_from_user(&numbers, buf, 2 * sizeof(int) + 3, &copied) ||
	    copied != 2 * sizeof(int))
		return -8;
	/* now 15..19, -1, -2, -3, 13, 14: rotate 13 and 14 to the front */
	for (i = 0; i != 8; i++) {
		if (kfifo_out_spinlocked(&numbers, &v, 1, &numbers_lock) != 1)
			return -9;
		kfifo_put(&numbers, v);
	}

	/* fill to the brim */
	for (v = 100; kfifo_put(&numbers, v); v++)
		;
	if (!kfifo_is_full(&numbers) || v != 100 + FIFO_SIZE - 10)
		return -10;

	for (i = 0; kfifo_get(&numbers, &v); i++) {
		printk(KERN_INFO "item = %d\n", v);
		if (i >= ARRAY_SIZE(expected) || v != expected[i])
			return -11;
	}
	if (i != ARRAY_SIZE(expected) || !kfifo_is_empty(&numbers))
		return -12;
	return 0;
}

static int __init example_init(void)
{
	int ret;

#ifdef DYNAMIC
	ret = kfifo_alloc(&numbers, FIFO_SIZE, GFP_KERNEL);
	if (ret) {
		printk(KERN_ERR "error kfifo_alloc\n");
		return ret;
	}
#endif
	ret = check_numbers();
	if (ret) {
		printk(KERN_WARNING "test failed (%d)\n", ret);
		return ret;
	}
	printk(KERN_INFO "test passed\n");
	return 0;
}

static void __exit example_exit(void)
{
#ifdef DYNAMIC
	kfifo_free(&numbers);
#endif
}

module_init(example_init);
module_exit(example_exit);
MODULE_LICENSE("MIT");
