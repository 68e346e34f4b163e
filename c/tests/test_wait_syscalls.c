/* SPDX-License-Identifier: MIT */
/*
 * test_wait_syscalls.c - what waiting costs in system calls (docs/spec.md 3.1),
 * counted by wrapping syscall() at link time (GNU ld --wrap=syscall, so
 * Linux only; the library makes its futex and membarrier calls through
 * syscall()).
 *
 *  - while nobody waits, no publishing call (in, out, records, skip,
 *    reset_out, the locked calls) makes a system call, on the membarrier
 *    path and on the fenced path, nor does a wait that is decided at once;
 *  - a waiter that must sleep makes one membarrier() call (on that path)
 *    and sleeps on the futex; the call that satisfies it makes one
 *    FUTEX_WAKE, and the calls after it none.
 */
#define _GNU_SOURCE
#include <kfifo.h>

#include <linux/futex.h>
#include <stdarg.h>

#include "test_harness.h"
#include "test_wait_util.h"

long __real_syscall(long number, ...);
long __wrap_syscall(long number, ...);

/* per thread: what this thread asked the kernel for */
static __thread unsigned long calls, futex_waits, futex_wakes, membarriers;

long __wrap_syscall(long number, ...)
{
	long a[6];
	va_list ap;
	int i;

	va_start(ap, number);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	calls++;
	if (number == SYS_futex) {
		int op = (int)a[1] & FUTEX_CMD_MASK;

		if (op == FUTEX_WAKE)
			futex_wakes++;
		else if (op == FUTEX_WAIT || op == FUTEX_WAIT_BITSET)
			futex_waits++;
	}
#ifdef SYS_membarrier
	if (number == SYS_membarrier)
		membarriers++;
#endif
	return __real_syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

static unsigned char buf[4096];

/* Every publishing call many times over, and waits decided at once. */
static void busy_without_waiters(struct kfifo *f)
{
	DEFINE_SPINLOCK(lock);
	unsigned int i, total, sink = 0;

	for (i = 0; i < 100000; i++) {
		if (kfifo_in(f, buf, 1 + i % 64) == 0)
			kfifo_reset_out(f);
		(void)kfifo_out(f, buf, i % 50);
		(void)kfifo_in_locked(f, buf, 7, &lock);
		(void)kfifo_out_locked(f, buf, 3, &lock);
		sink += kfifo_in_rec(f, buf, i % 20, 1);
		sink += kfifo_in_rec(f, buf, i % 20, 2);
		sink += kfifo_out_rec(f, buf, sizeof(buf), 1, &total);
		kfifo_skip(f, 2);
		kfifo_skip_rec(f, 2);
		(void)kfifo_from_user(f, buf, 5);
		(void)kfifo_to_user(f, buf, 5);
		CHECK(kfifo_wait_avail(f, 0, -1) == 0);
		CHECK(kfifo_wait_len(f, 0, -1) == 0);
		CHECK(kfifo_wait_len(f, kfifo_size(f), 0) == -ETIMEDOUT ||
		      kfifo_is_full(f));
	}
	CHECK(sink != 1); /* used */
}

static void test_no_system_call_while_nobody_waits(void)
{
	unsigned char saved = kfifo__membarrier_ready;
	struct kfifo f;
	int fenced;

	for (fenced = 0; fenced < 2; fenced++) {
		th_context("%s path", fenced ? "fenced" : "default");
		if (fenced)
			kfifo__membarrier_ready = 0;
		CHECK_INT(kfifo_alloc(&f, 256, GFP_KERNEL), 0);
		f.in = f.out = 0xfffff000u;
		calls = 0;
		busy_without_waiters(&f);
		CHECK_UINT(calls, 0);
		kfifo_free(&f);
	}
	kfifo__membarrier_ready = saved;
}

#if KT_WAIT_FUTEX
struct counts {
	struct kt_waiter w;
	unsigned long futex_waits, membarriers;
};

static void *counting_waiter(void *arg)
{
	struct counts *c = (struct counts *)arg;

	kt_waiter_main(&c->w);
	c->futex_waits = futex_waits;
	c->membarriers = membarriers;
	return NULL;
}

static void test_a_sleeping_waiter_costs_one_wake(void)
{
	unsigned char saved = kfifo__membarrier_ready;
	struct counts c;
	struct kfifo f;
	int fenced;

	for (fenced = 0; fenced < 2; fenced++) {
		th_context("%s path", fenced ? "fenced" : "default");
		if (fenced)
			kfifo__membarrier_ready = 0;
		CHECK_INT(kfifo_alloc(&f, 64, GFP_KERNEL), 0);
		memset(&c, 0, sizeof(c));
		c.w.fifo = &f;
		c.w.kind = KT_LEN;
		c.w.n = 1;
		c.w.timeout_ns = -1;
		CHECK_INT(pthread_create(&c.w.thread, NULL, counting_waiter, &c), 0);
		CHECK(kt_waiter_asleep(&c.w));
		futex_wakes = calls = 0;
		CHECK_UINT(kfifo_in(&f, buf, 1), 1);
		CHECK_UINT(futex_wakes, 1);
		CHECK_UINT(calls, 1);
		pthread_join(c.w.thread, NULL);
		CHECK_INT(c.w.ret, 0);
		CHECK(c.futex_waits >= 1);
		CHECK_UINT(c.membarriers, KT_WAIT_FUTEX && !fenced && saved ? 1 : 0);
		/* the waiter is gone: publishing is free again */
		calls = 0;
		busy_without_waiters(&f);
		CHECK_UINT(calls, 0);
		kfifo_free(&f);
	}
	kfifo__membarrier_ready = saved;
}
#endif

int main(void)
{
	kt_watchdog(120, "test_wait_syscalls");
	RUN_TEST(test_no_system_call_while_nobody_waits);
#if KT_WAIT_FUTEX
	RUN_TEST(test_a_sleeping_waiter_costs_one_wake);
#endif
	alarm(0);
	return th_finish("test_wait_syscalls");
}
