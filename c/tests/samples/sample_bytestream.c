/* SPDX-License-Identifier: MIT */
/*
 * sample_bytestream.c - a byte stream through a typed fifo of unsigned
 * char, written as a kernel module would be, in the spirit of the
 * kernel's samples/kfifo/bytestream-example (written from its behaviour,
 * not its text).  Built twice: with a fifo declared with its buffer
 * (DECLARE_KFIFO, 3 arguments) and, with -DDYNAMIC, with
 * DECLARE_KFIFO_PTR and kfifo_alloc().  Prints "test passed".
 */
#define KFIFO_TYPED_API
#include <kfifo.h>

#include "kernel_shim.h"

#define FIFO_SIZE 32

#ifdef DYNAMIC
static DECLARE_KFIFO_PTR(stream, unsigned char);
#else
static DECLARE_KFIFO(stream, unsigned char, FIFO_SIZE);
#endif

static spinlock_t stream_lock;

/* what kfifo_get() must hand out at the end, in order */
static const unsigned char expected[] = {
	'o', 'r', 'l', 'd', 3, 4, 5, 6, 7, 8, 9, 40, 41, 42, 43,
	44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58,
	59, 60,
};

static int check_stream(void)
{
	unsigned char buf[8];
	unsigned char c;
	unsigned int i, n;
	int ret;

	printk(KERN_INFO "byte stream fifo test start\n");

	/* a string, then ten single bytes by value */
	kfifo_in(&stream, "world", 5);
	for (i = 0; i != 10; i++)
		kfifo_put(&stream, (unsigned char)i);
	if (kfifo_len(&stream) != 15 || kfifo_avail(&stream) != FIFO_SIZE - 15)
		return -1;

	/* peek looks without taking; skip drops one element */
	n = kfifo_out_peek(&stream, buf, 5);
	if (n != 5 || memcmp(buf, "world", 5) != 0)
		return -2;
	kfifo_skip(&stream);
	if (!kfifo_peek(&stream, &c) || c != 'o' || kfifo_len(&stream) != 14)
		return -3;

	/* take the first bytes of the numbers out and put them back at the
	 * end: they go round the ring */
	n = kfifo_out(&stream, buf, 4);
	if (n != 4 || memcmp(buf, "orld", 4) != 0)
		return -4;
	kfifo_in(&stream, "orld", 4);
	n = kfifo_out(&stream, buf, 3);
	if (n != 3 || buf[0] != 0 || buf[2] != 2)
		return -5;
	/* rotate the string to the front again: 7 numbers, then the string */
	for (i = 0; i != 7; i++) {
		if (!kfifo_get(&stream, &c))
			return -6;
		kfifo_put(&stream, c);
	}
	for (i = 0; i != 4; i++) {
		if (!kfifo_get(&stream, &c))
			return -7;
		kfifo_put(&stream, c);
	}
	/* now: 3..9, "orld"; bring the string first */
	for (i = 0; i != 7; i++) {
		if (!kfifo_get(&stream, &c))
			return -8;
		kfifo_put(&stream, c);
	}

	/* fill up with 40, 41, ... until kfifo_put() refuses */
	i = 40;
	while (kfifo_put(&stream, (unsigned char)i))
		i++;
	if (!kfifo_is_full(&stream) || kfifo_len(&stream) != FIFO_SIZE ||
	    i != 40 + FIFO_SIZE - 11)
		return -9;

	/* the locked calls, as a read()/write() pair would use them */
	n = kfifo_out_spinlocked(&stream, buf, 2, &stream_lock);
	if (n != 2 || buf[0] != 'o' || buf[1] != 'r')
		return -10;
	n = kfifo_in_spinlocked(&stream, "or", 2, &stream_lock);
	if (n != 2)
		return -11;
	/* copy out and in through the user-copy calls: bytes and copied */
	ret = kfifo_to_user(&stream, buf, 2, &n);
	if (ret != 0 || n != 2 || memcmp(buf, "ld", 2) != 0)
		return -12;
	ret = kfifo_from_user(&stream, "ld", 2, &n);
	if (ret != 0 || n != 2)
		return -13;
	/* 28 bytes rotated: bring the string back to the front */
	for (i = 0; i != FIFO_SIZE - 4; i++) {
		if (!kfifo_get(&stream, &c))
			return -14;
		kfifo_put(&stream, c);
	}

	/* the whole content, in order */
	for (i = 0; kfifo_get(&stream, &c); i++) {
		printk(KERN_INFO "item = %d\n", c);
		if (i >= ARRAY_SIZE(expected) || c != expected[i])
			return -15;
	}
	if (i != ARRAY_SIZE(expected) || !kfifo_is_empty(&stream))
		return -16;
	return 0;
}

static int __init example_init(void)
{
	int ret;

	spin_lock_init(&stream_lock);
#ifdef DYNAMIC
	ret = kfifo_alloc(&stream, FIFO_SIZE, GFP_KERNEL);
	if (ret) {
		printk(KERN_ERR "error kfifo_alloc\n");
		return ret;
	}
#else
	INIT_KFIFO(stream);
#endif
	ret = check_stream();
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
	kfifo_free(&stream);
#endif
}

module_init(example_init);
module_exit(example_exit);
MODULE_LICENSE("MIT");
