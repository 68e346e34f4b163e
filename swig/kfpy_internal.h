/* SPDX-License-Identifier: MIT */
/*
 * kfpy_internal.h - what the files of the binding share, and nothing else:
 * the per-fifo state, the thread protocol's inline fast paths and the
 * helpers one file offers the others.  Each kfpy_*.c file is one concern:
 *
 *   kfpy_type.c      the Kfifo type's life (construction, GC, free, reset)
 *   kfpy_args.c      argument conversion (typemaps and Kfifo())
 *   kfpy_threads.c   the thread/GIL protocol (side flags, fork)
 *   kfpy_io.c        bytes and records in and out
 *   kfpy_wait.c      blocking calls and waits
 *   kfpy_region.c    zero-copy views
 *   kfpy_shm.c       shared blocks (the _Block type over kfifo_block_*())
 *   kfpy_spinlock.c  the SpinLock type
 *   kfpy_notify.c    the Notifier type (a file descriptor for event loops)
 *   kfpy_errors.c    exceptions
 *
 * Private names start with kf_; the names kfifo.i sees (kfpy_) are in
 * kfifo_py.h.
 */
#ifndef KFPY_INTERNAL_H
#define KFPY_INTERNAL_H

#include "kfifo_py.h"
#include "kfifo_binding.h"

#include <limits.h>

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
	int unclaimed;             /* a shared fifo of one producer (consumer)
				    * whose side this process has not claimed
				    * yet (kfpy_shm.c) */
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
	/* kf_wait()'s yielding lasts KF_WAIT_YIELD_NS >> yield_shift[d] for
	 * direction d (0 room, 1 data), learned from the waits that ended
	 * (kfpy_wait.c; GIL-protected) */
	unsigned char yield_shift[2];
} kf_state;

struct kfpy_spinlock {
	PyObject_HEAD
	kfifo_spinlock_t lock;
};

extern PyTypeObject kfpy_SpinLockType;
extern PyTypeObject kf_RegionType;
extern PyTypeObject kf_RecordsType;
extern PyMethodDef kf_attach_def;

/* ---- kfpy_errors.c ---- */

PyObject *kf_freed_error(const char *method);
/* kfifo.Empty, kfifo.Full: TimeoutError and queue.Empty / queue.Full */
extern PyObject *kfpy_Empty, *kfpy_Full;
int kf_errors_init(PyObject *module);
PyObject *kf_exiting_error(const char *method);

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

void kf_exc_save(kf_exc_saved *s);
void kf_exc_restore(kf_exc_saved *s);
void kf_exc_reraise_as(PyObject *type);
void kf_exc_chain(kf_exc_saved *cause);

/* ---- kfpy_threads.c ---- */

void kf_side_wait_turn(kf_side *s);
void kf_side_claim(kf_side *s);
void kf_side_release(kf_side *s);
void kf_enter_both(kf_state *st);
int kf_exiting_in_flight(const kf_state *st);
void kf_after_fork(kfpy_kfifo *k);
void kf_atfork_child(void);

/* A call of side @s is running without the GIL, or waiting for its turn. */
static inline int kf_side_in_flight(const kf_side *s)
{
	return s->busy || s->serving != s->next_ticket;
}

/* Side @s may take the common case at once: nobody in flight, and no
 * claim to make first (kf_enter makes it). */
static inline int kf_side_idle(const kf_side *s)
{
	return !kf_side_in_flight(s) && !s->unclaimed;
}

int kf_side_claim_process(kfpy_kfifo *k, kf_side *s, const char *method);
void kf_set_claims(kfpy_kfifo *k);

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

/* Refuse a freed fifo, enter side @s, and refuse it again (free() may have
 * run while we waited).  The first check is kept although self was
 * checked on entry: the callers convert a timeout, or export a buffer,
 * first, which can run Python code that frees the fifo. */
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
	if (s->unclaimed)
		return kf_side_claim_process(k, s, method);
	return 0;
}

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

/* Reset @k's per-process state if it comes from before a fork() (see
 * kfpy_threads.c). */
static inline void kf_check_fork(kfpy_kfifo *k)
{
	if (k->fork_gen != kfpy_fork_gen)
		kf_after_fork(k);
}

unsigned int kf_do(struct kfifo *f, struct kf_call *c);
unsigned int kf_run(kf_state *st, kf_side *s, struct kf_call *c, int nogil);
/* Let go of the GIL around a copy, and take it back: a thread that
 * finishes while another kfifo call's thread holds the GIL spins briefly
 * instead of sleeping (kfpy_threads.c). */
PyThreadState *kf_gil_release(void);
void kf_gil_take(PyThreadState *ts);

/* ---- kfpy_args.c ---- */

/* A buffer longer than 2**32 - 1 bytes is offered as 2**32 - 1 bytes: no
 * fifo can take more, and no fifo holds more. */
static inline unsigned int kf_clamp(Py_ssize_t len)
{
	return (size_t)len > UINT_MAX ? UINT_MAX : (unsigned int)len;
}

/* Kfifo()'s size (1 .. 2**31) and start (any integer, modulo 2**32) */
int kf_size_arg(PyObject *size, unsigned int *out);
int kf_start_arg(PyObject *start, unsigned int *out);

/* ---- kfpy_type.c ---- */

kf_state *kf_state_new(void);

/* ---- kfpy_io.c ---- */

int kf_in_call(kfpy_kfifo *k, enum kf_op op, const char *method,
	       const void *from, unsigned int n, unsigned int recsize,
	       kfpy_spinlock *lock, unsigned int *r);
int kf_out_into_call(kfpy_kfifo *k, const char *method, void *to,
		     unsigned int n, unsigned int *r);
PyObject *kf_out_common(kfpy_kfifo *k, enum kf_op op, const char *method,
			unsigned int n, kfpy_spinlock *lock);
/* Whether @n bytes at @p overlap the ring of @f.  Input may (the fifo's
 * own buffer= object, a view of out_prepare) and the C core copies with
 * memcpy, which must not see overlapping memory. */
static inline int kf_overlaps(struct kfifo *f, const void *p, unsigned int n)
{
	uintptr_t a = (uintptr_t)p, b = (uintptr_t)f->buffer;

	return n > 0 && f->size > 0 && a < b + f->size && b < a + n;
}

/*
 * in_rec's and put_rec's common case without the general path: a freed
 * fifo, a producer side in use by a thread that released the GIL, a copy
 * big enough to release it, or input that overlaps the ring all take
 * kf_in_call() (return 0: nothing done).  Otherwise the core's answer is
 * in *r (return 1): what kf_in_entered() does for such a call, without
 * its layers.  The constant-recsize copies of the core are called, so
 * its header code is folded away.
 */
/* The producer's common case applies to a store of @n bytes from @from:
 * the fifo not freed, its producer side idle, a copy too small to
 * release the GIL, input that does not overlap the ring (kfpy_in() and
 * kf_in_rec_fast()). */
static inline int kf_in_fast_ok(kfpy_kfifo *k, const void *from,
				unsigned int n)
{
	return !k->freed && kf_side_idle(&k->st->prod) &&
	       n < KFPY_GIL_THRESHOLD && !kf_overlaps(&k->st->fifo, from, n);
}

static inline int kf_in_rec_fast(kfpy_kfifo *k, const void *from,
				 unsigned int n, unsigned int recsize,
				 unsigned int *r)
{
	struct kfifo *f;

	if (!kf_in_fast_ok(k, from, n))
		return 0;
	f = &k->st->fifo;
	*r = recsize == 1 ? kfifo_in_rec(f, from, n, 1)
	     : recsize == 2 ? kfifo_in_rec(f, from, n, 2)
			    : kfifo_in_rec(f, from, n, recsize);
	return 1;
}

/* get_rec's and out_rec's common case (kfpy_io.c): 1 taken, 0 take the
 * general path (nothing done), -1 with an exception */
int kf_take_rec_fast(kfpy_kfifo *k, unsigned int recsize, unsigned int max,
		     PyObject **data, unsigned int *len);
#if PY_VERSION_HEX < 0x030E0000
/* @last, a kept record's bytes, was filled again: forget its hash and
 * hand it out (a new reference) */
static inline PyObject *kf_refilled(PyObject *last)
{
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
	/* deprecated for reading a hash (3.11); clearing it is what
	 * CPython's own resizing of a bytes does */
	((PyBytesObject *)last)->ob_shash = -1;
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
	Py_INCREF(last);
	return last;
}
#endif

/*
 * get_rec's most common case in one call of the core: the fifo holds the
 * only reference to one of the last records' bytes (kf_rec_bytes) and the
 * next record has its length; kfifo__out_rec_len() then copies the record
 * straight into it and takes it, where kf_take_rec_fast() makes three
 * calls (prepare, the copy, finish).  Only where kf_take_rec_fast() would
 * take it (not freed, the consumer side idle, recsize 1 or 2).  1 with
 * the record in *data; 0 when nothing was taken (no such bytes, another
 * length, no whole record: the caller goes on to kf_take_rec_fast()).
 */
static inline int kf_take_rec_reuse(kfpy_kfifo *k, unsigned int recsize,
				    PyObject **data)
{
#if PY_VERSION_HEX >= 0x030E0000
	(void)k;
	(void)recsize;
	(void)data;
	return 0;
#else
	unsigned int want = UINT_MAX, len, r;
	PyObject *last;
	int i;

	if ((recsize != 1 && recsize != 2) || k->freed ||
	    !kf_side_idle(&k->st->cons))
		return 0;
	for (i = 0; i < 2; i++) {
		last = k->last_rec[i];
		if (last == NULL || Py_REFCNT(last) != 1)
			continue;
		len = (unsigned int)PyBytes_GET_SIZE(last);	/* 2 .. KF_REUSE_MAX */
		if (want != UINT_MAX && len != want)
			continue;
		r = kfifo__out_rec_len(&k->st->fifo, PyBytes_AS_STRING(last),
				       len, recsize);
		if (r == 0) {
			*data = kf_refilled(last);
			return 1;
		}
		if (r == UINT_MAX)
			return 0;
		want = r - 1;	/* the record's length: maybe the other one */
	}
	return 0;
#endif
}

int kf_take_rec(kfpy_kfifo *k, unsigned int n, unsigned int recsize,
		PyObject **data, unsigned int *ret, unsigned int *total);
/* A record of @n bytes and its header can ever be stored: no longer than
 * the header can say (kfifo_rec_max) nor than the fifo. */
static inline int kf_rec_fits(kfpy_kfifo *k, unsigned int n,
			      unsigned int recsize)
{
	unsigned int size = kfifo_size(&k->st->fifo);

	return n <= kfifo_rec_max(recsize) && n <= size && size - n >= recsize;
}
int kf_put_recs_some(kfpy_kfifo *k, const char *method, PyObject *items,
		     Py_ssize_t *i, unsigned int recsize, unsigned int *need);
Py_ssize_t kf_take_recs(kfpy_kfifo *k, const char *method, PyObject *list,
			Py_ssize_t max, unsigned int recsize, PyObject **one);

/* ---- kfpy_notify.c ---- */

extern PyTypeObject kfpy_NotifierType;
/* Detach every notifier of @k: its memory is about to go (GIL held). */
void kf_notifiers_fifo_gone(kfpy_kfifo *k);
/* Ready the Notifier type, add it to @module, close them all at exit. */
int kf_notify_init(PyObject *module);

/* ---- kfpy_shm.c ---- */

int kf_init_shared(kfpy_kfifo *k, unsigned int size, unsigned int start,
		   int sealed, unsigned int mode);
PyObject *kf_take_block(kfpy_kfifo *k);
PyObject *kf_block_name(PyObject *block);
int kf_block_sealed(PyObject *block);
PyObject *kf_block_reduce(PyObject *block);
int kf_shm_init(PyObject *module);
int kf_drop_block(PyObject *block);
void kf_drop_own_block_quietly(kfpy_kfifo *k);

#endif /* KFPY_INTERNAL_H */
