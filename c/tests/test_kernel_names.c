/* SPDX-License-Identifier: MIT */
/*
 * test_kernel_names.c - docs/spec.md 1.6: kernel code written against the seed
 * API compiles against <kfifo.h> unchanged.  The driver-like code below
 * uses gfp_t, GFP_KERNEL, GFP_ATOMIC, __user, __must_check, spinlock_t,
 * spin_lock_init and DEFINE_SPINLOCK exactly as a kernel module would,
 * with unsigned char * buffers as the seed prototypes had them.
 */
#include <kfifo.h>

#include <string.h>

#include "test_harness.h"

/* ---- kernel-style code, as it would appear in a driver --------------- */

struct my_dev {
	struct kfifo fifo;
	spinlock_t lock;
	gfp_t gfp;
};

static DEFINE_SPINLOCK(global_lock);

static __must_check int my_dev_setup(struct my_dev *dev, unsigned int size)
{
	int ret;

	spin_lock_init(&dev->lock);
	dev->gfp = GFP_KERNEL;
	ret = kfifo_alloc(&dev->fifo, size, dev->gfp);
	if (ret)
		return ret;
	return 0;
}

static unsigned int my_dev_write(struct my_dev *dev, const char __user *buf,
				 unsigned int count)
{
	return kfifo_from_user(&dev->fifo, buf, count);
}

static unsigned int my_dev_read(struct my_dev *dev, char __user *buf,
				unsigned int count)
{
	return kfifo_to_user(&dev->fifo, buf, count);
}

static unsigned int my_dev_put(struct my_dev *dev, unsigned char *data,
			       unsigned int len)
{
	return kfifo_in_locked(&dev->fifo, data, len, &dev->lock);
}

static unsigned int my_dev_get(struct my_dev *dev, unsigned char *data,
			       unsigned int len)
{
	return kfifo_out_locked(&dev->fifo, data, len, &dev->lock);
}

static int my_dev_put_msg(struct my_dev *dev, unsigned char *msg,
			  unsigned int len)
{
	unsigned int ret;

	spin_lock(&global_lock);
	ret = kfifo_in_rec(&dev->fifo, msg, len, 2);
	spin_unlock(&global_lock);
	return ret ? -ENOSPC : 0;
}

static int my_dev_get_msg(struct my_dev *dev, void __user *to,
			  unsigned int size, unsigned int *len)
{
	if (kfifo_to_user_rec(&dev->fifo, to, size, 2, len))
		return -EFAULT;
	return 0;
}

/* ---- the test ----------------------------------------------------------- */

static void test_kernel_style_driver_compiles_and_works(void)
{
	struct my_dev dev;
	unsigned char out[32];
	char text[32];
	unsigned int len = 0;
	gfp_t atomic = GFP_ATOMIC;

	CHECK_INT(my_dev_setup(&dev, 60), 0);
	CHECK_UINT(kfifo_size(&dev.fifo), 64);
	CHECK_UINT(my_dev_write(&dev, "hello ", 6), 6);
	CHECK_UINT(my_dev_put(&dev, (unsigned char *)"world", 5), 5);
	memset(text, 0, sizeof(text));
	CHECK_UINT(my_dev_read(&dev, text, 3), 3);
	CHECK(strcmp(text, "hel") == 0);
	CHECK_UINT(my_dev_get(&dev, out, sizeof(out)), 8);
	CHECK_MEM(out, "lo world", 8);
	CHECK_INT(my_dev_put_msg(&dev, (unsigned char *)"msg", 3), 0);
	CHECK_INT(my_dev_get_msg(&dev, text, sizeof(text), &len), 0);
	CHECK_UINT(len, 3);
	CHECK_MEM(text, "msg", 3);
	CHECK_INT(my_dev_get_msg(&dev, text, sizeof(text), &len), -EFAULT);
	CHECK_INT(spin_trylock(&dev.lock), 1);
	spin_unlock(&dev.lock);
	kfifo_free(&dev.fifo);
	CHECK_INT(kfifo_alloc(&dev.fifo, 16, atomic), 0);
	kfifo_free(&dev.fifo);
}

static void test_kernel_names_are_the_prefixed_ones(void)
{
	spinlock_t a;
	kfifo_spinlock_t *b = &a;
	gfp_t g = GFP_KERNEL;
	kfifo_gfp_t h = g;

	spin_lock_init(b);
	CHECK_INT(kfifo_spin_trylock(&a), 1);
	kfifo_spin_unlock(&a);
	CHECK_UINT(h, KFIFO_GFP_KERNEL);
	CHECK_UINT(GFP_ATOMIC, KFIFO_GFP_ATOMIC);
	CHECK_UINT(sizeof(spinlock_t), sizeof(kfifo_spinlock_t));
}

int main(void)
{
	RUN_TEST(test_kernel_style_driver_compiles_and_works);
	RUN_TEST(test_kernel_names_are_the_prefixed_ones);
	return th_finish("test_kernel_names");
}
