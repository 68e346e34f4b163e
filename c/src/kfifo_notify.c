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

/* P3 (kfifo_wake.h): the futex waiters, then the notifiers. */
void kfifo__wake(struct kfifo *fifo, unsigned int *seq, int all)
{
	kfifo__futex_wake(fifo, seq, all);
#if KFIFO__WAIT_FUTEX
	/* after the RMW of @seq in kfifo__futex_wake(): it is what orders
	 * the notifiers' registrations against this publication (below) */
	kfifo__notify(fifo, seq);
#endif
}

unsigned int kfifo__wake_ret(struct kfifo *fifo, unsigned int *seq,
			     unsigned int ret)
{
	kfifo__wake(fifo, seq, 0);
	return ret;
}

#if KFIFO__WAIT_FUTEX
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* the slot word: bit 0 the direction, bit 1 pending, bits 2-31 the token */
#define KFIFO__SLOT_DIR 1u
#define KFIFO__SLOT_PENDING 2u
#define KFIFO__SLOT_TOKEN(w) ((w) >> 2)
/* bind() tries this many random names before giving up */
#define KFIFO__BIND_TRIES 16
/* where the notifiers' sockets of a KFIFO_SHARED_FLAG_NOTIFY_PATH block are */
#define KFIFO__SOCK_PREFIX "/dev/shm/.kfifo-notify-"
/* a clear() reads at most this many datagrams: a flood by a process that
 * may send (same uid) cannot keep it in recv() for long; what is left
 * keeps the fd readable, a spurious wake-up */
#define KFIFO__DRAIN_MAX 64
/* a publisher that signals slots looks for dead signalled ones on one in
 * this many of its wake paths (a power of 2) */
#define KFIFO__PROBE_EVERY 64

struct kfifo_notifier {
	struct kfifo *fifo; /* NULL once detached */
	unsigned int dir;   /* enum kfifo__dir */
	int fd;
	int handle;         /* slots and a socket, else the registry and an eventfd */
	int armed;          /* the owner asked for signals (arm() succeeded once,
			     * no disarm() since) */
	int held;           /* it holds its slot / registry entry and counts
			     * as a waiter: armed, unless the slot was lost
			     * and clear() found no other yet */
	int pending;        /* registry: wants a signal (under the mutex) */
	unsigned int token; /* handle: the name of the socket */
	int path;           /* handle: the name is a file in /dev/shm */
	unsigned int slot;  /* handle, while armed: the slot it holds */
	unsigned long gen;  /* kfifo__reg.gen when it was opened */
	struct kfifo_notifier *prev, *next; /* registry, while armed */
};

static struct {
	pthread_mutex_t lock;
	struct kfifo_notifier *head; /* the armed notifiers of ordinary fifos */
	unsigned int armed;          /* how many: read without the lock */
	unsigned long gen;           /* bumped in every fork()ed child */
	unsigned int probes;         /* wake paths through the slots, to pace
					the search for dead signalled ones */
} kfifo__reg = { PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, 0 };

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

/* The AF_UNIX address that @token names: a socket file in /dev/shm when
 * @path (KFIFO_SHARED_FLAG_NOTIFY_PATH), else an abstract name. */
static socklen_t kfifo__name(struct sockaddr_un *a, unsigned int token,
			     int path)
{
	int len;

	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (path) {
		len = snprintf(a->sun_path, sizeof(a->sun_path),
			       KFIFO__SOCK_PREFIX "%08x", token);
		return (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				   (size_t)len + 1);
	}
	len = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1,
		       "kfifo-notify-%08x", token);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
			   (size_t)len);
}

/* Whether the notifiers of @fifo (a handle) name socket files. */
static int kfifo__path_names(struct kfifo *fifo)
{
	return (__atomic_load_n(&kfifo__shm(fifo)->flags, __ATOMIC_RELAXED) &
		KFIFO_SHARED_FLAG_NOTIFY_PATH) != 0;
}

/* Remove the socket file of a dead notifier (its process cannot); only
 * the one who freed its slot does, so only once.  EACCES (another uid's,
 * /dev/shm is sticky) and ENOENT leave it be. */
static void kfifo__unlink(unsigned int token, int path)
{
	struct sockaddr_un a;
	int saved = errno;

	if (!path)
		return;
	(void)kfifo__name(&a, token, 1);
	(void)unlink(a.sun_path);
	errno = saved;
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

/*
 * A datagram socket bound to a fresh name, its token in n->token.  A
 * socket file is made with mode 0600 (fchmod() of the unbound socket sets
 * the mode bind() gives the file): sendto() and connect() need write
 * permission on it, so the kernel refuses the datagrams of every other
 * uid but root's.  An abstract name has no permissions at all.
 */
static int kfifo__socket(struct kfifo_notifier *n)
{
	struct sockaddr_un a;
	int fd, i;

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (n->path && fchmod(fd, 0600) != 0) {
		i = -errno;
		close(fd);
		return i;
	}
	for (i = 0; i < KFIFO__BIND_TRIES; i++) {
		n->token = kfifo__token(n);
		if (bind(fd, (struct sockaddr *)&a,
			 kfifo__name(&a, n->token, n->path)) == 0)
			return fd;
		if (errno != EADDRINUSE)
			break;
	}
	i = -errno;
	close(fd);
	return i;
}

/* What a signal came to: delivered (or the queue is full: readable
 * anyway), nobody holds the name (its process is gone), or not delivered
 * (a resource or permission error): the caller keeps it pending, and the
 * next publication tries again.  docs/notifiers.md has the fault table. */
enum kfifo__sent { KFIFO__SENT, KFIFO__GONE, KFIFO__UNSENT };

/* socket(AF_UNIX, SOCK_DGRAM) for a publisher or a probe. */
static int kfifo__dgram(enum kfifo__fault_site site, int flags)
{
	int fault = KFIFO__FAULT(site);

	(void)site; /* unused outside test builds */
	if (fault != 0) {
		errno = fault;
		return -1;
	}
	return socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | flags, 0);
}

/*
 * Send one byte to the notifier named @token, from a socket made for it.
 * No socket is kept between signals: a descriptor number cached in a
 * library is closed and reused behind its back by code that closes what
 * it does not own (daemonising, closefrom()), and the signal then goes
 * into whatever holds the number (a TCP stream got a NUL byte) or is lost
 * (EBADF).  A signal is sent once per wait, not per publication, so the
 * socket()/close() pair is paid once per wake-up.
 */
static enum kfifo__sent kfifo__send(unsigned int token, int path)
{
	struct sockaddr_un a;
	socklen_t len = kfifo__name(&a, token, path);
	int saved = errno, fault, fd;
	enum kfifo__sent ret = KFIFO__SENT;
	char b = 0;

	fd = kfifo__dgram(KFIFO__FAULT_SEND_SOCKET, SOCK_NONBLOCK);
	if (fd < 0) {
		errno = saved;
		return KFIFO__UNSENT; /* EMFILE, ENFILE, ENOMEM, ENOBUFS */
	}
	fault = KFIFO__FAULT(KFIFO__FAULT_SENDTO);
	if (fault != 0)
		errno = fault;
	if (fault != 0 || sendto(fd, &b, 1, MSG_DONTWAIT | MSG_NOSIGNAL,
				 (struct sockaddr *)&a, len) < 0) {
		if (errno == ECONNREFUSED || errno == ENOENT)
			ret = KFIFO__GONE;
		else if (errno != EAGAIN && errno != EWOULDBLOCK)
			ret = KFIFO__UNSENT;
		/* EAGAIN: its queue is full, it is readable already.
		 * EACCES (a socket file of another uid): this process may
		 * not wake it, kept pending for one that may */
	}
	close(fd);
	errno = saved;
	return ret;
}

/* Whether a process holds the name @token (connect() sends nothing).
 * When it cannot tell (no socket), the name is held: a slot is freed only
 * on the kernel's word that nobody binds the name. */
static int kfifo__alive(unsigned int token, int path)
{
	struct sockaddr_un a;
	socklen_t len = kfifo__name(&a, token, path);
	int saved = errno, fd, ret = 1;

	fd = kfifo__dgram(KFIFO__FAULT_PROBE_SOCKET, 0);
	if (fd < 0) {
		errno = saved;
		return 1;
	}
	/* errno is read only when connect() failed: a stale ECONNREFUSED
	 * from an earlier call must not make a live notifier dead */
	if (connect(fd, (struct sockaddr *)&a, len) < 0 &&
	    (errno == ECONNREFUSED || errno == ENOENT))
		ret = 0;
	close(fd);
	errno = saved;
	return ret;
}

/* Make @n's fd readable. */
static enum kfifo__sent kfifo__poke(struct kfifo_notifier *n)
{
	unsigned long long one = 1;
	int saved = errno, fault;
	enum kfifo__sent ret = KFIFO__SENT;

	if (n->handle)
		return kfifo__send(n->token, n->path);
	fault = KFIFO__FAULT(KFIFO__FAULT_EVENTFD);
	if (fault != 0)
		errno = fault;
	if ((fault != 0 || write(n->fd, &one, sizeof(one)) < 0) &&
	    errno != EAGAIN)
		ret = KFIFO__UNSENT;
	/* EAGAIN: the counter is at its maximum, readable anyway */
	errno = saved;
	return ret;
}

/* Empty @n's fd without blocking, or read KFIFO__DRAIN_MAX datagrams
 * (more keep it readable: a spurious wake-up, never a lost one). */
static void kfifo__drain(struct kfifo_notifier *n)
{
	unsigned long long v;
	char buf[64];
	int saved = errno, i;

	if (n->handle) {
		for (i = 0; i < KFIFO__DRAIN_MAX &&
			    recv(n->fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0;
		     i++)
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

/* Free the slots whose process is gone (nobody holds the name): of both
 * directions, or when @signalled only those signalled and not yet cleared
 * (a pending one is found dead by the send that signals it). */
static void kfifo__reap(struct kfifo *fifo, int signalled)
{
	unsigned int *slots = kfifo__slots(fifo), i, w;
	int path = kfifo__path_names(fifo);

	for (i = 0; i < KFIFO_NOTIFY_SLOTS; i++) {
		w = __atomic_load_n(&slots[i], __ATOMIC_SEQ_CST);
		if (w != 0 && !(signalled && (w & KFIFO__SLOT_PENDING)) &&
		    !kfifo__alive(KFIFO__SLOT_TOKEN(w), path) &&
		    kfifo__slot_free(fifo, i, w))
			kfifo__unlink(KFIFO__SLOT_TOKEN(w), path);
	}
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
	kfifo__reap(n->fifo, 0);
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

/*
 * The publisher's side: signal the pending notifiers of @dir.  A signal
 * that could not be sent (kfifo__send(): no socket, no buffer, refused by
 * a sandbox) puts the pending bit back, so the next publication sends it
 * again: late, never lost.  One wake path in KFIFO__PROBE_EVERY also
 * looks for notifiers that died signalled, before their clear(): they no
 * longer ask for a signal, so no send finds them dead, yet they hold a
 * slot and count as a waiter, which sends every publication out of line.
 */
static void kfifo__signal_slots(struct kfifo *fifo, unsigned int dir)
{
	unsigned int *slots = kfifo__slots(fifo), i;
	int path = kfifo__path_names(fifo);

	if ((__atomic_add_fetch(&kfifo__reg.probes, 1, __ATOMIC_RELAXED) &
	     (KFIFO__PROBE_EVERY - 1)) == 0)
		kfifo__reap(fifo, 1);

	for (i = 0; i < KFIFO_NOTIFY_SLOTS; i++) {
		unsigned int w = __atomic_load_n(&slots[i], __ATOMIC_SEQ_CST);
		unsigned int tries = 0;

		while (w != 0 && (w & KFIFO__SLOT_DIR) == dir &&
		       (w & KFIFO__SLOT_PENDING)) {
			unsigned int sent = w & ~KFIFO__SLOT_PENDING;

			if (__atomic_compare_exchange_n(&slots[i], &w, sent, 0,
							__ATOMIC_SEQ_CST,
							__ATOMIC_SEQ_CST)) {
				enum kfifo__sent r =
					kfifo__send(KFIFO__SLOT_TOKEN(sent),
						    path);

				if (r == KFIFO__GONE &&
				    kfifo__slot_free(fifo, i, sent))
					kfifo__unlink(KFIFO__SLOT_TOKEN(sent),
						      path);
				else if (r == KFIFO__UNSENT)
					/* pending again, unless its owner
					 * (clear) or anyone changed it */
					(void)__atomic_compare_exchange_n(
						&slots[i], &sent, w, 0,
						__ATOMIC_SEQ_CST,
						__ATOMIC_RELAXED);
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
		if (n->fifo == fifo && n->dir == dir && n->pending)
			/* not written: still pending, the next publication
			 * tries again */
			n->pending = kfifo__poke(n) == KFIFO__UNSENT;
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
	int handle, fault;

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
	fault = KFIFO__FAULT(KFIFO__FAULT_OPEN_ALLOC);
	n = fault != 0 ? NULL : calloc(1, sizeof(*n));
	if (n == NULL)
		return -ENOMEM;
	n->fifo = fifo;
	n->dir = (unsigned int)dir;
	n->handle = handle;
	n->path = handle && kfifo__path_names(fifo);
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

/* Take a slot (handle) or a place in the registry, and count the waiter
 * (W1).  Returns 0, -EBUSY (every slot taken by a live notifier) or
 * -EOPNOTSUPP (membarrier() failed). */
static int kfifo__hold(struct kfifo_notifier *n)
{
	enum kfifo__kind kind = n->handle ? KFIFO__HANDLE : KFIFO__ORDINARY;
	unsigned int *waiters =
		kfifo__waiters_word(n->fifo, kind, (enum kfifo__dir)n->dir);
	int ret;

	if (n->handle) {
		ret = kfifo__slot_claim(n, 1);
		if (ret < 0)
			return ret;
		/* W1; for a handle publishers take the fenced path */
		(void)kfifo__announce(n->fifo, waiters, 1);
	} else {
		kfifo__reg_insert(n);
		if (!kfifo__announce(n->fifo, waiters, 1)) {
			/* membarrier() failed: publishers may miss us */
			__atomic_sub_fetch(waiters, 1, __ATOMIC_SEQ_CST);
			kfifo__reg_remove(n);
			return -EOPNOTSUPP;
		}
	}
	n->held = 1;
	return 0;
}

int kfifo_notifier_arm(struct kfifo_notifier *n)
{
	int ret;

	if (!kfifo__mine(n))
		return -ECHILD;
	if (n->fifo == NULL)
		return -EINVAL;
	if (n->held) {
		/* only ask for the next signal */
		if (!n->handle)
			kfifo__reg_pend(n);
		else if (kfifo__slot_pend(n) < 0)
			/* the slot was taken from us (whoever freed it
			 * counted the waiter out): claim one again */
			n->held = 0;
	}
	if (!n->held) {
		ret = kfifo__hold(n);
		if (ret < 0)
			return ret;
	}
	kfifo__meet(n);
	n->armed = 1;
	return 0;
}

int kfifo_notifier_armed(const struct kfifo_notifier *n)
{
	unsigned int w;

	if (!kfifo__mine(n) || n->fifo == NULL || !n->armed || !n->held)
		return 0;
	if (!n->handle)
		return 1;
	/* the slot may have been taken since (a publisher or arm() that
	 * judged us dead, a peer writing the word): the word says */
	w = __atomic_load_n(&kfifo__slots(n->fifo)[n->slot], __ATOMIC_RELAXED);
	return KFIFO__SLOT_TOKEN(w) == n->token;
}

void kfifo_notifier_disarm(struct kfifo_notifier *n)
{
	if (!kfifo__mine(n) || !n->armed)
		return;
	n->armed = 0;
	if (!n->held)
		return;
	n->held = 0;
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
		 * asleep for nothing, let it poll; it stays armed (it asks
		 * for signals) and every clear() or arm() tries to claim a
		 * slot again, while kfifo_notifier_armed() says 0 */
		(void)kfifo__poke(n);
	}
}

void kfifo_notifier_detach(struct kfifo_notifier *n)
{
	if (kfifo__mine(n)) {
		kfifo_notifier_disarm(n);
		if (n->fifo != NULL)
			(void)kfifo__poke(n);
	}
	n->fifo = NULL;
}

void kfifo_notifier_close(struct kfifo_notifier *n)
{
	if (n == NULL)
		return;
	kfifo_notifier_disarm(n);
	/* the name goes before the socket: no moment where the file names
	 * nobody's socket and another process's bind() of it fails */
	if (n->path && kfifo__mine(n))
		kfifo__unlink(n->token, 1);
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

int kfifo_notifier_armed(const struct kfifo_notifier *n)
{
	(void)n;
	return 0;
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
