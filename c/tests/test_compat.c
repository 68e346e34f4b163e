/* SPDX-License-Identifier: MIT */
/*
 * test_compat.c - the calls of the mainline <linux/kfifo.h> of 2.6.33 to
 * 2.6.35 that the seed lacks (README.md, "Kernel compatibility"):
 * kfifo_initialized, kfifo_out_peek, kfifo_avail_rec, and kfifo_from_user /
 * kfifo_to_user in both their seed (three-argument) and mainline
 * (four-argument) forms.  The first part is driver code in the style of
 * those releases (a queue of pointers torn down only when initialised, as
 * the Freescale USB host driver fhci does; a character device read/write
 * with the four-argument user copies), compiled unchanged.
 */
#include <kfifo.h>

#include <limits.h>
#include <string.h>

#include "test_harness.h"
#include "test_util.h"

/* ---- driver-style code, as of 2.6.33-2.6.35 ----------------------------- */

struct td {
	int id;
};

struct endpoint {
	struct kfifo empty_tds;   /* a queue of struct td pointers */
	struct kfifo conf_frames; /* allocated later, maybe never */
	spinlock_t lock;
};

static int queue_new(struct kfifo *q, unsigned int entries)
{
	return kfifo_alloc(q, entries * sizeof(void *), GFP_KERNEL);
}

static int queue_put(struct kfifo *q, void *p)
{
	return (int)kfifo_in(q, (void *)&p, sizeof(p));
}

static void *queue_get(struct kfifo *q)
{
	void *p = NULL;

	if (kfifo_out(q, (void *)&p, sizeof(p)) != sizeof(p))
		return NULL;
	return p;
}

static unsigned int queue_howmany(struct kfifo *q)
{
	return kfifo_len(q) / sizeof(void *);
}

static void endpoint_free(struct endpoint *ep, unsigned int *freed)
{
	if (kfifo_initialized(&ep->empty_tds)) {
		while (queue_get(&ep->empty_tds))
			++*freed;
		kfifo_free(&ep->empty_tds);
	}
	if (kfifo_initialized(&ep->conf_frames)) {
		while (queue_get(&ep->conf_frames))
			++*freed;
		kfifo_free(&ep->conf_frames);
	}
}

struct chardev {
	struct kfifo fifo;
};

static long chardev_write(struct chardev *dev, const char __user *buf,
			  unsigned long count)
{
	unsigned int copied;
	int ret = kfifo_from_user(&dev->fifo, buf, count, &copied);

	return ret ? ret : (long)copied;
}

static long chardev_read(struct chardev *dev, char __user *buf,
			 unsigned long count)
{
	unsigned int copied;
	int ret = kfifo_to_user(&dev->fifo, buf, count, &copied);

	return ret ? ret : (long)copied;
}

static void test_driver_code_of_2_6_33_compiles_and_works(void)
{
	static struct td tds[3] = { { 1 }, { 2 }, { 3 } };
	struct endpoint ep;
	struct chardev dev;
	unsigned int freed = 0, i;
	char text[16];

	memset(&ep, 0, sizeof(ep)); /* kzalloc'd in the driver */
	spin_lock_init(&ep.lock);
	CHECK_INT(kfifo_initialized(&ep.empty_tds), 0);
	CHECK_INT(queue_new(&ep.empty_tds, 4), 0);
	CHECK_INT(kfifo_initialized(&ep.empty_tds), 1);
	for (i = 0; i < 3; i++)
		CHECK_INT(queue_put(&ep.empty_tds, &tds[i]), (int)sizeof(void *));
	CHECK_UINT(queue_howmany(&ep.empty_tds), 3);
	CHECK(queue_get(&ep.empty_tds) == &tds[0]);
	/* conf_frames was never allocated: endpoint_free must skip it */
	endpoint_free(&ep, &freed);
	CHECK_UINT(freed, 2);
	CHECK_INT(kfifo_initialized(&ep.empty_tds), 0);
	endpoint_free(&ep, &freed); /* twice: nothing left to tear down */
	CHECK_UINT(freed, 2);

	CHECK_INT(kfifo_alloc(&dev.fifo, 8, GFP_KERNEL), 0);
	CHECK_INT(chardev_write(&dev, "hello, world", 12), 8);
	memset(text, 0, sizeof(text));
	CHECK_INT(chardev_read(&dev, text, 5), 5);
	CHECK(strcmp(text, "hello") == 0);
	CHECK_INT(chardev_read(&dev, text, sizeof(text)), 3);
	CHECK_MEM(text, ", w", 3);
	CHECK_INT(chardev_read(&dev, text, sizeof(text)), 0);
	kfifo_free(&dev.fifo);
}

/* ---- kfifo_initialized -------------------------------------------------- */

static void test_initialized_follows_the_buffer(void)
{
	static unsigned char buf[16];
	DEFINE_KFIFO(defined, 8);
	struct {
		DECLARE_KFIFO(fifo, 4);
	} s;
	struct kfifo f;

	memset(&f, 0, sizeof(f));
	CHECK_INT(kfifo_initialized(&f), 0);
	CHECK_INT(kfifo_alloc(&f, 10, GFP_KERNEL), 0);
	CHECK_INT(kfifo_initialized(&f), 1);
	kfifo_free(&f);
	CHECK_INT(kfifo_initialized(&f), 0);
	CHECK_INT(kfifo_alloc(&f, 0, GFP_KERNEL), -EINVAL);
	CHECK_INT(kfifo_initialized(&f), 0);
	CHECK_INT(kfifo_init(&f, buf, 16), 0);
	CHECK_INT(kfifo_initialized(&f), 1);
	CHECK_INT(kfifo_init(&f, NULL, 16), -EINVAL);
	CHECK_INT(kfifo_initialized(&f), 0);
	CHECK_INT(kfifo_init(&f, buf, 12), -EINVAL);
	CHECK_INT(kfifo_initialized(&f), 0);
	CHECK_INT(kfifo_initialized(&defined), 1);
	INIT_KFIFO(s.fifo);
	CHECK_INT(kfifo_initialized(&s.fifo), 1);
}

/* ---- kfifo_out_peek ----------------------------------------------------- */

static void test_out_peek_copies_without_removing(void)
{
	static struct kt_snap snap;
	unsigned char src[32], dst[64];

	FOR_EACH_START(start) {
		struct kfifo f;

		KT_MAKE(&f, 32, start);
		kt_pattern(src, 20, 5);
		CHECK_UINT(kfifo_in(&f, src, 20), 20);
		kt_snap_take(&snap, &f);
		memset(dst, 0xee, sizeof(dst));
		CHECK_UINT(kfifo_out_peek(&f, dst, 8, 0), 8);
		CHECK_MEM(dst, src, 8);
		CHECK(kt_all_equal(dst, 8, sizeof(dst), 0xee));
		CHECK_UNCHANGED(&f, &snap);
		/* from an offset on, and clamped to what is stored */
		memset(dst, 0xee, sizeof(dst));
		CHECK_UINT(kfifo_out_peek(&f, dst, 64, 13), 7);
		CHECK_MEM(dst, src + 13, 7);
		CHECK(kt_all_equal(dst, 7, sizeof(dst), 0xee));
		CHECK_UINT(kfifo_out_peek(&f, dst, 64, 19), 1);
		CHECK_UINT(dst[0], src[19]);
		/* nothing at or past the end, nothing for n = 0 */
		memset(dst, 0xee, sizeof(dst));
		CHECK_UINT(kfifo_out_peek(&f, dst, 64, 20), 0);
		CHECK_UINT(kfifo_out_peek(&f, dst, 64, UINT_MAX), 0);
		CHECK_UINT(kfifo_out_peek(&f, dst, 0, 3), 0);
		CHECK_UINT(kfifo_out_peek(&f, dst, UINT_MAX, UINT_MAX), 0);
		CHECK(kt_all_equal(dst, 0, sizeof(dst), 0xee));
		CHECK_UINT(kfifo_out_peek(&f, dst, UINT_MAX, 2), 18);
		CHECK_MEM(dst, src + 2, 18);
		CHECK_UNCHANGED(&f, &snap);
		/* what was peeked is what kfifo_out then takes */
		CHECK_UINT(kfifo_out(&f, dst, 64), 20);
		CHECK_MEM(dst, src, 20);
		CHECK_UINT(kfifo_out_peek(&f, dst, 64, 0), 0);
		kfifo_free(&f);
	}
}

/* Mainline copied min(n + offset, len) bytes for an offset: more than n.
 * Ours never writes past n bytes of the caller's buffer. */
static void test_out_peek_never_writes_more_than_n(void)
{
	unsigned char dst[32];
	struct kfifo f;

	CHECK_INT(kfifo_alloc(&f, 16, GFP_KERNEL), 0);
	CHECK_UINT(kfifo_in(&f, "0123456789", 10), 10);
	memset(dst, 0xee, sizeof(dst));
	CHECK_UINT(kfifo_out_peek(&f, dst, 4, 3), 4);
	CHECK_MEM(dst, "3456", 4);
	CHECK(kt_all_equal(dst, 4, sizeof(dst), 0xee));
	kfifo_free(&f);
}

/* ---- kfifo_avail_rec ------------------------------------------------------ */

static void test_avail_rec_is_the_longest_record_that_fits(void)
{
	static unsigned char src[1u << 17];

	FOR_EACH_START(start) {
		static const unsigned int fills[] = { 0, 1, 2, 3, 100, 509,
						      510, 511, 512 };
		size_t i;
		unsigned int recsize;

		for (i = 0; i < sizeof(fills) / sizeof(fills[0]); i++) {
			for (recsize = 0; recsize <= 2; recsize++) {
				struct kfifo f;
				unsigned int a, want;

				KT_MAKE(&f, 512, start);
				CHECK_UINT(kfifo_in(&f, src, fills[i]), fills[i]);
				a = kfifo_avail_rec(&f, recsize);
				want = 512 - fills[i] > recsize
					       ? 512 - fills[i] - recsize
					       : 0;
				if (recsize == 1 && want > 255)
					want = 255;
				CHECK_UINT(a, want);
				/* a record of that length is stored, one more
				 * byte is refused */
				if (kfifo_avail(&f) > recsize) {
					CHECK_UINT(kfifo_in_rec(&f, src, a + 1, recsize),
						   a + 2);
					CHECK_UINT(kfifo_in_rec(&f, src, a, recsize), 0);
				}
				kfifo_free(&f);
			}
		}
	}
	{
		struct kfifo f;

		CHECK_INT(kfifo_alloc(&f, 1u << 17, GFP_KERNEL), 0);
		CHECK_UINT(kfifo_avail_rec(&f, 0), 1u << 17);
		CHECK_UINT(kfifo_avail_rec(&f, 1), 255);
		CHECK_UINT(kfifo_avail_rec(&f, 2), 65535);
		CHECK_UINT(kfifo_avail_rec(&f, 3), 0);
		CHECK_UINT(kfifo_avail_rec(&f, UINT_MAX), 0);
		kfifo_free(&f);
		CHECK_UINT(kfifo_avail_rec(&f, 0), 0);
		CHECK_UINT(kfifo_avail_rec(&f, 1), 0);
	}
}

/* ---- kfifo_from_user / kfifo_to_user, both forms ------------------------- */

static void test_user_copies_in_both_forms(void)
{
	unsigned char dst[16];

	FOR_EACH_START(start) {
		struct kfifo f;
		unsigned int copied;

		KT_MAKE(&f, 8, start);
		/* seed form: the count */
		CHECK_UINT(kfifo_from_user(&f, "abc", 3), 3);
		/* mainline form: 0, the count in the fourth argument */
		copied = 12345;
		CHECK_INT(kfifo_from_user(&f, "defghijk", 8, &copied), 0);
		CHECK_UINT(copied, 5);
		copied = 12345;
		CHECK_INT(kfifo_from_user(&f, "x", 1, &copied), 0);
		CHECK_UINT(copied, 0);
		CHECK_CONTENT(&f, "abcdefgh", 8);
		CHECK_UINT(kfifo_to_user(&f, dst, 2), 2);
		CHECK_MEM(dst, "ab", 2);
		copied = 12345;
		CHECK_INT(kfifo_to_user(&f, dst, sizeof(dst), &copied), 0);
		CHECK_UINT(copied, 6);
		CHECK_MEM(dst, "cdefgh", 6);
		copied = 12345;
		CHECK_INT(kfifo_to_user(&f, dst, sizeof(dst), &copied), 0);
		CHECK_UINT(copied, 0);
		/* a NULL count pointer is allowed */
		CHECK_INT(kfifo_from_user(&f, "zz", 2, NULL), 0);
		CHECK_INT(kfifo_to_user(&f, dst, 1, NULL), 0);
		CHECK_UINT(dst[0], 'z');
		CHECK_UINT(kfifo_len(&f), 1);
		CHECK_UINT(f.in, start + 10);
		kfifo_free(&f);
	}
}

/* The three-argument functions keep their names: the macros only act on
 * a call, so a pointer to the function and a parenthesised call work. */
static void test_three_argument_functions_keep_their_names(void)
{
	unsigned int (*put)(struct kfifo *, const void *, unsigned int) =
		kfifo_from_user;
	unsigned int (*get)(struct kfifo *, void *, unsigned int) =
		&kfifo_to_user;
	int (*put4)(struct kfifo *, const void *, unsigned int,
		    unsigned int *) = kfifo_from_user_copied;
	unsigned char dst[4];
	unsigned int copied = 0;
	struct kfifo f;

	CHECK_INT(kfifo_alloc(&f, 8, GFP_KERNEL), 0);
	CHECK_UINT(put(&f, "ab", 2), 2);
	CHECK_UINT((kfifo_from_user)(&f, "cd", 2), 2);
	CHECK_INT(put4(&f, "ef", 2, &copied), 0);
	CHECK_UINT(copied, 2);
	CHECK_UINT(get(&f, dst, 3), 3);
	CHECK_MEM(dst, "abc", 3);
	CHECK_UINT((kfifo_to_user)(&f, dst, 4), 3);
	CHECK_MEM(dst, "def", 3);
	kfifo_free(&f);
}

int main(void)
{
	RUN_TEST(test_driver_code_of_2_6_33_compiles_and_works);
	RUN_TEST(test_initialized_follows_the_buffer);
	RUN_TEST(test_out_peek_copies_without_removing);
	RUN_TEST(test_out_peek_never_writes_more_than_n);
	RUN_TEST(test_avail_rec_is_the_longest_record_that_fits);
	RUN_TEST(test_user_copies_in_both_forms);
	RUN_TEST(test_three_argument_functions_keep_their_names);
	return th_finish("test_compat");
}
