/* SPDX-License-Identifier: MIT */
/*
 * kfifo_py.c - the types kfifo.Kfifo and kfifo.SpinLock (see kfifo_py.h).
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
 * ---- Memory the C core writes ----------------------------------------------
 *
 * Rule: the capacity passed to the C core is the size of memory this file
 * owns for that call, never a number derived from a second read of the
 * fifo.  The data of a Kfifo(buffer=obj) fifo can be rewritten at any time
 * by code that does not hold the GIL (a second fifo over the same object,
 * numpy.copyto), so a record header read twice may differ: out_rec() reads
 * it only inside the C call that copies, with its own buffer's size.
 *
 * ---- Interpreter exit --------------------------------------------------------
 *
 * At finalisation daemon threads stop for ever the moment they ask for the
 * GIL, so a side they hold (or queue for) is never given back.  A call that
 * would wait for such a side then raises instead of hanging, and free() or
 * the destructor leave the fifo's memory (and the exported buffer=) alone:
 * a daemon thread may still be copying into it without the GIL.  That
 * memory is leaked, once, at exit.
 */
#include "kfifo_py.h"

#include <limits.h>
#include <stdint.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pythread.h"

#if defined(Py_GIL_DISABLED)
#error "kfifo._kfifo serialises threads with the GIL; free-threaded CPython is not supported"
#endif

#if PY_VERSION_HEX >= 0x030D0000
#define kf_finalizing() Py_IsFinalizing()
#else
#define kf_finalizing() _Py_IsFinalizing()
#endif

/* out(n) of at most this many bytes goes through a stack buffer */
#define KF_SMALL_OUT 256u

/* All fields but the gate are read and written only under the GIL. */
typedef struct {
	int busy;                  /* a call of this side runs without the GIL */
	unsigned long next_ticket; /* waiters take tickets ... */
	unsigned long serving;     /* ... and go in in order */
	PyThread_type_lock gate;   /* held by the busy call; waiters block on it */
} kf_side;

/*
 * What a thread without the GIL may touch.  Allocated apart from the Python
 * object (and cache-line aligned, for the indices of struct kfifo), so that
 * at interpreter exit it can be left to a daemon thread still using it.
 */
typedef struct kfpy_state {
	struct kfifo fifo;
	kf_side prod;
	kf_side cons;
	unsigned long waiters;   /* threads inside a kfifo_wait_* (GIL-protected) */
} kf_state;

struct kfpy_spinlock {
	PyObject_HEAD
	kfifo_spinlock_t lock;
};

static PyTypeObject kfpy_SpinLockType;
static PyTypeObject kf_RegionType;

/* ---- errors ------------------------------------------------------------------ */

static PyObject *kf_freed_error(const char *method)
{
	PyErr_Format(PyExc_ValueError, "Kfifo.%s(): operation on a freed Kfifo",
		     method);
	return NULL;
}

static PyObject *kf_exiting_error(const char *method)
{
	PyErr_Format(PyExc_RuntimeError,
		     "Kfifo.%s(): the interpreter is exiting while another "
		     "thread is inside a call on this fifo", method);
	return NULL;
}

/*
 * The exception set now, kept aside while cleanup code runs: the 3.12
 * API (one object) where there is one, the three-part one before.
 */
typedef struct {
#if PY_VERSION_HEX >= 0x030C0000
	PyObject *exc;
#else
	PyObject *type, *value, *tb;
#endif
} kf_exc_saved;

static void kf_exc_save(kf_exc_saved *s)
{
#if PY_VERSION_HEX >= 0x030C0000
	s->exc = PyErr_GetRaisedException();
#else
	PyErr_Fetch(&s->type, &s->value, &s->tb);
#endif
}

static void kf_exc_restore(kf_exc_saved *s)
{
#if PY_VERSION_HEX >= 0x030C0000
	PyErr_SetRaisedException(s->exc);
#else
	PyErr_Restore(s->type, s->value, s->tb);
#endif
}

/*
 * Replace the exception set now by a new one of type @type whose
 * message is the old one's, the old one as its __cause__ (PEP 3134).
 */
static void kf_exc_reraise_as(PyObject *type)
{
	PyObject *cause, *exc;
#if PY_VERSION_HEX >= 0x030C0000
	cause = PyErr_GetRaisedException();
#else
	PyObject *t, *tb;

	PyErr_Fetch(&t, &cause, &tb);
	PyErr_NormalizeException(&t, &cause, &tb);
	if (tb != NULL)
		PyException_SetTraceback(cause, tb);
	Py_XDECREF(t);
	Py_XDECREF(tb);
#endif
	if (cause == NULL)
		return;
	exc = PyObject_CallFunction(type, "N", PyObject_Str(cause));
	if (exc == NULL) {
		Py_DECREF(cause);
		return;
	}
	PyException_SetCause(exc, cause); /* steals cause */
	PyErr_SetObject(type, exc);
	Py_DECREF(exc);
}

/* ---- side flags ---------------------------------------------------------------- */

/* A call of side @s is running without the GIL, or waiting for its turn. */
static int kf_side_in_flight(const kf_side *s)
{
	return s->busy || s->serving != s->next_ticket;
}

/*
 * Wait, without the GIL, for our turn on side @s: the side idle and every
 * earlier waiter gone in.  GIL held on entry and exit; nothing but @s's
 * fields is touched without it.
 */
static void kf_side_wait_turn(kf_side *s)
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

/*
 * Enter side @s: at once if it is idle and nobody waits, else in turn.
 * At exit a side in flight belongs to a daemon thread that will never
 * give it back: -1 then, without waiting.
 */
static inline int kf_side_enter(kf_side *s)
{
	if (kf_side_in_flight(s)) {
		if (kf_finalizing())
			return -1;
		kf_side_wait_turn(s);
	}
	return 0;
}

/* Claim side @s for a call that will release the GIL.  GIL held, entered. */
static void kf_side_claim(kf_side *s)
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
static void kf_side_release(kf_side *s)
{
	s->busy = 0;
	PyThread_release_lock(s->gate);
}

/* Refuse a freed fifo, enter side @s, and refuse it again (free() may have
 * run while we waited). */
static inline int kf_enter(kfpy_kfifo *k, kf_side *s, const char *method)
{
	if (k->freed) {
		kf_freed_error(method);
		return -1;
	}
	if (kf_side_enter(s) < 0) {
		kf_exiting_error(method);
		return -1;
	}
	if (k->freed) {
		kf_freed_error(method);
		return -1;
	}
	return 0;
}

/*
 * Have the whole fifo (reset, free): the producer side is claimed first, so
 * no producer gets in while we wait for the consumer side (lock order:
 * producer, then consumer).  Give it back with kf_side_release(&st->prod).
 * The caller checked that we are not exiting with a side in flight.
 */
static void kf_enter_both(kf_state *st)
{
	kf_side_enter(&st->prod);
	kf_side_claim(&st->prod);
	kf_side_enter(&st->cons);
}

static int kf_exiting_in_flight(const kf_state *st)
{
	return kf_finalizing() &&
	       (kf_side_in_flight(&st->prod) || kf_side_in_flight(&st->cons) ||
		st->waiters > 0);
}

/* ---- one call of the C core ------------------------------------------------------ */

enum kf_op {
	KF_IN, KF_FROM_USER, KF_IN_REC, KF_FROM_USER_REC, KF_IN_LOCKED,
	KF_OUT, KF_TO_USER, KF_OUT_LOCKED, KF_OUT_REC, KF_TO_USER_REC,
};

/* The arguments of one C call; @n is always the size of @from or @to. */
struct kf_call {
	enum kf_op op;
	const void *from;
	void *to;
	unsigned int n;
	unsigned int recsize;
	unsigned int total;
	kfifo_spinlock_t *lock;
};

static unsigned int kf_do(struct kfifo *f, struct kf_call *c)
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
static unsigned int kf_run(kf_state *st, kf_side *s, struct kf_call *c,
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

/* The user's SpinLock looks free (a hint: it only chooses the path). */
static inline int kf_spin_free(const kfifo_spinlock_t *l)
{
	return !__atomic_load_n(&l->locked, __ATOMIC_RELAXED);
}

/*
 * With the GIL held we may only wait for a SpinLock briefly: its holder is
 * inside kfifo_*_locked, which never needs the GIL, but it may be copying a
 * lot.  A busy lock or a big copy: wait and copy without the GIL.
 */
static inline int kf_nogil(unsigned int copy, const kfifo_spinlock_t *lock)
{
	return copy >= KFPY_GIL_THRESHOLD || (lock != NULL && !kf_spin_free(lock));
}

/* ---- fork ---------------------------------------------------------------------------- */

unsigned long kfpy_fork_gen;

static void kf_atfork_child(void)
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

static void kf_after_fork(kfpy_kfifo *k)
{
	if (k->st != NULL) {
		kf_side_after_fork(&k->st->prod);
		kf_side_after_fork(&k->st->cons);
		k->st->waiters = 0;
	}
	k->fork_gen = kfpy_fork_gen;
}

static inline void kf_check_fork(kfpy_kfifo *k)
{
	if (k->fork_gen != kfpy_fork_gen)
		kf_after_fork(k);
}

/* ---- argument conversion ------------------------------------------------------------ */

int kfpy_arg_self_slow(PyObject *self, const char *method, kfpy_kfifo **out)
{
	kfpy_kfifo *k;

	if (!PyObject_TypeCheck(self, &kfpy_KfifoType)) {
		PyErr_Format(PyExc_TypeError,
			     "Kfifo.%s() needs a kfifo.Kfifo, not %.100s",
			     method, Py_TYPE(self)->tp_name);
		return -1;
	}
	k = (kfpy_kfifo *)self;
	kf_check_fork(k);
	if (k->st == NULL && !k->freed) {
		PyErr_Format(PyExc_ValueError,
			     "Kfifo.%s(): the Kfifo is not initialised "
			     "(made by __new__ without __init__)", method);
		return -1;
	}
	*out = k;
	return 0;
}

/* An integer (int, bool, numpy integers: anything with __index__ that is
 * not a float) as a long long; *overflow as PyLong_AsLongLongAndOverflow. */
static int kf_index(PyObject *o, const char *method, const char *name,
		    long long *v, int *overflow)
{
	PyObject *i;

	if (!PyLong_Check(o) && (!PyIndex_Check(o) || PyFloat_Check(o))) {
		PyErr_Format(PyExc_TypeError,
			     "Kfifo.%s(): %s must be an integer, not %.100s",
			     method, name, Py_TYPE(o)->tp_name);
		return -1;
	}
	i = PyNumber_Index(o);
	if (i == NULL)
		return -1;
	*v = PyLong_AsLongLongAndOverflow(i, overflow);
	Py_DECREF(i);
	if (*v == -1 && PyErr_Occurred())
		return -1;
	return 0;
}

int kfpy_arg_count_slow(PyObject *o, const char *method, const char *name,
			unsigned int *out)
{
	long long v;
	int overflow;

	if (kf_index(o, method, name, &v, &overflow) < 0)
		return -1;
	if (overflow < 0 || (overflow == 0 && v < 0)) {
		PyErr_Format(PyExc_ValueError,
			     "Kfifo.%s(): %s must not be negative, got %R",
			     method, name, o);
		return -1;
	}
	if (overflow > 0 || v > (long long)UINT_MAX) {
		PyErr_Format(PyExc_OverflowError,
			     "Kfifo.%s(): %s must be less than 2**32, got %R",
			     method, name, o);
		return -1;
	}
	*out = (unsigned int)v;
	return 0;
}

int kfpy_arg_recsize(PyObject *o, const char *method, unsigned int *out)
{
	long long v;
	int overflow;

	if (kf_index(o, method, "recsize", &v, &overflow) < 0)
		return -1;
	if (overflow || v < 0 || v > 2) {
		PyErr_Format(PyExc_ValueError,
			     "Kfifo.%s(): recsize must be 0, 1 or 2, got %R",
			     method, o);
		return -1;
	}
	*out = (unsigned int)v;
	return 0;
}

/* A buffer longer than 2**32 - 1 bytes is offered as 2**32 - 1 bytes: no
 * fifo can take more, and no fifo holds more. */
static inline unsigned int kf_clamp(Py_ssize_t len)
{
	return (size_t)len > UINT_MAX ? UINT_MAX : (unsigned int)len;
}

/* Turn a failed PyObject_GetBuffer into the error 2.1 promises. */
static void kf_buffer_error(PyObject *o, const char *method, const char *name,
			    int writable)
{
	Py_buffer v;

	if (!PyObject_CheckBuffer(o)) {
		PyErr_Clear();
		PyErr_Format(PyExc_TypeError,
			     "Kfifo.%s(): %s must be a %sbytes-like object, not "
			     "%.100s", method, name, writable ? "writable " : "",
			     Py_TYPE(o)->tp_name);
		return;
	}
	if (PyObject_GetBuffer(o, &v, PyBUF_FULL_RO) < 0)
		return;	/* the exporter's own error says it best */
	PyErr_Clear();
	if (writable && v.readonly)
		PyErr_Format(PyExc_TypeError,
			     "Kfifo.%s(): %s must be a writable bytes-like "
			     "object, not a read-only %.100s", method, name,
			     Py_TYPE(o)->tp_name);
	else
		PyErr_Format(PyExc_TypeError,
			     "Kfifo.%s(): %s must be a C-contiguous buffer; this "
			     "%.100s is not contiguous (copy it first, e.g. "
			     "bytes(x) or numpy.ascontiguousarray(x))", method,
			     name, Py_TYPE(o)->tp_name);
	PyBuffer_Release(&v);
}

/* kfpy_arg_data() beyond its inline case: a bytes object too long for a
 * count (offered as 2**32 - 1 bytes), or any other exporter. */
int kfpy_arg_data_slow(PyObject *o, const char *method, Py_buffer *view,
		       int *got, const void **buf, unsigned int *n)
{
	if (PyBytes_CheckExact(o)) {
		*buf = PyBytes_AS_STRING(o);
		*n = kf_clamp(PyBytes_GET_SIZE(o));
		return 0;
	}
	if (PyObject_GetBuffer(o, view, PyBUF_SIMPLE) < 0) {
		kf_buffer_error(o, method, "data", 0);
		return -1;
	}
	*got = 1;
	*buf = view->buf;
	*n = kf_clamp(view->len);
	return 0;
}

int kfpy_arg_data_len(PyObject *o, const char *method, Py_buffer *view,
		      int *got, const void **buf, Py_ssize_t *n)
{
	if (PyBytes_CheckExact(o)) {
		*buf = PyBytes_AS_STRING(o);
		*n = PyBytes_GET_SIZE(o);
		return 0;
	}
	if (PyObject_GetBuffer(o, view, PyBUF_SIMPLE) < 0) {
		kf_buffer_error(o, method, "data", 0);
		return -1;
	}
	*got = 1;
	*buf = view->buf;
	*n = view->len;
	return 0;
}

int kfpy_arg_writable(PyObject *o, const char *method, Py_buffer *view,
		      const char *name, void **buf, unsigned int *n)
{
	if (PyObject_GetBuffer(o, view, PyBUF_WRITABLE) < 0) {
		kf_buffer_error(o, method, name, 1);
		return -1;
	}
	*buf = view->buf;
	*n = kf_clamp(view->len);
	return 0;
}

int kfpy_arg_lock(PyObject *o, const char *method, kfpy_spinlock **out)
{
	if (!PyObject_TypeCheck(o, &kfpy_SpinLockType)) {
		PyErr_Format(PyExc_TypeError,
			     "Kfifo.%s(): lock must be a kfifo.SpinLock, not "
			     "%.100s", method, Py_TYPE(o)->tp_name);
		return -1;
	}
	*out = (kfpy_spinlock *)o;
	return 0;
}

/* ---- construction and destruction ---------------------------------------------------- */

static kf_state *kf_state_new(void)
{
	void *mem = NULL;
	kf_state *st;

	if (posix_memalign(&mem, 64, sizeof(kf_state)) != 0) {
		PyErr_NoMemory();
		return NULL;
	}
	st = mem;
	memset(st, 0, sizeof(*st));
	st->prod.gate = PyThread_allocate_lock();
	st->cons.gate = PyThread_allocate_lock();
	if (st->prod.gate == NULL || st->cons.gate == NULL) {
		if (st->prod.gate)
			PyThread_free_lock(st->prod.gate);
		if (st->cons.gate)
			PyThread_free_lock(st->cons.gate);
		free(st);
		PyErr_NoMemory();
		return NULL;
	}
	return st;
}

/* Nobody may be in flight on @st: its memory goes away. */
static void kf_state_delete(kf_state *st)
{
	PyThread_free_lock(st->prod.gate);
	PyThread_free_lock(st->cons.gate);
	free(st);
}

/*
 * Free the fifo's buffer and hand back the Py_buffer of Kfifo(buffer=obj)
 * in *view (to be released by the caller, last: the exporter's release may
 * run code that uses this fifo).  No call in flight.  Returns whether
 * *view must be released.
 */
static int kf_release_memory(kfpy_kfifo *k, Py_buffer *view)
{
	int has_view = k->has_view;

	k->freed = 1;
	kfifo_free(&k->st->fifo);
	if (has_view)
		*view = k->view;
	k->has_view = 0;
	return has_view;
}

/*
 * Shared fifos (API.md 3.4): the block is a Python object of kfifo._shm
 * (multiprocessing.shared_memory underneath), which knows the block's
 * name, unlinks what this process created and keeps multiprocessing's
 * resource tracker informed.  The fifo maps it through k->view, a buffer
 * export of block.buf, like any Kfifo(buffer=obj).
 */
static PyObject *kf_shm_call(const char *fn, PyObject *args)
{
	PyObject *mod = PyImport_ImportModule("kfifo._shm"), *f, *r;

	if (mod == NULL)
		return NULL;
	f = PyObject_GetAttrString(mod, fn);
	Py_DECREF(mod);
	if (f == NULL)
		return NULL;
	r = PyObject_CallObject(f, args);
	Py_DECREF(f);
	return r;
}

/*
 * block.close(): kfifo._shm unmaps the block and, in the process that
 * created it, unlinks its name; the C side only hands the mapping back,
 * after its own view of it was released.  Steals @block.  0, or -1 with
 * an exception.  At exit the block is only let go: the process's end
 * unmaps it, and kfifo._shm unlinks its own blocks at exit by itself.
 */
static int kf_drop_block(PyObject *block)
{
	PyObject *r;

	if (block == NULL)
		return 0;
	if (kf_finalizing()) {
		Py_DECREF(block);
		return 0;
	}
	r = PyObject_CallMethod(block, "close", NULL);
	Py_DECREF(block);
	if (r == NULL)
		return -1;
	Py_DECREF(r);
	return 0;
}

/* kf_drop_block() on a path that may have an exception set (a failed
 * constructor, dealloc): the exception stays, a failure here is reported
 * as unraisable (not with the object, which may be dying). */
static void kf_drop_block_quietly(PyObject *block)
{
	kf_exc_saved saved;

	if (block == NULL)
		return;
	kf_exc_save(&saved);
	if (kf_drop_block(block) < 0)
		PyErr_WriteUnraisable(NULL);
	kf_exc_restore(&saved);
}

/* Take the block out of @k: the caller drops it once the view is released. */
static PyObject *kf_take_block(kfpy_kfifo *k)
{
	PyObject *block = k->block;

	k->block = NULL;
	return block;
}

/* Take @k's block (if any) and drop it quietly (constructor failure, GC). */
static void kf_drop_own_block_quietly(kfpy_kfifo *k)
{
	kf_drop_block_quietly(kf_take_block(k));
}

/*
 * At exit with a daemon thread in flight: leave the state and the buffer
 * export to it, for ever (see the top of the file).
 */
static void kf_abandon(kfpy_kfifo *k)
{
	k->freed = 1;
	k->st = NULL;
	k->has_view = 0;
}

/* size: 1 .. 2**31, or a ValueError naming it */
static int kf_size_arg(PyObject *size, unsigned int *out)
{
	long long v;
	int overflow;

	if (kf_index(size, "__init__", "size", &v, &overflow) < 0)
		return -1;
	if (overflow || v <= 0 || v > (1LL << 31)) {
		PyErr_Format(PyExc_ValueError,
			     "Kfifo(): size must be between 1 and 2**31, got %R",
			     size);
		return -1;
	}
	*out = (unsigned int)v;
	return 0;
}

/* start: any integer, taken modulo 2**32 */
static int kf_start_arg(PyObject *start, unsigned int *out)
{
	PyObject *i, *mask, *r;

	if (!PyLong_Check(start) && (!PyIndex_Check(start) || PyFloat_Check(start))) {
		PyErr_Format(PyExc_TypeError,
			     "Kfifo(): start must be an integer, not %.100s",
			     Py_TYPE(start)->tp_name);
		return -1;
	}
	i = PyNumber_Index(start);
	if (i == NULL)
		return -1;
	mask = PyLong_FromUnsignedLong(UINT_MAX);
	r = mask ? PyNumber_And(i, mask) : NULL;
	Py_DECREF(i);
	Py_XDECREF(mask);
	if (r == NULL)
		return -1;
	*out = (unsigned int)PyLong_AsUnsignedLong(r);
	Py_DECREF(r);
	return PyErr_Occurred() ? -1 : 0;
}

/* kfifo_init over the writable buffer @buffer, exported into k->view. */
static int kf_init_buffer(kfpy_kfifo *k, PyObject *buffer)
{
	void *buf;
	unsigned int n;

	if (kfpy_arg_writable(buffer, "__init__", &k->view, "buffer", &buf,
			      &n) < 0) {
		if (PyErr_ExceptionMatches(PyExc_TypeError) &&
		    PyObject_CheckBuffer(buffer)) {
			/* a buffer, but not one we can use */
			kf_exc_reraise_as(PyExc_ValueError);
		}
		return -1;
	}
	k->has_view = 1;
	if (k->view.len > (Py_ssize_t)1 << 31 ||
	    kfifo_init(&k->st->fifo, buf, n) != 0) {
		PyErr_Format(PyExc_ValueError,
			     "Kfifo(): buffer length must be a power of two "
			     "between 1 and 2**31, got %zd", k->view.len);
		return -1;
	}
	return 0;
}

/*
 * Map @block (a kfifo._shm block, stolen) into @k, whose state exists, and
 * lay a new fifo of @size out in it (@create) or attach to the one there.
 * On failure the block stays in @k, to be dropped with it.
 */
static int kf_init_block(kfpy_kfifo *k, PyObject *block, int create,
			 unsigned int size)
{
	PyObject *buf;
	int ret;

	k->block = block;
	buf = PyObject_GetAttrString(block, "buf");
	if (buf == NULL)
		return -1;
	ret = PyObject_GetBuffer(buf, &k->view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS);
	Py_DECREF(buf);
	if (ret < 0)
		return -1;
	k->has_view = 1;
	ret = create ? kfifo_shared_create(&k->st->fifo, k->view.buf,
					   (size_t)k->view.len, size)
		     : kfifo_shared_attach(&k->st->fifo, k->view.buf,
					   (size_t)k->view.len);
	if (ret != 0) {
		PyObject *name = PyObject_GetAttrString(block, "name");

		PyErr_Format(PyExc_ValueError,
			     create ? "Kfifo(): the shared memory block %R is too "
				      "small for a fifo of %u bytes"
				    : "Kfifo.attach(): the shared memory block %R "
				      "holds no kfifo (of layout version %u)",
			     name ? name : Py_None,
			     create ? size : KFIFO_SHARED_VERSION);
		Py_XDECREF(name);
		return -1;
	}
	return 0;
}

/*
 * Set the indices of the new shared fifo of @k to @start.  The handle
 * kfifo_shared_create() made stays valid: its caches are used only while
 * its own index is what it left (kfifo.h, struct kfifo), so it reads the
 * new indices on its next call.  Nothing is attached a second time: a
 * peer that wrote into the block meanwhile changes nothing here.
 */
static void kf_shared_start(kfpy_kfifo *k, unsigned int start)
{
	unsigned char *mem = k->view.buf;

	__atomic_store_n((unsigned int *)(void *)(mem + KFIFO_SHARED_OFF_IN),
			 start, __ATOMIC_RELEASE);
	__atomic_store_n((unsigned int *)(void *)(mem + KFIFO_SHARED_OFF_OUT),
			 start, __ATOMIC_RELEASE);
}

static PyObject *kf_from_block(PyObject *cls, PyObject *block);

/* Kfifo.attach(name): a classmethod, added to the type by kfpy_types_init */
static PyObject *kf_attach(PyObject *cls, PyObject *name)
{
	PyObject *args, *block;

	if (!PyUnicode_Check(name) && !PyLong_Check(name)) {
		PyErr_Format(PyExc_TypeError,
			     "Kfifo.attach(): name must be a str (or a file "
			     "descriptor, an int), not %.100s",
			     Py_TYPE(name)->tp_name);
		return NULL;
	}
	args = PyTuple_Pack(1, name);
	block = args ? kf_shm_call("attach", args) : NULL;
	Py_XDECREF(args);
	if (block == NULL)
		return NULL;
	return kf_from_block(cls, block);
}

/* A new Kfifo of type @cls attached to @block (stolen). */
static PyObject *kf_from_block(PyObject *cls, PyObject *block)
{
	PyObject *self;
	kfpy_kfifo *k;

	self = PyType_GenericAlloc((PyTypeObject *)cls, 0);
	if (self == NULL) {
		kf_drop_block_quietly(block);
		return NULL;
	}
	k = (kfpy_kfifo *)self;
	k->fork_gen = kfpy_fork_gen;
	k->st = kf_state_new();
	if (k->st == NULL) {
		kf_drop_block_quietly(block);
		Py_DECREF(self);
		return NULL;
	}
	if (kf_init_block(k, block, 0, 0) < 0) {
		Py_DECREF(self);
		return NULL;
	}
	return self;
}

static PyMethodDef kf_attach_def = {
	"attach", kf_attach, METH_O | METH_CLASS,
	"attach(name)\n--\n\n"
	"A handle, in this process, to the shared fifo in the POSIX shared\n"
	"memory block *name* (``f.name`` of a fifo made with\n"
	"``Kfifo(size, shared=True)``, maybe in another process).\n"
	"It never unlinks the block. ``FileNotFoundError`` when no block has\n"
	"that name (or the name cannot be one), ``ValueError`` when the block\n"
	"holds no valid fifo. The block is opened without registering it with\n"
	"multiprocessing's resource tracker, so that nothing unlinks it or\n"
	"warns about it when this process ends.\n"
	"\n"
	"*name* may also be a file descriptor (an ``int``) of a shared memory\n"
	"file or memfd holding a fifo, such as a ``sealed=True`` fifo's that\n"
	"came by fd passing; it is duplicated, the caller keeps its own."};

/* Kfifo(size=None, *, start=0, buffer=None, shared=False) */
static int kf_tp_init(PyObject *self, PyObject *args, PyObject *kwds)
{
	static char *kwlist[] = {"size", "start", "buffer", "shared", "sealed", NULL};
	PyObject *size = Py_None, *start = NULL, *buffer = Py_None;
	kfpy_kfifo *k = (kfpy_kfifo *)self;
	unsigned int s = 0, st = 0;
	int ret, shared = 0, sealed = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O$OOpp:Kfifo", kwlist,
					 &size, &start, &buffer, &shared, &sealed))
		return -1;
	if (k->st != NULL || k->freed) {
		PyErr_SetString(PyExc_RuntimeError,
				"Kfifo.__init__() may run only once");
		return -1;
	}
	if ((size == Py_None) == (buffer == Py_None)) {
		PyErr_SetString(PyExc_TypeError,
				"Kfifo() takes either size or buffer=, not both "
				"and not neither");
		return -1;
	}
	if (shared && buffer != Py_None) {
		PyErr_SetString(PyExc_TypeError,
				"Kfifo(): shared=True makes its own shared memory "
				"block; it takes size, not buffer=");
		return -1;
	}
	if (sealed && !shared) {
		PyErr_SetString(PyExc_TypeError,
				"Kfifo(): sealed=True is a form of shared fifo; "
				"give shared=True too");
		return -1;
	}
	if (start != NULL && kf_start_arg(start, &st) < 0)
		return -1;
	if (size != Py_None && kf_size_arg(size, &s) < 0)
		return -1;
	k->fork_gen = kfpy_fork_gen;
	k->st = kf_state_new();
	if (k->st == NULL)
		return -1;
	if (shared) {
		PyObject *a = Py_BuildValue("(nO)",
					    (Py_ssize_t)kfifo_shared_bytes(s),
					    sealed ? Py_True : Py_False);
		PyObject *block = a ? kf_shm_call("create", a) : NULL;

		Py_XDECREF(a);
		if (block == NULL)
			goto fail;
		if (kf_init_block(k, block, 1, s) < 0)
			goto fail;
		kf_shared_start(k, st);
		return 0;
	}
	if (size != Py_None) {
		ret = kfifo_alloc(&k->st->fifo, s, GFP_KERNEL);
		if (ret != 0) {
			PyErr_Format(ret == -ENOMEM ? PyExc_MemoryError :
				     PyExc_ValueError,
				     "Kfifo(): cannot allocate a fifo of %u bytes",
				     s);
			goto fail;
		}
	} else if (kf_init_buffer(k, buffer) < 0) {
		goto fail;
	}
	/* A new fifo nobody else sees yet: plain stores are enough. */
	k->st->fifo.in = st;
	k->st->fifo.out = st;
	return 0;
fail:
	if (k->has_view)
		PyBuffer_Release(&k->view);
	k->has_view = 0;
	kfifo_free(&k->st->fifo);
	kf_state_delete(k->st);
	k->st = NULL;
	kf_drop_own_block_quietly(k);
	return -1;
}

/*
 * Cyclic GC.  The only reference a Kfifo holds that can close a cycle is
 * the object of Kfifo(buffer=obj); subclasses add their __dict__ (visited
 * by the subtype's own traverse).  Clearing frees the fifo: its memory is the
 * object's, so the two cannot outlive each other.
 */
static int kf_tp_traverse(PyObject *self, visitproc visit, void *arg)
{
	kfpy_kfifo *k = (kfpy_kfifo *)self;

	/*
	 * A block (kfifo._shm) and its mapping never refer back to a fifo,
	 * so they cannot close a cycle; they are not visited, so that the
	 * collector never clears them before this object has given them
	 * back (kf_tp_clear calls block.close()).
	 */
	if (k->has_view && k->block == NULL)
		Py_VISIT(k->view.obj);
	return 0;
}

/*
 * Release what the object holds.  Unreachable (GC) or dead (dealloc): no
 * call is in flight, except at exit in daemon threads frozen in a call.
 */
static int kf_tp_clear(PyObject *self)
{
	kfpy_kfifo *k = (kfpy_kfifo *)self;
	Py_buffer view;

	kf_check_fork(k);
	if (k->st == NULL || k->regions > 0)
		return 0;	/* a region still points in: freed by dealloc */
	if (kf_exiting_in_flight(k->st)) {
		kf_abandon(k);
		return 0;
	}
	if (!k->freed) {
		if (kf_release_memory(k, &view))
			PyBuffer_Release(&view);
		kf_drop_own_block_quietly(k);
	}
	return 0;
}

static void kf_tp_dealloc(PyObject *self)
{
	kfpy_kfifo *k = (kfpy_kfifo *)self;

	PyObject_GC_UnTrack(self);
	kf_tp_clear(self);
	if (k->st != NULL)
		kf_state_delete(k->st);
	Py_TYPE(self)->tp_free(self);
}

static PyObject *kf_tp_repr(PyObject *self)
{
	kfpy_kfifo *k = (kfpy_kfifo *)self;
	unsigned int size, len;

	if (k->freed)
		return PyUnicode_FromString("<kfifo.Kfifo freed>");
	if (k->st == NULL)
		return PyUnicode_FromString("<kfifo.Kfifo uninitialised>");
	size = kfifo_size(&k->st->fifo);
	len = kfifo_len(&k->st->fifo);
	return PyUnicode_FromFormat("<kfifo.Kfifo size=%u len=%u avail=%u>",
				    size, len, size - len);
}

static Py_ssize_t kf_sq_length(PyObject *self)
{
	kfpy_kfifo *k;

	if (kfpy_arg_self(self, "__len__", &k) < 0)
		return -1;
	if (k->freed) {
		kf_freed_error("__len__");
		return -1;
	}
	return (Py_ssize_t)kfifo_len(&k->st->fifo);
}

/* ---- producer side --------------------------------------------------------------------- */

/*
 * Whether @n bytes at @p overlap the ring of @f.  Input may (the fifo's
 * own buffer= object, a view of out_prepare) and the C core copies with
 * memcpy, which must not see overlapping memory.
 */
static int kf_in_entered(kfpy_kfifo *k, enum kf_op op, const void *from,
			 unsigned int n, unsigned int recsize,
			 kfpy_spinlock *lock, unsigned int *r);

static int kf_overlaps(struct kfifo *f, const void *p, unsigned int n)
{
	uintptr_t a = (uintptr_t)p, b = (uintptr_t)f->buffer;

	return n > 0 && f->size > 0 && a < b + f->size && b < a + n;
}

/*
 * A private copy of what the core will read of input @from (n bytes)
 * that overlaps the ring: min(n, size) bytes, all a call can store
 * (records longer than the fifo are refused without a copy).  NULL with
 * an exception.
 */
static void *kf_overlap_copy(struct kfifo *f, const void *from, unsigned int *n)
{
	unsigned int m = *n < f->size ? *n : f->size;
	void *tmp = PyMem_Malloc(m ? m : 1);

	if (tmp == NULL) {
		PyErr_NoMemory();
		return NULL;
	}
	memmove(tmp, from, m);
	*n = m;
	return tmp;
}

/* One producer call; its C result in *r.  0, or -1 with an exception. */
static int kf_in_call(kfpy_kfifo *k, enum kf_op op, const char *method,
		      const void *from, unsigned int n, unsigned int recsize,
		      kfpy_spinlock *lock, unsigned int *r)
{
	void *tmp = NULL;
	int ret;

	if (kf_enter(k, &k->st->prod, method) < 0)
		return -1;
	if (kf_overlaps(&k->st->fifo, from, n) &&
	    ((op != KF_IN_REC && op != KF_FROM_USER_REC) ||
	     n <= kfifo_size(&k->st->fifo))) {
		tmp = kf_overlap_copy(&k->st->fifo, from, &n);
		if (tmp == NULL)
			return -1;
		from = tmp;
	}
	ret = kf_in_entered(k, op, from, n, recsize, lock, r);
	PyMem_Free(tmp);
	return ret;
}

/* kf_in_call() with the producer side entered. */
static int kf_in_entered(kfpy_kfifo *k, enum kf_op op, const void *from,
			 unsigned int n, unsigned int recsize,
			 kfpy_spinlock *lock, unsigned int *r)
{
	struct kf_call c = { op, from, NULL, n, recsize, 0, NULL };
	unsigned int copy;

	if (lock != NULL)
		c.lock = &lock->lock;
	/* small copies (the common case) need not ask the fill level */
	if (n < KFPY_GIL_THRESHOLD && !kf_nogil(0, c.lock)) {
		*r = op == KF_IN ? kfifo_in(&k->st->fifo, from, n)
				 : kf_do(&k->st->fifo, &c);
		return 0;
	}
	/* what will be copied: all of a record or nothing, else min(n, avail) */
	copy = kfifo_avail(&k->st->fifo);
	if (op == KF_IN_REC || op == KF_FROM_USER_REC)
		copy = n <= copy ? n : 0;
	else if (n < copy)
		copy = n;
	*r = kf_run(k->st, &k->st->prod, &c, kf_nogil(copy, c.lock));
	return 0;
}

static PyObject *kf_in_common(kfpy_kfifo *k, enum kf_op op, const char *method,
			      const void *from, unsigned int n,
			      unsigned int recsize, kfpy_spinlock *lock)
{
	unsigned int r;

	if (kf_in_call(k, op, method, from, n, recsize, lock, &r) < 0)
		return NULL;
	return PyLong_FromUnsignedLong(r);
}

PyObject *kfpy_in(kfpy_kfifo *k, const void *from, unsigned int n)
{
	return kf_in_common(k, KF_IN, "in_", from, n, 0, NULL);
}

PyObject *kfpy_from_user(kfpy_kfifo *k, const void *from, unsigned int n)
{
	return kf_in_common(k, KF_FROM_USER, "from_user", from, n, 0, NULL);
}

PyObject *kfpy_in_rec(kfpy_kfifo *k, const void *from, unsigned int n,
		      unsigned int recsize)
{
	return kf_in_common(k, KF_IN_REC, "in_rec", from, n, recsize, NULL);
}

PyObject *kfpy_from_user_rec(kfpy_kfifo *k, const void *from, unsigned int n,
			     unsigned int recsize)
{
	return kf_in_common(k, KF_FROM_USER_REC, "from_user_rec", from, n,
			    recsize, NULL);
}

PyObject *kfpy_in_locked(kfpy_kfifo *k, const void *from, unsigned int n,
			 kfpy_spinlock *lock)
{
	return kf_in_common(k, KF_IN_LOCKED, "in_locked", from, n, 0, lock);
}

/* ---- consumer side --------------------------------------------------------------------- */

/*
 * Up to @n bytes out into a new bytes object.  The consumer side is ours,
 * so the fill level can only grow while we run: a buffer of min(n, len)
 * bytes is always filled whole.
 */
static PyObject *kf_out_common(kfpy_kfifo *k, enum kf_op op,
			       const char *method, unsigned int n,
			       kfpy_spinlock *lock)
{
	struct kf_call c = { op, NULL, NULL, n, 0, 0, NULL };
	unsigned char small[KF_SMALL_OUT];
	unsigned int len, r;
	PyObject *res;

	if (kf_enter(k, &k->st->cons, method) < 0)
		return NULL;
	if (lock != NULL)
		c.lock = &lock->lock;
	if (n <= KF_SMALL_OUT && !kf_nogil(0, c.lock)) {
		/* small: copy to the stack, then into an exact-size bytes;
		 * cheaper than asking the fill level first */
		c.to = small;
		r = op == KF_OUT ? kfifo_out(&k->st->fifo, small, n)
				 : kf_do(&k->st->fifo, &c);
		return PyBytes_FromStringAndSize((const char *)small,
						 (Py_ssize_t)r);
	}
	len = kfifo_len(&k->st->fifo);
	c.n = n < len ? n : len;
	res = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)c.n);
	if (res == NULL)
		return NULL;
	c.to = PyBytes_AS_STRING(res);
	r = kf_run(k->st, &k->st->cons, &c, kf_nogil(c.n, c.lock));
	if (r != c.n && _PyBytes_Resize(&res, (Py_ssize_t)r) < 0)
		return NULL;
	return res;
}

PyObject *kfpy_out(kfpy_kfifo *k, unsigned int n)
{
	return kf_out_common(k, KF_OUT, "out", n, NULL);
}

PyObject *kfpy_to_user(kfpy_kfifo *k, unsigned int n)
{
	return kf_out_common(k, KF_TO_USER, "to_user", n, NULL);
}

PyObject *kfpy_out_locked(kfpy_kfifo *k, unsigned int n, kfpy_spinlock *lock)
{
	return kf_out_common(k, KF_OUT_LOCKED, "out_locked", n, lock);
}

/* out_into's body, for out_into() and get_into(): the count in *r.  0, or
 * -1 with an exception naming @method.  An output buffer that overlaps
 * the ring (its own buffer= object) gets the bytes through a copy. */
static int kf_out_into_call(kfpy_kfifo *k, const char *method, void *to,
			    unsigned int n, unsigned int *r)
{
	struct kf_call c = { KF_OUT, NULL, to, n, 0, 0, NULL };
	unsigned int len;
	void *tmp = NULL;

	if (kf_enter(k, &k->st->cons, method) < 0)
		return -1;
	len = kfifo_len(&k->st->fifo);
	if (len > n)
		len = n;
	if (kf_overlaps(&k->st->fifo, to, n)) {
		tmp = PyMem_Malloc(len ? len : 1);
		if (tmp == NULL) {
			PyErr_NoMemory();
			return -1;
		}
		c.to = tmp;
		c.n = len;
	}
	*r = kf_run(k->st, &k->st->cons, &c, kf_nogil(len, NULL));
	if (tmp != NULL) {
		memmove(to, tmp, *r);
		PyMem_Free(tmp);
	}
	return 0;
}

PyObject *kfpy_out_into(kfpy_kfifo *k, void *to, unsigned int n)
{
	unsigned int r;

	if (kf_out_into_call(k, "out_into", to, n, &r) < 0)
		return NULL;
	return PyLong_FromUnsignedLong(r);
}

static PyObject *kf_rec_result(unsigned int ret, PyObject *data,
			       unsigned int total)
{
	PyObject *res, *r, *t;

	if (data == NULL)
		return NULL;
	r = PyLong_FromUnsignedLong(ret);
	t = PyLong_FromUnsignedLong(total);
	res = r && t ? PyTuple_New(3) : NULL;
	if (res == NULL) {
		Py_XDECREF(r);
		Py_XDECREF(t);
		Py_DECREF(data);
		return NULL;
	}
	PyTuple_SET_ITEM(res, 0, r);
	PyTuple_SET_ITEM(res, 1, data);
	PyTuple_SET_ITEM(res, 2, t);
	return res;
}

/*
 * One record out: (ret, data, total), as kfifo_out_rec(n) answers.
 *
 * The C core reads the header once and copies that many bytes, so the
 * buffer it gets must be as big as the capacity it is told.  We start with
 * a stack buffer of min(n, 256); a longer record that fits n comes back as
 * "too long for 256" with its length, and is fetched again into a bytes of
 * that length (then of the header maximum, should the header have changed
 * in between: see the top of the file).  A smaller capacity than n changes
 * one answer only, "not enough data", which returns the capacity: it is
 * translated back to n.
 *
 * recsize 0: the record is exactly n bytes, so the capacity must be n.  A
 * fifo holding fewer than n bytes (the consumer side is ours, so the fill
 * level only grows) gets the core's answer for that case, (n, b"", n),
 * without a call; otherwise n <= len <= size bytes are owned.
 */
static PyObject *kf_out_rec_common(kfpy_kfifo *k, enum kf_op op,
				   const char *method, unsigned int n,
				   unsigned int recsize)
{
	struct kf_call c = { op, NULL, NULL, n, recsize, 0, NULL };
	unsigned char small[KF_SMALL_OUT];
	unsigned int hdr_max = recsize == 1 ? 0xffu : 0xffffu;
	PyObject *data = NULL;
	unsigned int r;

	if (kf_enter(k, &k->st->cons, method) < 0)
		return NULL;
	if (recsize == 0) {
		if (n > kfifo_len(&k->st->fifo))
			return kf_rec_result(n, PyBytes_FromStringAndSize(NULL, 0), n);
	} else if (n > KF_SMALL_OUT) {
		c.n = KF_SMALL_OUT;
	}
	for (;;) {
		if (c.n <= KF_SMALL_OUT) {
			c.to = small;
		} else {
			Py_XDECREF(data);
			data = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)c.n);
			if (data == NULL)
				return NULL;
			c.to = PyBytes_AS_STRING(data);
		}
		r = kf_run(k->st, &k->st->cons, &c, kf_nogil(c.n, NULL));
		if (r > c.n && r <= n && c.n < n) {
			/* a record longer than our buffer that fits n */
			c.n = c.n == KF_SMALL_OUT ? r : hdr_max < n ? hdr_max : n;
			continue;
		}
		break;
	}
	if (r != 0) {
		Py_XDECREF(data);
		data = PyBytes_FromStringAndSize(NULL, 0);
		if (r == c.n)	/* not enough data: kfifo_out_rec says n */
			r = n;
	} else if (c.to == small) {
		data = PyBytes_FromStringAndSize((const char *)small,
						 (Py_ssize_t)c.total);
	} else if (c.total != c.n && _PyBytes_Resize(&data, (Py_ssize_t)c.total) < 0) {
		return NULL;
	}
	return kf_rec_result(r, data, c.total);
}

PyObject *kfpy_out_rec(kfpy_kfifo *k, unsigned int n, unsigned int recsize)
{
	return kf_out_rec_common(k, KF_OUT_REC, "out_rec", n, recsize);
}

PyObject *kfpy_to_user_rec(kfpy_kfifo *k, unsigned int n, unsigned int recsize)
{
	return kf_out_rec_common(k, KF_TO_USER_REC, "to_user_rec", n, recsize);
}

PyObject *kfpy_peek_rec(kfpy_kfifo *k, unsigned int recsize)
{
	if (kf_enter(k, &k->st->cons, "peek_rec") < 0)
		return NULL;
	return PyLong_FromUnsignedLong(kfifo_peek_rec(&k->st->fifo, recsize));
}

PyObject *kfpy_skip(kfpy_kfifo *k, unsigned int n)
{
	if (kf_enter(k, &k->st->cons, "skip") < 0)
		return NULL;
	kfifo_skip(&k->st->fifo, n);
	Py_RETURN_NONE;
}

PyObject *kfpy_skip_rec(kfpy_kfifo *k, unsigned int recsize)
{
	if (kf_enter(k, &k->st->cons, "skip_rec") < 0)
		return NULL;
	kfifo_skip_rec(&k->st->fifo, recsize);
	Py_RETURN_NONE;
}

PyObject *kfpy_reset_out(kfpy_kfifo *k)
{
	if (kf_enter(k, &k->st->cons, "reset_out") < 0)
		return NULL;
	kfifo_reset_out(&k->st->fifo);
	Py_RETURN_NONE;
}

/* ---- both sides ------------------------------------------------------------------------ */

PyObject *kfpy_reset(kfpy_kfifo *k)
{
	if (k->freed)
		return kf_freed_error("reset");
	if (kf_exiting_in_flight(k->st))
		return kf_exiting_error("reset");
	kf_enter_both(k->st);
	if (!k->freed) {
		kfifo_reset(&k->st->fifo);
		/* kfifo_reset() wakes nobody: moving out (to where it is)
		 * wakes the producers waiting for room, which there is now */
		kfifo_reset_out(&k->st->fifo);
	}
	kf_side_release(&k->st->prod);
	if (k->freed)
		return kf_freed_error("reset");
	Py_RETURN_NONE;
}

/*
 * free() waits for calls in flight; a second free() is harmless, as in C.
 * The fifo counts as freed at once, so nothing new starts; threads asleep
 * in a blocking call (get, put, the waits) are woken by closing it, see
 * the fifo freed and raise ValueError; free() lets them all leave before
 * the memory goes (kfifo_close: "waiters still touch @fifo while they
 * return").
 */
PyObject *kfpy_free(kfpy_kfifo *k)
{
	kf_state *st = k->st;
	Py_buffer view;
	int has_view = 0;

	if (k->freed)
		Py_RETURN_NONE;
	if (k->regions > 0) {
		PyErr_Format(PyExc_BufferError,
			     "Kfifo.free(): %zd view(s) of in_prepare() or "
			     "out_prepare() (memoryviews, or their .obj) still "
			     "point into the fifo; release and drop them first",
			     k->regions);
		return NULL;
	}
	if (kf_exiting_in_flight(st)) {
		kf_abandon(k);
		Py_RETURN_NONE;
	}
	k->freed = 1;
	while (st->waiters > 0) {
		/* Wake them: they see k->freed and leave.  A shared fifo is
		 * not closed (that would end the stream for the other
		 * processes): its waiters notice within one slice of
		 * KF_WAIT_SLICE_NS. */
		if (!kfifo_is_shared(&st->fifo))
			kfifo_close(&st->fifo);
		Py_BEGIN_ALLOW_THREADS
		sched_yield();
		Py_END_ALLOW_THREADS
	}
	kf_enter_both(st);
	has_view = kf_release_memory(k, &view);
	kf_side_release(&st->prod);
	if (has_view)
		PyBuffer_Release(&view);
	if (kf_drop_block(kf_take_block(k)) < 0)
		return NULL;
	Py_RETURN_NONE;
}

/* ---- waiting (API.md 3.1 in C, 3.4 in Python) -------------------------------------------- */

/* A wait sleeps at most this long at a time: a signal that arrives just
 * before the kernel sleep begins does not end it (kfifo.h), so Ctrl-C is
 * seen within one slice however long the timeout. */
#define KF_WAIT_SLICE_NS 100000000LL

/* kf_wait()'s result when a Python exception is set */
#define KF_WAIT_ERROR (-100000)

static long long kf_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* timeout in seconds (None: no limit) -> a deadline in kf_now_ns() time,
 * or -1 for none.  It counts from the call: wake-ups do not restart it. */
static int kf_deadline(PyObject *timeout, const char *method, long long *deadline)
{
	double t;

	*deadline = -1;
	if (timeout == Py_None)
		return 0;
	if (!PyFloat_Check(timeout) && !PyLong_Check(timeout) &&
	    !PyIndex_Check(timeout)) {
		PyErr_Format(PyExc_TypeError,
			     "Kfifo.%s(): timeout must be a number of seconds or "
			     "None, not %.100s", method, Py_TYPE(timeout)->tp_name);
		return -1;
	}
	if (PyFloat_Check(timeout)) {
		t = PyFloat_AS_DOUBLE(timeout);
		if (isnan(t)) {
			PyErr_Format(PyExc_ValueError,
				     "Kfifo.%s(): timeout must be a number of "
				     "seconds, not nan", method);
			return -1;
		}
	} else {
		/* an integer of any size: its sign first, then its value
		 * (one too big for a double is no limit at all) */
		PyObject *i = PyNumber_Index(timeout), *zero;
		int neg = -1;

		if (i == NULL)
			return -1;
		zero = PyLong_FromLong(0);
		if (zero != NULL)
			neg = PyObject_RichCompareBool(i, zero, Py_LT);
		Py_XDECREF(zero);
		if (neg < 0) {
			Py_DECREF(i);
			return -1;
		}
		t = neg ? -1.0 : PyLong_AsDouble(i);
		Py_DECREF(i);
		if (t == -1.0 && PyErr_Occurred()) {
			if (!PyErr_ExceptionMatches(PyExc_OverflowError))
				return -1;
			PyErr_Clear();
			t = HUGE_VAL;
		}
	}
	if (t < 0.0) {
		PyErr_Format(PyExc_ValueError,
			     "Kfifo.%s(): timeout must not be negative, got %R",
			     method, timeout);
		return -1;
	}
	if (t < 1e9)	/* beyond 30 years: no limit */
		*deadline = kf_now_ns() + (long long)(t * 1e9);
	return 0;
}

enum kf_wait_kind { KF_WAIT_AVAIL, KF_WAIT_LEN, KF_WAIT_REC };

/*
 * Wait, without the GIL, for kfifo_wait_<kind>(@arg) until @deadline.
 * Returns its result (0, -EPIPE, -ETIMEDOUT, -EINVAL), or KF_WAIT_ERROR with
 * an exception: the fifo was freed meanwhile, or a signal handler raised
 * (KeyboardInterrupt).  The waiter is counted in st->waiters, under the
 * GIL, so that free() can wake it and let it leave before the memory goes.
 */
static int kf_wait_now(struct kfifo *f, enum kf_wait_kind kind,
		       unsigned int arg, long long timeout_ns)
{
	if (kind == KF_WAIT_AVAIL)
		return kfifo_wait_avail(f, arg, timeout_ns);
	if (kind == KF_WAIT_LEN)
		return kfifo_wait_len(f, arg, timeout_ns);
	return kfifo_wait_rec(f, arg, timeout_ns);
}

static int kf_wait(kfpy_kfifo *k, const char *method, enum kf_wait_kind kind,
		   unsigned int arg, long long deadline)
{
	int r;

	if (k->freed) {
		kf_freed_error(method);
		return KF_WAIT_ERROR;
	}
	/*
	 * First a check that cannot block (timeout 0: no system call), with
	 * the GIL held: when the condition already holds, releasing the GIL
	 * would only hand it to the other side and wait to get it back.
	 */
	r = kf_wait_now(&k->st->fifo, kind, arg, 0);
	if (r != -ETIMEDOUT || (deadline >= 0 && deadline <= kf_now_ns()))
		return r;
	for (;;) {
		long long left = -1, slice;
		struct kfifo *f;

		if (k->freed) {
			kf_freed_error(method);
			return KF_WAIT_ERROR;
		}
		if (deadline >= 0) {
			left = deadline - kf_now_ns();
			if (left < 0)
				left = 0;
		}
		slice = left < 0 || left > KF_WAIT_SLICE_NS ? KF_WAIT_SLICE_NS : left;
		f = &k->st->fifo;
		k->st->waiters++;
		Py_BEGIN_ALLOW_THREADS
		r = kf_wait_now(f, kind, arg, slice);
		Py_END_ALLOW_THREADS
		k->st->waiters--;
		if (k->freed) {
			kf_freed_error(method);
			return KF_WAIT_ERROR;
		}
		if (r == -EINTR || (r == -ETIMEDOUT && slice != left)) {
			/* PEP 475: run the handlers, then retry with the time left */
			if (PyErr_CheckSignals() < 0)
				return KF_WAIT_ERROR;
			continue;
		}
		return r;
	}
}

static PyObject *kf_closed_error(const char *method, Py_ssize_t done,
				 Py_ssize_t n)
{
	PyErr_Format(PyExc_BrokenPipeError,
		     "Kfifo.%s(): the fifo is closed (%zd of %zd bytes stored by "
		     "this call)", method, done, n);
	return NULL;
}

static PyObject *kf_timeout_error(const char *method)
{
	PyErr_Format(PyExc_TimeoutError, "Kfifo.%s(): timed out", method);
	return NULL;
}

static int kf_check_size(kfpy_kfifo *k, const char *method, unsigned int n)
{
	unsigned int size;

	if (k->freed) {
		kf_freed_error(method);
		return -1;
	}
	size = kfifo_size(&k->st->fifo);
	if (n > size) {
		PyErr_Format(PyExc_ValueError,
			     "Kfifo.%s(): n=%u is more than the fifo's size %u "
			     "(it could never be met)", method, n, size);
		return -1;
	}
	return 0;
}

/*
 * put() takes a buffer of any length (a Py_ssize_t, never clamped): it
 * offers the C core at most 2**32 - 1 bytes at a time, and goes on until
 * all are stored, the time runs out or the stream ends.
 */
PyObject *kfpy_put(kfpy_kfifo *k, const void *from, Py_ssize_t n,
		   PyObject *timeout)
{
	const unsigned char *p = from;
	Py_ssize_t done = 0;
	unsigned int r, chunk;
	long long deadline;
	int w;

	if (kf_deadline(timeout, "put", &deadline) < 0)
		return NULL;
	for (;;) {
		if (k->freed)
			return kf_freed_error("put");
		if (kfifo_is_closed(&k->st->fifo))
			return kf_closed_error("put", done, n);
		chunk = kf_clamp(n - done);
		if (kf_in_call(k, KF_IN, "put", p + done, chunk, 0, NULL, &r) < 0)
			return NULL;
		done += (Py_ssize_t)r;
		if (done == n)
			Py_RETURN_NONE;
		/* one free byte is enough to go on: waiting for more could
		 * deadlock with a consumer that waits for more data first */
		w = kf_wait(k, "put", KF_WAIT_AVAIL, 1, deadline);
		if (w == KF_WAIT_ERROR)
			return NULL;
		if (w == -EPIPE)
			return kf_closed_error("put", done, n);
		if (w != 0) {
			PyErr_Format(PyExc_TimeoutError,
				     "Kfifo.put(): timed out with %zd of %zd bytes "
				     "stored by this call", done, n);
			return NULL;
		}
	}
}

/*
 * get(n) and get_into(buffer): wait for one stored byte, then take up to @n
 * of them, as a new bytes (@to NULL) or into @to; nothing at end of stream
 * (closed and empty), and at once for n = 0.  An empty take means another
 * consumer thread was first: wait again.
 */
static PyObject *kf_get_common(kfpy_kfifo *k, const char *method, void *to,
			       unsigned int n, PyObject *timeout)
{
	long long deadline;
	unsigned int r = 0;
	PyObject *res;
	int w;

	if (kf_deadline(timeout, method, &deadline) < 0)
		return NULL;
	if (k->freed)
		return kf_freed_error(method);
	while (n > 0) {
		w = kf_wait(k, method, KF_WAIT_LEN, 1, deadline);
		if (w == KF_WAIT_ERROR)
			return NULL;
		if (w == -EPIPE)
			break;
		if (w != 0)
			return kf_timeout_error(method);
		if (to != NULL) {
			if (kf_out_into_call(k, method, to, n, &r) < 0)
				return NULL;
			if (r > 0)
				break;
			continue;
		}
		res = kf_out_common(k, KF_OUT, method, n, NULL);
		if (res == NULL || PyBytes_GET_SIZE(res) > 0)
			return res;
		Py_DECREF(res);
	}
	return to ? PyLong_FromUnsignedLong(r) : PyBytes_FromStringAndSize(NULL, 0);
}

PyObject *kfpy_get(kfpy_kfifo *k, unsigned int n, PyObject *timeout)
{
	return kf_get_common(k, "get", NULL, n, timeout);
}

PyObject *kfpy_get_into(kfpy_kfifo *k, void *to, unsigned int n,
			PyObject *timeout)
{
	return kf_get_common(k, "get_into", to, n, timeout);
}

/* The data of a record taken by kf_out_rec_common, or NULL; *ret its C
 * result. */
static PyObject *kf_take(PyObject *tuple, unsigned long *ret)
{
	PyObject *data;

	if (tuple == NULL)
		return NULL;
	*ret = PyLong_AsUnsignedLong(PyTuple_GET_ITEM(tuple, 0));
	data = PyTuple_GET_ITEM(tuple, 1);
	Py_INCREF(data);
	Py_DECREF(tuple);
	return data;
}

PyObject *kfpy_get_exactly(kfpy_kfifo *k, unsigned int n, PyObject *timeout)
{
	long long deadline;
	unsigned long ret;
	PyObject *data;
	int w;

	if (kf_deadline(timeout, "get_exactly", &deadline) < 0 ||
	    kf_check_size(k, "get_exactly", n) < 0)
		return NULL;
	for (;;) {
		w = kf_wait(k, "get_exactly", KF_WAIT_LEN, n, deadline);
		if (w == KF_WAIT_ERROR)
			return NULL;
		if (w == -EPIPE) {
			PyErr_Format(PyExc_EOFError,
				     "Kfifo.get_exactly(): the stream ended with "
				     "fewer than %u bytes stored", n);
			return NULL;
		}
		if (w != 0)
			return kf_timeout_error("get_exactly");
		/* all n bytes or none, in one C call: a fixed-size record */
		data = kf_take(kf_out_rec_common(k, KF_OUT_REC, "get_exactly", n, 0), &ret);
		if (data == NULL || ret == 0)
			return data;
		Py_DECREF(data);	/* another consumer thread was first */
	}
}

PyObject *kfpy_put_rec(kfpy_kfifo *k, const void *from, unsigned int n,
		       unsigned int recsize, PyObject *timeout)
{
	unsigned int size, max = recsize == 0 ? UINT_MAX : recsize == 1 ? 0xffu : 0xffffu;
	long long deadline;
	unsigned int r;
	int w;

	if (kf_deadline(timeout, "put_rec", &deadline) < 0)
		return NULL;
	if (k->freed)
		return kf_freed_error("put_rec");
	size = kfifo_size(&k->st->fifo);
	if (n > max || n > size || size - n < recsize) {
		PyErr_Format(PyExc_ValueError,
			     "Kfifo.put_rec(): a record of %u bytes can never fit "
			     "(header of %u bytes, fifo of %u bytes)", n, recsize,
			     size);
		return NULL;
	}
	for (;;) {
		if (kfifo_is_closed(&k->st->fifo))
			return kf_closed_error("put_rec", 0, (Py_ssize_t)n);
		if (kf_in_call(k, KF_IN_REC, "put_rec", from, n, recsize, NULL, &r) < 0)
			return NULL;
		if (r == 0)
			Py_RETURN_NONE;
		w = kf_wait(k, "put_rec", KF_WAIT_AVAIL, n + recsize, deadline);
		if (w == KF_WAIT_ERROR)
			return NULL;
		if (w == -EPIPE)
			return kf_closed_error("put_rec", 0, (Py_ssize_t)n);
		if (w != 0)
			return kf_timeout_error("put_rec");
		if (k->freed)
			return kf_freed_error("put_rec");
	}
}

static int kf_rec_waitable(unsigned int recsize, const char *method)
{
	if (recsize == 1 || recsize == 2)
		return 0;
	PyErr_Format(PyExc_ValueError,
		     "Kfifo.%s(): recsize must be 1 or 2 (a record of recsize 0 "
		     "has no length to wait for), got %u", method, recsize);
	return -1;
}

PyObject *kfpy_get_rec(kfpy_kfifo *k, unsigned int recsize, PyObject *timeout)
{
	long long deadline;
	unsigned long ret;
	PyObject *data;
	int w;

	if (kf_deadline(timeout, "get_rec", &deadline) < 0 ||
	    kf_rec_waitable(recsize, "get_rec") < 0)
		return NULL;
	/*
	 * Take first, wait only when that finds no whole record: the take
	 * reads the producer's index only when its cached copy shows too
	 * little data, where a wait's check reads it every time, and with a
	 * producer in another process every such read moves a cache line
	 * (and a wait costs a GIL release and a second header read).
	 */
	for (;;) {
		data = kf_take(kf_out_rec_common(k, KF_OUT_REC, "get_rec",
						 recsize == 1 ? 0xffu : 0xffffu,
						 recsize), &ret);
		if (data == NULL || ret == 0)
			return data;
		Py_DECREF(data);	/* none yet, or another consumer was first */
		w = kf_wait(k, "get_rec", KF_WAIT_REC, recsize, deadline);
		if (w == KF_WAIT_ERROR)
			return NULL;
		if (w == -EPIPE)
			Py_RETURN_NONE;
		if (w != 0)
			return kf_timeout_error("get_rec");
	}
}

PyObject *kfpy_records(kfpy_kfifo *k, unsigned int recsize)
{
	PyObject *functools, *get_rec, *size, *call, *it;

	if (kf_rec_waitable(recsize, "records") < 0)
		return NULL;
	if (k->freed)
		return kf_freed_error("records");
	/* iter(functools.partial(self.get_rec, recsize), None) */
	functools = PyImport_ImportModule("functools");
	get_rec = PyObject_GetAttrString((PyObject *)k, "get_rec");
	size = PyLong_FromUnsignedLong(recsize);
	call = functools && get_rec && size ?
	       PyObject_CallMethod(functools, "partial", "OO", get_rec, size) : NULL;
	it = call ? PyCallIter_New(call, Py_None) : NULL;
	Py_XDECREF(functools);
	Py_XDECREF(get_rec);
	Py_XDECREF(size);
	Py_XDECREF(call);
	return it;
}

static PyObject *kf_wait_bool(kfpy_kfifo *k, const char *method,
			      enum kf_wait_kind kind, unsigned int n,
			      PyObject *timeout)
{
	long long deadline;
	int w;

	if (kf_deadline(timeout, method, &deadline) < 0 ||
	    kf_check_size(k, method, n) < 0)
		return NULL;
	w = kf_wait(k, method, kind, n, deadline);
	if (w == KF_WAIT_ERROR)
		return NULL;
	return PyBool_FromLong(w == 0);
}

PyObject *kfpy_wait_avail(kfpy_kfifo *k, unsigned int n, PyObject *timeout)
{
	return kf_wait_bool(k, "wait_avail", KF_WAIT_AVAIL, n, timeout);
}

PyObject *kfpy_wait_len(kfpy_kfifo *k, unsigned int n, PyObject *timeout)
{
	return kf_wait_bool(k, "wait_len", KF_WAIT_LEN, n, timeout);
}

/* Either side, any thread: kfifo_close needs no side. */
PyObject *kfpy_close(kfpy_kfifo *k)
{
	if (k->freed)
		return kf_freed_error("close");
	kfifo_close(&k->st->fifo);
	Py_RETURN_NONE;
}

static PyObject *kf_get_closed(PyObject *self, void *closure)
{
	kfpy_kfifo *k;

	(void)closure;
	if (kfpy_arg_self(self, "closed", &k) < 0)
		return NULL;
	if (k->freed)
		return kf_freed_error("closed");
	return PyBool_FromLong(kfifo_is_closed(&k->st->fifo));
}

static PyObject *kf_get_name(PyObject *self, void *closure)
{
	kfpy_kfifo *k;

	(void)closure;
	if (kfpy_arg_self(self, "name", &k) < 0)
		return NULL;
	if (k->freed)
		return kf_freed_error("name");
	if (k->block == NULL)
		Py_RETURN_NONE;
	return PyObject_GetAttrString(k->block, "name");
}

static PyGetSetDef kf_getset[] = {
	{"closed", kf_get_closed, NULL,
	 "Whether ``close()`` ran (``kfifo_is_closed``); ``reset()`` reopens.", NULL},
	{"name", kf_get_name, NULL,
	 "The name of the shared memory block of a shared fifo (for\n"
	 "``Kfifo.attach()``), ``None`` for a fifo of this process only.", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

/* ---- zero-copy views ------------------------------------------------------------------ */

/*
 * A run of the ring buffer, exported as a memoryview.  The rule: a fifo's
 * memory lives while any object that can reach it lives.  So a region
 * counts in k->regions from its creation to its deallocation, not while
 * a buffer export is open: the memoryview's exporter (mv.obj) reaches
 * the ring even after every memoryview of it was released, and can make
 * new ones.  free() refuses while regions are alive (BufferError), and
 * a region never exports once its fifo is freed.  Regions take part in
 * cyclic GC: a view kept on its own fifo (a subclass attribute, a
 * closure) is a cycle fifo -> memoryview -> region -> fifo, collected
 * like any other.  The type is private: users see the memoryview.
 */
typedef struct {
	PyObject_HEAD
	kfpy_kfifo *fifo;	/* NULL once the region was cleared */
	unsigned char *data;
	Py_ssize_t len;
	int readonly;
} kf_region;

static int kf_region_getbuffer(PyObject *self, Py_buffer *view, int flags)
{
	kf_region *r = (kf_region *)self;

	if (r->fifo == NULL || r->fifo->freed) {
		PyErr_SetString(PyExc_BufferError,
				"Kfifo: this region's fifo was freed");
		view->obj = NULL;
		return -1;
	}
	return PyBuffer_FillInfo(view, self, r->data, r->len, r->readonly, flags);
}

/* Stop counting in the fifo and let it go. */
static int kf_region_clear(PyObject *self)
{
	kf_region *r = (kf_region *)self;
	kfpy_kfifo *k = r->fifo;

	if (k != NULL) {
		r->fifo = NULL;
		r->data = NULL;
		r->len = 0;
		k->regions--;
		Py_DECREF(k);
	}
	return 0;
}

static int kf_region_traverse(PyObject *self, visitproc visit, void *arg)
{
	Py_VISIT(((kf_region *)self)->fifo);
	return 0;
}

static void kf_region_dealloc(PyObject *self)
{
	PyObject_GC_UnTrack(self);
	kf_region_clear(self);
	PyObject_GC_Del(self);
}

static PyBufferProcs kf_region_as_buffer = {
	.bf_getbuffer = kf_region_getbuffer,
};

static PyTypeObject kf_RegionType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "kfifo._Region",
	.tp_basicsize = sizeof(kf_region),
	.tp_dealloc = kf_region_dealloc,
	.tp_as_buffer = &kf_region_as_buffer,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
	.tp_traverse = kf_region_traverse,
	.tp_clear = kf_region_clear,
	.tp_doc = "A run of a fifo's ring buffer, seen through a memoryview.",
};

/* A new, empty region of @k, counted from here on. */
static kf_region *kf_region_new(kfpy_kfifo *k, int readonly)
{
	kf_region *r = PyObject_GC_New(kf_region, &kf_RegionType);

	if (r == NULL)
		return NULL;
	Py_INCREF(k);
	r->fifo = k;
	k->regions++;
	r->data = NULL;
	r->len = 0;
	r->readonly = readonly;
	PyObject_GC_Track(r);
	return r;
}

typedef unsigned int (*kf_prepare_fn)(struct kfifo *, struct kfifo_region *,
				      unsigned int);

/*
 * Both regions exist (and count) before the ring is looked at: creating
 * an object may run the garbage collector, and with it any Python code (a
 * __del__, a gc callback) that may call free().  Once counted, free()
 * refuses; a free() that ran before that is seen here.
 */
static PyObject *kf_prepare(kfpy_kfifo *k, kf_side *s, kf_prepare_fn fn,
			    const char *method, unsigned int n, int readonly)
{
	struct kfifo_region reg[2];
	kf_region *ra = NULL, *rb = NULL;
	PyObject *a = NULL, *b = NULL, *res = NULL;

	if (kf_enter(k, s, method) < 0)
		return NULL;
	ra = kf_region_new(k, readonly);
	rb = ra ? kf_region_new(k, readonly) : NULL;
	if (rb == NULL)
		goto out;
	if (k->freed) {
		kf_freed_error(method);
		goto out;
	}
	fn(&k->st->fifo, reg, n);
	ra->data = reg[0].data;
	ra->len = (Py_ssize_t)reg[0].len;
	rb->data = reg[1].data;
	rb->len = (Py_ssize_t)reg[1].len;
	a = PyMemoryView_FromObject((PyObject *)ra);
	b = a ? PyMemoryView_FromObject((PyObject *)rb) : NULL;
	if (b != NULL)
		res = PyTuple_Pack(2, a, b);
out:
	Py_XDECREF(a);
	Py_XDECREF(b);
	Py_XDECREF(ra);
	Py_XDECREF(rb);
	return res;
}

PyObject *kfpy_in_prepare(kfpy_kfifo *k, unsigned int n)
{
	return kf_prepare(k, &k->st->prod, kfifo_in_prepare, "in_prepare", n, 0);
}

PyObject *kfpy_out_prepare(kfpy_kfifo *k, unsigned int n)
{
	return kf_prepare(k, &k->st->cons, kfifo_out_prepare, "out_prepare", n, 1);
}

PyObject *kfpy_in_finish(kfpy_kfifo *k, unsigned int n)
{
	if (kf_enter(k, &k->st->prod, "in_finish") < 0)
		return NULL;
	return PyLong_FromUnsignedLong(kfifo_in_finish(&k->st->fifo, n));
}

PyObject *kfpy_out_finish(kfpy_kfifo *k, unsigned int n)
{
	if (kf_enter(k, &k->st->cons, "out_finish") < 0)
		return NULL;
	return PyLong_FromUnsignedLong(kfifo_out_finish(&k->st->fifo, n));
}

/* ---- queries (either side; a snapshot, under the GIL) ----------------------------------- */

#define KF_QUERY(name, expr)                                                   \
	PyObject *kfpy_##name(kfpy_kfifo *k)                                   \
	{                                                                      \
		struct kfifo *f;                                               \
		if (k->freed)                                                  \
			return kf_freed_error(#name);                          \
		f = &k->st->fifo;                                              \
		return expr;                                                   \
	}

KF_QUERY(len, PyLong_FromUnsignedLong(kfifo_len(f)))
KF_QUERY(size, PyLong_FromUnsignedLong(kfifo_size(f)))
KF_QUERY(avail, PyLong_FromUnsignedLong(kfifo_avail(f)))
KF_QUERY(is_empty, PyBool_FromLong(kfifo_is_empty(f)))
KF_QUERY(is_full, PyBool_FromLong(kfifo_is_full(f)))
KF_QUERY(valid, PyBool_FromLong(kfifo_valid(f)))

/* ---- methods on any Kfifo ----------------------------------------------------------------- */

PyObject *kfpy_is_freed(PyObject *self)
{
	kfpy_kfifo *k;

	if (kfpy_arg_self(self, "is_freed", &k) < 0)
		return NULL;
	return PyBool_FromLong(k->freed);
}

PyObject *kfpy_enter(PyObject *self)
{
	kfpy_kfifo *k;

	if (kfpy_arg_self(self, "__enter__", &k) < 0)
		return NULL;
	if (k->freed)
		return kf_freed_error("__enter__");
	Py_INCREF(self);
	return self;
}

PyObject *kfpy_exit(PyObject *self, PyObject *exc_type, PyObject *exc,
		    PyObject *tb)
{
	kfpy_kfifo *k;
	PyObject *r;

	(void)exc_type;
	(void)exc;
	(void)tb;
	if (kfpy_arg_self(self, "__exit__", &k) < 0)
		return NULL;
	r = kfpy_free(k);
	if (r == NULL)
		return NULL;
	Py_DECREF(r);
	Py_RETURN_FALSE;
}

/*
 * An ordinary fifo is memory of this process: there is nothing a pickle
 * could carry that another process (or a later one) could use.  Refused at
 * every protocol, and so are copy.copy() and copy.deepcopy().  A shared
 * fifo pickles to its block's name and unpickles as Kfifo.attach(name): a
 * new handle to the same fifo, in any process (copy.copy() too).
 */
PyObject *kfpy_reduce_ex(PyObject *self, PyObject *protocol)
{
	kfpy_kfifo *k = (kfpy_kfifo *)self;
	(void)protocol;
	if (PyObject_TypeCheck(self, &kfpy_KfifoType) && k->freed)
		return kf_freed_error("__reduce_ex__");
	if (!PyObject_TypeCheck(self, &kfpy_KfifoType) || k->st == NULL ||
	    k->block == NULL) {
		PyErr_Format(PyExc_TypeError, "cannot pickle '%.100s' object: "
			     "a Kfifo is memory of this process (only a "
			     "Kfifo(size, shared=True) pickles)",
			     Py_TYPE(self)->tp_name);
		return NULL;
	}
	/* kfifo._shm knows how its block travels: by name, or by fd */
	return PyObject_CallMethod(k->block, "reduce", NULL);
}

/* ---- SpinLock ------------------------------------------------------------------------------ */

/* The lock is ready as soon as the object exists: __init__ adds nothing,
 * so SpinLock.__new__ alone, or a subclass that skips __init__, works. */
static PyObject *kf_spin_new(PyTypeObject *type, PyObject *args,
			     PyObject *kwds)
{
	kfpy_spinlock *l;

	if (type == &kfpy_SpinLockType &&
	    ((args && PyTuple_GET_SIZE(args)) || (kwds && PyDict_GET_SIZE(kwds)))) {
		PyErr_SetString(PyExc_TypeError, "SpinLock() takes no arguments");
		return NULL;
	}
	l = (kfpy_spinlock *)type->tp_alloc(type, 0);
	if (l != NULL)
		kfifo_spin_lock_init(&l->lock);
	return (PyObject *)l;
}

PyObject *kfpy_spin_locked(PyObject *self)
{
	return PyBool_FromLong(!kf_spin_free(&((kfpy_spinlock *)self)->lock));
}

static PyObject *kf_spin_repr(PyObject *self)
{
	return PyUnicode_FromFormat("<kfifo.SpinLock %s>",
				    kf_spin_free(&((kfpy_spinlock *)self)->lock) ?
				    "unlocked" : "locked");
}

/* ---- the types --------------------------------------------------------------------------- */

static PySequenceMethods kf_as_sequence = {
	.sq_length = kf_sq_length,
};

PyDoc_STRVAR(kf_kfifo_doc,
"Kfifo(size=None, *, start=0, buffer=None, shared=False)\n--\n\n"
"A byte FIFO over a power-of-two ring buffer: the Linux kernel's kfifo\n"
"(\"new kfifo API v0.3\") in C, here with a Python interface.\n"
"\n"
"Methods keep the C names without the ``kfifo_`` prefix (``in`` is a\n"
"Python keyword, hence ``in_``) and the C return conventions, with\n"
"``bytes`` in place of output buffers.\n"
"\n"
"Parameters\n"
"----------\n"
"size : int, optional\n"
"    Buffer size in bytes, rounded up to a power of two\n"
"    (``kfifo_alloc``). 1 to 2**31.\n"
"start : int, keyword-only\n"
"    Initial value of both indices, taken modulo 2**32. Indices run\n"
"    freely and wrap at 2**32; a start near 2**32 lets tests cross the\n"
"    wrap at once.\n"
"buffer : writable bytes-like object, keyword-only\n"
"    Use this memory instead of allocating (``kfifo_init``); its length\n"
"    must be a power of two (1 to 2**31). The object is kept alive and\n"
"    exported (a ``bytearray`` cannot be resized) until ``free()``; it is\n"
"    never copied, so the fifo's bytes are visible in it.\n"
"shared : bool, keyword-only\n"
"    Put the fifo in a new ``multiprocessing.shared_memory`` block\n"
"    (``kfifo_shared_create``), for other processes: ``name`` is the\n"
"    block's name, ``Kfifo.attach(name)`` a handle in another process,\n"
"    and the fifo pickles to its name (a ``Process`` argument, a\n"
"    ``multiprocessing.Queue``; fork and spawn). Every method works\n"
"    across processes, the blocking calls wake each other. One producer\n"
"    process and one consumer process (the side rules below apply per\n"
"    process); the other process is not trusted: whatever it writes into\n"
"    the block, this one never touches memory outside it, never crashes\n"
"    and never waits past its timeout. The process that made the fifo\n"
"    unlinks the block at ``free()`` or at exit; other handles never do.\n"
"    ``free()`` of one handle does not close the fifo for the others.\n"
"    A ``SpinLock`` is memory of this process: ``in_locked`` and\n"
"    ``out_locked`` serialise this process's threads only.\n"
"\n"
"Give either ``size`` or ``buffer``.\n"
"\n"
"Raises\n"
"------\n"
"ValueError\n"
"    ``size`` is 0 or larger than 2**31; ``buffer`` is read-only, not\n"
"    contiguous, or its length is not a power of two.\n"
"TypeError\n"
"    A wrong type, or both or neither of ``size`` and ``buffer``, or\n"
"    ``shared=True`` with ``buffer``.\n"
"MemoryError\n"
"    The buffer cannot be allocated.\n"
"\n"
"Notes\n"
"-----\n"
"Inputs are any C-contiguous bytes-like object (bytes, bytearray,\n"
"memoryview, array.array, numpy arrays), read in place without a copy.\n"
"Non-contiguous buffers are refused with ``TypeError``: copy them first.\n"
"\n"
"Threads: one producer thread (``in_``, ``from_user``, ``in_rec``, ...)\n"
"and one consumer thread (``out``, ``out_into``, ``out_rec``, ``skip``,\n"
"``peek_rec``, ``reset_out``, ...) run in parallel without a lock, as in\n"
"C; copies of 64 KiB or more run without the GIL. Any other use from\n"
"several threads is serialised per side, never crashes and leaves a valid\n"
"fifo; several producers or consumers should use ``in_locked`` and\n"
"``out_locked``. ``reset()`` and ``free()`` wait for calls in flight.\n"
"\n"
"A Kfifo is memory of this process: it cannot be pickled or copied, and\n"
"two fifos are equal only when they are the same object. It takes part\n"
"in cyclic garbage collection, so a fifo in a reference cycle (or whose\n"
"``buffer=`` object refers back to it) is freed with the cycle.\n"
"\n"
"Examples\n"
"--------\n"
">>> f = Kfifo(1000)\n"
">>> f.size()\n"
"1024\n"
">>> f.in_(b\"hello\")\n"
"5\n"
">>> f.out(3)\n"
"b'hel'\n"
">>> f.in_rec(b\"record\", 1)\n"
"0\n"
">>> f.out(2), f.out_rec(64, 1)\n"
"(b'lo', (0, b'record', 6))\n");

PyTypeObject kfpy_KfifoType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "kfifo.Kfifo",
	.tp_basicsize = sizeof(kfpy_kfifo),
	.tp_dealloc = kf_tp_dealloc,
	.tp_repr = kf_tp_repr,
	.tp_as_sequence = &kf_as_sequence,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
	.tp_doc = kf_kfifo_doc,
	.tp_traverse = kf_tp_traverse,
	.tp_clear = kf_tp_clear,
	.tp_getset = kf_getset,
	.tp_init = kf_tp_init,
	.tp_new = PyType_GenericNew,
};

PyDoc_STRVAR(kf_spinlock_doc,
"SpinLock()\n--\n\n"
"A userspace spinlock (``spinlock_t``) for ``in_locked``/``out_locked``.\n"
"\n"
"All producers of a fifo share one lock, all consumers another. It is\n"
"only taken inside those calls, never from Python, so it cannot be held\n"
"across Python code. A thread that finds it busy waits without the GIL.\n");

static PyTypeObject kfpy_SpinLockType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "kfifo.SpinLock",
	.tp_basicsize = sizeof(kfpy_spinlock),
	.tp_repr = kf_spin_repr,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = kf_spinlock_doc,
	.tp_new = kf_spin_new,
};

static int kf_add_type(PyObject *module, PyTypeObject *type, const char *name,
		       PyMethodDef *methods)
{
	type->tp_methods = methods;
	if (PyType_Ready(type) < 0)
		return -1;
	Py_INCREF(type);
	if (PyModule_AddObject(module, name, (PyObject *)type) < 0) {
		Py_DECREF(type);
		return -1;
	}
	return 0;
}

int kfpy_types_init(PyObject *module, PyMethodDef *kfifo_methods,
		    PyMethodDef *spinlock_methods)
{
	static int atfork_done;
	PyObject *attach;

	if (!atfork_done) {
		if (pthread_atfork(NULL, NULL, kf_atfork_child) != 0) {
			PyErr_SetString(PyExc_OSError,
					"kfifo: pthread_atfork() failed");
			return -1;
		}
		atfork_done = 1;
	}
	if (PyType_Ready(&kf_RegionType) < 0)
		return -1;

	if (kf_add_type(module, &kfpy_KfifoType, "Kfifo", kfifo_methods) < 0 ||
	    kf_add_type(module, &kfpy_SpinLockType, "SpinLock",
			spinlock_methods) < 0)
		return -1;
	attach = PyDescr_NewClassMethod(&kfpy_KfifoType, &kf_attach_def);
	if (attach == NULL ||
	    PyDict_SetItemString(kfpy_KfifoType.tp_dict, "attach", attach) < 0) {
		Py_XDECREF(attach);
		return -1;
	}
	Py_DECREF(attach);
	PyType_Modified(&kfpy_KfifoType);
	return PyModule_AddIntConstant(module, "GIL_THRESHOLD",
				       (long)KFPY_GIL_THRESHOLD);
}
