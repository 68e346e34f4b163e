/* SPDX-License-Identifier: MIT */
/*
 * test_shared_hostile.c - a shared fifo (docs/spec.md 3.2) whose peer process
 * writes garbage into the mapping as fast as it can.
 *
 * The mapping lies between two PROT_NONE guard pages, once with the data
 * area ending right at the guard after it and once with the header
 * starting right after the guard before it, so any access outside the
 * mapping crashes the test (AddressSanitizer does not watch mmap()ed
 * memory; the guards do, in every build).  A forked child loops writing
 * random values into in, out, the wait words, the closed flag and the
 * data, and now and then acts as a legitimate producer for a while.
 * Meanwhile the parent calls every call of docs/spec.md 1.3, 1.4, 3.1 and 3.3
 * on its own handle and checks what 3.2 promises whatever the peer does:
 * counts at most the n asked for, kfifo_len() <= kfifo_size(), regions in
 * the data area (and written / read through, so the guards see them),
 * record calls returning one of their documented values, and waits with
 * timeouts of 0 to 2 ms that never last more than 200 ms past their
 * timeout (CLOCK_MONOTONIC).
 *
 * KFIFO_HOSTILE_SECONDS (default 3) is the time per layout.  Under
 * ThreadSanitizer the test runs too: TSan sees only this process, so the
 * child's writes are invisible to it, and the parent forks before it
 * starts any thread.
 */
#define _GNU_SOURCE
#include <kfifo.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_harness.h"
#include "test_wait_util.h"

struct arena {
	unsigned char *base;  /* guard, pages, guard */
	size_t total;
	unsigned char *mem;   /* the fifo mapping, kfifo_shared_bytes(size) */
	size_t len;
	unsigned int size;
};

/* The mapping of a @size fifo between guard pages; @at_end puts the end
 * of the data area against the second guard, else the header's first
 * byte right after the first guard. */
static void arena_open(struct arena *a, unsigned int size, int at_end)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), pages;

	a->size = size;
	a->len = kfifo_shared_bytes(size);
	pages = (a->len + page - 1) / page;
	a->total = (pages + 2) * page;
	a->base = mmap(NULL, a->total, PROT_NONE, MAP_SHARED | MAP_ANONYMOUS,
		       -1, 0);
	if (a->base == MAP_FAILED ||
	    mprotect(a->base + page, pages * page, PROT_READ | PROT_WRITE) != 0) {
		perror("mmap/mprotect");
		exit(2);
	}
	a->mem = at_end ? a->base + page + pages * page - a->len
			: a->base + page;
}

static unsigned long long rng_state;

static unsigned int rnd(void)
{
	unsigned long long x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	rng_state = x;
	return (unsigned int)(x >> 32);
}

static unsigned int *word(struct arena *a, size_t off)
{
	return (unsigned int *)(void *)(a->mem + off);
}

/* ---- the hostile child -------------------------------------------------- */

static void hostile_child(struct arena *a, struct kfifo *h)
{
	static const size_t words[] = {
		KFIFO_SHARED_OFF_IN,           KFIFO_SHARED_OFF_OUT,
		KFIFO_SHARED_OFF_IN,           KFIFO_SHARED_OFF_OUT,
		KFIFO_SHARED_OFF_DATA_SEQ,     KFIFO_SHARED_OFF_ROOM_SEQ,
		KFIFO_SHARED_OFF_DATA_WAITERS, KFIFO_SHARED_OFF_ROOM_WAITERS,
		KFIFO_SHARED_OFF_CLOSED,       KFIFO_SHARED_OFF_SIZE,
	};
	unsigned char chunk[512];
	unsigned int r, v, k;

	rng_state ^= (unsigned long long)getpid() << 20;
	memset(chunk, 0x3c, sizeof(chunk));
	for (;;) { /* until the parent kills it */
		r = rnd();
		switch (r % 8) {
		case 0: case 1: case 2: /* an index or wait word, anything */
			__atomic_store_n(word(a, words[(r >> 8) % 10]), rnd(),
					 __ATOMIC_RELAXED);
			break;
		case 3: /* an index near the other one */
			v = *word(a, r & 256 ? KFIFO_SHARED_OFF_OUT
					     : KFIFO_SHARED_OFF_IN);
			v += (r >> 9 & 0x3ff) - 0x200 + (r & 512 ? a->size : 0);
			__atomic_store_n(word(a, r & 256 ? KFIFO_SHARED_OFF_IN
							 : KFIFO_SHARED_OFF_OUT),
					 v, __ATOMIC_RELAXED);
			break;
		case 4: /* data bytes: lying record headers */
			a->mem[KFIFO_SHARED_OFF_DATA + rnd() % a->size] =
				(unsigned char)(r >> 8);
			break;
		case 5: /* a legitimate producer for a while */
			for (k = 0, v = 0; k < 200; k++)
				if (kfifo_in(h, chunk, rnd() % sizeof(chunk)) == 0)
					v += kfifo_in_rec(h, chunk, rnd() % 300,
							  1 + (r >> 8 & 1));
			break;
		case 6: /* close and reopen */
			__atomic_store_n(word(a, KFIFO_SHARED_OFF_CLOSED),
					 r >> 8 & 1, __ATOMIC_RELAXED);
			break;
		default: /* wake whoever sleeps: bump a futex word */
			__atomic_fetch_add(word(a, r & 256 ? KFIFO_SHARED_OFF_DATA_SEQ
							   : KFIFO_SHARED_OFF_ROOM_SEQ),
					   2, __ATOMIC_RELAXED);
			break;
		}
	}
}

/* ---- the parent's calls and checks --------------------------------------- */

static long long worst_overshoot_ns;
static unsigned long waits, calls, wait_results[3];

static int regions_ok(struct arena *a, const struct kfifo_region r[2],
		      unsigned int ret, unsigned int n)
{
	const unsigned char *lo = a->mem + KFIFO_SHARED_OFF_DATA;
	const unsigned char *hi = lo + a->size;
	int i;

	if (ret > n || (unsigned long long)r[0].len + r[1].len != ret)
		goto bad;
	for (i = 0; i < 2; i++)
		if (r[i].data < lo || r[i].data > hi ||
		    r[i].len > (size_t)(hi - r[i].data))
			goto bad;
	return 1;
bad:
	fprintf(stderr, "  regions for n %u: %u bytes: [%td, +%u) [%td, +%u) of a %u-byte data area\n",
		n, ret, r[0].data - lo, r[0].len, r[1].data - lo, r[1].len, a->size);
	return 0;
}

static void one_wait(struct kfifo *f)
{
	unsigned int kind = rnd() % 3, n;
	long long timeout = (long long)(rnd() % 5) * 500000; /* 0 .. 2 ms */
	long long t0, c0, took, cpu;
	int ret;

	t0 = kt_now_ns();
	c0 = kt_cpu_ns();
	if (kind == 0) {
		n = rnd() % (kfifo_size(f) + 2);
		ret = kfifo_wait_avail(f, n, timeout);
	} else if (kind == 1) {
		n = rnd() % (kfifo_size(f) + 2);
		ret = kfifo_wait_len(f, n, timeout);
	} else {
		n = 1 + rnd() % 2;
		ret = kfifo_wait_rec(f, n, timeout);
	}
	cpu = kt_cpu_ns() - c0;
	took = kt_now_ns() - t0;
	waits++;
	if (took - timeout > worst_overshoot_ns)
		worst_overshoot_ns = took - timeout;
	/* no wall-clock bound (a busy machine delays the return by hundreds
	 * of ms): a wait the peer keeps spinning shows in its CPU time, a
	 * wait that never returns trips the watchdog */
	if (!CHECK(cpu <= timeout + 200 * KT_MS))
		fprintf(stderr,
			"  wait kind %u n %u timeout %lld ns used %lld ns of CPU\n",
			kind, n, timeout, cpu);
	if (kind < 2 && n > kfifo_size(f)) {
		CHECK_INT(ret, -EINVAL);
		return;
	}
	CHECK(ret == 0 || ret == -ETIMEDOUT || ret == -EPIPE);
	wait_results[ret == 0 ? 0 : ret == -ETIMEDOUT ? 1 : 2]++;
}

static void one_call(struct arena *a, struct kfifo *f)
{
	static unsigned char buf[70000];
	struct kfifo_region reg[2];
	unsigned int r = rnd(), n = rnd() % (2 * a->size + 300), recsize;
	unsigned int ret, total, k;

	recsize = r >> 8 & 3;
	calls++;
	switch (r % 12) {
	case 0:
		CHECK(kfifo_in(f, buf, n) <= n);
		break;
	case 1:
		CHECK(kfifo_out(f, buf, n) <= n);
		break;
	case 2:
		ret = kfifo_in_rec(f, buf, n % 400, recsize);
		CHECK(ret == 0 || ret == n % 400 + 1);
		break;
	case 3:
		total = 12345;
		ret = kfifo_out_rec(f, buf, n, recsize, &total);
		if (ret == 0)
			CHECK(total <= n && total <= a->size);
		else
			CHECK(ret == n || (ret == total && total > n));
		break;
	case 4:
		CHECK(kfifo_out_peek(f, buf, n, rnd() % (a->size + 10)) <= n);
		ret = kfifo_peek_rec(f, recsize);
		CHECK(ret <= (recsize == 1 ? 255u : recsize == 2 ? 65535u
				: recsize == 0 ? a->size : 0));
		break;
	case 5:
		if (r & 256)
			kfifo_skip_rec(f, recsize);
		else
			kfifo_skip(f, n);
		break;
	case 6:
		ret = kfifo_in_prepare(f, reg, n);
		CHECK(regions_ok(a, reg, ret, n));
		memset(reg[0].data, 0x77, reg[0].len);
		memset(reg[1].data, 0x77, reg[1].len);
		CHECK(kfifo_in_finish(f, ret) <= ret);
		break;
	case 7:
		ret = kfifo_out_prepare(f, reg, n);
		CHECK(regions_ok(a, reg, ret, n));
		memcpy(buf, reg[0].data, reg[0].len);
		memcpy(buf + reg[0].len, reg[1].data, reg[1].len);
		k = r & 512 ? ret : n;
		CHECK(kfifo_out_finish(f, k) <= k);
		break;
	case 8:
		one_wait(f);
		break;
	case 9:
		if (r & 256)
			kfifo_close(f);
		else if (r & 512)
			kfifo_reset_out(f);
		else
			kfifo_reset(f);
		break;
	case 10: {
		/* attach again: the peer may have broken the header */
		struct kfifo g;
		int rc = kfifo_shared_attach(&g, a->mem, a->len);

		CHECK(rc == 0 || rc == -EINVAL);
		if (rc == 0)
			CHECK(kfifo_size(&g) <= a->size && kfifo_len(&g) <= kfifo_size(&g));
		else
			CHECK(kfifo_size(&g) == 0 && kfifo_valid(&g) == 1);
		kfifo_free(&g);
		break;
	}
	default:
		CHECK(kfifo_avail_rec(f, recsize) <= a->size);
		break;
	}
	/* the handle keeps its own size, whatever the header says */
	CHECK_UINT(kfifo_size(f), a->size);
	CHECK(kfifo_len(f) <= kfifo_size(f));
	CHECK(kfifo_avail(f) <= kfifo_size(f));
	/* one call each: the peer may change the answer between two */
	CHECK((unsigned int)kfifo_valid(f) <= 1);
	CHECK((unsigned int)kfifo_is_closed(f) <= 1);
	CHECK((unsigned int)kfifo_is_full(f) <= 1);
	CHECK((unsigned int)kfifo_is_empty(f) <= 1);
}

static void run_layout(unsigned int size, int at_end)
{
	long long seconds = (long long)th_env_ull("KFIFO_HOSTILE_SECONDS", 3);
	struct arena a;
	struct kfifo h, mine;
	long long end;
	pid_t pid;
	int status;

	th_context("size %u, %s", size, at_end ? "data against the guard after"
					       : "header after the guard before");
	arena_open(&a, size, at_end);
	CHECK_INT(kfifo_shared_create(&h, a.mem, a.len, size), 0);
	CHECK_INT(kfifo_shared_attach(&mine, a.mem, a.len), 0);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(2);
	}
	if (pid == 0) {
		alarm((unsigned int)seconds + 60);
		hostile_child(&a, &h);
		_exit(0);
	}
	kt_watchdog((unsigned int)seconds + 60, "calls against a hostile peer");
	end = kt_now_ns() + seconds * 1000 * KT_MS;
	while (kt_now_ns() < end) {
		unsigned int i;

		for (i = 0; i < 256; i++)
			one_call(&a, i & 1 ? &mine : &h);
	}
	kill(pid, SIGKILL);
	CHECK_INT(waitpid(pid, &status, 0), pid);
	/* the child must have run until killed, not crashed */
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	kt_watchdog(0, "");
	kfifo_free(&h);
	kfifo_free(&mine);
	munmap(a.base, a.total);
}

static void test_every_call_keeps_its_bounds_against_a_hostile_peer(void)
{
	run_layout(64, 1);
	run_layout(4096, 0);
	printf("  %lu calls, %lu waits (0: %lu, -ETIMEDOUT: %lu, -EPIPE: %lu), "
	       "worst wait past its timeout %.3f ms (wall clock, not checked)\n",
	       calls, waits, wait_results[0], wait_results[1], wait_results[2],
	       (double)worst_overshoot_ns / 1e6);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	rng_state = th_env_ull("KFIFO_TEST_SEED", (unsigned long long)kt_now_ns()) |
		    1;
	printf("test_shared_hostile: seed %llu\n", rng_state);
	RUN_TEST(test_every_call_keeps_its_bounds_against_a_hostile_peer);
	return th_finish("test_shared_hostile");
}
