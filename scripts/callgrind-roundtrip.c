/* SPDX-License-Identifier: MIT */
/*
 * callgrind-roundtrip.c - the instruction budget of the ordinary fast
 * path, for scripts/callgrind-budget.sh (with and without --check):
 * ROUNDS round trips of 16 bytes through one fifo (kfifo_in, then
 * kfifo_out), of one 16-byte record with a 1-byte header (kfifo_in_rec,
 * then kfifo_out_rec), and of 16 bytes through the zero-copy calls
 * (kfifo_in_prepare, a copy into the regions, kfifo_in_finish, then the
 * same out of them with the out calls).  Callgrind
 * counts only inside round_trips() (--toggle-collect), so set-up, the
 * warm-up and the process around it do not count.
 *
 * Usage: callgrind-roundtrip bytes|records|regions
 */
#include <kfifo.h>

#include <stdio.h>
#include <string.h>

#define ROUNDS 100000u
#define CHUNK 16u

static unsigned char storage[4096];

enum what { BYTES, RECORDS, REGIONS };

__attribute__((noinline)) unsigned int round_trips(struct kfifo *fifo,
						   enum what what,
						   unsigned int rounds);

__attribute__((noinline)) unsigned int round_trips(struct kfifo *fifo,
						   enum what what,
						   unsigned int rounds)
{
	unsigned char in[CHUNK], out[CHUNK];
	struct kfifo_region r[2];
	unsigned int i, sum = 0, total, k;

	memset(in, 0x5a, sizeof(in));
	for (i = 0; i < rounds; i++) {
		if (what == REGIONS) {
			k = kfifo_in_prepare(fifo, r, CHUNK);
			memcpy(r[0].data, in, r[0].len);
			memcpy(r[1].data, in + r[0].len, r[1].len);
			sum += kfifo_in_finish(fifo, k);
			k = kfifo_out_prepare(fifo, r, CHUNK);
			memcpy(out, r[0].data, r[0].len);
			memcpy(out + r[0].len, r[1].data, r[1].len);
			sum += kfifo_out_finish(fifo, k);
		} else if (what == RECORDS) {
			sum += kfifo_in_rec(fifo, in, CHUNK, 1);
			sum += kfifo_out_rec(fifo, out, CHUNK, 1, &total);
		} else {
			sum += kfifo_in(fifo, in, CHUNK);
			sum += kfifo_out(fifo, out, CHUNK);
		}
		sum += out[i % CHUNK];
	}
	return sum;
}

int main(int argc, char **argv)
{
	struct kfifo fifo;
	const char *arg = argc > 1 ? argv[1] : "bytes";
	enum what what = !strcmp(arg, "records")   ? RECORDS
			 : !strcmp(arg, "regions") ? REGIONS
						   : BYTES;

	if (kfifo_init(&fifo, storage, sizeof(storage)) != 0)
		return 1;
	/* warm-up outside the counted function */
	round_trips(&fifo, what, 1000);
	printf("%u\n", round_trips(&fifo, what, ROUNDS));
	return 0;
}
