/* SPDX-License-Identifier: MIT */
/*
 * test_notify.c - notifiers (kfifo.h "notifiers"): a file descriptor that
 * becomes readable while armed when the index of its direction moves.
 *
 * In one process: refusals, the readiness rules one step at a time on an
 * ordinary fifo and on a handle (armed or not, clear, close, detach), the
 * waiter counts they leave, the slot limit of a shared fifo; then a
 * sequence-checked stream between an epoll consumer and a poll() producer
 * that both wait only on notifiers, with two more armed notifiers per
 * direction that must each be woken, and a second fifo's stream at the
 * same time, on both publication paths (membarrier() and fenced); a
 * ping-pong where every round sleeps and wakes on notifiers.  Across fork(): a shared fifo with a notifier consumer in one
 * process and a plain blocking producer in the other, both ways; a child
 * that dies armed (its slot and waiter freed by the next publisher, or by
 * an arm that finds no free slot); a notifier inherited by a child.
 *
 * Without notifiers (KFIFO_WAIT_FALLBACK) only the refusal is checked.
 */
#define _GNU_SOURCE
#include <kfifo.h>

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_harness.h"
#include "test_shm_util.h"
#include "test_wait_util.h"

#if KT_WAIT_FUTEX

/* Whether @fd is readable within @ms milliseconds. */
static int readable(int fd, int ms)
{
	struct pollfd p = { fd, POLLIN, 0 };
	int r;

	do
		r = poll(&p, 1, ms);
	while (r < 0 && errno == EINTR);
	return r == 1 && (p.revents & POLLIN);
}

/* How many slots of the shared header are taken. */
static unsigned int slots_taken(void *mem)
{
	unsigned int i, n = 0;

	for (i = 0; i < KFIFO_NOTIFY_SLOTS; i++)
		n += get_word(mem, KFIFO_SHARED_OFF_NOTIFY + 4 * i) != 0;
	return n;
}

static void test_open_refuses_bad_arguments(void)
{
	struct kfifo f, z;
	struct kfifo_notifier *n = (struct kfifo_notifier *)&f;
	unsigned char buf[16];
	size_t len = kfifo_shared_bytes(64);
	unsigned char *mem = map_shared(len);

	CHECK_INT(kfifo_init(&f, buf, sizeof(buf)), 0);
	memset(&z, 0, sizeof(z));
	CHECK_INT(kfifo_notifier_open(&n, &f, 2), -EINVAL);
	CHECK(n == NULL);
	CHECK_INT(kfifo_notifier_open(&n, &f, -1), -EINVAL);
	CHECK_INT(kfifo_notifier_open(&n, &z, KFIFO_NOTIFY_DATA), -EINVAL);
	th_context("a block laid out before notifiers (flags 0)");
	CHECK_INT(kfifo_shared_create(&f, mem, len, 64), 0);
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_FLAGS),
		   KFIFO_SHARED_FLAG_NOTIFY | KFIFO_SHARED_FLAG_NOTIFY_PATH);
	set_word(mem, KFIFO_SHARED_OFF_FLAGS, 0);
	CHECK_INT(kfifo_notifier_open(&n, &f, KFIFO_NOTIFY_DATA), -EOPNOTSUPP);
	CHECK(n == NULL);
	kfifo_notifier_close(NULL);
	munmap(mem, len);
}

/* The rules of kfifo.h, one step at a time, for direction data or room
 * of @f (ordinary or handle); @waiters is the count of that direction. */
static void check_readiness_rules(struct kfifo *f, int dir,
				  const unsigned int *waiters)
{
	struct kfifo_notifier *n, *m;
	unsigned char b[8] = { 0 };
	int fd;

	CHECK_INT(kfifo_notifier_open(&n, f, dir), 0);
	CHECK_INT(kfifo_notifier_open(&m, f, dir), 0);
	fd = kfifo_notifier_fd(n);
	CHECK(fd >= 0 && fd != kfifo_notifier_fd(m));
	if (dir == KFIFO_NOTIFY_ROOM)
		CHECK_UINT(kfifo_in(f, b, 8), 8);
	th_context("disarmed: a publication leaves it alone");
	if (dir == KFIFO_NOTIFY_DATA)
		CHECK_UINT(kfifo_in(f, b, 1), 1);
	else
		CHECK_UINT(kfifo_out(f, b, 1), 1);
	CHECK(!readable(fd, 0));
	CHECK_UINT(__atomic_load_n(waiters, __ATOMIC_SEQ_CST), 0);

	th_context("armed: counted as a waiter, signalled by a publication");
	CHECK_INT(kfifo_notifier_arm(n), 0);
	CHECK_INT(kfifo_notifier_arm(n), 0); /* idempotent */
	CHECK_INT(kfifo_notifier_arm(m), 0);
	CHECK_UINT(__atomic_load_n(waiters, __ATOMIC_SEQ_CST), 2);
	CHECK(!readable(fd, 0));
	if (dir == KFIFO_NOTIFY_DATA)
		CHECK_UINT(kfifo_in(f, b, 1), 1);
	else
		CHECK_UINT(kfifo_out(f, b, 1), 1);
	CHECK(readable(fd, 0));
	CHECK(readable(kfifo_notifier_fd(m), 0));
	th_context("stays readable until cleared; clear drains");
	CHECK(readable(fd, 0));
	kfifo_notifier_clear(n);
	CHECK(!readable(fd, 0));
	th_context("after clear, the next publication signals again");
	if (dir == KFIFO_NOTIFY_DATA)
		CHECK_UINT(kfifo_in(f, b, 1), 1);
	else
		CHECK_UINT(kfifo_out(f, b, 1), 1);
	CHECK(readable(fd, 0));
	kfifo_notifier_clear(n);
	th_context("the other direction's publications do not signal it");
	if (dir == KFIFO_NOTIFY_DATA)
		CHECK_UINT(kfifo_out(f, b, 1), 1);
	else
		CHECK_UINT(kfifo_in(f, b, 1), 1);
	CHECK(!readable(fd, 0));

	th_context("disarmed: counted out, no more signals");
	kfifo_notifier_disarm(n);
	kfifo_notifier_disarm(n);
	CHECK_UINT(__atomic_load_n(waiters, __ATOMIC_SEQ_CST), 1);
	if (dir == KFIFO_NOTIFY_DATA)
		CHECK_UINT(kfifo_in(f, b, 1), 1);
	else
		CHECK_UINT(kfifo_out(f, b, 1), 1);
	CHECK(!readable(fd, 0));

	th_context("kfifo_close() signals an armed notifier");
	CHECK_INT(kfifo_notifier_arm(n), 0);
	kfifo_notifier_clear(m);
	kfifo_close(f);
	CHECK(readable(fd, 0));
	CHECK(readable(kfifo_notifier_fd(m), 0));
	kfifo_reset(f);

	th_context("detach: counted out, readable, arm refused");
	kfifo_notifier_clear(n);
	kfifo_notifier_detach(n);
	CHECK(readable(fd, 0));
	CHECK_INT(kfifo_notifier_arm(n), -EINVAL);
	kfifo_notifier_clear(n);
	CHECK(!readable(fd, 0));
	kfifo_notifier_close(n);
	kfifo_notifier_close(m); /* closing disarms */
	CHECK_UINT(__atomic_load_n(waiters, __ATOMIC_SEQ_CST), 0);
	th_context("");
}

static void test_readiness_rules_ordinary(void)
{
	struct kfifo f;
	unsigned char buf[64];

	CHECK_INT(kfifo_init(&f, buf, sizeof(buf)), 0);
	check_readiness_rules(&f, KFIFO_NOTIFY_DATA, &f.kfifo__data_waiters);
	kfifo_reset(&f);
	check_readiness_rules(&f, KFIFO_NOTIFY_ROOM, &f.kfifo__room_waiters);
}

static void test_readiness_rules_handle(void)
{
	struct kfifo f;
	size_t len = kfifo_shared_bytes(64);
	unsigned char *mem = map_shared(len);

	CHECK_INT(kfifo_shared_create(&f, mem, len, 64), 0);
	check_readiness_rules(&f, KFIFO_NOTIFY_DATA,
			      word(mem, KFIFO_SHARED_OFF_DATA_WAITERS));
	kfifo_reset(&f);
	check_readiness_rules(&f, KFIFO_NOTIFY_ROOM,
			      word(mem, KFIFO_SHARED_OFF_ROOM_WAITERS));
	CHECK_UINT(slots_taken(mem), 0);
	munmap(mem, len);
}

/* KFIFO_NOTIFY_SLOTS armed notifiers per shared fifo; one more: -EBUSY,
 * and nothing changed. */
static void test_slot_limit(void)
{
	struct kfifo f;
	struct kfifo_notifier *n[KFIFO_NOTIFY_SLOTS + 1];
	size_t len = kfifo_shared_bytes(64);
	unsigned char *mem = map_shared(len);
	unsigned int i;

	CHECK_INT(kfifo_shared_create(&f, mem, len, 64), 0);
	for (i = 0; i <= KFIFO_NOTIFY_SLOTS; i++)
		CHECK_INT(kfifo_notifier_open(&n[i], &f, (int)(i & 1)), 0);
	for (i = 0; i < KFIFO_NOTIFY_SLOTS; i++)
		CHECK_INT(kfifo_notifier_arm(n[i]), 0);
	CHECK_UINT(slots_taken(mem), KFIFO_NOTIFY_SLOTS);
	CHECK_INT(kfifo_notifier_arm(n[KFIFO_NOTIFY_SLOTS]), -EBUSY);
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_DATA_WAITERS) +
			   get_word(mem, KFIFO_SHARED_OFF_ROOM_WAITERS),
		   KFIFO_NOTIFY_SLOTS);
	kfifo_notifier_disarm(n[3]);
	CHECK_INT(kfifo_notifier_arm(n[KFIFO_NOTIFY_SLOTS]), 0);
	for (i = 0; i <= KFIFO_NOTIFY_SLOTS; i++)
		kfifo_notifier_close(n[i]);
	CHECK_UINT(slots_taken(mem), 0);
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_DATA_WAITERS), 0);
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_ROOM_WAITERS), 0);
	munmap(mem, len);
}

/* ---- a stream where both sides wait only on notifiers -------------------- */

#define NOTE_OBSERVERS 2

struct note_stream {
	struct kfifo *f;
	unsigned long long bytes;
	unsigned long long got;   /* the consumer's count, atomic */
	int done;                 /* atomic */
	int failed;               /* atomic */
	unsigned long wakes[2 * NOTE_OBSERVERS]; /* observers' wake-ups */
};

struct note_observer {
	struct note_stream *s;
	int dir;
	unsigned int id;
};

/* Produce @s->bytes of th_pattern(), waiting for room with poll() on a
 * room notifier. */
static void *note_producer(void *arg)
{
	struct note_stream *s = arg;
	struct kfifo_notifier *n;
	unsigned char buf[97];
	unsigned long long pos = 0;
	unsigned int i, k, chunk = 1;

	if (kfifo_notifier_open(&n, s->f, KFIFO_NOTIFY_ROOM) != 0 ||
	    kfifo_notifier_arm(n) != 0) {
		__atomic_store_n(&s->failed, 1, __ATOMIC_SEQ_CST);
		return NULL;
	}
	while (pos < s->bytes) {
		unsigned int want = (unsigned int)(s->bytes - pos < chunk
							   ? s->bytes - pos
							   : chunk);

		for (i = 0; i < want; i++)
			buf[i] = th_pattern(pos + i);
		k = kfifo_in(s->f, buf, want);
		pos += k;
		chunk = chunk % sizeof(buf) + 1;
		if (k == 0) {
			if (!readable(kfifo_notifier_fd(n), 10000)) {
				__atomic_store_n(&s->failed, 2,
						 __ATOMIC_SEQ_CST);
				break;
			}
			kfifo_notifier_clear(n);
		}
	}
	kfifo_notifier_close(n);
	return NULL;
}

/* Consume and check the stream, waiting for data with epoll on a data
 * notifier. */
static void *note_consumer(void *arg)
{
	struct note_stream *s = arg;
	struct kfifo_notifier *n;
	struct epoll_event ev = { EPOLLIN, { 0 } }, out;
	unsigned char buf[61];
	unsigned long long pos = 0;
	unsigned int i, k;
	int ep = epoll_create1(EPOLL_CLOEXEC), r;

	if (ep < 0 || kfifo_notifier_open(&n, s->f, KFIFO_NOTIFY_DATA) != 0) {
		__atomic_store_n(&s->failed, 3, __ATOMIC_SEQ_CST);
		return NULL;
	}
	epoll_ctl(ep, EPOLL_CTL_ADD, kfifo_notifier_fd(n), &ev);
	if (kfifo_notifier_arm(n) != 0)
		__atomic_store_n(&s->failed, 3, __ATOMIC_SEQ_CST);
	while (pos < s->bytes && !__atomic_load_n(&s->failed, __ATOMIC_SEQ_CST)) {
		k = kfifo_out(s->f, buf, sizeof(buf));
		for (i = 0; i < k; i++) {
			if (buf[i] != th_pattern(pos + i)) {
				__atomic_store_n(&s->failed, 4,
						 __ATOMIC_SEQ_CST);
				break;
			}
		}
		pos += k;
		__atomic_store_n(&s->got, pos, __ATOMIC_RELAXED);
		if (k == 0) {
			do
				r = epoll_wait(ep, &out, 1, 10000);
			while (r < 0 && errno == EINTR);
			if (r != 1) {
				__atomic_store_n(&s->failed, 5,
						 __ATOMIC_SEQ_CST);
				break;
			}
			kfifo_notifier_clear(n);
		}
	}
	kfifo_notifier_close(n);
	close(ep);
	return NULL;
}

/* An extra armed notifier that only counts its wake-ups. */
static void *note_observer_main(void *arg)
{
	struct note_observer *o = arg;
	struct kfifo_notifier *n;

	if (kfifo_notifier_open(&n, o->s->f, o->dir) != 0 ||
	    kfifo_notifier_arm(n) != 0) {
		__atomic_store_n(&o->s->failed, 6, __ATOMIC_SEQ_CST);
		return NULL;
	}
	while (!__atomic_load_n(&o->s->done, __ATOMIC_SEQ_CST)) {
		if (readable(kfifo_notifier_fd(n), 20)) {
			kfifo_notifier_clear(n);
			__atomic_add_fetch(&o->s->wakes[o->id], 1,
					   __ATOMIC_RELAXED);
		}
	}
	kfifo_notifier_close(n);
	return NULL;
}

static void test_stream_between_notifier_waiters(void)
{
	struct kfifo f[2];
	unsigned char buf[2][128];
	struct note_stream s[2];
	struct note_observer o[2 * NOTE_OBSERVERS];
	pthread_t prod[2], cons[2], obs[2 * NOTE_OBSERVERS];
	unsigned long long bytes =
		th_env_ull("KFIFO_NOTIFY_STREAM_BYTES", 2000000);
	unsigned int i;

	kt_watchdog(240, "test_stream_between_notifier_waiters");
	memset(s, 0, sizeof(s));
	for (i = 0; i < 2; i++) {
		CHECK_INT(kfifo_init(&f[i], buf[i], i ? 64 : 128), 0);
		s[i].f = &f[i];
		s[i].bytes = i ? bytes / 4 : bytes;
	}
	for (i = 0; i < 2 * NOTE_OBSERVERS; i++) {
		o[i].s = &s[0];
		o[i].dir = (int)(i & 1);
		o[i].id = i;
		pthread_create(&obs[i], NULL, note_observer_main, &o[i]);
	}
	for (i = 0; i < 2; i++) {
		pthread_create(&cons[i], NULL, note_consumer, &s[i]);
		pthread_create(&prod[i], NULL, note_producer, &s[i]);
	}
	for (i = 0; i < 2; i++) {
		pthread_join(prod[i], NULL);
		pthread_join(cons[i], NULL);
		th_context("fifo %u", i);
		CHECK_INT(s[i].failed, 0);
		CHECK_UINT(s[i].got, s[i].bytes);
		__atomic_store_n(&s[i].done, 1, __ATOMIC_SEQ_CST);
	}
	for (i = 0; i < 2 * NOTE_OBSERVERS; i++) {
		pthread_join(obs[i], NULL);
		th_context("observer %u", i);
		CHECK(s[0].wakes[i] > 0);
	}
	th_context("every notifier counted out");
	CHECK_UINT(f[0].kfifo__data_waiters + f[0].kfifo__room_waiters, 0);
	CHECK_UINT(f[1].kfifo__data_waiters + f[1].kfifo__room_waiters, 0);
	kt_watchdog(0, "");
}

/* ---- a ping-pong: every round a sleep and a wake-up ---------------------- */

struct pong {
	struct kfifo *to, *from; /* this side writes @to, reads @from */
	unsigned long long rounds;
	int failed;              /* atomic */
};

/* Send one byte, then wait (poll on a data notifier of @from) for the
 * answer, which must be the same byte: a lost wake-up hangs (the
 * watchdog fails the test), a wrong byte fails it. */
static void *pong_main(void *arg)
{
	struct pong *p = arg;
	struct kfifo_notifier *n;
	unsigned long long i;
	unsigned char b, got;

	if (kfifo_notifier_open(&n, p->from, KFIFO_NOTIFY_DATA) != 0 ||
	    kfifo_notifier_arm(n) != 0) {
		__atomic_store_n(&p->failed, 1, __ATOMIC_SEQ_CST);
		return NULL;
	}
	for (i = 0; i < p->rounds; i++) {
		b = (unsigned char)i;
		if (kfifo_in(p->to, &b, 1) != 1)
			__atomic_store_n(&p->failed, 2, __ATOMIC_SEQ_CST);
		while (kfifo_out(p->from, &got, 1) == 0) {
			if (!readable(kfifo_notifier_fd(n), 10000)) {
				__atomic_store_n(&p->failed, 3,
						 __ATOMIC_SEQ_CST);
				kfifo_notifier_close(n);
				return NULL;
			}
			kfifo_notifier_clear(n);
		}
		if (got != b)
			__atomic_store_n(&p->failed, 4, __ATOMIC_SEQ_CST);
	}
	kfifo_notifier_close(n);
	return NULL;
}

static void ping_pong(unsigned long long rounds)
{
	struct kfifo a, b;
	unsigned char abuf[4], bbuf[4];
	struct pong p[2];
	pthread_t t[2];
	int i;

	CHECK_INT(kfifo_init(&a, abuf, sizeof(abuf)), 0);
	CHECK_INT(kfifo_init(&b, bbuf, sizeof(bbuf)), 0);
	p[0] = (struct pong){ &a, &b, rounds, 0 };
	p[1] = (struct pong){ &b, &a, rounds, 0 };
	for (i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, pong_main, &p[i]);
	for (i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		CHECK_INT(p[i].failed, 0);
	}
	CHECK_UINT(a.kfifo__data_waiters + b.kfifo__data_waiters, 0);
}

static void test_ping_pong_on_notifiers(void)
{
	unsigned long long rounds =
		th_env_ull("KFIFO_NOTIFY_PINGPONG", 20000);
	unsigned char saved = kfifo__membarrier_ready;

	kt_watchdog(240, "test_ping_pong_on_notifiers");
	th_context("membarrier: %d", saved);
	ping_pong(rounds);
	/* and the publishers' fenced path (kfifo_wake.h) */
	kfifo__membarrier_ready = 0;
	th_context("fenced");
	ping_pong(rounds);
	kfifo__membarrier_ready = saved;
	kt_watchdog(0, "");
}

static void test_stream_on_the_fenced_path(void)
{
	unsigned char saved = kfifo__membarrier_ready;

	kfifo__membarrier_ready = 0;
	test_stream_between_notifier_waiters();
	kfifo__membarrier_ready = saved;
}

/* ---- across fork() ------------------------------------------------------- */

#define XP_SIZE 64u

/* The plain side: produce (or consume and check) @bytes with blocking
 * waits; returns the exit status. */
static int plain_side(struct kfifo *f, int produce, unsigned long long bytes)
{
	unsigned char buf[37];
	unsigned long long pos = 0;
	unsigned int i, k;

	while (pos < bytes) {
		unsigned int want = (unsigned int)(bytes - pos < sizeof(buf)
							   ? bytes - pos
							   : sizeof(buf));

		if (produce) {
			if (kfifo_wait_avail(f, 1, 10000 * KT_MS) != 0)
				return 10;
			for (i = 0; i < want; i++)
				buf[i] = th_pattern(pos + i);
			pos += kfifo_in(f, buf, want);
		} else {
			if (kfifo_wait_len(f, 1, 10000 * KT_MS) != 0)
				return 11;
			k = kfifo_out(f, buf, want);
			for (i = 0; i < k; i++)
				if (buf[i] != th_pattern(pos + i))
					return 12;
			pos += k;
		}
	}
	return 0;
}

/* The notifier side: the same with a notifier and poll(). */
static int notifier_side(struct kfifo *f, int produce, unsigned long long bytes)
{
	struct kfifo_notifier *n;
	unsigned char buf[29];
	unsigned long long pos = 0;
	unsigned int i, k;
	int ret = 0;

	if (kfifo_notifier_open(&n, f,
				produce ? KFIFO_NOTIFY_ROOM : KFIFO_NOTIFY_DATA) ||
	    kfifo_notifier_arm(n))
		return 20;
	while (pos < bytes && ret == 0) {
		unsigned int want = (unsigned int)(bytes - pos < sizeof(buf)
							   ? bytes - pos
							   : sizeof(buf));

		if (produce) {
			for (i = 0; i < want; i++)
				buf[i] = th_pattern(pos + i);
			k = kfifo_in(f, buf, want);
		} else {
			k = kfifo_out(f, buf, want);
			for (i = 0; i < k; i++)
				if (buf[i] != th_pattern(pos + i))
					ret = 21;
		}
		pos += k;
		if (k == 0) {
			if (!readable(kfifo_notifier_fd(n), 10000))
				ret = 22;
			kfifo_notifier_clear(n);
		}
	}
	kfifo_notifier_close(n);
	return ret;
}

static void fork_stream(int notifier_consumes, int child_notifies)
{
	size_t len = kfifo_shared_bytes(XP_SIZE);
	unsigned char *mem = map_shared(len);
	unsigned long long bytes =
		th_env_ull("KFIFO_NOTIFY_FORK_BYTES", 300000);
	struct kfifo f;
	int status = -1, mine;
	pid_t pid;

	CHECK_INT(kfifo_shared_create(&f, mem, len, XP_SIZE), 0);
	pid = fork();
	if (pid == 0) {
		struct kfifo g;

		alarm(120);
		if (kfifo_shared_attach(&g, mem, len) != 0)
			_exit(30);
		/* the child consumes when the notifier side consumes and is
		 * the child, or the plain side consumes and is the child */
		_exit(child_notifies
			      ? notifier_side(&g, !notifier_consumes, bytes)
			      : plain_side(&g, notifier_consumes, bytes));
	}
	mine = child_notifies ? plain_side(&f, notifier_consumes, bytes)
			      : notifier_side(&f, !notifier_consumes, bytes);
	CHECK_INT(mine, 0);
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status));
	CHECK_INT(WEXITSTATUS(status), 0);
	CHECK_UINT(slots_taken(mem), 0);
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_DATA_WAITERS), 0);
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_ROOM_WAITERS), 0);
	munmap(mem, len);
}

static void test_fork_notifier_consumer_plain_producer(void)
{
	kt_watchdog(240, "notifier consumer, plain producer");
	th_context("parent notifies");
	fork_stream(1, 0);
	th_context("child notifies");
	fork_stream(1, 1);
	kt_watchdog(0, "");
}

static void test_fork_notifier_producer_plain_consumer(void)
{
	kt_watchdog(240, "notifier producer, plain consumer");
	th_context("parent notifies");
	fork_stream(0, 0);
	th_context("child notifies");
	fork_stream(0, 1);
	kt_watchdog(0, "");
}

/* A process that dies armed: its slot and its waiter are freed by the next
 * publisher that signals it, or by an arm that finds every slot taken. */
static void test_dead_process_slot_freed(void)
{
	size_t len = kfifo_shared_bytes(64);
	unsigned char *mem = map_shared(len);
	struct kfifo f;
	struct kfifo_notifier *n[KFIFO_NOTIFY_SLOTS];
	unsigned char b = 0;
	unsigned int i;
	int status;
	pid_t pid;

	CHECK_INT(kfifo_shared_create(&f, mem, len, 64), 0);
	th_context("freed by the publisher");
	pid = fork();
	if (pid == 0) {
		struct kfifo_notifier *c;

		_exit(kfifo_notifier_open(&c, &f, KFIFO_NOTIFY_DATA) ||
		      kfifo_notifier_arm(c));
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_UINT(slots_taken(mem), 1);
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_DATA_WAITERS), 1);
	CHECK_UINT(kfifo_in(&f, &b, 1), 1);
	CHECK_UINT(slots_taken(mem), 0);
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_DATA_WAITERS), 0);

	th_context("freed by an arm that finds no free slot");
	pid = fork();
	if (pid == 0) {
		struct kfifo_notifier *c;

		_exit(kfifo_notifier_open(&c, &f, KFIFO_NOTIFY_ROOM) ||
		      kfifo_notifier_arm(c));
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	for (i = 0; i < KFIFO_NOTIFY_SLOTS; i++) {
		CHECK_INT(kfifo_notifier_open(&n[i], &f, KFIFO_NOTIFY_DATA), 0);
		CHECK_INT(kfifo_notifier_arm(n[i]), 0);
	}
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_ROOM_WAITERS), 0);
	for (i = 0; i < KFIFO_NOTIFY_SLOTS; i++)
		kfifo_notifier_close(n[i]);
	CHECK_UINT(slots_taken(mem), 0);
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_DATA_WAITERS), 0);
	munmap(mem, len);
}

/* A notifier armed before fork() stays the parent's: the child can only
 * close its copy, which leaves the parent's registration alone. */
static void test_notifier_inherited_by_a_child(void)
{
	struct kfifo f;
	unsigned char buf[16], b = 0;
	size_t len = kfifo_shared_bytes(64);
	unsigned char *mem = map_shared(len);
	struct kfifo h;
	struct kfifo_notifier *n, *s;
	int status;
	pid_t pid;

	CHECK_INT(kfifo_init(&f, buf, sizeof(buf)), 0);
	CHECK_INT(kfifo_shared_create(&h, mem, len, 64), 0);
	CHECK_INT(kfifo_notifier_open(&n, &f, KFIFO_NOTIFY_DATA), 0);
	CHECK_INT(kfifo_notifier_arm(n), 0);
	CHECK_INT(kfifo_notifier_open(&s, &h, KFIFO_NOTIFY_DATA), 0);
	CHECK_INT(kfifo_notifier_arm(s), 0);
	pid = fork();
	if (pid == 0) {
		int bad = kfifo_notifier_arm(n) != -ECHILD ||
			  kfifo_notifier_arm(s) != -ECHILD;

		kfifo_notifier_disarm(s);
		kfifo_notifier_close(s);
		kfifo_notifier_close(n);
		/* the child's copy of @f has the parent's count; publishing
		 * into it signals nobody of the parent's */
		(void)kfifo_in(&f, &b, 1);
		_exit(bad);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(!readable(kfifo_notifier_fd(n), 0));
	CHECK_UINT(slots_taken(mem), 1);
	CHECK_UINT(kfifo_in(&f, &b, 1), 1);
	CHECK_UINT(kfifo_in(&h, &b, 1), 1);
	CHECK(readable(kfifo_notifier_fd(n), 0));
	CHECK(readable(kfifo_notifier_fd(s), 0));
	kfifo_notifier_close(n);
	kfifo_notifier_close(s);
	CHECK_UINT(slots_taken(mem), 0);
	munmap(mem, len);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	RUN_TEST(test_open_refuses_bad_arguments);
	RUN_TEST(test_readiness_rules_ordinary);
	RUN_TEST(test_readiness_rules_handle);
	RUN_TEST(test_slot_limit);
	RUN_TEST(test_stream_between_notifier_waiters);
	RUN_TEST(test_stream_on_the_fenced_path);
	RUN_TEST(test_ping_pong_on_notifiers);
	RUN_TEST(test_fork_notifier_consumer_plain_producer);
	RUN_TEST(test_fork_notifier_producer_plain_consumer);
	RUN_TEST(test_dead_process_slot_freed);
	RUN_TEST(test_notifier_inherited_by_a_child);
	return th_finish("test_notify");
}

#else /* the sleep-poll fallback: no notifiers */

static void test_open_says_not_supported(void)
{
	struct kfifo f;
	struct kfifo_notifier *n = (struct kfifo_notifier *)&f;
	unsigned char buf[16];

	CHECK_INT(kfifo_init(&f, buf, sizeof(buf)), 0);
	CHECK_INT(kfifo_notifier_open(&n, &f, KFIFO_NOTIFY_DATA), -ENOSYS);
	CHECK(n == NULL);
	kfifo_notifier_close(NULL);
}

int main(void)
{
	RUN_TEST(test_open_says_not_supported);
	return th_finish("test_notify");
}

#endif
