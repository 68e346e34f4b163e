/* SPDX-License-Identifier: MIT */
/*
 * fuzz_ops.c - libFuzzer target: decodes its input into a fifo set-up and
 * a sequence of operations, applies each to a real fifo and to the model
 * of c/tests/kfifo_model.h, and aborts on the first difference in a
 * return value, *total, an output byte, the indices, the content or
 * kfifo_valid().
 *
 * Input layout (every field one byte unless noted; a missing byte reads
 * as 0, and the input ends the sequence):
 *   size class, start class, [start: 4 bytes]
 *   then per operation: kind, recsize class, flags, count class,
 *   [count bytes], [out_peek only: offset class, offset bytes], fill
 * Built with clang -fsanitize=fuzzer (c/fuzz/CMakeLists.txt); the same
 * file with replay_main.c replays the committed corpus with any compiler
 * (ctest fuzz_corpus_replay).
 */
#include <kfifo.h>

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "kfifo_model.h"

#include "fuzz_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned int decode_size(struct reader *r)
{
	unsigned int c = get8(r);

	switch (c >> 5) {
	case 0: return c & 31;                  /* 0 .. 31, often not pow2 */
	case 1: /* 2^17 (records of 65535 bytes) now and then: slow to check */
		return (c & 15) == 0 ? 65537 : 1u << (c % 9);
	case 2: return (1u << 31) + (c & 31);   /* too big (or 2^31: clamped) */
	default: return 1u << (c % 9);          /* 1 .. 256 */
	}
}

static unsigned int decode_start(struct reader *r)
{
	unsigned int c = get8(r);

	switch (c & 3) {
	case 0: return 0;
	case 1: return get32(r);
	default: return UINT_MAX - (c >> 2) * 3;
	}
}

static unsigned int decode_recsize(struct reader *r)
{
	static const unsigned int odd[] = { 3, 4, 255, 256, 65536, UINT_MAX };
	unsigned int c = get8(r);

	if (c < 240)
		return c % 3;
	return odd[c % 6];
}

/* Counts near the interesting boundaries of the current state. */
static unsigned int decode_count(struct reader *r, const struct kmodel *m,
				 unsigned int recsize)
{
	unsigned int c = get8(r);
	int d = (int)(c >> 4 & 3) - 1;

	switch (c & 15) {
	case 0: return 0;
	case 1: return c >> 4;
	case 2: return get8(r);
	case 3: return get8(r) | get8(r) << 8;
	case 4: return get32(r);
	case 5: return (unsigned int)((int)kmodel_len(m) + d);
	case 6: return (unsigned int)((int)kmodel_avail(m) + d);
	case 7: return (unsigned int)((int)kmodel_avail(m) - (int)(recsize > 2 ? 0 : recsize) + d);
	case 8: return (unsigned int)((int)kmodel_peek_rec(m, recsize) + d);
	case 9: return 255 + (c >> 4 & 1);
	case 10: return 65535 + (c >> 4 & 1);
	case 11: return UINT_MAX - (c >> 4 & 3);
	default: return c >> 4 & 7;
	}
}

static struct kdiff diff;
static int opened;

static void fail(const struct kop *op, const char *err)
{
	char desc[160];

	kdiff_describe(op, desc, sizeof(desc));
	fprintf(stderr, "fuzz_ops: mismatch after op %lu (%s): %s\n",
		diff.ops, desc, err);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reader r = { data, size };
	struct kop op;
	const char *err;

	if (!opened) {
		if (kdiff_open(&diff) != 0)
			abort();
		opened = 1;
	}
	memset(&op, 0, sizeof(op));
	op.kind = KOP_ALLOC;
	op.n = decode_size(&r);
	op.start = decode_start(&r);
	err = kdiff_apply(&diff, &op);
	if (err)
		fail(&op, err);
	while (r.left > 0) {
		memset(&op, 0, sizeof(op));
		op.kind = get8(&r) % KOP_COUNT;
		op.recsize = decode_recsize(&r);
		op.flags = get8(&r) & 15;
		if (op.kind == KOP_ALLOC || op.kind == KOP_INIT) {
			op.n = decode_size(&r);
			op.start = decode_start(&r);
		} else {
			op.n = decode_count(&r, &diff.model, op.recsize);
		}
		if (op.kind == KOP_OUT_PEEK)
			op.offset = decode_count(&r, &diff.model, 0);
		op.fill = (unsigned char)get8(&r);
		op.seed = op.fill * 257u;
		err = kdiff_apply(&diff, &op);
		if (err)
			fail(&op, err);
	}
	/* leave nothing allocated between inputs */
	op.kind = KOP_FREE;
	err = kdiff_apply(&diff, &op);
	if (err)
		fail(&op, err);
	return 0;
}
