/* SPDX-License-Identifier: MIT */
/*
 * test_wait_util.h - helpers for the tests of docs/spec.md 3.1: a clock, a
 * watchdog that turns a hang (a lost wake-up) into a failure, a waiter
 * thread that runs one wait call, and a way to see that it really sleeps
 * before the test wakes it.
 *
 * Include after defining _GNU_SOURCE (pthread_kill, syscall).
 */
#ifndef KFIFO_TEST_WAIT_UTIL_H
#define KFIFO_TEST_WAIT_UTIL_H

#include <kfifo.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "test_harness.h"

/* Whether this build waits on futexes (else the sleep-poll fallback). */
#if defined(__linux__) && !defined(KFIFO_WAIT_FALLBACK)
#define KT_WAIT_FUTEX 1
#else
#define KT_WAIT_FUTEX 0
#endif

/* Set by the library: publishers go without the fence (kfifo_wake.h).
 * Tests set it to 0 while no fifo is in use to run the fenced path. */
extern unsigned char kfifo__membarrier_ready;

#define KT_MS 1000000LL

static inline long long kt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The CPU time this thread has used.  An upper bound on how long a call
 * took is a wall-clock bound only on an idle machine (with 8 busy
 * processes on 2 cores a 2 ms wait returned 380 ms later); what the
 * call itself spends stays put however busy the machine is, and a call
 * that spins past its timeout still shows.  A call that never returns
 * is caught by kt_watchdog(). */
static inline long long kt_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline void kt_sleep_ns(long long ns)
{
	struct timespec ts;

	ts.tv_sec = (time_t)(ns / 1000000000LL);
	ts.tv_nsec = (long)(ns % 1000000000LL);
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* ---- watchdog: a hang fails the test instead of hanging CI ------------ */

static const char *kt_watchdog_what = "?";

static void kt_watchdog_fired(int sig)
{
	static const char msg[] =
		"watchdog: the test hung (a lost wake-up?) in: ";

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0 ||
	    write(2, kt_watchdog_what, strlen(kt_watchdog_what)) < 0 ||
	    write(2, "\n", 1) < 0)
		_exit(3);
	_exit(3);
}

/* Arm (or, with 0 seconds, disarm) the watchdog for the step @what. */
static inline void kt_watchdog(unsigned int seconds, const char *what)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = kt_watchdog_fired;
	sigaction(SIGALRM, &sa, NULL);
	kt_watchdog_what = what;
	alarm(seconds);
}

/* ---- a thread that runs one wait call --------------------------------- */

enum kt_wait_kind { KT_AVAIL, KT_LEN, KT_REC };

struct kt_waiter {
	struct kfifo *fifo;
	enum kt_wait_kind kind;
	unsigned int n;         /* n, or recsize for KT_REC */
	long long timeout_ns;
	pthread_t thread;
	pid_t tid;              /* atomic */
	int done;               /* atomic */
	int ret;
	long long elapsed_ns;
};

static inline int kt_wait_call(struct kfifo *f, enum kt_wait_kind kind,
			       unsigned int n, long long timeout_ns)
{
	switch (kind) {
	case KT_AVAIL: return kfifo_wait_avail(f, n, timeout_ns);
	case KT_LEN: return kfifo_wait_len(f, n, timeout_ns);
	default: return kfifo_wait_rec(f, n, timeout_ns);
	}
}

static void *kt_waiter_main(void *arg)
{
	struct kt_waiter *w = (struct kt_waiter *)arg;
	long long t0;

	__atomic_store_n(&w->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	t0 = kt_now_ns();
	w->ret = kt_wait_call(w->fifo, w->kind, w->n, w->timeout_ns);
	w->elapsed_ns = kt_now_ns() - t0;
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static inline void kt_waiter_start(struct kt_waiter *w, struct kfifo *f,
				   enum kt_wait_kind kind, unsigned int n,
				   long long timeout_ns)
{
	memset(w, 0, sizeof(*w));
	w->fifo = f;
	w->kind = kind;
	w->n = n;
	w->timeout_ns = timeout_ns;
	if (pthread_create(&w->thread, NULL, kt_waiter_main, w) != 0) {
		fprintf(stderr, "pthread_create failed\n");
		exit(2);
	}
}

static inline int kt_waiter_done(struct kt_waiter *w)
{
	return __atomic_load_n(&w->done, __ATOMIC_ACQUIRE);
}

/* Join the waiter and return its result. */
static inline int kt_waiter_join(struct kt_waiter *w)
{
	pthread_join(w->thread, NULL);
	return w->ret;
}

/* The scheduler state of thread @tid: 'S' while it sleeps. */
static inline char kt_thread_state(pid_t tid)
{
	char path[64], buf[512], *p;
	FILE *fp;
	size_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	fp = fopen(path, "r");
	if (fp == NULL)
		return '?';
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

/*
 * Wait until the waiter sleeps in its wait call (checked three times in a
 * row, a millisecond apart), so that what the test does next is what must
 * wake it.  Returns 0 if it returned instead, or never slept within 10 s.
 */
static inline int kt_waiter_asleep(struct kt_waiter *w)
{
	long long give_up = kt_now_ns() + 10000 * KT_MS;
	pid_t tid;
	int seen = 0;

	while ((tid = __atomic_load_n(&w->tid, __ATOMIC_ACQUIRE)) == 0)
		kt_sleep_ns(KT_MS / 10);
	while (seen < 3 && kt_now_ns() < give_up) {
		if (kt_waiter_done(w))
			return 0;
		seen = kt_thread_state(tid) == 'S' ? seen + 1 : 0;
		kt_sleep_ns(KT_MS);
	}
	return seen == 3 && !kt_waiter_done(w);
}

#endif /* KFIFO_TEST_WAIT_UTIL_H */
