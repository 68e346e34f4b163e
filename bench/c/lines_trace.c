/* SPDX-License-Identifier: MIT */
/*
 * lines_trace.c - the calls of both sides of a fifo, in one thread and a
 * fixed order, for scripts/cache-lines.py to trace under valgrind's lackey
 * and replay on a two-core coherence model: which cache lines each call
 * reads and writes, and how many of them have to come from the other
 * core.  Exact and independent of the machine's load, unlike a timing.
 *
 * Before each call it stores the call's number in @lines_mark (the script
 * splits the trace there); the numbers are the scenario's, printed first
 * as "call N side name" lines so that the script can name them.
 *
 * Usage: lines-trace SCENARIO [OFFSET]
 *   OFFSET: where the struct starts past a 128-byte boundary (default 0;
 *   malloc() gives any multiple of 16)
 *   msg8       8-byte messages, kfifo_in / kfifo_out, the consumer caught
 *              up (each message is followed by one empty poll)
 *   avail      kfifo_avail() >= 8 then kfifo_in; kfifo_out, an empty poll
 *   rec0       kfifo_in_rec / kfifo_out_rec, recsize 0, an empty poll
 *   ahead      kfifo_in / kfifo_out of 8 bytes, the producer 32 messages
 *              ahead (the consumer's cached @in covers them)
 *   full       kfifo_in / kfifo_out of 8 bytes at a full fifo: the
 *              producer polls once after each message taken
 *   regions    kfifo_in_prepare/_finish, kfifo_out_prepare/_finish of 8
 *              bytes, an empty poll (prepare returning 0)
 */
#include <kfifo.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

volatile unsigned int lines_mark;

#define ROUNDS 64
#define RING 4096u

#define MAXCALLS (4 * ROUNDS + 2)

static struct kfifo *f;
static unsigned char src[64], dst[64];
static unsigned int ncalls;
static const char *call_side[MAXCALLS], *call_name[MAXCALLS];

static void mark(const char *side, const char *name)
{
	lines_mark = ncalls;
	call_side[ncalls] = side;
	call_name[ncalls] = name;
	ncalls++;
}

static void p_in(void)
{
	mark("producer", "kfifo_in");
	(void)kfifo_in(f, src, 8);
}

static void c_out(const char *what)
{
	mark("consumer", what);
	(void)kfifo_out(f, dst, 8);
}

int main(int argc, char **argv)
{
	const char *s = argc > 1 ? argv[1] : "msg8";
	unsigned int total, i, k;
	struct kfifo_region r[2];

	size_t offset = argc > 2 ? (size_t)atoi(argv[2]) % 128 : 0;
	unsigned char *mem = aligned_alloc(128, (sizeof(*f) + 255) & ~(size_t)127);

	if (mem == NULL)
		return 2;
	f = (struct kfifo *)(void *)(mem + (offset & ~(size_t)15));
	if (kfifo_alloc(f, RING, 0) != 0)
		return 2;
	mark("setup", "setup");
	for (i = 0; i < ROUNDS; i++) {
		if (strcmp(s, "msg8") == 0) {
			p_in();
			c_out("kfifo_out");
			c_out("kfifo_out (empty)");
		} else if (strcmp(s, "avail") == 0) {
			mark("producer", "kfifo_avail + kfifo_in");
			if (kfifo_avail(f) >= 8)
				(void)kfifo_in(f, src, 8);
			c_out("kfifo_out");
			c_out("kfifo_out (empty)");
		} else if (strcmp(s, "rec0") == 0) {
			mark("producer", "kfifo_in_rec(0)");
			total = kfifo_in_rec(f, src, 8, 0);
			mark("consumer", "kfifo_out_rec(0)");
			k = kfifo_out_rec(f, dst, 8, 0, &total);
			mark("consumer", "kfifo_out_rec(0) (empty)");
			k = kfifo_out_rec(f, dst, 8, 0, &total);
		} else if (strcmp(s, "ahead") == 0) {
			if (i == 0)
				for (k = 0; k < 32; k++)
					(void)kfifo_in(f, src, 8);
			p_in();
			c_out("kfifo_out");
		} else if (strcmp(s, "full") == 0) {
			if (i == 0)
				while (kfifo_in(f, src, 8) == 8)
					;
			c_out("kfifo_out");
			mark("producer", "kfifo_in (full)");
			(void)kfifo_in(f, src, 8);
			mark("producer", "kfifo_in (full poll)");
			(void)kfifo_in(f, src, 8);
		} else if (strcmp(s, "regions") == 0) {
			mark("producer", "kfifo_in_prepare + copy + _finish");
			if (kfifo_in_prepare(f, r, 8) == 8) {
				memcpy(r[0].data, src, 8);
				(void)kfifo_in_finish(f, 8);
			}
			mark("consumer", "kfifo_out_prepare + copy + _finish");
			if (kfifo_out_prepare(f, r, 8) == 8) {
				memcpy(dst, r[0].data, 8);
				(void)kfifo_out_finish(f, 8);
			}
			mark("consumer", "kfifo_out_prepare (empty)");
			(void)kfifo_out_prepare(f, r, 8);
		} else {
			fprintf(stderr, "lines-trace: no scenario %s\n", s);
			return 2;
		}
	}
	mark("end", "end");
	printf("model %p %zu\nmodel %p %u\nmark %p\n", (void *)f, sizeof(*f),
	       (void *)f->buffer, RING, (void *)&lines_mark);
	for (i = 0; i < ncalls; i++)
		printf("call %u %s %s\n", i, call_side[i], call_name[i]);
	kfifo_free(f);
	free(mem);
	return 0;
}
