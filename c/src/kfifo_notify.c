/* SPDX-License-Identifier: MIT */
/*
 * kfifo_notify.c - notifiers: a file descriptor that an event loop waits
 * on instead of a futex (kfifo.h says what they are for and how to use
 * them).  An armed notifier is one more waiter of its direction in the
 * protocol of kfifo_wake.h: it counts itself in the direction's waiters
 * word (W1, with the same barrier), so publishers go to the out-of-line
 * kfifo__wake() while it is armed, and kfifo__wake() ends in
 * kfifo__notify(), which signals it.  Publishers pay nothing more while
 * nobody waits: their fast path is unchanged.
 *
 * Where the armed notifiers are found.
 *
 *   Ordinary fifo: in a registry of this process (a list under a mutex),
 *   with a count of the armed notifiers that the wake path reads first, so
 *   that futex waiters alone never take the mutex.  The fd is an eventfd;
 *   a signal is an 8-byte write().  @pending (under the mutex) says the
 *   notifier wants a signal: a publisher that signals clears it, so a
 *   stream of publications costs one write() per wait, not one each.
 *
 *   Handle: in the KFIFO_NOTIFY_SLOTS words of line 3 of the shared
 *   header, (token << 2) | (pending << 1) | dir, so that a publisher in
 *   any process finds them.  The fd is an AF_UNIX datagram socket bound
 *   to the abstract name that the token spells; a signal is a one-byte
 *   datagram sent to that name (EAGAIN: the queue is full, the notifier is
 *   signalled already).  A publisher takes the pending bit with a CAS
 *   before it sends.  A send refused with ECONNREFUSED means nobody holds
 *   the name any more: the process died armed; the publisher frees the
 *   slot and takes its waiter out of the count, as the owner's disarm
 *   would have (whoever zeroes the slot word does the decrement, once).
 *
 * No lost wake-up.  Waiter (arm, or clear): make the registration pending
 * (R), count the waiter (W1, arm only), a seq_cst read-modify-write of the
 * direction's futex word that changes nothing (X2), then the caller's
 * check (W2: its non-blocking call).  Publisher: store the index (P1),
 * read the waiters (P2), and if it is not 0: kfifo__wake(), whose one
 * successful RMW of the same futex word (X1: the new epoch) comes before
 * it reads the registrations (N).
 *
 *   - P2 reads 0: by the argument of kfifo_wake.h (membarrier() after W1,
 *     or seq_cst throughout for handles: kfifo__meet() reads the index
 *     seq_cst) W2 sees P1: the check succeeds.
 *   - Else X1 and X2 are RMWs of one word, so one reads the other (or a
 *     later RMW, all of which continue its release sequence) and
 *     synchronises with it: X1 first, then P1 happens before W2, which
 *     sees the new index; X2 first, then R happens before N, which finds
 *     the notifier pending and signals it.
 *   - The count stays >= 1 while armed, so after the first signal every
 *     clear() (R and X2 again, without W1) meets every publication so.
 *   - kfifo_close() stores @closed, then goes through kfifo__wake() too:
 *     the same either-or with @closed as the index.
 *
 * (RMWs, not fences: ThreadSanitizer checks them.  In a registry R and N
 * also hold the mutex, which keeps the list itself consistent.)
 *
 * A clear() drains the fd first and makes the registration pending after:
 * a signal between the two stays in the fd (a spurious wake-up at worst),
 * never the other way round (an empty fd, not pending, nothing to come).
 *
 * fork(): the child is single-threaded and its registry is a copy whose
 * notifiers belong to the parent.  A pthread_atfork() handler empties it
 * in the child and bumps a generation, which every call compares with the
 * notifier's: a notifier from before the fork touches nothing shared in
 * the child (the slots and counts are the parent's), it only closes its
 * copy of the fd.
 */
#if defined(__linux__)
#define _GNU_SOURCE /* syscall(), SOCK_CLOEXEC */
#endif
#include "kfifo_wake.h"

#include <errno.h>
#include <stdlib.h>

#if KFIFO__WAIT_FUTEX
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* the slot word: bit 0 the direction, bit 1 pending, bits 2-31 the token */
#define KFIFO__SLOT_DIR 1u
#define KFIFO__SLOT_PENDING 2u
#define KFIFO__SLOT_TOKEN(w) ((w) >> 2)
/* bind() tries this many random names before giving up */
#define KFIFO__BIND_TRIES 16

struct kfifo_notifier {
	struct kfifo *fifo; /* NULL once detached */
	unsigned int dir;   /* enum kfifo__dir */
	int fd;
	int handle;         /* slots and a socket, else the registry and an eventfd */
	int armed;
	int pending;        /* registry: wants a signal (under the mutex) */
	unsigned int token; /* handle: the name of the socket */
	unsigned int slot;  /* handle, while armed: the slot it holds */
	unsigned long gen;  /* kfifo__reg.gen when it was opened */
	struct kfifo_notifier *prev, *next; /* registry, while armed */
};

static struct {
	pthread_mutex_t lock;
	struct kfifo_notifier *head; /* the armed notifiers of ordinary fifos */
	unsigned int armed;          /* how many: read without the lock */
	unsigned long gen;           /* bumped in every fork()ed child */
	int send_fd;                 /* the socket publishers send from, or -1 */
} kfifo__reg = { PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, -1 };

/* 0, 1 while the fork handlers are being registered, 2 once they are (not
 * pthread_once(): before glibc 2.34 it lives in libpthread, which users
 * of the static library would then have to link) */
static unsigned char kfifo__reg_ready;

/* ---- fork ---------------------------------------------------------------- */

static void kfifo__reg_prepare(void)
{
	pthread_mutex_lock(&kfifo__reg.lock);
}

static void kfifo__reg_parent(void)
{
	pthread_mutex_unlock(&kfifo__reg.lock);
}

static void kfifo__reg_child(void)
{
	pthread_mutex_init(&kfifo__reg.lock, NULL);
	kfifo__reg.head = NULL;
	__atomic_store_n(&kfifo__reg.armed, 0, __ATOMIC_RELAXED);
	kfifo__reg.gen++;
}

static void kfifo__reg_init(void)
{
	unsigned char none = 0;

	if (__atomic_compare_exchange_n(&kfifo__reg_ready, &none, 1, 0,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		pthread_atfork(kfifo__reg_prepare, kfifo__reg_parent,
			       kfifo__reg_child);
		__atomic_store_n(&kfifo__reg_ready, 2, __ATOMIC_RELEASE);
	}
	while (__atomic_load_n(&kfifo__reg_ready, __ATOMIC_ACQUIRE) != 2)
		kfifo__cpu_relax();
}

static int kfifo__mine(const struct kfifo_notifier *n)
{
	return n->gen == kfifo__reg.gen;
}

/* ---- the fds ----------------------------------------------------------- */

/* The abstract AF_UNIX address that @token names. */
static socklen_t kfifo__name(struct sockaddr_un *a, unsigned int token)
{
	int len;

	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	len = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1,
		       "kfifo-notify-%08x", token);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			   (size_t)len);
}

/* A random token, 1 to 2^30 - 1: bind() makes it unique, so it need not
 * be unpredictable, only unlikely to collide. */
static unsigned int kfifo__token(const void *salt)
{
	static unsigned int counter;
	struct timespec ts;
	unsigned long long x;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	x = (unsigned long long)ts.tv_nsec ^
	    ((unsigned long long)ts.tv_sec << 30) ^
	    ((unsigned long long)getpid() << 40) ^ (unsigned long long)
	    (size_t)salt ^
	    ((unsigned long long)__atomic_add_fetch(&counter, 1,
						     __ATOMIC_RELAXED)
	     << 20);
	/* splitmix64's finaliser */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	x &= 0x3fffffffULL;
	return x ? (unsigned int)x : 1u;
}

/* A datagram socket bound to a fresh name, its token in *@token. */
static int kfifo__socket(struct kfifo_notifier *n)
{
	struct sockaddr_un a;
	int fd, i;

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	for (i = 0; i < KFIFO__BIND_TRIES; i++) {
		n->token = kfifo__token(n);
		if (bind(fd, (struct sockaddr *)&a, kfifo__name(&a, n->token)) ==
		    0)
			return fd;
		if (errno != EADDRINUSE)
			break;
	}
	i = -errno;
	close(fd);
	return i;
}

/* The socket this process sends signals from, made once. */
static int kfifo__send_fd(void)
{
	int fd = __atomic_load_n(&kfifo__reg.send_fd, __ATOMIC_ACQUIRE), mine;
	int none = -1;

	if (fd >= 0)
		return fd;
	mine = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (mine < 0)
		return -1;
	if (__atomic_compare_exchange_n(&kfifo__reg.send_fd, &none, mine, 0,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return mine;
	close(mine);
	return none;
}

/* Send one byte to the notifier named @token.  Returns 0, or -1 when
 * nobody holds the name (its process is gone). */
static int kfifo__send(unsigned int token)
{
	struct sockaddr_un a;
	socklen_t len = kfifo__name(&a, token);
	int fd = kfifo__send_fd(), saved = errno, ret = 0;
	char b = 0;

	if (fd >= 0 && sendto(fd, &b, 1, MSG_DONTWAIT | MSG_NOSIGNAL,
			      (struct sockaddr *)&a, len) < 0 &&
	    (errno == ECONNREFUSED || errno == ENOENT))
		ret = -1;
	errno = saved;
	return ret;
}

/* Whether a process holds the name @token (connect() sends nothing). */
static int kfifo__alive(unsigned int token)
{
	struct sockaddr_un a;
	socklen_t len = kfifo__name(&a, token);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret = 1;

	if (fd < 0)
		return 1;
	if (connect(fd, (struct sockaddr *)&a, len) < 0 &&
	    (errno == ECONNREFUSED || errno == ENOENT))
		ret = 0;
	close(fd);
	return ret;
}

/* Make @n's fd readable. */
static void kfifo__poke(struct kfifo_notifier *n)
{
	unsigned long long one = 1;
	int saved = errno;

	if (n->handle)
		(void)kfifo__send(n->token);
	else if (write(n->fd, &one, sizeof(one)) < 0) {
		/* EAGAIN: the counter is at its maximum, readable anyway */
	}
	errno = saved;
}

/* Empty @n's fd without blocking. */
static void kfifo__drain(struct kfifo_notifier *n)
{
	unsigned long long v;
	char buf[64];
	int saved = errno;

	if (n->handle) {
		while (recv(n->fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0)
			;
	} else if (read(n->fd, &v, sizeof(v)) < 0) {
		/* EAGAIN: it was not readable */
	}
	errno = saved;
}

/* ---- the slots of a shared fifo ----------------------------------------- */

static unsigned int *kfifo__slots(struct kfifo *fifo)
{
	return kfifo__shm(fifo)->notify;
}

static unsigned int kfifo__slot_word(const struct kfifo_notifier *n,
				     unsigned int pending)
{
	return n->token << 2 | pending | n->dir;
}

/* Free the slot @i that holds @w, and count its waiter out, if nobody
 * changed it meanwhile. */
static int kfifo__slot_free(struct kfifo *fifo, unsigned int i, unsigned int w)
{
	if (!__atomic_compare_exchange_n(&kfifo__slots(fifo)[i], &w, 0, 0,
					 __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
		return 0;
	__atomic_sub_fetch(kfifo__waiters_word(fifo, KFIFO__HANDLE,
					       (enum kfifo__dir)(w &
								 KFIFO__SLOT_DIR)),
			   1, __ATOMIC_SEQ_CST);
	return 1;
}

/* Take a free slot for @n, pending.  Returns 0, or -EBUSY. */
static int kfifo__slot_claim(struct kfifo_notifier *n, int reclaim)
{
	unsigned int *slots = kfifo__slots(n->fifo), i, w;

	for (i = 0; i < KFIFO_NOTIFY_SLOTS; i++) {
		w = 0;
		if (__atomic_compare_exchange_n(
			    &slots[i], &w,
			    kfifo__slot_word(n, KFIFO__SLOT_PENDING), 0,
			    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
			n->slot = i;
			return 0;
		}
	}
	if (!reclaim)
		return -EBUSY;
	/* all taken: free those whose process is gone, and try again */
	for (i = 0; i < KFIFO_NOTIFY_SLOTS; i++) {
		w = __atomic_load_n(&slots[i], __ATOMIC_SEQ_CST);
		if (w != 0 && !kfifo__alive(KFIFO__SLOT_TOKEN(w)))
			kfifo__slot_free(n->fifo, i, w);
	}
	return kfifo__slot_claim(n, 0);
}

/* Set the pending bit of @n's slot.  Returns 0, or -1 if the slot is no
 * longer @n's (a publisher took it for a dead process's). */
static int kfifo__slot_pend(struct kfifo_notifier *n)
{
	unsigned int *slot = &kfifo__slots(n->fifo)[n->slot];
	unsigned int w = __atomic_load_n(slot, __ATOMIC_SEQ_CST), tries = 0;

	while (KFIFO__SLOT_TOKEN(w) == n->token && !(w & KFIFO__SLOT_PENDING)) {
		if (__atomic_compare_exchange_n(slot, &w,
						w | KFIFO__SLOT_PENDING, 0,
						__ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST))
			return 0;
		if (++tries >= KFIFO__HANDLE_RETRIES)
			break;
	}
	return KFIFO__SLOT_TOKEN(w) == n->token ? 0 : -1;
}

/* Give @n's slot back (and its waiter), unless a publisher did. */
static void kfifo__slot_release(struct kfifo_notifier *n)
{
	unsigned int *slot = &kfifo__slots(n->fifo)[n->slot];
	unsigned int w = __atomic_load_n(slot, __ATOMIC_SEQ_CST), tries = 0;

	while (KFIFO__SLOT_TOKEN(w) == n->token &&
	       !kfifo__slot_free(n->fifo, n->slot, w) &&
	       ++tries < KFIFO__HANDLE_RETRIES)
		w = __atomic_load_n(slot, __ATOMIC_SEQ_CST);
}

/* The publisher's side: signal the pending notifiers of @dir. */
static void kfifo__signal_slots(struct kfifo *fifo, unsigned int dir)
{
	unsigned int *slots = kfifo__slots(fifo), i;

	for (i = 0; i < KFIFO_NOTIFY_SLOTS; i++) {
		unsigned int w = __atomic_load_n(&slots[i], __ATOMIC_SEQ_CST);
		unsigned int tries = 0;

		while (w != 0 && (w & KFIFO__SLOT_DIR) == dir &&
		       (w & KFIFO__SLOT_PENDING)) {
			unsigned int sent = w & ~KFIFO__SLOT_PENDING;

			if (__atomic_compare_exchange_n(&slots[i], &w, sent, 0,
							__ATOMIC_SEQ_CST,
							__ATOMIC_SEQ_CST)) {
				if (kfifo__send(KFIFO__SLOT_TOKEN(sent)) < 0)
					kfifo__slot_free(fifo, i, sent);
				break;
			}
			/* a hostile peer may flip the word for ever */
			if (++tries >= KFIFO__HANDLE_RETRIES)
				break;
		}
	}
}

/* ---- the registry of ordinary fifos ------------------------------------- */

static void kfifo__reg_insert(struct kfifo_notifier *n)
{
	pthread_mutex_lock(&kfifo__reg.lock);
	n->pending = 1;
	n->prev = NULL;
	n->next = kfifo__reg.head;
	if (n->next)
		n->next->prev = n;
	kfifo__reg.head = n;
	__atomic_add_fetch(&kfifo__reg.armed, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&kfifo__reg.lock);
}

static void kfifo__reg_remove(struct kfifo_notifier *n)
{
	pthread_mutex_lock(&kfifo__reg.lock);
	if (n->prev)
		n->prev->next = n->next;
	else
		kfifo__reg.head = n->next;
	if (n->next)
		n->next->prev = n->prev;
	n->prev = n->next = NULL;
	__atomic_sub_fetch(&kfifo__reg.armed, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&kfifo__reg.lock);
}

static void kfifo__reg_pend(struct kfifo_notifier *n)
{
	pthread_mutex_lock(&kfifo__reg.lock);
	n->pending = 1;
	pthread_mutex_unlock(&kfifo__reg.lock);
}

/* The publisher's side: signal the pending notifiers of @fifo and @dir.
 * The write() under the mutex: a notifier's fd is closed only after it
 * left the list, so the fd written is never another's. */
static void kfifo__signal_registry(struct kfifo *fifo, unsigned int dir)
{
	struct kfifo_notifier *n;

	if (!__atomic_load_n(&kfifo__reg.armed, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&kfifo__reg.lock);
	for (n = kfifo__reg.head; n != NULL; n = n->next) {
		if (n->fifo == fifo && n->dir == dir && n->pending) {
			n->pending = 0;
			kfifo__poke(n);
		}
	}
	pthread_mutex_unlock(&kfifo__reg.lock);
}

/* ---- the wake path ------------------------------------------------------- */

void kfifo__notify(struct kfifo *fifo, unsigned int *seq)
{
	enum kfifo__kind kind = kfifo__kind(fifo);
	unsigned int dir =
		seq == kfifo__seq_word(fifo, kind, KFIFO__DATA_DIR)
			? KFIFO__DATA_DIR
			: KFIFO__ROOM_DIR;

	/* X1 of the argument at the top was the caller's new epoch */
	if (kind == KFIFO__HANDLE)
		kfifo__signal_slots(fifo, dir);
	else
		kfifo__signal_registry(fifo, dir);
}

/*
 * X2 of the argument at the top: after R (and W1), before the check.
 * Then seq_cst loads of the index and @closed, the W2 that kfifo_wake.h
 * asks for on the fenced path: the caller's own check may read them with
 * acquire loads only, which read the same values or later ones.
 */
static void kfifo__meet(struct kfifo_notifier *n)
{
	enum kfifo__kind kind = n->handle ? KFIFO__HANDLE : KFIFO__ORDINARY;
	enum kfifo__dir dir = (enum kfifo__dir)n->dir;

	__atomic_fetch_add(kfifo__seq_word(n->fifo, kind, dir), 0,
			   __ATOMIC_SEQ_CST);
	(void)__atomic_load_n(dir == KFIFO__DATA_DIR
				      ? kfifo__in_word(n->fifo, kind)
				      : kfifo__out_word(n->fifo, kind),
			      __ATOMIC_SEQ_CST);
	(void)__atomic_load_n(kfifo__closed_word(n->fifo, kind),
			      __ATOMIC_SEQ_CST);
}

/* ---- the API --------------------------------------------------------------- */

int kfifo_notifier_open(struct kfifo_notifier **np, struct kfifo *fifo,
			int dir)
{
	struct kfifo_notifier *n;
	int handle;

	*np = NULL;
	if ((dir != KFIFO_NOTIFY_DATA && dir != KFIFO_NOTIFY_ROOM) ||
	    fifo->size == 0)
		return -EINVAL;
	handle = kfifo__kind(fifo) == KFIFO__HANDLE;
	if (handle && !(__atomic_load_n(&kfifo__shm(fifo)->flags,
					__ATOMIC_RELAXED) &
			KFIFO_SHARED_FLAG_NOTIFY))
		return -EOPNOTSUPP;
	kfifo__reg_init();
	n = calloc(1, sizeof(*n));
	if (n == NULL)
		return -ENOMEM;
	n->fifo = fifo;
	n->dir = (unsigned int)dir;
	n->handle = handle;
	n->gen = kfifo__reg.gen;
	n->fd = handle ? kfifo__socket(n)
		       : eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (n->fd < 0) {
		int err = handle ? n->fd : -errno;

		free(n);
		return err;
	}
	*np = n;
	return 0;
}

int kfifo_notifier_fd(const struct kfifo_notifier *n)
{
	return n->fd;
}

int kfifo_notifier_arm(struct kfifo_notifier *n)
{
	enum kfifo__kind kind;
	int ret;

	if (!kfifo__mine(n))
		return -ECHILD;
	if (n->fifo == NULL)
		return -EINVAL;
	if (n->armed) {
		/* only ask for the next signal */
		if (n->handle ? kfifo__slot_pend(n) : (kfifo__reg_pend(n), 0)) {
			n->armed = 0; /* the slot was taken from us */
			return kfifo_notifier_arm(n);
		}
		kfifo__meet(n);
		return 0;
	}
	kind = n->handle ? KFIFO__HANDLE : KFIFO__ORDINARY;
	if (n->handle) {
		ret = kfifo__slot_claim(n, 1);
		if (ret < 0)
			return ret;
		/* W1; for a handle publishers take the fenced path */
		(void)kfifo__announce(n->fifo,
				      kfifo__waiters_word(n->fifo, kind,
							  (enum kfifo__dir)n->dir));
	} else {
		unsigned int *waiters = kfifo__waiters_word(
			n->fifo, kind, (enum kfifo__dir)n->dir);

		kfifo__reg_insert(n);
		if (!kfifo__announce(n->fifo, waiters)) {
			/* membarrier() failed: publishers may miss us */
			__atomic_sub_fetch(waiters, 1, __ATOMIC_SEQ_CST);
			kfifo__reg_remove(n);
			return -EOPNOTSUPP;
		}
	}
	kfifo__meet(n);
	n->armed = 1;
	return 0;
}

void kfifo_notifier_disarm(struct kfifo_notifier *n)
{
	if (!kfifo__mine(n) || !n->armed)
		return;
	n->armed = 0;
	if (n->handle) {
		kfifo__slot_release(n);
		return;
	}
	kfifo__reg_remove(n);
	__atomic_sub_fetch(kfifo__waiters_word(n->fifo, KFIFO__ORDINARY,
					       (enum kfifo__dir)n->dir),
			   1, __ATOMIC_SEQ_CST);
}

void kfifo_notifier_clear(struct kfifo_notifier *n)
{
	kfifo__drain(n);
	if (kfifo__mine(n) && n->armed && kfifo_notifier_arm(n) < 0) {
		/* lost its slot and found no other: never leave a waiter
		 * asleep for nothing, let it poll */
		kfifo__poke(n);
	}
}

void kfifo_notifier_detach(struct kfifo_notifier *n)
{
	if (kfifo__mine(n)) {
		kfifo_notifier_disarm(n);
		if (n->fifo != NULL)
			kfifo__poke(n);
	}
	n->fifo = NULL;
}

void kfifo_notifier_close(struct kfifo_notifier *n)
{
	if (n == NULL)
		return;
	kfifo_notifier_disarm(n);
	close(n->fd);
	free(n);
}

#else /* !KFIFO__WAIT_FUTEX: publishers wake nobody, nothing to signal */

int kfifo_notifier_open(struct kfifo_notifier **np, struct kfifo *fifo,
			int dir)
{
	(void)fifo;
	(void)dir;
	*np = NULL;
	return -ENOSYS;
}

int kfifo_notifier_fd(const struct kfifo_notifier *n)
{
	(void)n;
	return -1;
}

int kfifo_notifier_arm(struct kfifo_notifier *n)
{
	(void)n;
	return -ENOSYS;
}

void kfifo_notifier_disarm(struct kfifo_notifier *n)
{
	(void)n;
}

void kfifo_notifier_clear(struct kfifo_notifier *n)
{
	(void)n;
}

void kfifo_notifier_detach(struct kfifo_notifier *n)
{
	(void)n;
}

void kfifo_notifier_close(struct kfifo_notifier *n)
{
	(void)n;
}

#endif
