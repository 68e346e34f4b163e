/* SPDX-License-Identifier: MIT */
/*
 * kfifo_lock.c - the side locks of a fifo with many producers or many
 * consumers, and the side claims of a shared fifo with one (kfifo.h, "many
 * producers, many consumers").
 *
 * The lock.  One 32-bit word per side: 0 free, else the holder's thread
 * id in bits 0-29, and bit 31 (KFIFO__LOCK_SLEEPERS) set while threads may
 * sleep on the word (a futex, Drepper's "Futexes are tricky" mutex with
 * the owner in the word).  An ordinary fifo keeps the words in struct
 * kfifo, a handle in the shared header (lines 1 and 2, with the index the
 * side moves: in a many mode the lock and the index are taken together).
 * A taker that finds the word held sleeps on it in slices of
 * KFIFO__LOCK_SLICE_NS; after each slice it checks that the holder lives,
 * and takes a dead holder's lock over with a compare-and-swap.  A thread
 * that holds the lock may take it again (the binding holds a side across
 * a peek and a take; kfifo_in_lock()): the depth is kept in the local
 * struct kfifo, written only by the holder.
 *
 * Why a dead holder is harmless: a call publishes its side's index once,
 * at its end, with release.  Killed before that store, the holder moved
 * nothing that anyone else reads; killed after it, only the unlock is
 * missing.  So a producer's half-written record is never seen (the next
 * producer writes over it), a consumer's half-read record stays for the
 * next consumer.
 *
 * Liveness.  In one process (an ordinary fifo), the holder lives if
 * tgkill(our pid, tid, 0) finds it: that also frees a lock held, in a
 * child of fork(), by a thread of the parent that the child does not
 * have.  Across processes (a handle), kill(tid, 0): ESRCH once the
 * thread is gone; a killed process not yet reaped by its parent (a
 * zombie) counts as gone too (/proc/ID/stat).  A recycled thread id looks alive: the lock is then
 * recovered only when that thread ends (or, on a handle, the taker gives
 * up after KFIFO_LOCK_PATIENCE_MS).
 *
 * The claim.  A handle of one producer (consumer) lets one process
 * produce (consume): the first call of a side writes the process's pid
 * into the header's claim word with a compare-and-swap, and caches it in
 * the handle; while the cache matches the pid (reset in a child of fork())
 * a call costs a compare.  A claim held by a live process refuses the
 * call with -EBUSY; a dead one's is taken over.  Detection against a
 * hostile peer is best effort: it can write any word, and the clamp
 * (kfifo_kind.h) is what keeps us inside the mapping.
 */
#define _GNU_SOURCE /* syscall(), gettid numbers */
#include "kfifo_atomic.h"
#include "kfifo_kind.h"
#include "kfifo_wake.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__linux__) && !defined(KFIFO_WAIT_FALLBACK)
#include <linux/futex.h>
#define KFIFO__LOCK_FUTEX 1
#else
#define KFIFO__LOCK_FUTEX 0
#endif

#define KFIFO__LOCK_SLEEPERS 0x80000000u
#define KFIFO__LOCK_OWNER 0x3fffffffu
/* the hold depth's bit: a prepare keeps the side until its finish */
#define KFIFO__HOLD_KEPT 0x80000000u
/* spins and yields before sleeping, and the length of one sleep */
#define KFIFO__LOCK_SPINS 64
#define KFIFO__LOCK_YIELDS 64
#define KFIFO__LOCK_SLICE_NS 2000000L

/* KFIFO_LOCK_PATIENCE_MS; private, so that a test can shorten it */
unsigned int kfifo__lock_patience_ms = KFIFO_LOCK_PATIENCE_MS;

/* ---- who we are: cached, reset in the child of a fork() --------------- */

static __thread unsigned int kfifo__tid;
static unsigned int kfifo__pid;
/* the fork handler: 0 not registered, 1 being registered, 2 registered.
 * By hand rather than pthread_once(), which glibc versions at 2.34: the
 * wheels promise manylinux_2_28 (auditwheel refuses newer symbols). */
static int kfifo__atfork_state;

static void kfifo__forked_child(void)
{
	kfifo__tid = 0;
	__atomic_store_n(&kfifo__pid, 0, __ATOMIC_RELAXED);
}

static void kfifo__register_atfork(void)
{
	int expected = 0;

	if (__atomic_load_n(&kfifo__atfork_state, __ATOMIC_ACQUIRE) == 2)
		return;
	if (__atomic_compare_exchange_n(&kfifo__atfork_state, &expected, 1, 0,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		(void)pthread_atfork(NULL, NULL, kfifo__forked_child);
		__atomic_store_n(&kfifo__atfork_state, 2, __ATOMIC_RELEASE);
		return;
	}
	/* another thread registers it: once per process, a few instructions */
	while (__atomic_load_n(&kfifo__atfork_state, __ATOMIC_ACQUIRE) != 2)
		sched_yield();
}

static unsigned int kfifo__self_tid(void)
{
	if (__builtin_expect(kfifo__tid == 0, 0)) {
		kfifo__register_atfork();
		kfifo__tid = (unsigned int)syscall(SYS_gettid);
	}
	return kfifo__tid;
}

static unsigned int kfifo__self_pid(void)
{
	unsigned int pid = __atomic_load_n(&kfifo__pid, __ATOMIC_RELAXED);

	if (__builtin_expect(pid == 0, 0)) {
		kfifo__register_atfork();
		pid = (unsigned int)getpid();
		__atomic_store_n(&kfifo__pid, pid, __ATOMIC_RELAXED);
	}
	return pid;
}

/*
 * Whether thread @id has exited but was not reaped yet: a killed process
 * stays a zombie until its parent waits for it, and kill() still finds
 * it.  A pool's parent often waits for its workers only at the end, so a
 * zombie holder must count as dead, or the pool would stop until then.
 * Its state is the field after the command's closing parenthesis in
 * /proc/ID/stat (without /proc: not known, so alive).
 */
static int kfifo__zombie(unsigned int id)
{
	char path[32], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/stat", id);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT; /* gone since the kill() */
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p != NULL && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

/* Whether the thread (process) @id is gone for good: no such thread, or
 * a zombie.  EPERM means it lives under another user. */
static int kfifo__gone(unsigned int id, enum kfifo__kind kind)
{
	int r;

	if (kind == KFIFO__ORDINARY)
		r = (int)syscall(SYS_tgkill, (int)getpid(), (int)id, 0);
	else
		r = kill((pid_t)id, 0);
	if (r == -1)
		return errno == ESRCH;
	return kfifo__zombie(id);
}

/* ---- the futex word ---------------------------------------------------- */

static void kfifo__lock_sleep(unsigned int *word, unsigned int val,
			      enum kfifo__kind kind)
{
#if KFIFO__LOCK_FUTEX
	struct timespec slice = { 0, KFIFO__LOCK_SLICE_NS };
	int op = kind == KFIFO__HANDLE ? FUTEX_WAIT : FUTEX_WAIT_PRIVATE;

	(void)syscall(SYS_futex, word, op, val, &slice, NULL, 0);
#else
	struct timespec nap = { 0, 50000L };

	(void)word;
	(void)val;
	(void)kind;
	nanosleep(&nap, NULL);
#endif
}

static void kfifo__lock_wake(unsigned int *word, enum kfifo__kind kind)
{
#if KFIFO__LOCK_FUTEX
	int op = kind == KFIFO__HANDLE ? FUTEX_WAKE : FUTEX_WAKE_PRIVATE;

	(void)syscall(SYS_futex, word, op, 1, NULL, NULL, 0);
#else
	(void)word;
	(void)kind;
#endif
}

static long long kfifo__now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static int kfifo__cas(unsigned int *word, unsigned int *expect,
		      unsigned int want)
{
	return __atomic_compare_exchange_n(word, expect, want, 0,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

/*
 * Take the lock @word for @me.  An ordinary fifo's waits as long as it
 * takes; a handle's gives up after KFIFO_LOCK_PATIENCE_MS with -ETIMEDOUT.
 * Once it has slept it takes the lock with the sleepers bit set, as it
 * cannot know whether others still sleep (the next unlock makes one
 * wake-up too many at worst).
 */
static int kfifo__lock_take(unsigned int *word, unsigned int me,
			    enum kfifo__kind kind)
{
	unsigned int cur, owner;
	long long deadline = 0;
	int i;

	/* test and test-and-set: spin on a load (the line stays shared
	 * until the holder lets go), then let a preempted holder run */
	for (i = 0; i < KFIFO__LOCK_SPINS + KFIFO__LOCK_YIELDS; i++) {
		cur = __atomic_load_n(word, __ATOMIC_RELAXED);
		if (cur == 0 && kfifo__cas(word, &cur, me))
			return 0;
		if (i < KFIFO__LOCK_SPINS)
			kfifo__cpu_relax();
		else
			sched_yield();
	}
	if (kind == KFIFO__HANDLE)
		deadline = kfifo__now_ms() + kfifo__lock_patience_ms;
	for (;;) {
		cur = __atomic_load_n(word, __ATOMIC_RELAXED);
		owner = cur & KFIFO__LOCK_OWNER;
		if (owner == 0) {
			if (kfifo__cas(word, &cur, me | KFIFO__LOCK_SLEEPERS))
				return 0;
			continue;
		}
		if (!(cur & KFIFO__LOCK_SLEEPERS) &&
		    !kfifo__cas(word, &cur, cur | KFIFO__LOCK_SLEEPERS))
			continue;
		kfifo__lock_sleep(word, cur | KFIFO__LOCK_SLEEPERS, kind);
		cur = __atomic_load_n(word, __ATOMIC_RELAXED);
		if ((cur & KFIFO__LOCK_OWNER) == owner && kfifo__gone(owner, kind) &&
		    kfifo__cas(word, &cur, me | KFIFO__LOCK_SLEEPERS))
			return 0; /* a dead holder's lock, taken over */
		if (kind == KFIFO__HANDLE && kfifo__now_ms() > deadline)
			return -ETIMEDOUT;
	}
}

static void kfifo__lock_give(unsigned int *word, enum kfifo__kind kind)
{
	if (__atomic_exchange_n(word, 0, __ATOMIC_RELEASE) &
	    KFIFO__LOCK_SLEEPERS)
		kfifo__lock_wake(word, kind);
}

/* ---- the sides --------------------------------------------------------- */

struct kfifo__side_words {
	unsigned int *lock;  /* the lock word (here or in the header) */
	unsigned int *hold;  /* the holder's depth, in the local struct */
	unsigned int *claim; /* the handle's cached claim */
	unsigned int many;   /* the flag bit of a many mode on this side */
};

static struct kfifo__side_words kfifo__side(struct kfifo *fifo,
					    enum kfifo__side side)
{
	struct kfifo__side_words w;
	int handle = kfifo__kind(fifo) == KFIFO__HANDLE;

	if (side == KFIFO__IN_SIDE) {
		w.lock = handle ? &kfifo__shm(fifo)->in_lock : &fifo->kfifo__in_lock;
		w.hold = &fifo->kfifo__in_hold;
		w.claim = &fifo->kfifo__in_claim;
		w.many = KFIFO__MANY_IN;
	} else {
		w.lock = handle ? &kfifo__shm(fifo)->out_lock
				: &fifo->kfifo__out_lock;
		w.hold = &fifo->kfifo__out_hold;
		w.claim = &fifo->kfifo__out_claim;
		w.many = KFIFO__MANY_OUT;
	}
	return w;
}

/* The claim of a handle of one producer (consumer), slow path. */
static __attribute__((noinline, cold)) int
kfifo__claim(struct kfifo *fifo, enum kfifo__side side, unsigned int me)
{
	struct kfifo__shm *shm = kfifo__shm(fifo);
	unsigned int *word = side == KFIFO__IN_SIDE ? &shm->in_claim
						    : &shm->out_claim;
	unsigned int cur, tries;

	for (tries = 0; tries < KFIFO__HANDLE_RETRIES; tries++) {
		cur = __atomic_load_n(word, __ATOMIC_ACQUIRE);
		if (cur != me && cur != 0 &&
		    !kfifo__gone(cur & KFIFO__LOCK_OWNER, KFIFO__HANDLE))
			break;
		if (cur == me || kfifo__cas(word, &cur, me)) {
			__atomic_store_n(kfifo__side(fifo, side).claim, me,
					 __ATOMIC_RELAXED);
			return 0;
		}
	}
	errno = EBUSY;
	return -EBUSY;
}

int kfifo__side_enter(struct kfifo *fifo, enum kfifo__side side)
{
	struct kfifo__side_words w = kfifo__side(fifo, side);
	enum kfifo__kind kind = kfifo__kind(fifo);
	unsigned int me;
	int r;

	if (!(fifo->flags & w.many)) {
		if (kind == KFIFO__ORDINARY)
			return 0;
		me = kfifo__self_pid();
		if (__atomic_load_n(w.claim, __ATOMIC_RELAXED) == me)
			return 0;
		return kfifo__claim(fifo, side, me);
	}
	me = kfifo__self_tid();
	if ((__atomic_load_n(w.lock, __ATOMIC_RELAXED) & KFIFO__LOCK_OWNER) ==
	    me) {
		*w.hold += 1; /* nested: ours already */
		return 0;
	}
	r = kfifo__lock_take(w.lock, me, kind);
	if (r != 0) {
		errno = -r;
		return r;
	}
	*w.hold = 1;
	if (kind == KFIFO__HANDLE) {
		/* other processes moved this side's index since our cache was
		 * made: make the body refresh it (kfifo_index.h) */
		if (side == KFIFO__IN_SIDE)
			fifo->kfifo__in_seen =
				~kfifo__load_relaxed(&kfifo__shm(fifo)->in);
		else
			fifo->kfifo__out_seen =
				~kfifo__load_relaxed(&kfifo__shm(fifo)->out);
	}
	return 0;
}

/*
 * E2 (kfifo_wake.h): a consumer of many that has taken and let go of the
 * side wakes one more exclusive sleeper if data remains.  After the lock
 * is given up, so that the one woken can take it; seq_cst loads, so that
 * a waiter counted before the publication this consumer's wait or take
 * followed is seen (its count was read by that publication's P2).
 */
static void kfifo__hand_on(struct kfifo *fifo)
{
	enum kfifo__kind kind = kfifo__kind(fifo);
	unsigned int w = __atomic_load_n(
		kfifo__waiters_word(fifo, kind, KFIFO__DATA_DIR),
		__ATOMIC_SEQ_CST);

	if (w < KFIFO__EXCL_ONE)
		return;
	if (__atomic_load_n(kfifo__in_word(fifo, kind), __ATOMIC_SEQ_CST) ==
	    __atomic_load_n(kfifo__out_word(fifo, kind), __ATOMIC_SEQ_CST))
		return;
	kfifo__futex_wake(fifo, kfifo__seq_word(fifo, kind, KFIFO__DATA_DIR),
			  0);
}

static void kfifo__side_release(struct kfifo *fifo, enum kfifo__side side,
				int hand_on)
{
	struct kfifo__side_words w = kfifo__side(fifo, side);

	if (!(fifo->flags & w.many) || *w.hold == 0)
		return;
	*w.hold -= 1;
	if (*w.hold == 0) {
		kfifo__lock_give(w.lock, kfifo__kind(fifo));
		if (hand_on && side == KFIFO__OUT_SIDE)
			kfifo__hand_on(fifo);
	}
}

void kfifo__side_leave(struct kfifo *fifo, enum kfifo__side side)
{
	kfifo__side_release(fifo, side, 1);
}

void kfifo__side_leave_quiet(struct kfifo *fifo, enum kfifo__side side)
{
	kfifo__side_release(fifo, side, 0);
}

void kfifo__side_keep(struct kfifo *fifo, enum kfifo__side side)
{
	struct kfifo__side_words w = kfifo__side(fifo, side);

	if ((fifo->flags & w.many) && !(*w.hold & KFIFO__HOLD_KEPT))
		*w.hold = (*w.hold + 1) | KFIFO__HOLD_KEPT;
}

void kfifo__side_finish(struct kfifo *fifo, enum kfifo__side side)
{
	struct kfifo__side_words w = kfifo__side(fifo, side);

	if ((fifo->flags & w.many) && (*w.hold & KFIFO__HOLD_KEPT))
		*w.hold = (*w.hold & ~KFIFO__HOLD_KEPT) - 1;
}

/* ---- the API ------------------------------------------------------------ */

int kfifo_set_mode(struct kfifo *fifo, unsigned int mode)
{
	if ((mode & ~KFIFO_MODE_MASK) != 0 ||
	    kfifo__kind(fifo) == KFIFO__HANDLE)
		return -EINVAL;
	fifo->flags = (fifo->flags & ~(KFIFO__MANY_IN | KFIFO__MANY_OUT)) |
		      (mode & KFIFO_MANY_PRODUCERS ? KFIFO__MANY_IN : 0u) |
		      (mode & KFIFO_MANY_CONSUMERS ? KFIFO__MANY_OUT : 0u);
	return 0;
}

unsigned int kfifo_mode(struct kfifo *fifo)
{
	return (fifo->flags & KFIFO__MANY_IN ? KFIFO_MANY_PRODUCERS : 0u) |
	       (fifo->flags & KFIFO__MANY_OUT ? KFIFO_MANY_CONSUMERS : 0u);
}

int kfifo_in_lock(struct kfifo *fifo)
{
	return kfifo__side_enter(fifo, KFIFO__IN_SIDE);
}

void kfifo_in_unlock(struct kfifo *fifo)
{
	kfifo__side_leave(fifo, KFIFO__IN_SIDE);
}

int kfifo_out_lock(struct kfifo *fifo)
{
	return kfifo__side_enter(fifo, KFIFO__OUT_SIDE);
}

void kfifo_out_unlock(struct kfifo *fifo)
{
	kfifo__side_leave(fifo, KFIFO__OUT_SIDE);
}

void kfifo_shared_detach(struct kfifo *fifo)
{
	struct kfifo__shm *shm;
	unsigned int me, cur;

	if (kfifo__kind(fifo) != KFIFO__HANDLE)
		return;
	shm = kfifo__shm(fifo);
	me = kfifo__self_pid();
	if (__atomic_load_n(&fifo->kfifo__in_claim, __ATOMIC_RELAXED) == me) {
		cur = me;
		__atomic_compare_exchange_n(&shm->in_claim, &cur, 0, 0,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
	}
	if (__atomic_load_n(&fifo->kfifo__out_claim, __ATOMIC_RELAXED) == me) {
		cur = me;
		__atomic_compare_exchange_n(&shm->out_claim, &cur, 0, 0,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&fifo->kfifo__in_claim, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&fifo->kfifo__out_claim, 0, __ATOMIC_RELAXED);
}
