/* SPDX-License-Identifier: MIT */
/*
 * test_wait.c - every result of every wait call and of kfifo_close /
 * kfifo_is_closed (docs/spec.md 3.1), one behaviour per test: the decision
 * order, timeout 0, -ETIMEDOUT after at least the timeout, timeouts that
 * wake-ups do not restart, -EINTR from a handler without SA_RESTART, an
 * unlimited sleep that SA_RESTART handlers do not end (while they end a
 * timed one: the kernel never restarts those), every publishing call waking
 * the other side, close and reset, the 2^32 wrap, a size-1 fifo, record
 * waits (recsize 1 and 2, zero-length, 255 and 65535 bytes, partly written
 * records), and every way of making a fifo.
 *
 * Blocking tests first see the waiter asleep (its thread in state S in
 * /proc), then make the call that must wake it.  Timing is only ever
 * checked from below.  A watchdog turns a hang into a failure.
 */
#define _GNU_SOURCE
#include <kfifo.h>

#include <limits.h>
#include <stdlib.h>

#include "test_harness.h"
#include "test_util.h"
#include "test_wait_util.h"

static unsigned char src[1u << 17];
static unsigned char dst[1u << 17];

/* Nobody counted as waiting: every wait left the fifo as it found it. */
#define CHECK_NO_WAITERS(f)                                                    \
	do {                                                                   \
		CHECK_UINT((f)->kfifo__data_waiters, 0);                       \
		CHECK_UINT((f)->kfifo__room_waiters, 0);                       \
	} while (0)

/* The waiter sleeps; @wake_call then wakes it with result @want. */
#define CHECK_WOKEN_BY(w, wake_call, want)                                     \
	do {                                                                   \
		CHECK(kt_waiter_asleep(w));                                    \
		wake_call;                                                     \
		CHECK_INT(kt_waiter_join(w), (want));                          \
	} while (0)

/* ---- arguments and the decision order --------------------------------- */

static void test_bad_arguments_return_einval_before_anything_else(void)
{
	static const long long timeouts[] = { 0, -1, 1000, 50 * KT_MS };
	static const unsigned int recsizes[] = { 0, 3, 4, 255, 65536, UINT_MAX };
	struct kfifo f, empty;
	unsigned int t, r;

	KT_MAKE(&f, 8, 0);
	CHECK_INT(kfifo_init(&empty, NULL, 0), -EINVAL);
	for (t = 0; t < 4; t++) {
		/* EINVAL comes first: closed or not, holding or not */
		int closed;

		for (closed = 0; closed < 2; closed++) {
			th_context("timeout %lld, closed %d", timeouts[t], closed);
			if (closed)
				kfifo_close(&f);
			CHECK_INT(kfifo_wait_avail(&f, 9, timeouts[t]), -EINVAL);
			CHECK_INT(kfifo_wait_avail(&f, UINT_MAX, timeouts[t]), -EINVAL);
			CHECK_INT(kfifo_wait_len(&f, 9, timeouts[t]), -EINVAL);
			CHECK_INT(kfifo_wait_len(&f, UINT_MAX, timeouts[t]), -EINVAL);
			for (r = 0; r < sizeof(recsizes) / sizeof(recsizes[0]); r++)
				CHECK_INT(kfifo_wait_rec(&f, recsizes[r], timeouts[t]),
					  -EINVAL);
			CHECK_INT(kfifo_wait_avail(&empty, 1, timeouts[t]), -EINVAL);
			CHECK_INT(kfifo_wait_len(&empty, 1, timeouts[t]), -EINVAL);
		}
		kfifo_reset(&f);
	}
	/* n == size is a fair request */
	CHECK_INT(kfifo_wait_avail(&f, 8, 0), 0);
	CHECK_INT(kfifo_wait_len(&f, 8, 0), -ETIMEDOUT);
	/* a size-0 fifo holds and has room for 0 bytes */
	CHECK_INT(kfifo_wait_avail(&empty, 0, -1), 0);
	CHECK_INT(kfifo_wait_len(&empty, 0, -1), 0);
	CHECK_INT(kfifo_wait_rec(&empty, 1, 0), -ETIMEDOUT);
	CHECK_NO_WAITERS(&f);
	kfifo_free(&f);
}

static void test_timeout_zero_only_checks(void)
{
	struct kfifo f;
	unsigned int total = 0;

	FOR_EACH_START(start) {
		KT_MAKE(&f, 16, start);
		CHECK_INT(kfifo_wait_avail(&f, 16, 0), 0);
		CHECK_INT(kfifo_wait_avail(&f, 0, 0), 0);
		CHECK_INT(kfifo_wait_len(&f, 0, 0), 0);
		CHECK_INT(kfifo_wait_len(&f, 1, 0), -ETIMEDOUT);
		CHECK_INT(kfifo_wait_rec(&f, 1, 0), -ETIMEDOUT);
		CHECK_INT(kfifo_wait_rec(&f, 2, 0), -ETIMEDOUT);
		CHECK_UINT(kfifo_in(&f, src, 5), 5);
		CHECK_INT(kfifo_wait_len(&f, 5, 0), 0);
		CHECK_INT(kfifo_wait_len(&f, 6, 0), -ETIMEDOUT);
		CHECK_INT(kfifo_wait_avail(&f, 11, 0), 0);
		CHECK_INT(kfifo_wait_avail(&f, 12, 0), -ETIMEDOUT);
		CHECK_UINT(kfifo_in(&f, src, 11), 11);
		CHECK_INT(kfifo_wait_avail(&f, 1, 0), -ETIMEDOUT);
		CHECK_INT(kfifo_wait_len(&f, 16, 0), 0);
		kfifo_reset(&f);
		f.in = f.out = start;
		CHECK_UINT(kfifo_in_rec(&f, src, 3, 1), 0);
		CHECK_INT(kfifo_wait_rec(&f, 1, 0), 0);
		CHECK_UINT(kfifo_out_rec(&f, dst, 3, 1, &total), 0);
		CHECK_UINT(kfifo_in_rec(&f, src, 3, 2), 0);
		CHECK_INT(kfifo_wait_rec(&f, 2, 0), 0);
		/* nothing was removed or changed by the waits */
		CHECK_UINT(kfifo_len(&f), 5);
		CHECK_INT(kfifo_is_closed(&f), 0);
		CHECK_NO_WAITERS(&f);
		kfifo_free(&f);
	}
}

static void test_decided_waits_return_at_once_whatever_the_timeout(void)
{
	static const long long timeouts[] = { -1, LLONG_MIN, 1, LLONG_MAX };
	struct kfifo f;
	unsigned int t;

	KT_MAKE(&f, 64, UINT_MAX - 1);
	CHECK_UINT(kfifo_in(&f, src, 10), 10);
	CHECK_UINT(kfifo_in_rec(&f, src, 7, 1), 0);
	for (t = 0; t < 4; t++) {
		th_context("timeout %lld", timeouts[t]);
		CHECK_INT(kfifo_wait_avail(&f, 64 - 18, timeouts[t]), 0);
		CHECK_INT(kfifo_wait_len(&f, 18, timeouts[t]), 0);
		kfifo_skip(&f, 10);
		CHECK_INT(kfifo_wait_rec(&f, 1, timeouts[t]), 0);
		kfifo_reset(&f);
		CHECK_UINT(kfifo_in(&f, src, 10), 10);
		CHECK_UINT(kfifo_in_rec(&f, src, 7, 1), 0);
	}
	kfifo_close(&f);
	for (t = 0; t < 4; t++) {
		th_context("closed, timeout %lld", timeouts[t]);
		CHECK_INT(kfifo_wait_avail(&f, 0, timeouts[t]), -EPIPE);
		CHECK_INT(kfifo_wait_len(&f, 19, timeouts[t]), -EPIPE);
	}
	CHECK_NO_WAITERS(&f);
	kfifo_free(&f);
}

/* ---- end of stream ------------------------------------------------------ */

static void test_close_rules_for_each_wait(void)
{
	struct kfifo f;
	unsigned int total = 0;

	FOR_EACH_START(start) {
		KT_MAKE(&f, 32, start);
		CHECK_INT(kfifo_is_closed(&f), 0);
		CHECK_UINT(kfifo_in(&f, src, 5), 5);
		kfifo_close(&f);
		CHECK_INT(kfifo_is_closed(&f), 1);
		/* room or not, nobody will read */
		CHECK_INT(kfifo_wait_avail(&f, 0, 0), -EPIPE);
		CHECK_INT(kfifo_wait_avail(&f, 1, -1), -EPIPE);
		/* what is stored can still be waited for */
		CHECK_INT(kfifo_wait_len(&f, 5, -1), 0);
		CHECK_INT(kfifo_wait_len(&f, 0, -1), 0);
		CHECK_INT(kfifo_wait_len(&f, 6, -1), -EPIPE);
		CHECK_INT(kfifo_wait_len(&f, 6, 0), -EPIPE);
		/* the byte stream keeps working after close */
		CHECK_UINT(kfifo_in(&f, src + 5, 3), 3);
		CHECK_INT(kfifo_wait_len(&f, 8, -1), 0);
		CHECK_UINT(kfifo_out(&f, dst, 8), 8);
		CHECK_MEM(dst, src, 8);
		CHECK_INT(kfifo_wait_len(&f, 1, -1), -EPIPE);
		CHECK_INT(kfifo_wait_rec(&f, 1, -1), -EPIPE);
		/* records: whole -> 0, partial or none -> EPIPE */
		CHECK_UINT(kfifo_in_rec(&f, src, 4, 2), 0);
		CHECK_INT(kfifo_wait_rec(&f, 2, -1), 0);
		CHECK_UINT(kfifo_out_rec(&f, dst, 4, 2, &total), 0);
		CHECK_UINT(kfifo_in(&f, "\x05" "ab", 3), 3); /* 5 announced, 2 there */
		CHECK_INT(kfifo_wait_rec(&f, 1, -1), -EPIPE);
		CHECK_INT(kfifo_wait_rec(&f, 1, 0), -EPIPE);
		CHECK_UINT(kfifo_in(&f, "cde", 3), 3);
		CHECK_INT(kfifo_wait_rec(&f, 1, -1), 0);
		/* closing twice changes nothing */
		kfifo_close(&f);
		CHECK_INT(kfifo_is_closed(&f), 1);
		CHECK_INT(kfifo_wait_rec(&f, 1, 0), 0);
		/* reset reopens */
		kfifo_reset(&f);
		CHECK_INT(kfifo_is_closed(&f), 0);
		CHECK_INT(kfifo_wait_avail(&f, 1, 0), 0);
		CHECK_INT(kfifo_wait_len(&f, 1, 0), -ETIMEDOUT);
		CHECK_INT(kfifo_wait_rec(&f, 1, 0), -ETIMEDOUT);
		CHECK_NO_WAITERS(&f);
		kfifo_free(&f);
	}
}

static void test_init_alloc_and_free_reopen_a_closed_fifo(void)
{
	static unsigned char buf[16];
	struct kfifo f;

	CHECK_INT(kfifo_alloc(&f, 16, GFP_KERNEL), 0);
	kfifo_close(&f);
	kfifo_free(&f);
	CHECK_INT(kfifo_is_closed(&f), 0);
	kfifo_close(&f);
	CHECK_INT(kfifo_alloc(&f, 16, GFP_KERNEL), 0);
	CHECK_INT(kfifo_is_closed(&f), 0);
	kfifo_close(&f);
	kfifo_free(&f);
	kfifo_close(&f);
	CHECK_INT(kfifo_init(&f, buf, 16), 0);
	CHECK_INT(kfifo_is_closed(&f), 0);
	CHECK_INT(kfifo_wait_avail(&f, 16, 0), 0);
	/* reset_out is the consumer's: it does not reopen */
	kfifo_close(&f);
	kfifo_reset_out(&f);
	CHECK_INT(kfifo_is_closed(&f), 1);
}

/* ---- timeouts ------------------------------------------------------------ */

static void test_timeout_returns_etimedout_after_at_least_the_timeout(void)
{
	static const long long timeouts[] = { 1, 1000, 20 * KT_MS };
	struct kfifo f;
	unsigned int t;

	KT_MAKE(&f, 8, UINT_MAX - 3);
	CHECK_UINT(kfifo_in(&f, "\x07" "abc", 4), 4);
	for (t = 0; t < 3; t++) {
		long long t0;

		th_context("timeout %lld ns", timeouts[t]);
		t0 = kt_now_ns();
		CHECK_INT(kfifo_wait_avail(&f, 5, timeouts[t]), -ETIMEDOUT);
		CHECK(kt_now_ns() - t0 >= timeouts[t]);
		t0 = kt_now_ns();
		CHECK_INT(kfifo_wait_len(&f, 5, timeouts[t]), -ETIMEDOUT);
		CHECK(kt_now_ns() - t0 >= timeouts[t]);
		t0 = kt_now_ns();
		CHECK_INT(kfifo_wait_rec(&f, 1, timeouts[t]), -ETIMEDOUT);
		CHECK(kt_now_ns() - t0 >= timeouts[t]);
	}
	CHECK_UINT(kfifo_len(&f), 4);
	CHECK_NO_WAITERS(&f);
	kfifo_free(&f);
}

/*
 * A consumer waits 100 ms for 4096 bytes while a producer adds one byte
 * every 2 ms until it returns.  Each byte wakes it, none satisfies it.  If
 * wake-ups restarted the timeout it would still wait when the fifo fills
 * (8 s of bytes at least) and return 0; it must time out instead.
 */
static void test_wakeups_do_not_restart_the_timeout(void)
{
	struct kt_waiter w;
	struct kfifo f;
	unsigned int sent = 0;

	KT_MAKE(&f, 4096, 0);
	kt_waiter_start(&w, &f, KT_LEN, 4096, 100 * KT_MS);
	while (!kt_waiter_done(&w) && sent < 4096) {
		sent += kfifo_in(&f, src, 1);
		kt_sleep_ns(2 * KT_MS);
	}
	CHECK_INT(kt_waiter_join(&w), -ETIMEDOUT);
	CHECK(w.elapsed_ns >= 100 * KT_MS);
	CHECK(sent < 4096);
	printf("  timed out after %.1f ms and %u wake-ups\n",
	       (double)w.elapsed_ns / 1e6, sent);
	CHECK_NO_WAITERS(&f);
	kfifo_free(&f);
}

/* ---- who wakes whom -------------------------------------------------------- */

static void test_every_producer_call_wakes_a_waiting_consumer(void)
{
	static const char *const calls[] = {
		"in", "from_user", "in_locked", "in_rec recsize 1 (constant)",
		"in_rec recsize 2 (run-time)", "from_user_rec", "in_rec recsize 0"
	};
	DEFINE_SPINLOCK(lock);
	volatile unsigned int recsize;
	struct kt_waiter w;
	struct kfifo f;
	unsigned int c;

	for (c = 0; c < 7; c++) {
		th_context("%s", calls[c]);
		KT_MAKE(&f, 64, UINT_MAX - 1);
		kt_waiter_start(&w, &f, KT_LEN, 2, -1);
		CHECK(kt_waiter_asleep(&w));
		recsize = 2;
		switch (c) {
		case 0: CHECK_UINT(kfifo_in(&f, src, 2), 2); break;
		case 1: CHECK_UINT(kfifo_from_user(&f, src, 2), 2); break;
		case 2: CHECK_UINT(kfifo_in_locked(&f, src, 2, &lock), 2); break;
		case 3: CHECK_UINT(kfifo_in_rec(&f, src, 1, 1), 0); break;
		case 4: CHECK_UINT(kfifo_in_rec(&f, src, 0, recsize), 0); break;
		case 5: CHECK_UINT(kfifo_from_user_rec(&f, src, 1, 1), 0); break;
		default: CHECK_UINT(kfifo_in_rec(&f, src, 2, 0), 0); break;
		}
		CHECK_INT(kt_waiter_join(&w), 0);
		/* and a record waiter, for the record calls */
		if (c >= 3 && c <= 5) {
			unsigned int rs = c == 3 || c == 5 ? 1 : 2;

			kfifo_reset(&f);
			kt_waiter_start(&w, &f, KT_REC, rs, -1);
			CHECK(kt_waiter_asleep(&w));
			if (c == 3)
				CHECK_UINT(kfifo_in_rec(&f, src, 9, 1), 0);
			else if (c == 4)
				CHECK_UINT(kfifo_in_rec(&f, src, 9, recsize), 0);
			else
				CHECK_UINT(kfifo_from_user_rec(&f, src, 9, 1), 0);
			CHECK_INT(kt_waiter_join(&w), 0);
		}
		CHECK_NO_WAITERS(&f);
		kfifo_free(&f);
	}
}

static void test_every_consumer_call_wakes_a_waiting_producer(void)
{
	static const char *const calls[] = {
		"out", "to_user", "out_locked", "out_rec", "to_user_rec",
		"skip", "skip_rec", "reset_out"
	};
	DEFINE_SPINLOCK(lock);
	struct kt_waiter w;
	struct kfifo f;
	unsigned int c, total = 0;

	for (c = 0; c < 8; c++) {
		th_context("%s", calls[c]);
		KT_MAKE(&f, 16, UINT_MAX - 5);
		CHECK_UINT(kfifo_in_rec(&f, src, 15, 1), 0); /* full */
		kt_waiter_start(&w, &f, KT_AVAIL, 1, -1);
		CHECK(kt_waiter_asleep(&w));
		switch (c) {
		case 0: CHECK_UINT(kfifo_out(&f, dst, 1), 1); break;
		case 1: CHECK_UINT(kfifo_to_user(&f, dst, 1), 1); break;
		case 2: CHECK_UINT(kfifo_out_locked(&f, dst, 1, &lock), 1); break;
		case 3: CHECK_UINT(kfifo_out_rec(&f, dst, 15, 1, &total), 0); break;
		case 4: CHECK_UINT(kfifo_to_user_rec(&f, dst, 15, 1, &total), 0); break;
		case 5: kfifo_skip(&f, 1); break;
		case 6: kfifo_skip_rec(&f, 1); break;
		default: kfifo_reset_out(&f); break;
		}
		CHECK_INT(kt_waiter_join(&w), 0);
		CHECK_NO_WAITERS(&f);
		kfifo_free(&f);
	}
}

static void test_close_wakes_every_waiter_of_both_sides(void)
{
	struct kt_waiter w[7];
	struct kfifo f;
	unsigned int i;

	KT_MAKE(&f, 8, UINT_MAX);
	CHECK_UINT(kfifo_in(&f, "\x09" "abc", 4), 4); /* neither 8 free nor 8 stored */
	for (i = 0; i < 3; i++)
		kt_waiter_start(&w[i], &f, KT_AVAIL, 8, -1);
	for (i = 3; i < 6; i++)
		kt_waiter_start(&w[i], &f, KT_LEN, 5 + i - 3, -1);
	kt_waiter_start(&w[6], &f, KT_REC, 1, -1);
	for (i = 0; i < 7; i++)
		CHECK(kt_waiter_asleep(&w[i]));
	kfifo_close(&f); /* from a third thread */
	for (i = 0; i < 7; i++) {
		th_context("waiter %u", i);
		CHECK_INT(kt_waiter_join(&w[i]), -EPIPE);
	}
	CHECK_UINT(kfifo_len(&f), 4);
	CHECK_NO_WAITERS(&f);
	kfifo_free(&f);
}

static void *close_after_in(void *arg)
{
	struct kfifo *f = (struct kfifo *)arg;

	if (kfifo_in(f, "xyz", 3) == 3)
		kfifo_close(f);
	return NULL;
}

/* The producer ends the stream: the consumer gets the data, then EPIPE. */
static void test_producer_closes_consumer_drains(void)
{
	struct kfifo f;
	pthread_t t;
	int rounds;

	for (rounds = 0; rounds < 200; rounds++) {
		unsigned int got = 0;
		int r;

		KT_MAKE(&f, 4, UINT_MAX - (unsigned int)rounds % 5);
		CHECK_INT(pthread_create(&t, NULL, close_after_in, &f), 0);
		while ((r = kfifo_wait_len(&f, 1, -1)) == 0)
			got += kfifo_out(&f, dst + got, 4);
		pthread_join(t, NULL);
		if (!CHECK_INT(r, -EPIPE) || !CHECK_UINT(got, 3))
			break;
		CHECK_MEM(dst, "xyz", 3);
		kfifo_free(&f);
	}
}

static void test_several_waiters_on_one_side_are_all_woken(void)
{
	struct kt_waiter w[4];
	struct kfifo f;
	unsigned int i;

	KT_MAKE(&f, 64, 0);
	for (i = 0; i < 4; i++)
		kt_waiter_start(&w[i], &f, KT_LEN, 1, -1);
	for (i = 0; i < 4; i++)
		CHECK(kt_waiter_asleep(&w[i]));
	CHECK_UINT(kfifo_in(&f, src, 1), 1);
	for (i = 0; i < 4; i++)
		CHECK_INT(kt_waiter_join(&w[i]), 0);
	/* and the producers' side */
	CHECK_UINT(kfifo_in(&f, src, 63), 63);
	for (i = 0; i < 4; i++)
		kt_waiter_start(&w[i], &f, KT_AVAIL, 1 + i, -1);
	for (i = 0; i < 4; i++)
		CHECK(kt_waiter_asleep(&w[i]));
	kfifo_skip(&f, 4);
	for (i = 0; i < 4; i++)
		CHECK_INT(kt_waiter_join(&w[i]), 0);
	CHECK_NO_WAITERS(&f);
	kfifo_free(&f);
}

/* A wake-up that does not satisfy the condition puts the waiter back to
 * sleep; it returns only when the condition holds. */
static void test_waiter_sleeps_again_until_its_condition_holds(void)
{
	struct kt_waiter w;
	struct kfifo f;
	unsigned int i;

	KT_MAKE(&f, 16, UINT_MAX - 2);
	kt_waiter_start(&w, &f, KT_LEN, 5, -1);
	for (i = 0; i < 4; i++) {
		CHECK(kt_waiter_asleep(&w));
		CHECK_UINT(kfifo_in(&f, src + i, 1), 1);
	}
	CHECK_WOKEN_BY(&w, CHECK_UINT(kfifo_in(&f, src, 1), 1), 0);
	/* records: header first, then the data in pieces */
	kfifo_reset(&f);
	kt_waiter_start(&w, &f, KT_REC, 2, -1);
	CHECK(kt_waiter_asleep(&w));
	CHECK_UINT(kfifo_in(&f, "\x03", 1), 1); /* half a header */
	CHECK(kt_waiter_asleep(&w));
	CHECK_UINT(kfifo_in(&f, "\x00" "a", 2), 2);
	CHECK(kt_waiter_asleep(&w));
	CHECK_UINT(kfifo_in(&f, "b", 1), 1);
	CHECK_WOKEN_BY(&w, CHECK_UINT(kfifo_in(&f, "c", 1), 1), 0);
	CHECK_NO_WAITERS(&f);
	kfifo_free(&f);
}

/* ---- signals -------------------------------------------------------------- */

static int handler_runs;

static void count_signal(int sig)
{
	(void)sig;
	__atomic_add_fetch(&handler_runs, 1, __ATOMIC_RELAXED);
}

static void install_handler(int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = count_signal;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
}

/* Signal the waiter every @period until it returns; it might not be in
 * its sleep yet when a signal comes, so one is not enough. */
static void signal_until_done(struct kt_waiter *w, long long period)
{
	while (!kt_waiter_done(w)) {
		pthread_kill(w->thread, SIGUSR1);
		kt_sleep_ns(period);
	}
}

static void test_handler_without_sa_restart_interrupts_with_eintr(void)
{
	static const enum kt_wait_kind kinds[] = { KT_AVAIL, KT_LEN, KT_REC };
	struct kt_waiter w;
	struct kfifo f;
	unsigned int k;

	install_handler(0);
	KT_MAKE(&f, 8, UINT_MAX - 1);
	CHECK_UINT(kfifo_in(&f, "\x07" "ab", 3), 3);
	for (k = 0; k < 3; k++) {
		th_context("wait kind %u", k);
		kt_waiter_start(&w, &f, kinds[k], kinds[k] == KT_REC ? 1 : 6, -1);
		CHECK(kt_waiter_asleep(&w));
		signal_until_done(&w, 2 * KT_MS);
		CHECK_INT(kt_waiter_join(&w), -EINTR);
		CHECK_NO_WAITERS(&f);
		/* the fifo is untouched and waits work again */
		CHECK_UINT(kfifo_len(&f), 3);
		CHECK_INT(kfifo_wait_len(&f, 3, 0), 0);
	}
	/* a wait that times out while signals arrive still gets EINTR or
	 * ETIMEDOUT, never 0 */
	kt_waiter_start(&w, &f, KT_LEN, 4, 30 * KT_MS);
	signal_until_done(&w, KT_MS);
	CHECK(kt_waiter_join(&w) == -EINTR || w.ret == -ETIMEDOUT);
	CHECK(__atomic_load_n(&handler_runs, __ATOMIC_RELAXED) > 0);
	signal(SIGUSR1, SIG_DFL);
	kfifo_free(&f);
}

/*
 * SA_RESTART: a wait without limit sleeps on through the handler (the
 * kernel restarts the futex sleep); the fallback's nanosleep is never
 * restarted, so there it returns -EINTR.
 */
static void test_handler_with_sa_restart_does_not_end_an_unlimited_wait(void)
{
	struct kt_waiter w;
	struct kfifo f;
	int before, i;

	install_handler(SA_RESTART);
	KT_MAKE(&f, 8, 0);
	before = __atomic_load_n(&handler_runs, __ATOMIC_RELAXED);
	kt_waiter_start(&w, &f, KT_LEN, 1, -1);
	CHECK(kt_waiter_asleep(&w));
	for (i = 0; i < 20 && !kt_waiter_done(&w); i++) {
		pthread_kill(w.thread, SIGUSR1);
		kt_sleep_ns(2 * KT_MS);
	}
#if KT_WAIT_FUTEX
	CHECK(!kt_waiter_done(&w));
	CHECK_WOKEN_BY(&w, CHECK_UINT(kfifo_in(&f, src, 1), 1), 0);
#else
	CHECK_INT(kt_waiter_join(&w), -EINTR);
#endif
	/* the handler did run (ThreadSanitizer delays it until the thread
	 * leaves the futex, so look only now) */
	CHECK(__atomic_load_n(&handler_runs, __ATOMIC_RELAXED) > before);
	/* a timed wait ends at a handler, SA_RESTART or not: never with 0 */
	kfifo_reset(&f);
	kt_waiter_start(&w, &f, KT_LEN, 1, 10000 * KT_MS);
	CHECK(kt_waiter_asleep(&w));
	signal_until_done(&w, 2 * KT_MS);
	CHECK_INT(kt_waiter_join(&w), -EINTR);
	signal(SIGUSR1, SIG_DFL);
	CHECK_NO_WAITERS(&f);
	kfifo_free(&f);
}

/* ---- edges ------------------------------------------------------------------ */

static void test_waits_across_the_index_wrap(void)
{
	struct kt_waiter w;
	struct kfifo f;
	unsigned int total = 0;

	FOR_EACH_START(start) {
		KT_MAKE(&f, 8, start);
		/* data: 6 bytes arrive in 3 pieces, crossing 2^32 */
		kt_waiter_start(&w, &f, KT_LEN, 6, -1);
		CHECK(kt_waiter_asleep(&w));
		CHECK_UINT(kfifo_in(&f, src, 2), 2);
		CHECK_UINT(kfifo_in(&f, src + 2, 2), 2);
		CHECK_WOKEN_BY(&w, CHECK_UINT(kfifo_in(&f, src + 4, 2), 2), 0);
		/* room: 7 bytes free wanted, 6 stored */
		kt_waiter_start(&w, &f, KT_AVAIL, 7, -1);
		CHECK(kt_waiter_asleep(&w));
		CHECK_UINT(kfifo_out(&f, dst, 4), 4);
		CHECK_WOKEN_BY(&w, CHECK_UINT(kfifo_out(&f, dst, 1), 1), 0);
		/* a record whose header and data straddle the wrap */
		kt_waiter_start(&w, &f, KT_REC, 2, -1);
		CHECK(kt_waiter_asleep(&w));
		CHECK_UINT(kfifo_out(&f, dst, 1), 1);
		CHECK_WOKEN_BY(&w, CHECK_UINT(kfifo_in_rec(&f, src, 5, 2), 0), 0);
		CHECK_UINT(kfifo_out_rec(&f, dst, 8, 2, &total), 0);
		CHECK_UINT(total, 5);
		CHECK_NO_WAITERS(&f);
		kfifo_free(&f);
	}
}

static void test_size_one_fifo(void)
{
	struct kt_waiter w;
	struct kfifo f;
	unsigned int total = 7;

	FOR_EACH_START(start) {
		KT_MAKE(&f, 1, start);
		CHECK_INT(kfifo_wait_avail(&f, 1, 0), 0);
		CHECK_INT(kfifo_wait_avail(&f, 2, -1), -EINVAL);
		kt_waiter_start(&w, &f, KT_LEN, 1, -1);
		CHECK_WOKEN_BY(&w, CHECK_UINT(kfifo_in(&f, "a", 1), 1), 0);
		kt_waiter_start(&w, &f, KT_AVAIL, 1, -1);
		CHECK_WOKEN_BY(&w, CHECK_UINT(kfifo_out(&f, dst, 1), 1), 0);
		/* the only record a size-1 fifo holds: empty, recsize 1 */
		kt_waiter_start(&w, &f, KT_REC, 1, -1);
		CHECK_WOKEN_BY(&w, CHECK_UINT(kfifo_in_rec(&f, src, 0, 1), 0), 0);
		CHECK_UINT(kfifo_out_rec(&f, dst, 0, 1, &total), 0);
		CHECK_UINT(total, 0);
		CHECK_INT(kfifo_wait_rec(&f, 2, 1000), -ETIMEDOUT);
		CHECK_NO_WAITERS(&f);
		kfifo_free(&f);
	}
}

static void test_record_waits_at_the_header_limits(void)
{
	static const struct {
		unsigned int recsize, len, size;
	} cases[] = {
		{ 1, 0, 4 }, { 2, 0, 4 }, { 1, 255, 256 }, { 2, 65535, 1u << 17 },
		{ 2, 255, 512 }, { 2, 256, 512 },
	};
	struct kt_waiter w;
	struct kfifo f;
	unsigned int c, total = 0;

	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		unsigned int rs = cases[c].recsize, len = cases[c].len;
		unsigned char hdr[2] = { (unsigned char)(len & 0xff),
					 (unsigned char)(len >> 8) };

		th_context("recsize %u, %u bytes", rs, len);
		KT_MAKE(&f, cases[c].size, UINT_MAX - 1);
		/* whole records: in_rec wakes the waiter */
		kt_waiter_start(&w, &f, KT_REC, rs, -1);
		CHECK_WOKEN_BY(&w, CHECK_UINT(kfifo_in_rec(&f, src, len, rs), 0), 0);
		CHECK_INT(kfifo_wait_rec(&f, rs, 0), 0);
		CHECK_UINT(kfifo_out_rec(&f, dst, len, rs, &total), 0);
		CHECK_UINT(total, len);
		CHECK_MEM(dst, src, len);
		/* the same record written byte-wise: not whole until the last */
		CHECK_UINT(kfifo_in(&f, hdr, rs), rs);
		if (len > 0) {
			CHECK_UINT(kfifo_in(&f, src, len - 1), len - 1);
			CHECK_INT(kfifo_wait_rec(&f, rs, 1000), -ETIMEDOUT);
			kt_waiter_start(&w, &f, KT_REC, rs, -1);
			CHECK_WOKEN_BY(&w, CHECK_UINT(kfifo_in(&f, src + len - 1, 1), 1), 0);
		}
		CHECK_INT(kfifo_wait_rec(&f, rs, 0), 0);
		CHECK_UINT(kfifo_out_rec(&f, dst, len, rs, &total), 0);
		CHECK_UINT(total, len);
		CHECK_NO_WAITERS(&f);
		kfifo_free(&f);
	}
}

/* ---- every kind of fifo --------------------------------------------------- */

DEFINE_KFIFO(file_fifo, 32);

struct port {
	int id;
	DECLARE_KFIFO(rx, 32);
};

/* Block on @f until kfifo_in wakes it, then on room until kfifo_out. */
static void check_fifo_supports_waiting(struct kfifo *f, const char *what)
{
	struct kt_waiter w;

	th_context("%s", what);
	CHECK_UINT(kfifo_size(f), 32);
	kt_waiter_start(&w, f, KT_LEN, 1, -1);
	CHECK_WOKEN_BY(&w, CHECK_UINT(kfifo_in(f, src, 32), 32), 0);
	kt_waiter_start(&w, f, KT_AVAIL, 1, -1);
	CHECK_WOKEN_BY(&w, CHECK_UINT(kfifo_out(f, dst, 1), 1), 0);
	kfifo_close(f);
	CHECK_INT(kfifo_wait_len(f, 32, -1), -EPIPE);
	CHECK_NO_WAITERS(f);
}

static void test_every_kind_of_fifo_supports_waiting(void)
{
	static unsigned char buf[32];
	DEFINE_KFIFO(block_fifo, 32);
	struct kfifo init_fifo = KFIFO_INIT(32, buf);
	struct port *p = (struct port *)calloc(1, sizeof(*p));
	struct kfifo *heap = (struct kfifo *)malloc(sizeof(*heap));
	struct kfifo f;

	check_fifo_supports_waiting(&file_fifo, "DEFINE_KFIFO at file scope");
	check_fifo_supports_waiting(&block_fifo, "DEFINE_KFIFO in a block");
	check_fifo_supports_waiting(&init_fifo, "KFIFO_INIT");
	if (CHECK(p != NULL)) {
		INIT_KFIFO(p->rx);
		check_fifo_supports_waiting(&p->rx, "DECLARE_KFIFO + INIT_KFIFO, calloc");
		free(p);
	}
	CHECK_INT(kfifo_init(&f, buf, 32), 0);
	check_fifo_supports_waiting(&f, "kfifo_init");
	CHECK_INT(kfifo_alloc(&f, 20, GFP_KERNEL), 0);
	check_fifo_supports_waiting(&f, "kfifo_alloc");
	kfifo_free(&f);
	if (CHECK(heap != NULL)) {
		/* kfifo_alloc on memory malloc() left full of garbage */
		memset(heap, 0xa5, sizeof(*heap));
		CHECK_INT(kfifo_alloc(heap, 32, GFP_KERNEL), 0);
		check_fifo_supports_waiting(heap, "kfifo_alloc over garbage");
		kfifo_free(heap);
		free(heap);
	}
}

/* ---- the fenced path ------------------------------------------------------- */

/* Without membarrier() publishers take the fenced path; run the wake-up
 * tests that way too (on Linux the library picks membarrier when it can). */
static void test_fenced_path_wakes_too(void)
{
	unsigned char saved = kfifo__membarrier_ready;

	printf("  %s\n", !KT_WAIT_FUTEX ? "fallback: sleep-poll, nothing to fence"
	       : saved ? "membarrier registered" : "membarrier not available");
	kfifo__membarrier_ready = 0;
	test_every_producer_call_wakes_a_waiting_consumer();
	test_every_consumer_call_wakes_a_waiting_producer();
	test_waits_across_the_index_wrap();
	test_producer_closes_consumer_drains();
	kfifo__membarrier_ready = saved;
}

/*
 * A producer facing a full fifo spins for a quarter of it free, but its own
 * condition decides: one free byte, freed while it spins or sleeps, ends a
 * wait for one byte, never a timeout.
 */
static void test_room_for_n_ends_the_wait_without_a_quarter_free(void)
{
	struct kt_waiter w;
	struct kfifo f;
	unsigned int round;

	for (round = 0; round < 50; round++) {
		th_context("round %u", round);
		KT_MAKE(&f, 4096, UINT_MAX - 7);
		CHECK_UINT(kfifo_in(&f, src, 4096), 4096); /* full */
		kt_waiter_start(&w, &f, KT_AVAIL, 1, 2000000000LL);
		if (round % 2)
			kt_sleep_ns(round * 1000LL); /* within the spin, or after */
		CHECK_UINT(kfifo_out(&f, dst, 1), 1);
		CHECK_INT(kt_waiter_join(&w), 0);
		CHECK_UINT(kfifo_avail(&f), 1);
		CHECK_NO_WAITERS(&f);
		kfifo_free(&f);
	}
}

int main(void)
{
	unsigned int i;

	for (i = 0; i < sizeof(src); i++)
		src[i] = th_pattern(i);
	kt_watchdog(240, "test_wait");
	RUN_TEST(test_bad_arguments_return_einval_before_anything_else);
	RUN_TEST(test_timeout_zero_only_checks);
	RUN_TEST(test_decided_waits_return_at_once_whatever_the_timeout);
	RUN_TEST(test_close_rules_for_each_wait);
	RUN_TEST(test_init_alloc_and_free_reopen_a_closed_fifo);
	RUN_TEST(test_timeout_returns_etimedout_after_at_least_the_timeout);
	RUN_TEST(test_wakeups_do_not_restart_the_timeout);
	RUN_TEST(test_every_producer_call_wakes_a_waiting_consumer);
	RUN_TEST(test_every_consumer_call_wakes_a_waiting_producer);
	RUN_TEST(test_close_wakes_every_waiter_of_both_sides);
	RUN_TEST(test_producer_closes_consumer_drains);
	RUN_TEST(test_several_waiters_on_one_side_are_all_woken);
	RUN_TEST(test_waiter_sleeps_again_until_its_condition_holds);
	RUN_TEST(test_handler_without_sa_restart_interrupts_with_eintr);
	RUN_TEST(test_handler_with_sa_restart_does_not_end_an_unlimited_wait);
	RUN_TEST(test_waits_across_the_index_wrap);
	RUN_TEST(test_size_one_fifo);
	RUN_TEST(test_record_waits_at_the_header_limits);
	RUN_TEST(test_every_kind_of_fifo_supports_waiting);
	RUN_TEST(test_fenced_path_wakes_too);
	RUN_TEST(test_room_for_n_ends_the_wait_without_a_quarter_free);
	alarm(0);
	return th_finish("test_wait");
}
