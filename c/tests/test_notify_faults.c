/* SPDX-License-Identifier: MIT */
/*
 * test_notify_faults.c - the wake path's fault model (docs/notifiers.md,
 * "When a system call fails"): every row of that table, made to happen.
 *
 * Linked with the test build of the library (KFIFO_TEST_HOOKS), whose
 * system calls on the wake path first ask kfifo__test_fault() whether to
 * fail; EMFILE also for real, through RLIMIT_NOFILE in a child process,
 * and a full socket queue for real.  Then the slots: a notifier that lost
 * its slot while all 16 are taken (kfifo_notifier_armed() says so, and a
 * later clear() claims one again), a notifier that died signalled (its
 * slot and waiter reclaimed by the publishers), the liveness probe with a
 * stale errno; a descriptor number the library might have cached, closed
 * and reused; an allocation failure of kfifo_notifier_open().
 */
#define _GNU_SOURCE
#include <kfifo.h>

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_harness.h"
#include "test_shm_util.h"
#include "test_wait_util.h"

/* The hooks of the test build (kfifo_atomic.h, kfifo_wake.h); the enum's
 * order is the library's. */
void kfifo__test_index_stored(const unsigned int *index);
void kfifo__test_index_stored(const unsigned int *index)
{
	(void)index;
}

enum site {
	OPEN_ALLOC,
	SEND_SOCKET,
	SENDTO,
	EVENTFD,
	PROBE_SOCKET,
	FUTEX_WAKE_SITE,
	FUTEX_WAIT_SITE,
	NSITES
};
extern int (*kfifo__test_fault)(enum site site);

/* the errno each site fails with, 0 for none; read by other threads */
static int fault_errno[NSITES];

static int inject(enum site site)
{
	return __atomic_load_n(&fault_errno[site], __ATOMIC_RELAXED);
}

static void set_fault(enum site site, int err)
{
	__atomic_store_n(&fault_errno[site], err, __ATOMIC_RELAXED);
}

static int readable(int fd)
{
	struct pollfd p = { fd, POLLIN, 0 };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

static unsigned int slot_word(void *mem, unsigned int i)
{
	return get_word(mem, KFIFO_SHARED_OFF_NOTIFY + 4 * i);
}

/* the slot @n holds: the one whose token names its socket */
static int slot_of(void *mem, struct kfifo_notifier *n)
{
	struct sockaddr_un a;
	socklen_t len = sizeof(a);
	unsigned int i, token;

	if (getsockname(kfifo_notifier_fd(n), (struct sockaddr *)&a, &len) < 0)
		return -1;
	if (sscanf(a.sun_path, "/dev/shm/.kfifo-notify-%8x", &token) != 1)
		return -1;
	for (i = 0; i < KFIFO_NOTIFY_SLOTS; i++)
		if (slot_word(mem, i) >> 2 == token)
			return (int)i;
	return -1;
}

struct shared {
	size_t len;
	unsigned char *mem;
	struct kfifo f;
	struct kfifo_notifier *n;
};

static void shared_open(struct shared *s)
{
	s->len = kfifo_shared_bytes(64);
	s->mem = map_shared(s->len);
	CHECK_INT(kfifo_shared_create(&s->f, s->mem, s->len, 64), 0);
	CHECK_INT(kfifo_notifier_open(&s->n, &s->f, KFIFO_NOTIFY_DATA), 0);
	CHECK_INT(kfifo_notifier_arm(s->n), 0);
}

static void shared_close(struct shared *s)
{
	kfifo_notifier_close(s->n);
	munmap(s->mem, s->len);
}

/* one byte in, one byte out: a publication of data (the out, of room,
 * signals nobody here) */
static void publish(struct kfifo *f)
{
	unsigned char b = 7;

	CHECK_UINT(kfifo_in(f, &b, 1), 1);
	CHECK_UINT(kfifo_out(f, &b, 1), 1);
}

/*
 * A signal that cannot be sent stays pending: the publication that
 * failed leaves the fd unreadable and the slot pending; the next one,
 * once the fault is gone, delivers it.
 */
static void check_signal_kept(enum site site, int err)
{
	struct shared s;
	int i;

	th_context("site %d fails with %s", (int)site, strerror(err));
	shared_open(&s);
	i = slot_of(s.mem, s.n);
	CHECK(i >= 0);
	set_fault(site, err);
	publish(&s.f);
	publish(&s.f); /* and again: still failing, still kept */
	set_fault(site, 0);
	CHECK(!readable(kfifo_notifier_fd(s.n)));
	if (i >= 0)
		CHECK(slot_word(s.mem, (unsigned int)i) & 2u); /* pending */
	CHECK_INT(kfifo_notifier_armed(s.n), 1);
	publish(&s.f);
	CHECK(readable(kfifo_notifier_fd(s.n)));
	if (i >= 0)
		CHECK(!(slot_word(s.mem, (unsigned int)i) & 2u));
	shared_close(&s);
}

static void test_send_failures_keep_the_signal_pending(void)
{
	static const int socket_errs[] = { EMFILE, ENFILE, ENOMEM, ENOBUFS,
					   EACCES, EPERM };
	static const int sendto_errs[] = { ENOBUFS, ENOMEM, EPERM, EBADF,
					   EACCES, EINTR, EIO };
	size_t k;

	for (k = 0; k < sizeof(socket_errs) / sizeof(*socket_errs); k++)
		check_signal_kept(SEND_SOCKET, socket_errs[k]);
	for (k = 0; k < sizeof(sendto_errs) / sizeof(*sendto_errs); k++)
		check_signal_kept(SENDTO, sendto_errs[k]);
}

/* The same for an ordinary fifo's eventfd. */
static void test_eventfd_failure_keeps_the_signal_pending(void)
{
	unsigned char buf[16];
	struct kfifo f;
	struct kfifo_notifier *n;

	CHECK_INT(kfifo_init(&f, buf, sizeof(buf)), 0);
	CHECK_INT(kfifo_notifier_open(&n, &f, KFIFO_NOTIFY_DATA), 0);
	CHECK_INT(kfifo_notifier_arm(n), 0);
	set_fault(EVENTFD, EIO);
	publish(&f);
	set_fault(EVENTFD, 0);
	CHECK(!readable(kfifo_notifier_fd(n)));
	publish(&f);
	CHECK(readable(kfifo_notifier_fd(n)));
	kfifo_notifier_close(n);
}

/* EMFILE for real: the publisher is a child process that may open no
 * descriptor more (RLIMIT_NOFILE at its lowest free number). */
static void test_emfile_for_real(void)
{
	struct shared s;
	int status, i;
	pid_t pid;

	shared_open(&s);
	i = slot_of(s.mem, s.n);
	CHECK(i >= 0);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int lowest = dup(0);
		struct rlimit rl;
		unsigned char b = 1;

		close(lowest);
		rl.rlim_cur = rl.rlim_max = (rlim_t)lowest;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0 || dup(0) >= 0 ||
		    errno != EMFILE)
			_exit(2);
		_exit(kfifo_in(&s.f, &b, 1) == 1 ? 0 : 3);
	}
	CHECK_INT(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* nothing sent, still pending: this process's next publication
	 * delivers it (the byte the child stored is there to see) */
	CHECK(!readable(kfifo_notifier_fd(s.n)));
	if (i >= 0)
		CHECK(slot_word(s.mem, (unsigned int)i) & 2u);
	CHECK_UINT(kfifo_len(&s.f), 1);
	publish(&s.f);
	CHECK(readable(kfifo_notifier_fd(s.n)));
	shared_close(&s);
}

/* EAGAIN for real: the notifier's queue is full, so it is readable; the
 * signal counts as delivered (no retry on every publication). */
static void test_full_queue_counts_as_signalled(void)
{
	struct shared s;
	struct sockaddr_un a;
	socklen_t len = sizeof(a);
	int fd, i, sent = 0;
	char b = 0;

	shared_open(&s);
	i = slot_of(s.mem, s.n);
	CHECK(i >= 0);
	CHECK_INT(getsockname(kfifo_notifier_fd(s.n), (struct sockaddr *)&a,
			      &len), 0);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	while (sendto(fd, &b, 1, 0, (struct sockaddr *)&a, len) == 1)
		sent++;
	CHECK_INT(errno, EAGAIN);
	CHECK(sent > 0);
	publish(&s.f);
	if (i >= 0)
		CHECK(!(slot_word(s.mem, (unsigned int)i) & 2u));
	CHECK(readable(kfifo_notifier_fd(s.n)));
	/* a clear() reads a bounded number of them: still readable after
	 * one if more were queued, and clear() never blocks */
	kfifo_notifier_clear(s.n);
	CHECK_INT(readable(kfifo_notifier_fd(s.n)), sent > 64);
	close(fd);
	shared_close(&s);
}

/* A sandbox refusing the futex calls (ENOSYS from seccomp): the waiter
 * cannot sleep and spins, but it sees the publication and returns. */
struct late {
	struct kfifo *f;
	long long after_ns;
	unsigned int stored; /* checked by the main thread (the harness
				counts are not for threads) */
};

static void *publish_later(void *arg)
{
	struct late *l = arg;
	unsigned char b = 9;

	kt_sleep_ns(l->after_ns);
	l->stored = kfifo_in(l->f, &b, 1);
	return NULL;
}

static void test_futex_refused_loses_no_wake_up(void)
{
	unsigned char buf[16];
	struct kfifo f;
	struct late l = { &f, 50 * KT_MS, 0 };
	pthread_t t;

	CHECK_INT(kfifo_init(&f, buf, sizeof(buf)), 0);
	set_fault(FUTEX_WAIT_SITE, ENOSYS);
	set_fault(FUTEX_WAKE_SITE, ENOSYS);
	pthread_create(&t, NULL, publish_later, &l);
	kt_watchdog(60, "a wait with the futex refused");
	CHECK_INT(kfifo_wait_len(&f, 1, -1), 0);
	kt_watchdog(0, "");
	pthread_join(t, NULL);
	CHECK_UINT(l.stored, 1);
	set_fault(FUTEX_WAIT_SITE, 0);
	set_fault(FUTEX_WAKE_SITE, 0);
	CHECK_UINT(kfifo_len(&f), 1);
}

/* kfifo_notifier_open()'s allocation failing: -ENOMEM (negative, as every
 * error of the API), *np NULL, nothing left behind. */
static void test_open_without_memory(void)
{
	unsigned char buf[16];
	struct kfifo f;
	struct kfifo_notifier *n = (struct kfifo_notifier *)&f;

	CHECK_INT(kfifo_init(&f, buf, sizeof(buf)), 0);
	set_fault(OPEN_ALLOC, ENOMEM);
	CHECK_INT(kfifo_notifier_open(&n, &f, KFIFO_NOTIFY_DATA), -ENOMEM);
	set_fault(OPEN_ALLOC, 0);
	CHECK(n == NULL);
	CHECK_INT(kfifo_notifier_open(&n, &f, KFIFO_NOTIFY_DATA), 0);
	kfifo_notifier_close(n);
}

/*
 * A notifier that loses its slot while all 16 are taken: armed() says so,
 * clear() leaves its fd readable (its waiter polls), and once a slot is
 * free a clear() claims it and publications signal it again.
 */
static void test_slot_lost_while_all_are_taken(void)
{
	struct shared s;
	struct kfifo_notifier *o[KFIFO_NOTIFY_SLOTS - 1], *last;
	int i, k;

	shared_open(&s);
	for (k = 0; k < KFIFO_NOTIFY_SLOTS - 1; k++) {
		CHECK_INT(kfifo_notifier_open(&o[k], &s.f, KFIFO_NOTIFY_ROOM), 0);
		CHECK_INT(kfifo_notifier_arm(o[k]), 0);
	}
	/* the slot taken from it (as a publisher that judged it dead would:
	 * slot freed, waiter counted out), then taken by another */
	i = slot_of(s.mem, s.n);
	CHECK(i >= 0);
	set_word(s.mem, KFIFO_SHARED_OFF_NOTIFY + 4 * (unsigned int)i, 0);
	set_word(s.mem, KFIFO_SHARED_OFF_DATA_WAITERS,
		 get_word(s.mem, KFIFO_SHARED_OFF_DATA_WAITERS) - 1);
	CHECK_INT(kfifo_notifier_armed(s.n), 0);
	CHECK_INT(kfifo_notifier_open(&last, &s.f, KFIFO_NOTIFY_ROOM), 0);
	CHECK_INT(kfifo_notifier_arm(last), 0);
	kfifo_notifier_clear(s.n);
	CHECK_INT(kfifo_notifier_armed(s.n), 0);
	CHECK(readable(kfifo_notifier_fd(s.n))); /* poll, do not sleep */
	kfifo_notifier_clear(s.n);               /* still none: again */
	CHECK(readable(kfifo_notifier_fd(s.n)));
	CHECK_INT(kfifo_notifier_arm(s.n), -EBUSY);
	/* a slot frees: the next clear() takes it */
	kfifo_notifier_close(last);
	kfifo_notifier_clear(s.n);
	CHECK_INT(kfifo_notifier_armed(s.n), 1);
	CHECK(!readable(kfifo_notifier_fd(s.n)));
	CHECK_UINT(get_word(s.mem, KFIFO_SHARED_OFF_DATA_WAITERS), 1);
	publish(&s.f);
	CHECK(readable(kfifo_notifier_fd(s.n)));
	for (k = 0; k < KFIFO_NOTIFY_SLOTS - 1; k++)
		kfifo_notifier_close(o[k]);
	kfifo_notifier_close(s.n);
	s.n = NULL;
	CHECK_UINT(get_word(s.mem, KFIFO_SHARED_OFF_DATA_WAITERS), 0);
	CHECK_UINT(get_word(s.mem, KFIFO_SHARED_OFF_ROOM_WAITERS), 0);
	shared_close(&s);
}

/* A process killed after its notifier was signalled, before its clear():
 * the publishers find it within a few dozen publications and free its
 * slot, its waiter and its socket file (docs/spec.md 3.5). */
static void test_dead_signalled_slot_reclaimed(void)
{
	size_t len = kfifo_shared_bytes(64);
	unsigned char *mem = map_shared(len);
	struct kfifo f;
	int pipefd[2], status, k;
	char path[108] = "";
	pid_t pid;

	CHECK_INT(kfifo_shared_create(&f, mem, len, 64), 0);
	CHECK_INT(pipe(pipefd), 0);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		struct kfifo_notifier *c;
		struct sockaddr_un a;
		socklen_t alen = sizeof(a);

		if (kfifo_notifier_open(&c, &f, KFIFO_NOTIFY_DATA) ||
		    kfifo_notifier_arm(c) ||
		    getsockname(kfifo_notifier_fd(c), (struct sockaddr *)&a,
				&alen) < 0 ||
		    write(pipefd[1], a.sun_path, sizeof(a.sun_path)) < 0)
			_exit(2);
		/* wait until signalled, then die without clear() */
		while (!readable(kfifo_notifier_fd(c)))
			kt_sleep_ns(KT_MS);
		_exit(0);
	}
	CHECK_INT((int)read(pipefd[0], path, sizeof(path)), (int)sizeof(path));
	publish(&f);
	CHECK_INT(waitpid(pid, &status, 0), pid);
	if (!CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		fprintf(stderr, "  child status %#x\n", (unsigned int)status);
	/* signalled: not pending, so no send finds it dead */
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_DATA_WAITERS), 1);
	CHECK(access(path, F_OK) == 0);
	for (k = 0; k < 200 && get_word(mem, KFIFO_SHARED_OFF_DATA_WAITERS);
	     k++)
		publish(&f);
	CHECK_UINT(get_word(mem, KFIFO_SHARED_OFF_DATA_WAITERS), 0);
	for (k = 0; k < KFIFO_NOTIFY_SLOTS; k++)
		CHECK_UINT(slot_word(mem, (unsigned int)k), 0);
	CHECK(access(path, F_OK) != 0); /* its socket file removed */
	close(pipefd[0]);
	close(pipefd[1]);
	munmap(mem, len);
}

/* The probe that tells a live notifier from a dead one reads errno only
 * after a failed connect(): a stale ECONNREFUSED must not free live
 * slots (an arm() with all 16 taken probes each). */
static void test_stale_errno_kills_no_live_notifier(void)
{
	struct shared s;
	struct kfifo_notifier *o[KFIFO_NOTIFY_SLOTS - 1], *extra;
	int k;

	shared_open(&s);
	for (k = 0; k < KFIFO_NOTIFY_SLOTS - 1; k++) {
		CHECK_INT(kfifo_notifier_open(&o[k], &s.f, KFIFO_NOTIFY_ROOM), 0);
		CHECK_INT(kfifo_notifier_arm(o[k]), 0);
	}
	CHECK_INT(kfifo_notifier_open(&extra, &s.f, KFIFO_NOTIFY_ROOM), 0);
	errno = ECONNREFUSED;
	CHECK_INT(kfifo_notifier_arm(extra), -EBUSY);
	errno = ENOENT;
	CHECK_INT(kfifo_notifier_arm(extra), -EBUSY);
	CHECK_INT(kfifo_notifier_armed(s.n), 1);
	for (k = 0; k < KFIFO_NOTIFY_SLOTS - 1; k++)
		CHECK_INT(kfifo_notifier_armed(o[k]), 1);
	/* and a probe that cannot make its socket judges nobody dead */
	set_fault(PROBE_SOCKET, EMFILE);
	CHECK_INT(kfifo_notifier_arm(extra), -EBUSY);
	set_fault(PROBE_SOCKET, 0);
	CHECK_INT(kfifo_notifier_armed(s.n), 1);
	kfifo_notifier_close(extra);
	for (k = 0; k < KFIFO_NOTIFY_SLOTS - 1; k++)
		kfifo_notifier_close(o[k]);
	shared_close(&s);
}

/*
 * Code that closes descriptors it does not own (daemonising, closefrom())
 * must not turn a publisher's signals into bytes in somebody else's
 * stream, nor lose them: the number a cached socket would have had, once
 * closed, once reused by a stream socket.
 */
static void test_no_descriptor_used_after_it_changed_hands(void)
{
	struct shared s;
	int lowest, sp[2];
	char b;

	shared_open(&s);
	lowest = dup(0);
	close(lowest);
	publish(&s.f); /* the first signal: a cache would be made now */
	CHECK(readable(kfifo_notifier_fd(s.n)));
	kfifo_notifier_clear(s.n);
	/* reused: a stream socket now holds the number */
	CHECK_INT(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
	CHECK_INT(dup2(sp[0], lowest), lowest);
	publish(&s.f);
	CHECK(readable(kfifo_notifier_fd(s.n)));
	CHECK_INT((int)recv(sp[1], &b, 1, MSG_DONTWAIT), -1); /* no byte */
	CHECK_INT(errno, EAGAIN);
	kfifo_notifier_clear(s.n);
	/* closed: nothing holds it */
	close(lowest);
	publish(&s.f);
	CHECK(readable(kfifo_notifier_fd(s.n)));
	close(sp[0]);
	close(sp[1]);
	shared_close(&s);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	kfifo__test_fault = inject;
	RUN_TEST(test_send_failures_keep_the_signal_pending);
	RUN_TEST(test_eventfd_failure_keeps_the_signal_pending);
	RUN_TEST(test_emfile_for_real);
	RUN_TEST(test_full_queue_counts_as_signalled);
	RUN_TEST(test_futex_refused_loses_no_wake_up);
	RUN_TEST(test_open_without_memory);
	RUN_TEST(test_slot_lost_while_all_are_taken);
	RUN_TEST(test_dead_signalled_slot_reclaimed);
	RUN_TEST(test_stale_errno_kills_no_live_notifier);
	RUN_TEST(test_no_descriptor_used_after_it_changed_hands);
	return th_finish("test_notify_faults");
}
