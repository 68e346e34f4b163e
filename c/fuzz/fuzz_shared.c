/* SPDX-License-Identifier: MIT */
/*
 * fuzz_shared.c - libFuzzer target for a shared fifo (docs/spec.md 3.2) with a
 * hostile peer.
 *
 * One malloc'd block of exactly kfifo_shared_bytes(size) bytes holds the
 * fifo, so AddressSanitizer reports any access outside the mapping.  A
 * producer handle (the creator) and a consumer handle (attached) take
 * turns with a "peer" that writes whatever the input says into the header
 * (indices, wait words, closed flag, magic, size, any word of the first
 * 256 bytes) and into the data.  There is no model to compare with: once
 * the peer scribbles, any content is allowed.  What is checked after each
 * call is what docs/spec.md 3.2 promises whatever the peer does: every count
 * returned is at most the n asked for, kfifo_len() <= kfifo_size(), every
 * region lies in the data area, record calls return one of their
 * documented values, waits with a timeout of 0 or a few microseconds
 * return in time with 0, -ETIMEDOUT or -EPIPE, and kfifo_valid() does not
 * crash.  Output and input buffers are malloc'd at exactly the length
 * passed, so a copy past n is caught too.
 *
 * Input layout (a missing byte reads as 0; the input ends the sequence):
 *   size class, then per operation: kind, and the bytes that kind reads.
 * Built with clang -fsanitize=fuzzer (c/fuzz/CMakeLists.txt); with
 * replay_main.c the committed corpus c/fuzz/corpus_shared is replayed by
 * any compiler (ctest fuzz_shared_corpus_replay).
 */
#define _GNU_SOURCE
#include <kfifo.h>

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fuzz_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned long ops;

#define REQUIRE(cond)                                                          \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr,                                        \
				"fuzz_shared: after op %lu, line %d: %s\n",    \
				ops, __LINE__, #cond);                         \
			abort();                                               \
		}                                                              \
	} while (0)

struct world {
	unsigned char *mem;  /* the mapping, kfifo_shared_bytes(size) bytes */
	size_t len;
	unsigned int size;
	struct kfifo prod;   /* the creator's handle */
	struct kfifo cons;   /* an attached handle */
};

static unsigned int decode_size(struct reader *r)
{
	unsigned int c = get8(r);

	/* 1 .. 1024, and now and then 2^16 (records of recsize 2 fit) */
	return c == 255 ? 1u << 16 : 1u << (c % 11);
}

/* Counts around the interesting edges of the fifo and of the headers. */
static unsigned int decode_count(struct reader *r, struct world *w)
{
	unsigned int c = get8(r);
	unsigned int d = c >> 4 & 3;

	switch (c & 7) {
	case 0: return c >> 3;
	case 1: return get8(r);
	case 2: return w->size + d < 2 ? d : w->size + d - 2;
	case 3: return 254 + d;
	case 4: return (get8(r) | get8(r) << 8) % (2 * w->size + 300);
	case 5: return w->size + d;
	default: return c >> 4;
	}
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The invariants every handle keeps, whatever the peer wrote. */
static void check_handle(struct kfifo *f)
{
	unsigned int size = kfifo_size(f), len = kfifo_len(f);

	REQUIRE(len <= size);
	REQUIRE(kfifo_avail(f) <= size);
	REQUIRE((unsigned int)kfifo_is_empty(f) <= 1);
	REQUIRE((unsigned int)kfifo_is_full(f) <= 1);
	REQUIRE(kfifo_avail_rec(f, 1) <= 255 && kfifo_avail_rec(f, 2) <= size);
	REQUIRE((unsigned int)kfifo_valid(f) <= 1);
	REQUIRE((unsigned int)kfifo_is_closed(f) <= 1);
}

/* Both regions lie in the data area of @f, and describe @ret bytes. */
static void check_regions(struct world *w, struct kfifo *f,
			  const struct kfifo_region r[2], unsigned int ret,
			  unsigned int n)
{
	const unsigned char *lo = w->mem + KFIFO_SHARED_OFF_DATA;
	const unsigned char *hi = lo + kfifo_size(f);
	int i;

	REQUIRE(ret <= n);
	REQUIRE((unsigned long long)r[0].len + r[1].len == ret);
	for (i = 0; i < 2; i++) {
		REQUIRE(r[i].data != NULL);
		if (kfifo_size(f) == 0)
			continue;
		REQUIRE(r[i].data >= lo && r[i].data <= hi);
		REQUIRE(r[i].len <= (size_t)(hi - r[i].data));
	}
}

/* A wait with a timeout of 0 or a few microseconds returns in time, with
 * one of the results its contract allows. */
static void check_wait(struct reader *r, struct world *w, struct kfifo *f,
		       unsigned int kind)
{
	long long timeout = (long long)(get8(r) % 4) * 20000; /* 0 .. 60 us */
	unsigned int n = kind == 2 ? get8(r) % 4 : decode_count(r, w);
	long long t0 = now_ns(), took;
	int ret;

	if (kind == 0)
		ret = kfifo_wait_avail(f, n, timeout);
	else if (kind == 1)
		ret = kfifo_wait_len(f, n, timeout);
	else
		ret = kfifo_wait_rec(f, n, timeout);
	took = now_ns() - t0;
	/* generous: a hang never returns, but a loaded machine can stall
	 * this process for a while (0.5 s was once exceeded in CI on a
	 * 2-core machine shared with pinned benchmarks, and the input
	 * replayed in 0 ms) */
	REQUIRE(took < timeout + 3000000000LL);
	if (kind != 2 && n > kfifo_size(f)) {
		REQUIRE(ret == -EINVAL);
		return;
	}
	if (kind == 2 && (n < 1 || n > 2)) {
		REQUIRE(ret == -EINVAL);
		return;
	}
	REQUIRE(ret == 0 || ret == -ETIMEDOUT || ret == -EPIPE);
}

/* The peer: write what the input says somewhere in the mapping. */
static void scribble(struct reader *r, struct world *w)
{
	static const size_t words[] = {
		KFIFO_SHARED_OFF_IN,           KFIFO_SHARED_OFF_OUT,
		KFIFO_SHARED_OFF_IN,           KFIFO_SHARED_OFF_OUT,
		KFIFO_SHARED_OFF_DATA_SEQ,     KFIFO_SHARED_OFF_ROOM_SEQ,
		KFIFO_SHARED_OFF_DATA_WAITERS, KFIFO_SHARED_OFF_ROOM_WAITERS,
		KFIFO_SHARED_OFF_CLOSED,       KFIFO_SHARED_OFF_MAGIC,
		KFIFO_SHARED_OFF_VERSION,      KFIFO_SHARED_OFF_SIZE,
	};
	unsigned int c = get8(r), v;
	size_t off;

	switch (c & 3) {
	case 0: /* a known word, to a value near the other index or anything */
		off = words[(c >> 2) % (sizeof(words) / sizeof(words[0]))];
		v = get32(r);
		if (c & 0x80) {
			unsigned int other;

			memcpy(&other, w->mem + (off == KFIFO_SHARED_OFF_IN
							 ? KFIFO_SHARED_OFF_OUT
							 : KFIFO_SHARED_OFF_IN),
			       4);
			v = other + (v & 0xff) - 128 + (c & 0x40 ? w->size : 0);
		}
		__atomic_store_n((unsigned int *)(void *)(w->mem + off), v,
				 __ATOMIC_RELAXED);
		break;
	case 1: /* any word of the header */
		off = (size_t)(get8(r) % (KFIFO_SHARED_OFF_DATA / 4)) * 4;
		v = get32(r);
		__atomic_store_n((unsigned int *)(void *)(w->mem + off), v,
				 __ATOMIC_RELAXED);
		break;
	default: /* data bytes: a record header that lies, or garbage */
		off = KFIFO_SHARED_OFF_DATA + get32(r) % w->size;
		w->mem[off] = (unsigned char)get8(r);
		break;
	}
}

static unsigned char *buf_for(unsigned int n)
{
	/* exactly n bytes (1 for n = 0: malloc(0) may be NULL) */
	unsigned char *b = malloc(n ? n : 1);

	if (b == NULL)
		abort();
	return b;
}

static void op_producer(struct reader *r, struct world *w, unsigned int kind)
{
	struct kfifo *f = &w->prod;
	struct kfifo_region reg[2];
	unsigned int n = decode_count(r, w), recsize = get8(r) % 4, ret, k;
	unsigned char *b = buf_for(n);

	memset(b, (int)(n & 0xff), n ? n : 1);
	switch (kind) {
	case 0:
		REQUIRE(kfifo_in(f, b, n) <= n);
		break;
	case 1:
		ret = kfifo_in_rec(f, b, n, recsize);
		REQUIRE(ret == 0 || ret == n + 1);
		break;
	case 2:
		ret = kfifo_in_prepare(f, reg, n);
		check_regions(w, f, reg, ret, n);
		for (k = 0; k < 2; k++)
			memset(reg[k].data, 0xa5, reg[k].len);
		k = get8(r);
		REQUIRE(kfifo_in_finish(f, k ? ret : n) <= (k ? ret : n));
		break;
	default:
		REQUIRE(kfifo_from_user_copied(f, b, n, &k) == 0 && k <= n);
		break;
	}
	free(b);
}

static void op_consumer(struct reader *r, struct world *w, struct kfifo *f,
			unsigned int kind)
{
	struct kfifo_region reg[2];
	unsigned int n = decode_count(r, w), recsize = get8(r) % 4;
	unsigned int ret, total = 12345, k;
	unsigned char *b = buf_for(n);

	switch (kind) {
	case 0:
		REQUIRE(kfifo_out(f, b, n) <= n);
		break;
	case 1:
		ret = kfifo_out_rec(f, b, n, recsize, &total);
		/* 0 (taken, total <= n), total > n (too small), or n */
		if (ret == 0)
			REQUIRE(total <= n && total <= kfifo_size(f));
		else
			REQUIRE(ret == n || (ret == total && total > n));
		if (recsize == 1)
			REQUIRE(total <= 255 || total == n);
		break;
	case 2:
		k = decode_count(r, w);
		REQUIRE(kfifo_out_peek(f, b, n, k) <= n);
		break;
	case 3:
		ret = kfifo_peek_rec(f, recsize);
		REQUIRE(ret <= (recsize == 1 ? 255u : recsize == 2 ? 65535u
					       : recsize == 0 ? kfifo_size(f) : 0));
		break;
	case 4:
		kfifo_skip_rec(f, recsize);
		break;
	case 5:
		kfifo_skip(f, n);
		break;
	case 6:
		ret = kfifo_out_prepare(f, reg, n);
		check_regions(w, f, reg, ret, n);
		for (k = 0; k < 2; k++)
			if (reg[k].len)
				memcpy(b, reg[k].data, reg[k].len);
		k = get8(r);
		REQUIRE(kfifo_out_finish(f, k ? ret : n) <= (k ? ret : n));
		break;
	default:
		kfifo_reset_out(f);
		break;
	}
	free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reader r = { data, size };
	struct world w;
	unsigned int c;

	memset(&w, 0, sizeof(w));
	w.size = decode_size(&r);
	w.len = kfifo_shared_bytes(w.size);
	w.mem = malloc(w.len);
	if (w.mem == NULL)
		abort();
	memset(w.mem + KFIFO_SHARED_OFF_DATA, 0x5a, w.size);
	REQUIRE(kfifo_shared_create(&w.prod, w.mem, w.len, w.size) == 0);
	REQUIRE(kfifo_shared_attach(&w.cons, w.mem, w.len) == 0);
	REQUIRE(kfifo_size(&w.prod) == w.size && kfifo_size(&w.cons) == w.size);
	while (r.left > 0) {
		ops++;
		c = get8(&r);
		switch (c % 16) {
		case 0: case 1: case 2: case 3:
			scribble(&r, &w);
			break;
		case 4: case 5: case 6:
			op_producer(&r, &w, c >> 4 & 3);
			break;
		case 7: case 8: case 9: case 10:
			op_consumer(&r, &w, c & 0x80 ? &w.prod : &w.cons,
				    c >> 4 & 7);
			break;
		case 11:
			check_wait(&r, &w, c & 0x80 ? &w.cons : &w.prod,
				   (c >> 4 & 7) % 3);
			break;
		case 12:
			if (c & 0x10)
				kfifo_close(&w.prod);
			else if (c & 0x20)
				kfifo_close(&w.cons);
			else
				kfifo_reset(c & 0x40 ? &w.prod : &w.cons);
			break;
		case 13: {
			/* attach again: a refusal leaves a valid size-0 fifo */
			int ret = kfifo_shared_attach(&w.cons, w.mem, w.len);

			REQUIRE(ret == 0 || ret == -EINVAL);
			REQUIRE(kfifo_is_shared(&w.cons) == (ret == 0));
			if (ret != 0)
				REQUIRE(kfifo_size(&w.cons) == 0 &&
					kfifo_len(&w.cons) == 0 &&
					kfifo_valid(&w.cons) == 1);
			else
				REQUIRE(kfifo_size(&w.cons) <= w.size);
			break;
		}
		default:
			break;
		}
		check_handle(&w.prod);
		check_handle(&w.cons);
	}
	/* kfifo_free on a handle leaves the mapping alone (ASan would see a
	 * free of memory malloc did not return as a bad free) */
	kfifo_free(&w.prod);
	kfifo_free(&w.cons);
	REQUIRE(kfifo_size(&w.prod) == 0 && !kfifo_is_shared(&w.prod));
	free(w.mem);
	return 0;
}
