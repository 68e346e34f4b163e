/* SPDX-License-Identifier: MIT */
/*
 * kfifo.i - SWIG interface of the private extension module kfifo._kfifo.
 *
 * Users see kfifo.Kfifo and kfifo.SpinLock (python/kfifo/__init__.py).  The
 * types themselves, and everything that runs between Python and the C core
 * (threads, GIL, buffers), are plain C in kfifo_py.{h,c}, built by CMake
 * with the core's warnings and sanitizers.  This file holds what SWIG is
 * for: the typemaps that turn Python arguments into C ones, with errors
 * that name the method and the argument, and the method table.
 *
 * How the two meet: SWIG wraps each kfpy_* function below as a module-level
 * function named after the Python method (so that its own messages, such as
 * "out_rec expected 2 arguments, got 1", name the method), with METH_O or
 * METH_NOARGS where the arity allows.  The typemap of `self` reads the
 * wrapper's first C argument, which is the object the method is called on
 * once the wrapper sits in the type's method table.  The %init code moves
 * the wrappers from the module into the tables of the two types: the
 * module exports only the types and two constants (VERSION; GIL_THRESHOLD,
 * from kfifo_py.c), and the types export
 * only their documented methods (no SWIG proxy object, no `this`, no
 * `thisown`).
 */
%module(package="kfifo") _kfifo

/* len() is a method name here, not a use of the builtin */
#pragma SWIG nowarn=321

%begin %{
#define PY_SSIZE_T_CLEAN
%}

%{
#include "kfifo_py.h"
%}

/* ---- typemaps ---------------------------------------------------------------- */

/* Every method returns a new reference or NULL with an exception set. */
%typemap(out) PyObject * {
	if ($1 == NULL)
		SWIG_fail;
	$result = $1;
}

/* The object the method is called on (see the top of the file). */
%typemap(in, numinputs=0) kfpy_kfifo *self {
	if (kfpy_arg_self(self, "$symname", &$1) < 0)
		SWIG_fail;
}
%typemap(in, numinputs=0) PyObject *self "$1 = self;"

%typemap(in) (const void *from, unsigned int n) (Py_buffer view, int got = 0, const void *buf = NULL) {
	if (kfpy_arg_data($input, "$symname", &view, &got, &buf, &$2) < 0)
		SWIG_fail;
	$1 = ($1_ltype)buf;
}
%typemap(freearg) (const void *from, unsigned int n) {
	if (got$argnum)
		PyBuffer_Release(&view$argnum);
}

%typemap(in) (void *to, unsigned int n) (Py_buffer view, int got = 0) {
	if (kfpy_arg_writable($input, "$symname", &view, "buffer", &$1, &$2) < 0)
		SWIG_fail;
	got = 1;
}
%typemap(freearg) (void *to, unsigned int n) {
	if (got$argnum)
		PyBuffer_Release(&view$argnum);
}

%typemap(in) unsigned int n {
	if (kfpy_arg_count($input, "$symname", "n", &$1) < 0)
		SWIG_fail;
}

%typemap(in) unsigned int recsize {
	if (kfpy_arg_recsize($input, "$symname", &$1) < 0)
		SWIG_fail;
}

%typemap(in) kfpy_spinlock *lock {
	if (kfpy_arg_lock($input, "$symname", &$1) < 0)
		SWIG_fail;
}

/* put() takes any length: a Py_ssize_t, never clamped */
%typemap(in) (const void *data, Py_ssize_t n) (Py_buffer view, int got = 0, const void *buf = NULL) {
	if (kfpy_arg_data_len($input, "$symname", &view, &got, &buf, &$2) < 0)
		SWIG_fail;
	$1 = ($1_ltype)buf;
}
%typemap(freearg) (const void *data, Py_ssize_t n) {
	if (got$argnum)
		PyBuffer_Release(&view$argnum);
}

/* The same conversions under the names the blocking calls take by keyword. */
%apply (const void *from, unsigned int n) { (const void *data, unsigned int n) };
%apply (void *to, unsigned int n) { (void *buffer, unsigned int n) };

/* timeout=None (seconds); kfifo_py.c checks it, naming the method */
%typemap(default) PyObject *timeout "$1 = Py_None;"
%typemap(in) PyObject *timeout "$1 = $input;"

/* Arguments a method accepts and ignores (__exit__, __reduce_ex__). */
%typemap(in) PyObject *ignored "$1 = $input;"

%include "kfifo_doc.i"

%constant const char *VERSION = KFIFO_VERSION_STRING;

/* ---- the method table of kfifo.Kfifo ------------------------------------------- */

%rename(in_) kfpy_in;
%rename(from_user) kfpy_from_user;
%rename(in_rec) kfpy_in_rec;
%rename(from_user_rec) kfpy_from_user_rec;
%rename(in_locked) kfpy_in_locked;
%rename(out) kfpy_out;
%rename(to_user) kfpy_to_user;
%rename(out_into) kfpy_out_into;
%rename(out_rec) kfpy_out_rec;
%rename(to_user_rec) kfpy_to_user_rec;
%rename(out_locked) kfpy_out_locked;
%rename(peek_rec) kfpy_peek_rec;
%rename(skip) kfpy_skip;
%rename(skip_rec) kfpy_skip_rec;
%rename(reset_out) kfpy_reset_out;
%rename(reset) kfpy_reset;
%rename(free) kfpy_free;
%rename(len) kfpy_len;
%rename(size) kfpy_size;
%rename(avail) kfpy_avail;
%rename(is_empty) kfpy_is_empty;
%rename(is_full) kfpy_is_full;
%rename(valid) kfpy_valid;
%rename(is_freed) kfpy_is_freed;
%rename(put) kfpy_put;
%rename(get) kfpy_get;
%rename(get_into) kfpy_get_into;
%rename(get_exactly) kfpy_get_exactly;
%rename(put_rec) kfpy_put_rec;
%rename(get_rec) kfpy_get_rec;
%rename(records) kfpy_records;
%rename(wait_avail) kfpy_wait_avail;
%rename(wait_len) kfpy_wait_len;
%rename(close) kfpy_close;
%rename(in_prepare) kfpy_in_prepare;
%rename(in_finish) kfpy_in_finish;
%rename(out_prepare) kfpy_out_prepare;
%rename(out_finish) kfpy_out_finish;
%rename(__enter__) kfpy_enter;
%rename(__exit__) kfpy_exit;
%rename(__reduce_ex__) kfpy_reduce_ex;

/* producer side */
PyObject *kfpy_in(kfpy_kfifo *self, const void *from, unsigned int n);
PyObject *kfpy_from_user(kfpy_kfifo *self, const void *from, unsigned int n);
PyObject *kfpy_in_rec(kfpy_kfifo *self, const void *from, unsigned int n,
		      unsigned int recsize);
PyObject *kfpy_from_user_rec(kfpy_kfifo *self, const void *from,
			     unsigned int n, unsigned int recsize);
PyObject *kfpy_in_locked(kfpy_kfifo *self, const void *from, unsigned int n,
			 kfpy_spinlock *lock);
/* consumer side */
PyObject *kfpy_out(kfpy_kfifo *self, unsigned int n);
PyObject *kfpy_to_user(kfpy_kfifo *self, unsigned int n);
PyObject *kfpy_out_into(kfpy_kfifo *self, void *to, unsigned int n);
PyObject *kfpy_out_rec(kfpy_kfifo *self, unsigned int n, unsigned int recsize);
PyObject *kfpy_to_user_rec(kfpy_kfifo *self, unsigned int n,
			   unsigned int recsize);
PyObject *kfpy_out_locked(kfpy_kfifo *self, unsigned int n,
			  kfpy_spinlock *lock);
PyObject *kfpy_peek_rec(kfpy_kfifo *self, unsigned int recsize);
PyObject *kfpy_skip(kfpy_kfifo *self, unsigned int n);
PyObject *kfpy_skip_rec(kfpy_kfifo *self, unsigned int recsize);
PyObject *kfpy_reset_out(kfpy_kfifo *self);
/* blocking calls and end of stream; timeout= may be given by keyword */
%feature("kwargs") kfpy_put;
%feature("kwargs") kfpy_get;
%feature("kwargs") kfpy_get_into;
%feature("kwargs") kfpy_get_exactly;
%feature("kwargs") kfpy_put_rec;
%feature("kwargs") kfpy_get_rec;
%feature("kwargs") kfpy_wait_avail;
%feature("kwargs") kfpy_wait_len;
PyObject *kfpy_put(kfpy_kfifo *self, const void *data, Py_ssize_t n,
		   PyObject *timeout);
PyObject *kfpy_get(kfpy_kfifo *self, unsigned int n, PyObject *timeout);
PyObject *kfpy_get_into(kfpy_kfifo *self, void *buffer, unsigned int n,
			PyObject *timeout);
PyObject *kfpy_get_exactly(kfpy_kfifo *self, unsigned int n, PyObject *timeout);
PyObject *kfpy_put_rec(kfpy_kfifo *self, const void *data, unsigned int n,
		       unsigned int recsize, PyObject *timeout);
PyObject *kfpy_get_rec(kfpy_kfifo *self, unsigned int recsize,
		       PyObject *timeout);
PyObject *kfpy_records(kfpy_kfifo *self, unsigned int recsize);
PyObject *kfpy_wait_avail(kfpy_kfifo *self, unsigned int n, PyObject *timeout);
PyObject *kfpy_wait_len(kfpy_kfifo *self, unsigned int n, PyObject *timeout);
PyObject *kfpy_close(kfpy_kfifo *self);
/* zero-copy: in_* on the producer side, out_* on the consumer side */
PyObject *kfpy_in_prepare(kfpy_kfifo *self, unsigned int n);
PyObject *kfpy_in_finish(kfpy_kfifo *self, unsigned int n);
PyObject *kfpy_out_prepare(kfpy_kfifo *self, unsigned int n);
PyObject *kfpy_out_finish(kfpy_kfifo *self, unsigned int n);
/* both sides */
PyObject *kfpy_reset(kfpy_kfifo *self);
PyObject *kfpy_free(kfpy_kfifo *self);
/* queries */
PyObject *kfpy_len(kfpy_kfifo *self);
PyObject *kfpy_size(kfpy_kfifo *self);
PyObject *kfpy_avail(kfpy_kfifo *self);
PyObject *kfpy_is_empty(kfpy_kfifo *self);
PyObject *kfpy_is_full(kfpy_kfifo *self);
PyObject *kfpy_valid(kfpy_kfifo *self);
PyObject *kfpy_is_freed(PyObject *self);
/* protocols */
PyObject *kfpy_enter(PyObject *self);
PyObject *kfpy_exit(PyObject *self, PyObject *ignored, PyObject *ignored,
		    PyObject *ignored);
PyObject *kfpy_reduce_ex(PyObject *self, PyObject *ignored);

/* ---- the method table of kfifo.SpinLock ---------------------------------------- */

%rename(locked) kfpy_spin_locked;
PyObject *kfpy_spin_locked(PyObject *self);

/* ---- the types ----------------------------------------------------------------- */

%init %{
	{
		/* SWIG's table ends with its own runtime helpers; ours are the
		 * entries named in the two lists below, in SWIG's order. */
		static const char *const spinlock_names[] = {"locked", NULL};
		static PyMethodDef kfifo_methods[sizeof(SwigMethods) / sizeof(SwigMethods[0])];
		static PyMethodDef spinlock_methods[2];
		PyObject *md = PyModule_GetDict(m);
		size_t i, nk = 0, ns = 0;

		for (i = 0; SwigMethods[i].ml_name != NULL; i++) {
			PyMethodDef def = SwigMethods[i];
			int spin = strcmp(def.ml_name, spinlock_names[0]) == 0;

			if (strncmp(def.ml_name, "SWIG_", 5) == 0 ||
			    strncmp(def.ml_name, "swig_", 5) == 0)
				continue;
			/* SWIG starts docstrings with a newline; the text
			 * signature ("name($self, ...)\n--\n\n") must come first */
			if (def.ml_doc != NULL && def.ml_doc[0] == '\n')
				def.ml_doc++;
			if (spin)
				spinlock_methods[ns++] = def;
			else
				kfifo_methods[nk++] = def;
			if (PyDict_DelItemString(md, SwigMethods[i].ml_name) < 0)
				PyErr_Clear();
		}
		if (kfpy_types_init(m, kfifo_methods, spinlock_methods) < 0)
			return NULL;
	}
%}
