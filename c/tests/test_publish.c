/* SPDX-License-Identifier: MIT */
/*
 * test_publish.c - what the other side may see between two index stores,
 * made deterministic.
 *
 * This program links a test build of the library (kfifo_test_hooks, built
 * with KFIFO_TEST_HOOKS) that calls kfifo__test_index_stored() right after
 * every store of @in or @out.  At that moment the test looks at the fifo as
 * the other side could, and checks:
 *
 *  - records (recsize 0, 1, 2; constant and run-time recsize): @in and
 *    @out only ever stop on record boundaries, and every record between
 *    them is whole, header and data, with its content.  A record published
 *    in two stores (header, then data) fails here on the first store, every
 *    time, where a thread stress catches it only if the consumer happens to
 *    look in between;
 *  - bytes (kfifo_in, kfifo_from_user in both forms, kfifo_in_locked, the
 *    zero-copy calls): every byte between @out and @in already holds its
 *    data when @in is stored, i.e. nothing is published before it is
 *    copied, and nothing is released before it is read.
 *
 * Single-threaded: the hook is the other side.
 */
#include <kfifo.h>

#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "test_harness.h"

void kfifo__test_index_stored(const unsigned int *index);

/* ---- what the hook knows ------------------------------------------------ */

enum watch_mode { WATCH_NONE, WATCH_RECORDS, WATCH_BYTES };

struct rec {
	unsigned int start; /* index of the header */
	unsigned int len;   /* data bytes */
	unsigned long long seq;
};

#define MAXREC 1024u

static struct {
	enum watch_mode mode;
	struct kfifo *fifo;
	unsigned int recsize;
	unsigned int base; /* WATCH_BYTES: byte i of the stream is at base + i */
	/* WATCH_RECORDS: the records from @out on, oldest first, including
	 * the one being stored (pushed before kfifo_in_rec is called) */
	struct rec recs[MAXREC];
	unsigned int head, tail; /* free-running; count = head - tail */
	unsigned long in_stores, out_stores;
	unsigned long bad;
	char first_bad[256];
} w;

static unsigned char rec_byte(unsigned long long seq, unsigned int i)
{
	return th_pattern(seq * 1000003ull + i);
}

static unsigned char stream_byte(unsigned int pos)
{
	return th_pattern(pos);
}

static void hook_fail(const char *fmt, unsigned long long a,
		      unsigned long long b)
{
	if (w.bad++ == 0)
		snprintf(w.first_bad, sizeof(w.first_bad), fmt, a, b);
}

static unsigned char byte_at(const struct kfifo *f, unsigned int idx)
{
	return f->buffer[idx & (f->size - 1)];
}

static unsigned int rec_end(const struct rec *r)
{
	return r->start + w.recsize + r->len;
}

/* Is @idx the start of a known record, or the end of the last one? */
static int on_boundary(unsigned int idx)
{
	unsigned int k;

	for (k = w.tail; k != w.head; k++)
		if (w.recs[k % MAXREC].start == idx)
			return 1;
	return w.head != w.tail && rec_end(&w.recs[(w.head - 1) % MAXREC]) == idx;
}

/* Every record from @out to @in is whole and holds its bytes. */
static void check_records(const struct kfifo *f)
{
	unsigned int in = f->in, out = f->out, k, j;

	if (!on_boundary(in))
		hook_fail("in stored at %llu, inside a record (out %llu)", in, out);
	if (!on_boundary(out))
		hook_fail("out stored at %llu, inside a record (in %llu)", out, in);
	for (k = w.tail; k != w.head; k++) {
		const struct rec *r = &w.recs[k % MAXREC];

		if (r->start - out >= in - out || rec_end(r) - out > in - out)
			continue; /* not (wholly) between out and in */
		if (w.recsize >= 1 && byte_at(f, r->start) != (r->len & 0xff))
			hook_fail("record %llu: header byte 0 is %llu", r->seq,
				  byte_at(f, r->start));
		if (w.recsize == 2 && byte_at(f, r->start + 1) != r->len >> 8)
			hook_fail("record %llu: header byte 1 is %llu", r->seq,
				  byte_at(f, r->start + 1));
		for (j = 0; j < r->len; j++)
			if (byte_at(f, r->start + w.recsize + j) !=
			    rec_byte(r->seq, j)) {
				hook_fail("record %llu: data byte %llu not there yet",
					  r->seq, j);
				break;
			}
	}
}

/* Every byte from @out to @in holds the stream's byte. */
static void check_bytes(const struct kfifo *f)
{
	unsigned int in = f->in, out = f->out, i;

	if (in - out > f->size)
		hook_fail("in - out is %llu, size %llu", in - out, f->size);
	for (i = out; i != in; i++)
		if (byte_at(f, i) != stream_byte(i - w.base)) {
			hook_fail("byte %llu published before it was written (in %llu)",
				  i - w.base, in - w.base);
			return;
		}
}

void kfifo__test_index_stored(const unsigned int *index)
{
	if (w.mode == WATCH_NONE)
		return;
	if (index == &w.fifo->in)
		w.in_stores++;
	else if (index == &w.fifo->out)
		w.out_stores++;
	else
		return;
	if (w.mode == WATCH_RECORDS)
		check_records(w.fifo);
	else
		check_bytes(w.fifo);
}

static void watch(enum watch_mode mode, struct kfifo *f, unsigned int recsize)
{
	memset(&w, 0, sizeof(w));
	w.fifo = f;
	w.recsize = recsize;
	w.base = f->in;
	w.mode = mode;
}

/* Stop watching; the checks of the hook become checks of the test. */
static void unwatch(void)
{
	w.mode = WATCH_NONE;
	if (!CHECK_UINT(w.bad, 0))
		fprintf(stderr, "  first: %s\n", w.first_bad);
}

/* ---- records ------------------------------------------------------------- */

static unsigned int rec_len(unsigned long long seq, unsigned int recsize)
{
	if (recsize == 0)
		return 12;
	/* 0 .. 100: zero-length records too, and headers that wrap */
	return (unsigned int)((seq * 2654435761u) >> 9) % 101;
}

static unsigned int put_rec(struct kfifo *f, const unsigned char *data,
			    unsigned int len, unsigned int recsize, int constant)
{
	if (constant) {
		switch (recsize) {
		case 0: return kfifo_in_rec(f, data, len, 0);
		case 1: return kfifo_in_rec(f, data, len, 1);
		default: return kfifo_from_user_rec(f, data, len, 2);
		}
	}
	return kfifo_in_rec(f, data, len, recsize);
}

static unsigned int get_rec(struct kfifo *f, unsigned char *to, unsigned int n,
			    unsigned int recsize, unsigned int *total,
			    int constant)
{
	if (constant) {
		switch (recsize) {
		case 0: return kfifo_out_rec(f, to, n, 0, total);
		case 1: return kfifo_out_rec(f, to, n, 1, total);
		default: return kfifo_to_user_rec(f, to, n, 2, total);
		}
	}
	return kfifo_out_rec(f, to, n, recsize, total);
}

static void take_one(struct kfifo *f, unsigned int recsize, int constant,
		     unsigned int how)
{
	const struct rec *r = &w.recs[w.tail % MAXREC];
	unsigned char buf[128];
	unsigned int total = 0, j;

	/* (kfifo_skip_rec with recsize 0 empties the fifo: not here) */
	if (how % 5 == 0 && recsize > 0) {
		kfifo_skip_rec(f, recsize);
	} else {
		if (!CHECK_UINT(get_rec(f, buf, recsize ? sizeof(buf) : 12,
					recsize, &total, constant), 0))
			return;
		CHECK_UINT(total, r->len);
		for (j = 0; j < r->len; j++)
			if (!CHECK_UINT(buf[j], rec_byte(r->seq, j)))
				break;
	}
	w.tail++;
}

/* One run: a stream of records through a 256-byte fifo whose indices
 * cross 2^32, taken out (or skipped) when the fifo is full and now and
 * then before. */
static void run_records(unsigned int recsize, int constant)
{
	static unsigned char data[128];
	struct kfifo f;
	unsigned long long seq;
	unsigned int j;

	th_context("recsize %u, %s", recsize, constant ? "constant" : "run-time");
	CHECK_INT(kfifo_alloc(&f, 256, GFP_KERNEL), 0);
	f.in = f.out = UINT_MAX - 300;
	watch(WATCH_RECORDS, &f, recsize);
	for (seq = 0; seq < 3000; seq++) {
		unsigned int len = rec_len(seq, recsize);
		struct rec *r = &w.recs[w.head % MAXREC];

		for (j = 0; j < len; j++)
			data[j] = rec_byte(seq, j);
		r->start = f.in;
		r->len = len;
		r->seq = seq;
		w.head++;
		while (put_rec(&f, data, len, recsize, constant) != 0) {
			if (!CHECK(w.head - w.tail > 1)) {
				unwatch();
				kfifo_free(&f);
				return;
			}
			/* refused: no room yet; make some and try again */
			w.head--;
			take_one(&f, recsize, constant, (unsigned int)seq);
			r->start = f.in;
			w.head++;
		}
		if (seq % 7 == 3 && w.head - w.tail > 1)
			take_one(&f, recsize, constant, (unsigned int)seq + 1);
	}
	while (w.head != w.tail)
		take_one(&f, recsize, constant, 1);
	CHECK_UINT(kfifo_len(&f), 0);
	/* the hook saw every store: at least one per record each way */
	CHECK(w.in_stores >= 3000);
	CHECK(w.out_stores >= 3000);
	unwatch();
	kfifo_free(&f);
}

static void test_records_are_published_and_released_whole(void)
{
	unsigned int recsize;

	for (recsize = 0; recsize <= 2; recsize++) {
		run_records(recsize, 1);
		run_records(recsize, 0);
	}
}

/* ---- bytes ---------------------------------------------------------------- */

static void put_bytes(struct kfifo *f, unsigned int pos, unsigned int n,
		      unsigned int how, kfifo_spinlock_t *lock)
{
	unsigned char src[64];
	struct kfifo_region r[2];
	unsigned int i, k, copied = 0;

	for (i = 0; i < n; i++)
		src[i] = stream_byte(pos + i);
	switch (how % 5) {
	case 0:
		k = kfifo_in(f, src, n);
		break;
	case 1:
		k = kfifo_from_user(f, src, n);
		break;
	case 2:
		CHECK_INT(kfifo_from_user(f, src, n, &copied), 0);
		k = copied;
		break;
	case 3:
		k = kfifo_in_locked(f, src, n, lock);
		break;
	default:
		k = kfifo_in_prepare(f, r, n);
		memcpy(r[0].data, src, r[0].len);
		memcpy(r[1].data, src + r[0].len, r[1].len);
		CHECK_UINT(kfifo_in_finish(f, k), k);
		break;
	}
	CHECK_UINT(k, n);
}

static void test_bytes_are_published_after_they_are_copied(void)
{
	unsigned char dst[64];
	kfifo_spinlock_t lock;
	struct kfifo f;
	unsigned int wpos = 0, rpos = 0, round;

	kfifo_spin_lock_init(&lock);
	CHECK_INT(kfifo_alloc(&f, 64, GFP_KERNEL), 0);
	f.in = f.out = UINT_MAX - 100;
	watch(WATCH_BYTES, &f, 0);
	for (round = 0; round < 5000; round++) {
		unsigned int n = round % 29 + 1, k, i;

		if (n > kfifo_avail(&f))
			n = kfifo_avail(&f);
		put_bytes(&f, wpos, n, round, &lock);
		wpos += n;
		n = round % 31 + 1;
		switch (round % 3) {
		case 0:
			k = kfifo_out(&f, dst, n);
			break;
		case 1:
			k = kfifo_out_locked(&f, dst, n, &lock);
			break;
		default: {
			struct kfifo_region r[2];

			k = kfifo_out_prepare(&f, r, n);
			memcpy(dst, r[0].data, r[0].len);
			memcpy(dst + r[0].len, r[1].data, r[1].len);
			CHECK_UINT(kfifo_out_finish(&f, k), k);
			break;
		}
		}
		for (i = 0; i < k; i++)
			if (!CHECK_UINT(dst[i], stream_byte(rpos + i)))
				break;
		rpos += k;
	}
	CHECK(w.in_stores >= 4000);
	CHECK(w.out_stores >= 4000);
	unwatch();
	kfifo_free(&f);
}

/* ---- the hook itself ------------------------------------------------------ */

/* The checker must be able to fail: a record whose data is not in the
 * buffer, with @in past it, is reported; the same with the data is not. */
static void test_hook_reports_a_header_without_its_data(void)
{
	struct kfifo f;
	unsigned int j;

	CHECK_INT(kfifo_alloc(&f, 64, GFP_KERNEL), 0);
	watch(WATCH_RECORDS, &f, 1);
	w.recs[0].start = 0;
	w.recs[0].len = 5;
	w.recs[0].seq = 42;
	w.head = 1;
	f.buffer[0] = 5;
	memset(f.buffer + 1, 0, 5);
	f.in = 6;
	kfifo__test_index_stored(&f.in);
	CHECK_UINT(w.bad, 1);
	for (j = 0; j < 5; j++)
		f.buffer[1 + j] = rec_byte(42, j);
	w.bad = 0;
	kfifo__test_index_stored(&f.in);
	CHECK_UINT(w.bad, 0);
	f.in = 1; /* the header alone: inside the record */
	kfifo__test_index_stored(&f.in);
	CHECK_UINT(w.bad, 1);
	w.mode = WATCH_NONE;
	kfifo_free(&f);
}

int main(void)
{
	RUN_TEST(test_hook_reports_a_header_without_its_data);
	RUN_TEST(test_records_are_published_and_released_whole);
	RUN_TEST(test_bytes_are_published_after_they_are_copied);
	return th_finish("test_publish");
}
