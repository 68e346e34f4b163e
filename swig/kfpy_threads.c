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
	unsigned int r;

	if (!nogil)
		return kf_do(&st->fifo, c);
	kf_side_claim(s);
	Py_BEGIN_ALLOW_THREADS
	r = kf_do(&st->fifo, c);
	Py_END_ALLOW_THREADS
	kf_side_release(s);
	return r;
}

/* ---- fork ---------------------------------------------------------------------------- */

unsigned long kfpy_fork_gen;

void kf_atfork_child(void)
{
	kfpy_fork_gen++;
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
	}
	k->fork_gen = kfpy_fork_gen;
}

