/* SPDX-License-Identifier: MIT */
/*
 * kfifo_py.h - what the SWIG wrapper (kfifo.i) sees of the binding's own
 * C: the object behind kfifo.Kfifo, the argument conversions its typemaps
 * call, the methods (declared once, in kfpy_methods.h) and the module
 * set-up.  The rest is in kfpy_internal.h and the kfpy_*.c files, one per
 * concern, compiled by CMake with the core's warnings and sanitizers
 * (target kfifo_py), never by setuptools.
 *
 * Nothing here is FIFO logic: every decision about bytes and records is
 * the C core's.
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
 * The GIL is released around copies of at least this many bytes (measured:
 * below 64 KiB the hand-off costs more than it saves).
 */
#ifndef KFPY_GIL_THRESHOLD
#define KFPY_GIL_THRESHOLD 65536u
#endif

typedef struct kfpy_spinlock kfpy_spinlock;

/* The object behind a kfifo.Kfifo (here only for the inline fast paths
 * below; only the kfpy_*.c files read or write its fields). */
typedef struct kfpy_kfifo {
	PyObject_HEAD
	struct kfpy_state *st; /* NULL until __init__, and after abandoning it at exit */
	int freed;             /* free() ran: every call raises */
	int has_view;          /* view holds the object of Kfifo(buffer=obj) */
	Py_buffer view;
	Py_ssize_t regions;    /* region objects of in_prepare/out_prepare alive */
	PyObject *block;       /* shared fifo: its _Block (kfpy_shm.c); view is its buffer */
	unsigned long fork_gen; /* kfpy_fork_gen when the per-process state was last valid */
	PyObject *rec_result;  /* out_rec's last (ret, data, total), for reuse (kfpy_io.c) */
	PyObject *last_rec[2]; /* get_rec's last short records, for reuse (kf_rec_bytes) */
	int last_next;         /* the slot of last_rec the next new one goes to */
} kfpy_kfifo;

extern PyTypeObject kfpy_KfifoType;

/*
 * Bumped in the child of every fork() (pthread_atfork).  A Kfifo whose
 * fork_gen differs was made in the parent: the threads its side flags,
 * gates and waiter count describe do not exist here, so they are reset
 * before the object is used (kfpy_arg_self_slow).
 */
extern unsigned long kfpy_fork_gen;

/*
 * The binding's argument kinds.  kfifo.i chooses each conversion by these
 * types, never by a parameter's name, so a renamed parameter keeps its
 * conversion; every parameter of kfpy_methods.h has one of them (a test,
 * tests/test_binding_safety.py, holds it there).  Each is its plain C type.
 */
typedef const char *kfpy_method;      /* the method's Python name, for messages
					 * (SWIG's $symname, not an argument) */
typedef kfpy_kfifo kfpy_live;         /* self: initialised, not freed (checked after
					 * the other arguments: kfpy_arg_live) */
typedef kfpy_kfifo kfpy_any_kfifo;    /* self: initialised, perhaps freed (free()) */
typedef PyObject kfpy_pyself;         /* self, unconverted: the body checks it */
typedef unsigned int kfpy_count;      /* a count of bytes or records, 0 <= v < 2**32 */
typedef unsigned int kfpy_recsize;    /* a record header's size: 0, 1 or 2 */
typedef const void *kfpy_inbuf;       /* bytes-like input, with its length next */
typedef unsigned int kfpy_buflen;     /* the length of the buffer before it, < 2**32 */
typedef Py_ssize_t kfpy_streamlen;    /* the length of an input put() streams, any size */
typedef void *kfpy_outbuf;            /* a writable buffer, with its length next */
typedef PyObject *kfpy_timeout;       /* timeout=None: the body checks it */
typedef PyObject *kfpy_flag;          /* a keyword flag, default False: the body checks it */
typedef PyObject *kfpy_object;        /* any object, passed as it is: the body checks it
					 * (or ignores it: __exit__, __reduce_ex__) */

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

int kfpy_arg_freed(const char *method);

/*
 * The one check that a Kfifo method's self is not freed.  It runs after
 * every other argument is converted (the `check` typemap of kfpy_live;
 * the end of each FAST_* wrapper): a conversion can run Python code
 * (__index__, a buffer export) that frees the fifo.
 */
static inline int kfpy_arg_live(const kfpy_kfifo *k, const char *method)
{
	return k->freed ? kfpy_arg_freed(method) : 0;
}

/* Both at once, for what has no typemap: the type's slots and properties,
 * and a method that returns its self object (__enter__). */
static inline int kfpy_arg_self_live(PyObject *self, const char *method,
				     kfpy_kfifo **out)
{
	if (kfpy_arg_self(self, method, out) < 0)
		return -1;
	return kfpy_arg_live(*out, method);
}

/* A small non-negative exact int (< 2**32), read without a call: 1 and
 * its value in *out; 0 for anything else. */
static inline int kfpy_small_uint(PyObject *o, unsigned int *out)
{
#if PY_VERSION_HEX >= 0x030C0000
	if (PyLong_CheckExact(o) && PyUnstable_Long_IsCompact((PyLongObject *)o)) {
		Py_ssize_t c = PyUnstable_Long_CompactValue((PyLongObject *)o);

		if (c >= 0 && (size_t)c <= 0xffffffffu) {
			*out = (unsigned int)c;
			return 1;
		}
	}
#elif !defined(Py_LIMITED_API)
	if (PyLong_CheckExact(o) && (Py_SIZE(o) == 0 || Py_SIZE(o) == 1)) {
		*out = Py_SIZE(o) ? (unsigned int)((PyLongObject *)o)->ob_digit[0] : 0u;
		return 1;
	}
#endif
	return 0;
}

/* a count: int-like, 0 <= v < 2**32 (ValueError / OverflowError) */
static inline int kfpy_arg_count(PyObject *o, const char *method,
				 const char *name, unsigned int *out)
{
	if (kfpy_small_uint(o, out))
		return 0;
	return kfpy_arg_count_slow(o, method, name, out);
}
int kfpy_arg_recsize_slow(PyObject *o, const char *method, unsigned int *out);

/* a recsize: 0, 1 or 2 (ValueError) */
static inline int kfpy_arg_recsize(PyObject *o, const char *method,
				   unsigned int *out)
{
	if (kfpy_small_uint(o, out) && *out <= 2)
		return 0;
	return kfpy_arg_recsize_slow(o, method, out);
}
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

/* ---- the methods: kfpy_methods.h declares each, once ------------------- */

/* Each returns a new reference, or NULL with an exception set.  The
 * FAST_* entries also have a METH_FASTCALL wrapper, c_function##_fast
 * (kfpy_args.c), which converts the arguments and calls the body. */
#define KFPY_FASTDECL_POS(c_function)
#define KFPY_FASTDECL_KW(c_function)
#define KFPY_FASTDECL_FAST_POS(c_function) \
	PyObject *c_function##_fast(PyObject *self, PyObject *const *args, \
				    Py_ssize_t nargs);
#define KFPY_FASTDECL_FAST_KW(c_function) \
	PyObject *c_function##_fast(PyObject *self, PyObject *const *args, \
				    Py_ssize_t nargs, PyObject *kwnames);
#define KFPY_METHOD(type, name, c_function, kw, params, doc) \
	PyObject *c_function params; KFPY_FASTDECL_##kw(c_function)
#include "kfpy_methods.h"
#undef KFPY_METHOD

/*
 * Make the types ready and add them to @module as Kfifo and SpinLock, with
 * the constant GIL_THRESHOLD.  Their methods are the functions of the
 * same names in @module (the wrappers SWIG made of kfpy_methods.h), which
 * are moved from the module into the types.
 */
int kfpy_types_init(PyObject *module);

#ifdef __cplusplus
}
#endif

#endif /* KFIFO_PY_H */
