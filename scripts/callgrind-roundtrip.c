/* SPDX-License-Identifier: MIT */
/*
 * callgrind-roundtrip.c - the instruction budget of the ordinary fast
 * path, for scripts/callgrind-budget.sh: ROUNDS round trips of 16 bytes
 * through one fifo (kfifo_in, then kfifo_out), and of one 16-byte record
 * with a 1-byte header (kfifo_in_rec, then kfifo_out_rec).  Callgrind
 * counts only inside round_trips() (--toggle-collect), so set-up, the
 * warm-up and the process around it do not count.
 *
 * Usage: callgrind-roundtrip bytes|records
 */
#include <kfifo.h>

#include <stdio.h>
#include <string.h>

#define ROUNDS 100000u
#define CHUNK 16u

static unsigned char storage[4096];

__attribute__((noinline)) unsigned int round_trips(struct kfifo *fifo,
						   int records,
						   unsigned int rounds);

__attribute__((noinline)) unsigned int round_trips(struct kfifo *fifo,
						   int records,
						   unsigned int rounds)
{
	unsigned char in[CHUNK], out[CHUNK];
	unsigned int i, sum = 0, total;

	memset(in, 0x5a, sizeof(in));
	for (i = 0; i < rounds; i++) {
		if (records) {
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
	int records = argc > 1 && strcmp(argv[1], "records") == 0;

	if (kfifo_init(&fifo, storage, sizeof(storage)) != 0)
		return 1;
	/* warm-up outside the counted function */
	round_trips(&fifo, records, 1000);
	printf("%u\n", round_trips(&fifo, records, ROUNDS));
	return 0;
}
