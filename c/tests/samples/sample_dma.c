/* SPDX-License-Identifier: MIT */
/*
 * sample_dma.c - zero-copy "DMA" into and out of fifos through
 * scatterlists, written as a kernel module would be, in the spirit of the
 * kernel's samples/kfifo/dma-example (written from its behaviour, not its
 * text).  A userspace scatterlist entry is a run of bytes of the fifo's
 * buffer (sg_virt(), length); here a memcpy() plays the device.  The byte
 * fifo is a plain struct kfifo, as in the kernel's sample; an int fifo and
 * a record fifo follow.  Prints "test passed".
 */
#include <kfifo.h>

#include "kernel_shim.h"

#define FIFO_SIZE 32

static struct kfifo fifo;
static DECLARE_KFIFO(ints, int, 8);
static struct kfifo_rec_ptr_2 recs;

/* the "device": fill each entry with consecutive bytes from @next */
static unsigned int dma_write(struct scatterlist *sg, unsigned int nents,
			      unsigned char *next)
{
	unsigned int i, j, len = 0;

	for (i = 0; i < nents; i++) {
		unsigned char *p = sg_virt(&sg[i]);

		printk(KERN_INFO "sg[%u] -> page %p offset 0x%.8x length 0x%.8x\n",
		       i, sg_page(&sg[i]), sg[i].offset, sg[i].length);
		if ((unsigned char *)sg_page(&sg[i]) + sg[i].offset != p ||
		    sg_dma_len(&sg[i]) != sg[i].length)
			return 0;
		for (j = 0; j < sg[i].length; j++)
			p[j] = (*next)++;
		len += sg[i].length;
		if (sg_is_last(&sg[i]))
			break;
	}
	return len;
}

static int check_bytes(void)
{
	struct scatterlist sg[10];
	unsigned char buf[FIFO_SIZE];
	unsigned char next = 100;
	unsigned int i, nents, len;

	kfifo_in(&fifo, "test", 4);
	for (i = 0; i != 9; i++)
		kfifo_put(&fifo, i);
	/* drop 't': the free space now runs from index 13 to the end and
	 * wraps to index 0 */
	kfifo_skip(&fifo);
	if (kfifo_len(&fifo) != 12)
		return -1;

	sg_init_table(sg, ARRAY_SIZE(sg));
	nents = kfifo_dma_in_prepare(&fifo, sg, ARRAY_SIZE(sg), FIFO_SIZE);
	printk(KERN_INFO "DMA sgl entries: %u\n", nents);
	if (nents != 2 || sg[0].length != 19 || sg[1].length != 1 ||
	    !sg_is_last(&sg[1]) || sg_is_last(&sg[0]))
		return -2;
	/* nothing is published before the finish */
	if (kfifo_len(&fifo) != 12)
		return -3;
	len = dma_write(sg, nents, &next);
	if (len != 20)
		return -4;
	kfifo_dma_in_finish(&fifo, len);
	if (!kfifo_is_full(&fifo))
		return -5;

	/* 8 bytes out in place: one run */
	nents = kfifo_dma_out_prepare(&fifo, sg, ARRAY_SIZE(sg), 8);
	if (nents != 1 || sg[0].length != 8 ||
	    memcmp(sg_virt(&sg[0]), "est\0\1\2\3\4", 8) != 0)
		return -6;
	kfifo_dma_out_finish(&fifo, 8);
	/* 24 stored, wrapping: with room for one entry only, the first run */
	nents = kfifo_dma_out_prepare(&fifo, sg, 1, FIFO_SIZE);
	if (nents != 1 || sg[0].length != 23 || !sg_is_last(&sg[0]))
		return -7;
	kfifo_dma_out_finish(&fifo, 23);
	if (kfifo_out(&fifo, buf, sizeof(buf)) != 1 || buf[0] != 119)
		return -8;
	return 0;
}

static int check_ints(void)
{
	struct scatterlist sg[4];
	int v, i;
	unsigned int nents;

	for (i = 0; i != 6; i++)
		kfifo_put(&ints, i);
	for (i = 0; i != 6; i++)
		if (!kfifo_get(&ints, &v) || v != i)
			return -20;
	/* room for 8 ints from element 6: elements 6, 7, then 0..5 */
	nents = kfifo_dma_in_prepare(&ints, sg, ARRAY_SIZE(sg), 8);
	if (nents != 2 || sg[0].length != 2 * sizeof(int) ||
	    sg[1].length != 6 * sizeof(int))
		return -21;
	for (i = 0; i != 2; i++)
		((int *)sg_virt(&sg[0]))[i] = 1000 + i;
	/* publish the first two only; the finish counts bytes */
	kfifo_dma_in_finish(&ints, 2 * sizeof(int));
	if (kfifo_len(&ints) != 2 || !kfifo_get(&ints, &v) || v != 1000)
		return -22;
	nents = kfifo_dma_out_prepare(&ints, sg, ARRAY_SIZE(sg), 8);
	if (nents != 1 || sg[0].length != sizeof(int) ||
	    *(int *)sg_virt(&sg[0]) != 1001)
		return -23;
	kfifo_dma_out_finish(&ints, sizeof(int));
	return kfifo_is_empty(&ints) ? 0 : -24;
}

static int check_records(void)
{
	struct scatterlist sg[2];
	char buf[16];
	unsigned int nents;

	nents = kfifo_dma_in_prepare(&recs, sg, ARRAY_SIZE(sg), 5);
	if (nents != 1 || sg[0].length != 5)
		return -30;
	memcpy(sg_virt(&sg[0]), "hello", 5);
	kfifo_dma_in_finish(&recs, 5);
	if (kfifo_len(&recs) != 7 || kfifo_peek_len(&recs) != 5)
		return -31;
	nents = kfifo_dma_out_prepare(&recs, sg, ARRAY_SIZE(sg), 16);
	if (nents != 1 || sg[0].length != 5 ||
	    memcmp(sg_virt(&sg[0]), "hello", 5) != 0)
		return -32;
	kfifo_dma_out_finish(&recs, 5);
	if (!kfifo_is_empty(&recs) || kfifo_out(&recs, buf, sizeof(buf)))
		return -33;
	return 0;
}

static int __init example_init(void)
{
	int ret;

	ret = kfifo_alloc(&fifo, FIFO_SIZE, GFP_KERNEL);
	if (ret) {
		printk(KERN_ERR "error kfifo_alloc\n");
		return ret;
	}
	kfifo_init_typed(ints);
	ret = kfifo_alloc(&recs, 64, GFP_KERNEL);
	if (ret)
		return ret;
	ret = check_bytes();
	if (!ret)
		ret = check_ints();
	if (!ret)
		ret = check_records();
	if (ret) {
		printk(KERN_WARNING "test failed (%d)\n", ret);
		return ret;
	}
	printk(KERN_INFO "test passed\n");
	return 0;
}

static void __exit example_exit(void)
{
	kfifo_free(&fifo);
	kfifo_free(&recs);
}

module_init(example_init);
module_exit(example_exit);
MODULE_LICENSE("MIT");
