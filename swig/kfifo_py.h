/* SPDX-License-Identifier: MIT */
/*
 * kfifo_py.h - the Python binding's own C: the types kfifo.Kfifo and
 * kfifo.SpinLock, what keeps Python misuse away from the C core, and the
 * method bodies that SWIG wraps.
 *
 * Layering: kfifo.i declares the kfpy_* methods below for SWIG, whose
 * typemaps convert the arguments with the kfpy_arg_* helpers; the wrappers
 * SWIG generates become the method tables of the two types (kfpy_types_init).
 * Nothing here is FIFO logic: every decision about bytes and records is the
 * C core's.  This file is compiled by CMake with the core's warnings and
 * sanitizers (target kfifo_py), never by setuptools.
 */
#ifndef KFIFO_PY_H
#define KFIFO_PY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <kfifo.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The GIL is released around copies of at least this many bytes (measured
 * in issue 4: below 64 KiB the hand-off costs more than it saves).
 */
#ifndef KFPY_GIL_THRESHOLD
#define KFPY_GIL_THRESHOLD 65536u
#endif

typedef struct kfpy_spinlock kfpy_spinlock;

/* The object behind a kfifo.Kfifo (here only for the inline fast paths
 * below; kfifo_py.c alone reads or writes its fields). */
typedef struct kfpy_kfifo {
	PyObject_HEAD
	struct kfpy_state *st; /* NULL until __init__, and after abandoning it at exit */
	int freed;             /* free() ran: every call raises */
	int has_view;          /* view holds the object of Kfifo(buffer=obj) */
	Py_buffer view;
	Py_ssize_t regions;    /* region objects of in_prepare/out_prepare alive */
	PyObject *block;       /* shared fifo: the kfifo._shm block mapped, view is its buf */
	unsigned long fork_gen; /* kfpy_fork_gen when the per-process state was last valid */
} kfpy_kfifo;

extern PyTypeObject kfpy_KfifoType;

/*
 * Bumped in the child of every fork() (pthread_atfork).  A Kfifo whose
 * fork_gen differs was made in the parent: the threads its side flags,
 * gates and waiter count describe do not exist here, so they are reset
 * before the object is used (kfpy_arg_self_slow).
 */
extern unsigned long kfpy_fork_gen;

/* ---- argument conversion, for the typemaps of kfifo.i -------------------
 * Each returns 0, or -1 with an exception naming Kfifo.<method>() and the
 * argument.  The first two run on every call: their common case is inline. */

int kfpy_arg_self_slow(PyObject *self, const char *method, kfpy_kfifo **out);
int kfpy_arg_count_slow(PyObject *o, const char *method, const char *name,
			unsigned int *out);

/* self of a Kfifo method: a Kfifo that __init__ initialised (or freed) */
static inline int kfpy_arg_self(PyObject *self, const char *method,
				kfpy_kfifo **out)
{
	if (Py_IS_TYPE(self, &kfpy_KfifoType) && ((kfpy_kfifo *)self)->st &&
	    ((kfpy_kfifo *)self)->fork_gen == kfpy_fork_gen) {
		*out = (kfpy_kfifo *)self;
		return 0;
	}
	return kfpy_arg_self_slow(self, method, out);
}

/* a count: int-like, 0 <= v < 2**32 (ValueError / OverflowError) */
static inline int kfpy_arg_count(PyObject *o, const char *method,
				 const char *name, unsigned int *out)
{
	/* a small non-negative int, read without a call */
#if PY_VERSION_HEX >= 0x030C0000
	if (PyLong_CheckExact(o) && PyUnstable_Long_IsCompact((PyLongObject *)o)) {
		Py_ssize_t c = PyUnstable_Long_CompactValue((PyLongObject *)o);

		if (c >= 0 && (size_t)c <= 0xffffffffu) {
			*out = (unsigned int)c;
			return 0;
		}
	}
#elif !defined(Py_LIMITED_API)
	if (PyLong_CheckExact(o) && (Py_SIZE(o) == 0 || Py_SIZE(o) == 1)) {
		*out = Py_SIZE(o) ? (unsigned int)((PyLongObject *)o)->ob_digit[0] : 0u;
		return 0;
	}
#endif
	return kfpy_arg_count_slow(o, method, name, out);
}
/* a recsize: 0, 1 or 2 (ValueError) */
int kfpy_arg_recsize(PyObject *o, const char *method, unsigned int *out);
int kfpy_arg_data_slow(PyObject *o, const char *method, Py_buffer *view,
		       int *got, const void **buf, unsigned int *n);

/*
 * bytes-like input.  An exact bytes object is immutable and kept alive by
 * the call's arguments: no export needed (*got stays 0).  Anything else is
 * exported into @view until the typemap's freearg (*got = 1), which also
 * stops a bytearray from being resized while the C core reads it.
 */
static inline int kfpy_arg_data(PyObject *o, const char *method,
				Py_buffer *view, int *got, const void **buf,
				unsigned int *n)
{
	if (PyBytes_CheckExact(o) &&
	    (size_t)PyBytes_GET_SIZE(o) <= 0xffffffffu) {
		*buf = PyBytes_AS_STRING(o);
		*n = (unsigned int)PyBytes_GET_SIZE(o);
		return 0;
	}
	return kfpy_arg_data_slow(o, method, view, got, buf, n);
}
/* bytes-like input of any length (put streams it all, in chunks) */
int kfpy_arg_data_len(PyObject *o, const char *method, Py_buffer *view,
		      int *got, const void **buf, Py_ssize_t *n);
/* writable contiguous output buffer, exported into @view */
int kfpy_arg_writable(PyObject *o, const char *method, Py_buffer *view,
		      const char *name, void **buf, unsigned int *n);
/* a kfifo.SpinLock */
int kfpy_arg_lock(PyObject *o, const char *method, kfpy_spinlock **out);

/* ---- Kfifo methods (each returns a new reference or NULL) --------------- */

PyObject *kfpy_in(kfpy_kfifo *k, const void *from, unsigned int n);
PyObject *kfpy_from_user(kfpy_kfifo *k, const void *from, unsigned int n);
PyObject *kfpy_in_rec(kfpy_kfifo *k, const void *from, unsigned int n,
		      unsigned int recsize);
PyObject *kfpy_from_user_rec(kfpy_kfifo *k, const void *from,
			     unsigned int n, unsigned int recsize);
PyObject *kfpy_in_locked(kfpy_kfifo *k, const void *from, unsigned int n,
			 kfpy_spinlock *lock);
PyObject *kfpy_out(kfpy_kfifo *k, unsigned int n);
PyObject *kfpy_to_user(kfpy_kfifo *k, unsigned int n);
PyObject *kfpy_out_locked(kfpy_kfifo *k, unsigned int n, kfpy_spinlock *lock);
PyObject *kfpy_out_into(kfpy_kfifo *k, void *to, unsigned int n);
PyObject *kfpy_out_rec(kfpy_kfifo *k, unsigned int n, unsigned int recsize);
PyObject *kfpy_to_user_rec(kfpy_kfifo *k, unsigned int n,
			   unsigned int recsize);
PyObject *kfpy_peek_rec(kfpy_kfifo *k, unsigned int recsize);
PyObject *kfpy_skip(kfpy_kfifo *k, unsigned int n);
PyObject *kfpy_skip_rec(kfpy_kfifo *k, unsigned int recsize);
PyObject *kfpy_reset_out(kfpy_kfifo *k);
PyObject *kfpy_reset(kfpy_kfifo *k);
PyObject *kfpy_free(kfpy_kfifo *k);
PyObject *kfpy_len(kfpy_kfifo *k);
PyObject *kfpy_size(kfpy_kfifo *k);
PyObject *kfpy_avail(kfpy_kfifo *k);
PyObject *kfpy_is_empty(kfpy_kfifo *k);
PyObject *kfpy_is_full(kfpy_kfifo *k);
PyObject *kfpy_valid(kfpy_kfifo *k);
/* blocking calls and end of stream (API.md 3.4); timeout: seconds or None */
PyObject *kfpy_put(kfpy_kfifo *k, const void *from, Py_ssize_t n,
		   PyObject *timeout);
PyObject *kfpy_get(kfpy_kfifo *k, unsigned int n, PyObject *timeout);
PyObject *kfpy_get_into(kfpy_kfifo *k, void *to, unsigned int n,
			PyObject *timeout);
PyObject *kfpy_get_exactly(kfpy_kfifo *k, unsigned int n, PyObject *timeout);
PyObject *kfpy_put_rec(kfpy_kfifo *k, const void *from, unsigned int n,
		       unsigned int recsize, PyObject *timeout);
PyObject *kfpy_get_rec(kfpy_kfifo *k, unsigned int recsize, PyObject *timeout);
PyObject *kfpy_records(kfpy_kfifo *k, unsigned int recsize);
PyObject *kfpy_wait_avail(kfpy_kfifo *k, unsigned int n, PyObject *timeout);
PyObject *kfpy_wait_len(kfpy_kfifo *k, unsigned int n, PyObject *timeout);
PyObject *kfpy_close(kfpy_kfifo *k);
/* zero-copy (API.md 3.3): two memoryviews over the ring, and finishing */
PyObject *kfpy_in_prepare(kfpy_kfifo *k, unsigned int n);
PyObject *kfpy_in_finish(kfpy_kfifo *k, unsigned int n);
PyObject *kfpy_out_prepare(kfpy_kfifo *k, unsigned int n);
PyObject *kfpy_out_finish(kfpy_kfifo *k, unsigned int n);

/* These take the object itself: they work on any Kfifo, even a freed or
 * uninitialised one. */
PyObject *kfpy_is_freed(PyObject *self);
PyObject *kfpy_enter(PyObject *self);
PyObject *kfpy_exit(PyObject *self, PyObject *exc_type, PyObject *exc,
		    PyObject *tb);
PyObject *kfpy_reduce_ex(PyObject *self, PyObject *protocol);

PyObject *kfpy_spin_locked(PyObject *self);

/*
 * Make the types ready with the given method tables (owned by the caller,
 * static) and add them to @module as Kfifo and SpinLock, with the constant
 * GIL_THRESHOLD.
 */
int kfpy_types_init(PyObject *module, PyMethodDef *kfifo_methods,
		    PyMethodDef *spinlock_methods);

#ifdef __cplusplus
}
#endif

#endif /* KFIFO_PY_H */
