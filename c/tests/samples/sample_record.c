/* SPDX-License-Identifier: MIT */
/*
 * sample_record.c - variable-length records through a record fifo with a
 * 1-byte length header, written as a kernel module would be, in the
 * spirit of the kernel's samples/kfifo/record-example (written from its
 * behaviour, not its text): kfifo_in() stores one record, kfifo_out()
 * takes one, kfifo_peek_len() tells the next one's length.  Built with a
 * STRUCT_KFIFO_REC_1 fifo and INIT_KFIFO (KFIFO_TYPED_API) and, with
 * -DDYNAMIC, a struct kfifo_rec_ptr_1 and kfifo_alloc().  Prints "test
 * passed".
 */
#define KFIFO_TYPED_API
#include <kfifo.h>

#include "kernel_shim.h"

#define FIFO_SIZE 128

#ifdef DYNAMIC
static struct kfifo_rec_ptr_1 recs;
#else
typedef STRUCT_KFIFO_REC_1(FIFO_SIZE) rec_fifo_t;
static rec_fifo_t recs;
#endif

static const char *const expected[] = {
	"bb", "ccc", "dddd", "eeeee", "ffffff", "ggggggg", "hhhhhhhh",
	"iiiiiiiii", "jjjjjjjjjj", "xyz", "",
};

static int check_records(void)
{
	char buf[300];
	char small[4];
	unsigned int i, n, copied, stored = 0;

	printk(KERN_INFO "record fifo test start\n");
	if (kfifo_recsize(&recs) != 1 || kfifo_size(&recs) != FIFO_SIZE)
		return -1;

	/* ten records "a", "bb", ... "jjjjjjjjjj" */
	for (i = 0; i != 10; i++) {
		memset(buf, 'a' + (int)i, i + 1);
		n = kfifo_in(&recs, buf, i + 1);
		if (n != i + 1)
			return -2;
		stored += 1 + i + 1;
	}
	/* kfifo_len() counts bytes, headers included */
	if (kfifo_len(&recs) != stored || kfifo_peek_len(&recs) != 1)
		return -3;
	/* the longest record that fits now */
	if (kfifo_avail(&recs) != FIFO_SIZE - stored - 1)
		return -4;
	/* a record too long for a 1-byte header is refused whole */
	memset(buf, 'z', 256);
	if (kfifo_in(&recs, buf, 256) != 0 || kfifo_len(&recs) != stored)
		return -5;

	/* skip "a"; peek at "bb" */
	kfifo_skip(&recs);
	if (kfifo_peek_len(&recs) != 2 ||
	    kfifo_out_peek(&recs, buf, sizeof(buf)) != 2 ||
	    memcmp(buf, "bb", 2) != 0 || kfifo_len(&recs) != stored - 2)
		return -6;

	/* the user-copy calls: a whole record each */
	if (kfifo_from_user(&recs, "xyz", 3, &copied) != 0 || copied != 3)
		return -7;
	if (kfifo_in(&recs, "", 0) != 0)
		return -8;

	/* everything, in order; a buffer of 300 takes any record whole */
	for (i = 0; !kfifo_is_empty(&recs); i++) {
		if (i == 3) {
			/* a buffer too small gets the record's head, and the
			 * rest of the record is dropped */
			n = kfifo_out(&recs, small, sizeof(small));
			if (n != 4 || memcmp(small, "eeee", 4) != 0)
				return -9;
			continue;
		}
		if (i == 4) {
			if (kfifo_to_user(&recs, buf, sizeof(buf), &copied) ||
			    copied != 6)
				return -10;
			n = copied;
		} else {
			n = kfifo_out(&recs, buf, sizeof(buf));
		}
		buf[n] = '\0';
		printk(KERN_INFO "item = %s\n", buf);
		if (i >= ARRAY_SIZE(expected) || strcmp(buf, expected[i]) != 0)
			return -11;
	}
	if (i != ARRAY_SIZE(expected))
		return -12;
	/* an empty record fifo gives nothing */
	if (kfifo_out(&recs, buf, sizeof(buf)) != 0 || kfifo_peek_len(&recs))
		return -13;
	return 0;
}

static int __init example_init(void)
{
	int ret;

#ifdef DYNAMIC
	ret = kfifo_alloc(&recs, FIFO_SIZE, GFP_KERNEL);
	if (ret) {
		printk(KERN_ERR "error kfifo_alloc\n");
		return ret;
	}
#else
	INIT_KFIFO(recs);
#endif
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
#ifdef DYNAMIC
	kfifo_free(&recs);
#endif
}

module_init(example_init);
module_exit(example_exit);
MODULE_LICENSE("MIT");
