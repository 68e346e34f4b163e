/* SPDX-License-Identifier: MIT */
/*
 * kfpy_threads.c - the thread and GIL protocol of a fifo: who may call
 * the C core when, with or without the GIL, and what a fork() child resets.
 *
 * ---- Threads: the side flags -----------------------------------------------
 *
 * The C core is safe for one producer and one consumer.  Python code can
 * call from any number of threads, so each side (producer, consumer) of a
 * fifo has a busy flag, and every call of a side runs only while the flag
 * of its side is clear:
 *
 *   - Calls that never release the GIL (the common, small case) just check
 *     that the side is idle.  Holding the GIL, nobody else can start or be
 *     half-way through a call that holds the GIL, so the check is enough and
 *     costs no atomic instruction.
 *   - A call that releases the GIL (a copy of at least KFPY_GIL_THRESHOLD
 *     bytes, or a wait for the user's SpinLock) first claims its side: sets
 *     the flag and takes the side's gate lock, both under the GIL; it gives
 *     them back after it has the GIL again (kf_run).
 *   - A call that finds its side busy takes a ticket, releases the GIL,
 *     blocks on the gate (and lets it go at once), takes the GIL back and
 *     checks again; tickets let waiters in in order, so a thread that calls
 *     again and again starves nobody, free() included.
 *
 * The flags and tickets are read and written only under the GIL: that is
 * the lock.  reset() and free() wait for both sides.  A call never waits for
 * a gate while holding the GIL, and a gate holder needs nothing but the GIL,
 * so nothing can deadlock.  This relies on the GIL: free-threaded CPython is
 * refused at compile time.  Lock order: producer side, consumer side, then
 * the user's SpinLock (taken inside kfifo_in_locked/kfifo_out_locked only).
 *
 * What that buys: two unlocked producers (or consumers) are serialised
 * instead of corrupting the indices; free() waits for calls in flight and
 * every later call raises ValueError; in - out never exceeds the size.
 *
 * ---- fork() ------------------------------------------------------------------
 *
 * All of the above counts threads of this process: busy flags, tickets,
 * gates and the waiters free() lets leave.  A fork() child has only the
 * thread that forked, so what the parent's other threads held is never
 * given back there.  A pthread_atfork() handler bumps kfpy_fork_gen in the
 * child; a fifo whose fork_gen differs resets that state the first time
 * the child touches it (kfpy_arg_self, tp_clear), before anything waits
 * on it.  The fifo's data and indices are left as they are: the C core
 * keeps them consistent at every instant a copy can be interrupted.
 */
#include "kfpy_internal.h"

#include <sched.h>
#include <stdint.h>
#include <time.h>

/* ---- side flags ---------------------------------------------------------------- */

/*
 * Wait, without the GIL, for our turn on side @s: the side idle and every
 * earlier waiter gone in.  GIL held on entry and exit; nothing but @s's
 * fields is touched without it.
 */
void kf_side_wait_turn(kf_side *s)
{
	unsigned long ticket = s->next_ticket++;

	while (s->busy || s->serving != ticket) {
		PyThread_type_lock gate = s->gate;
		int busy = s->busy;

		Py_BEGIN_ALLOW_THREADS
		if (busy) {
			/* the holder has the gate until it gives the side back */
			PyThread_acquire_lock(gate, WAIT_LOCK);
			PyThread_release_lock(gate);
		} else {
			/* an earlier waiter is about to go in: let it run */
			sched_yield();
		}
		Py_END_ALLOW_THREADS
	}
	s->serving++;
}

/* Claim side @s for a call that will release the GIL.  GIL held, entered. */
void kf_side_claim(kf_side *s)
{
	s->busy = 1;
	/* Only a waiter between its acquire and release can hold the gate. */
	if (!PyThread_acquire_lock(s->gate, NOWAIT_LOCK)) {
		Py_BEGIN_ALLOW_THREADS
		PyThread_acquire_lock(s->gate, WAIT_LOCK);
		Py_END_ALLOW_THREADS
	}
}

/* Give side @s back.  GIL held. */
void kf_side_release(kf_side *s)
{
	s->busy = 0;
	PyThread_release_lock(s->gate);
}

/*
 * Have the whole fifo (reset, free): the producer side is claimed first, so
 * no producer gets in while we wait for the consumer side (lock order:
 * producer, then consumer).  Give it back with kf_side_release(&st->prod).
 * The caller checked that we are not exiting with a side in flight.
 */
void kf_enter_both(kf_state *st)
{
	kf_side_enter(&st->prod);
	kf_side_claim(&st->prod);
	kf_side_enter(&st->cons);
}

int kf_exiting_in_flight(const kf_state *st)
{
	return kf_finalizing() &&
	       (kf_side_in_flight(&st->prod) || kf_side_in_flight(&st->cons) ||
		st->waiters > 0);
}

/* ---- one call of the C core ------------------------------------------------------ */

unsigned int kf_do(struct kfifo *f, struct kf_call *c)
{
	switch (c->op) {
	case KF_IN:
		return kfifo_in(f, c->from, c->n);
	case KF_FROM_USER:
		return kfifo_from_user(f, c->from, c->n);
	case KF_IN_REC:
		return kfifo_in_rec(f, c->from, c->n, c->recsize);
	case KF_FROM_USER_REC:
		return kfifo_from_user_rec(f, c->from, c->n, c->recsize);
	case KF_IN_LOCKED:
		return kfifo_in_locked(f, c->from, c->n, c->lock);
	case KF_OUT:
		return kfifo_out(f, c->to, c->n);
	case KF_TO_USER:
		return kfifo_to_user(f, c->to, c->n);
	case KF_OUT_LOCKED:
		return kfifo_out_locked(f, c->to, c->n, c->lock);
	case KF_OUT_REC:
		return kfifo_out_rec(f, c->to, c->n, c->recsize, &c->total);
	case KF_TO_USER_REC:
		return kfifo_to_user_rec(f, c->to, c->n, c->recsize, &c->total);
	}
	return 0;
}

/*
 * Run @c on side @s (entered), releasing the GIL around it when @nogil.
 * The exports held by the call's arguments keep @from and @to alive and
 * sized while the GIL is released.
 */
unsigned int kf_run(kf_state *st, kf_side *s, struct kf_call *c,
			   int nogil)
{
	PyThreadState *ts;
	unsigned int r;

	if (!nogil)
		return kf_do(&st->fifo, c);
	kf_side_claim(s);
	ts = kf_gil_release();
	r = kf_do(&st->fifo, c);
	kf_gil_take(ts);
	kf_side_release(s);
	return r;
}

/* ---- taking the GIL back after a copy ------------------------------------------------ */

/*
 * Two threads streaming big chunks (one putting, one getting) each spend
 * most of a call copying without the GIL and a short stretch holding it
 * (their Python loop, the next call's arguments: about a microsecond).  A
 * copy often ends while the other thread is in its stretch, or is taking
 * the GIL itself (the end of a copy is what wakes the other side's wait).
 * CPython's take_gil() then sleeps on a condition variable (a futex; its
 * mutex too sleeps when contended) and the holder wakes it when it lets
 * go, a microsecond later; but the wake and the schedule of the sleeper
 * take tens of microseconds on a virtual machine (several 64 KiB copies),
 * and the sleeper's CPU idles meanwhile.  Measured (two threads pinned to
 * two CPUs, put / get_into of 64 KiB through a 1 MiB fifo, CPython 3.11,
 * 2 vCPUs): most context switches of the run were in take_gil() called
 * from here (perf, sched_switch), and the process had 1.4 CPUs of 2.
 *
 * So a thread that has copied waits for the GIL by spinning, for a
 * bounded time, while the GIL is known to be with a kfifo call that will
 * soon give it back: kf_gil_mark names (by its thread state, never
 * dereferenced) the thread that is taking or holding the GIL through
 * kf_gil_take() and has not let go of it through kf_gil_release() since.
 * A thread marks itself before it calls PyEval_RestoreThread() (only over
 * no mark: a compare and exchange), so that the other thread, finishing
 * its copy meanwhile, spins instead of sleeping; the holder clears its own
 * mark (never another's) after it has let go of the GIL, so that the
 * spinner finds the GIL free and takes it without sleeping on the
 * condition variable or on its mutex.
 *
 * Why this is harmless: the mark is only a hint (relaxed atomics, nothing
 * is published through it; a stale or lost mark costs a spin or a sleep,
 * never a wrong result).  The spin is bounded by KF_GIL_SPIN_NS; a spin
 * that runs out (the mark's thread went on with other Python code, or let
 * go of the GIL some other way: time.sleep(), I/O, the switch interval,
 * its end) halves the next bound, down to KF_GIL_SPIN_NS >>
 * KF_GIL_SPIN_MAX_SHIFT, and one that ends because the mark went away
 * restores it: threads that do not stream pay at most a microsecond or
 * two per big copy.  A thread holding the GIL without a mark (any other
 * Python code) is waited for as before, asleep.  The spinner holds no
 * lock and not the GIL, so it cannot delay the holder, and it spins on a
 * CPU the holder is not using (the holder is running).  A fork() child
 * starts with no mark (kf_atfork_child).  Interpreters with a GIL each
 * (CPython 3.12+) share the one mark: a thread of another interpreter's
 * costs a bounded spin, as a stale mark does.  Measured where spinning
 * cannot help (both threads pinned to one CPU): no change (20.5 -> 20.7
 * GB/s blocking, 8.8 -> 8.7 polling, 7 paired runs).
 */
#define KF_GIL_SPIN_NS 20000LL
#define KF_GIL_SPIN_MAX_SHIFT 4

/* the thread state of the mark's holder, or 0 (relaxed atomics only) */
static uintptr_t kf_gil_mark;
/* the bound's shift (written under the GIL, read without it: atomics) */
static unsigned int kf_gil_spin_shift;

/* one pause of a spin loop, as the core's kfifo__cpu_relax() (private to it) */
static inline void kf_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
#endif
}

static long long kf_gil_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Let go of the GIL (held) for a copy; the thread state to take it back. */
PyThreadState *kf_gil_release(void)
{
	PyThreadState *ts = PyEval_SaveThread();
	uintptr_t mine = (uintptr_t)ts;

	__atomic_compare_exchange_n(&kf_gil_mark, &mine, 0, 0,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	return ts;
}

/* Take the GIL back after a copy (see above). */
void kf_gil_take(PyThreadState *ts)
{
	uintptr_t me = (uintptr_t)ts, m;
	long long start = 0, limit = 0;
	unsigned int i = 0;
	int spun = 0, ran_out = 0;

	/*
	 * Mark ourselves as the next holder before taking the GIL (over no
	 * mark, or our own), so that a thread that finishes its copy while
	 * we are inside take_gil() spins too instead of sleeping.  Another
	 * thread's mark: it has the GIL or is taking it; wait for it to let
	 * go, within the bound.
	 */
	for (;;) {
		m = __atomic_load_n(&kf_gil_mark, __ATOMIC_RELAXED);
		if (m == me)
			break;
		if (m == 0) {
			if (__atomic_compare_exchange_n(&kf_gil_mark, &m, me, 0,
							__ATOMIC_RELAXED,
							__ATOMIC_RELAXED))
				break;
			continue; /* another thread marked first */
		}
		if (!spun) {
			spun = 1;
			limit = KF_GIL_SPIN_NS >>
				__atomic_load_n(&kf_gil_spin_shift, __ATOMIC_RELAXED);
			start = kf_gil_now();
		}
		kf_pause();
		/* the clock costs more than a pause: every 16th */
		if ((++i & 15) == 0 && kf_gil_now() - start > limit) {
			ran_out = 1;
			break;
		}
	}
	PyEval_RestoreThread(ts);
	if (spun) {
		/* atomics even under the GIL: with a GIL per interpreter
		 * (3.12+) two threads may update the bound at once */
		unsigned int shift = __atomic_load_n(&kf_gil_spin_shift,
						     __ATOMIC_RELAXED);

		if (ran_out && shift < KF_GIL_SPIN_MAX_SHIFT)
			__atomic_store_n(&kf_gil_spin_shift, shift + 1,
					 __ATOMIC_RELAXED);
		else if (!ran_out && shift != 0)
			__atomic_store_n(&kf_gil_spin_shift, 0, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&kf_gil_mark, me, __ATOMIC_RELAXED);
}

/* ---- fork ---------------------------------------------------------------------------- */

unsigned long kfpy_fork_gen;

void kf_atfork_child(void)
{
	kfpy_fork_gen++;
	/* the mark may name a thread of the parent: none holds the GIL here */
	__atomic_store_n(&kf_gil_mark, 0, __ATOMIC_RELAXED);
}

/*
 * In a fork child only the forking thread exists: a side claimed by
 * another thread of the parent (a copy without the GIL), its queue of
 * tickets and the threads counted as waiters are gone, and a gate lock
 * may be held by one of them.  Start this process's state afresh; the
 * fifo's data and indices are untouched.
 */
static void kf_side_after_fork(kf_side *s)
{
	PyThread_type_lock gate = PyThread_allocate_lock();

	s->busy = 0;
	s->next_ticket = s->serving = 0;
	if (gate != NULL) {
		/* the old one may be held by a thread that is not here: it
		 * is left, a few bytes once per fork */
		s->gate = gate;
	}
}

void kf_after_fork(kfpy_kfifo *k)
{
	if (k->st != NULL) {
		kf_side_after_fork(&k->st->prod);
		kf_side_after_fork(&k->st->cons);
		k->st->waiters = 0;
		/* another process: its claims are to make again */
		if (!k->freed)
			kf_set_claims(k);
	}
	k->fork_gen = kfpy_fork_gen;
}

