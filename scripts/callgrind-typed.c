/* SPDX-License-Identifier: MIT */
/*
 * callgrind-typed.c - what the typed API (kfifo.h, "the kernel's typed
 * API") costs beside the byte calls, in instructions per round trip (one
 * call in, one call out), counted by callgrind inside round_trips() only:
 *
 *   bytes16     kfifo_in/kfifo_out of 16 bytes, struct kfifo (the byte calls)
 *   tbytes16    the same through a DECLARE_KFIFO_PTR(f, unsigned char)
 *   byte1       kfifo_in/kfifo_out of 1 byte, struct kfifo
 *   putget1     kfifo_put/kfifo_get on a typed unsigned char fifo
 *   int4        kfifo_in/kfifo_out of 4 ints (16 bytes), an int fifo
 *   putgetint   kfifo_put/kfifo_get of one int
 *   e12x4       kfifo_in/kfifo_out of 4 12-byte elements (48 bytes)
 *   bytes48     kfifo_in/kfifo_out of 48 bytes, struct kfifo
 *   putget12    kfifo_put/kfifo_get of one 12-byte element
 *   rec16       kfifo_in_rec/kfifo_out_rec of a 16-byte record, recsize 1
 *   trec16      kfifo_in/kfifo_out of it through STRUCT_KFIFO_REC_1
 *
 * Usage: callgrind-typed MODE (scripts/callgrind-typed.sh runs them all)
 */
#define KFIFO_TYPED_API
#include <kfifo.h>

#include <stdio.h>
#include <string.h>

#define ROUNDS 100000u

typedef struct {
	unsigned int w[3];
} e12;

static struct kfifo bytes;
static DECLARE_KFIFO_PTR(tbytes, unsigned char);
static DECLARE_KFIFO(ints, int, 256);
static DECLARE_KFIFO(e12s, e12, 256);
static STRUCT_KFIFO_REC_1(4096) recs;
static unsigned char storage[4096];

__attribute__((noinline)) unsigned int round_trips(const char *mode,
						   unsigned int rounds);

__attribute__((noinline)) unsigned int round_trips(const char *mode,
						   unsigned int rounds)
{
	unsigned char in[64], out[64], c;
	int iv[4] = { 1, 2, 3, 4 }, io[4], x;
	e12 ev[4], eo[4], e;
	unsigned int i, sum = 0, total;
	char m = mode[0], m2 = mode[1];

	memset(in, 0x5a, sizeof(in));
	memset(ev, 0x33, sizeof(ev));
	for (i = 0; i < rounds; i++) {
		if (m == 'b' && mode[5] == '1') { /* bytes16 */
			sum += kfifo_in(&bytes, in, 16);
			sum += kfifo_out(&bytes, out, 16);
		} else if (m == 'b' && mode[5] == '4') { /* bytes48 */
			sum += kfifo_in(&bytes, in, 48);
			sum += kfifo_out(&bytes, out, 48);
		} else if (m == 'b') { /* byte1 */
			sum += kfifo_in(&bytes, in, 1);
			sum += kfifo_out(&bytes, out, 1);
		} else if (m == 't' && m2 == 'b') { /* tbytes16 */
			sum += kfifo_in(&tbytes, in, 16);
			sum += kfifo_out(&tbytes, out, 16);
		} else if (m == 't') { /* trec16 */
			sum += kfifo_in(&recs, in, 16);
			sum += kfifo_out(&recs, out, 16);
		} else if (m == 'r') { /* rec16 */
			sum += kfifo_in_rec(&recs.kfifo, in, 16, 1);
			sum += kfifo_out_rec(&recs.kfifo, out, 16, 1, &total);
		} else if (m == 'i') { /* int4 */
			sum += kfifo_in(&ints, iv, 4);
			sum += kfifo_out(&ints, io, 4);
			sum += (unsigned int)io[i & 3];
		} else if (m == 'e') { /* e12x4 */
			sum += kfifo_in(&e12s, ev, 4);
			sum += kfifo_out(&e12s, eo, 4);
			sum += eo[i & 3].w[0];
		} else if (mode[6] == '1') { /* putget1 */
			sum += kfifo_put(&tbytes, (unsigned char)i);
			sum += kfifo_get(&tbytes, &c);
			sum += c;
		} else if (mode[6] == 'i') { /* putgetint */
			sum += kfifo_put(&ints, (int)i);
			sum += kfifo_get(&ints, &x);
			sum += (unsigned int)x;
		} else { /* putget12 */
			e.w[0] = i;
			sum += kfifo_put(&e12s, e);
			sum += kfifo_get(&e12s, &e);
			sum += e.w[0];
		}
		sum += out[i % 16];
	}
	return sum;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "bytes16";

	if (kfifo_init(&bytes, storage, sizeof(storage)) ||
	    kfifo_alloc(&tbytes, 4096, GFP_KERNEL))
		return 1;
	INIT_KFIFO(ints);
	INIT_KFIFO(e12s);
	INIT_KFIFO(recs);
	round_trips(mode, 1000); /* warm-up, not counted */
	printf("%s %u\n", mode, round_trips(mode, ROUNDS));
	kfifo_free(&tbytes);
	return 0;
}
