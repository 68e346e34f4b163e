/* SPDX-License-Identifier: MIT */
/*
 * kfifo.i - SWIG interface of the private extension module kfifo._kfifo.
 *
 * Users see kfifo.Kfifo and kfifo.SpinLock (python/kfifo/__init__.py).  The
 * types themselves, and everything that runs between Python and the C core
 * (threads, GIL, buffers), are plain C in kfifo_py.h and the kfpy_*.c
 * files, built by CMake with the core's warnings and sanitizers.  This file holds what SWIG is
 * for: the typemaps that turn Python arguments into C ones, with errors
 * that name the method and the argument, and the method table.
 *
 * How the two meet: kfpy_methods.h declares every method once; for each
 * entry SWIG wraps the C function as a module-level function named after
 * the Python method (so that its own messages, such as "skip_rec expected
 * 1 argument, got 2", name the method), with METH_O or METH_NOARGS where
 * the arity allows.  The hot calls with more arguments (FAST_* entries)
 * are not SWIG's: their METH_FASTCALL wrappers in kfpy_args.c convert
 * with the same functions as the typemaps below, without the argument
 * tuple and keyword dictionary SWIG's METH_VARARGS wrappers build.  The typemap of `self` reads the wrapper's first C
 * argument, which is the object the method is called on once the wrapper
 * sits in the type's method table.  kfpy_types_init() (kfpy_type.c) builds
 * the two types' tables from the same entries (names, docstrings) and the
 * module's functions, through the public C API only, and takes the
 * functions out of the module: it exports only the types and two
 * constants (VERSION; GIL_THRESHOLD), and the types only their documented
 * methods (no SWIG proxy object, no `this`, no `thisown`).
 */
%module(package="kfifo") _kfifo

/* len() is a method name here, not a use of the builtin */
#pragma SWIG nowarn=321

%begin %{
#define PY_SSIZE_T_CLEAN
%}

/*
 * How %init fails.  SWIG before 4.4 makes a single-phase init function
 * that returns the module (NULL on failure); 4.4 and later a multi-phase
 * exec function that returns an int (-1 on failure).
 */
%{
#if SWIG_VERSION >= 0x040400
#define KFPY_INIT_FAIL return -1
#else
#define KFPY_INIT_FAIL return NULL
#endif
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

/* timeout=None (seconds); kfpy_wait.c checks it, naming the method */
%typemap(default) PyObject *timeout "$1 = Py_None;"
%typemap(in) PyObject *timeout "$1 = $input;"
/* get_into(..., whole=False): kfpy_wait.c checks it is a bool */
%typemap(default) PyObject *whole "$1 = Py_False;"
%typemap(in) PyObject *whole "$1 = $input;"

/* Arguments a method accepts and ignores (__exit__, __reduce_ex__). */
%typemap(in) PyObject *exc_type, PyObject *exc, PyObject *tb, PyObject *protocol "$1 = $input;"

/* Kfifo.notifier(direction): kfpy_notify.c checks it, naming the method */
%typemap(in) PyObject *direction "$1 = $input;"

%constant const char *VERSION = KFIFO_VERSION_STRING;

/* ---- the methods: one SWIG declaration per entry of kfpy_methods.h --------------- */

%define KFPY_SWIG_POS(name, c_function, params)
%rename(name) c_function;
PyObject *c_function params;
%enddef
%define KFPY_SWIG_KW(name, c_function, params)
%rename(name) c_function;
%feature("kwargs") c_function;
PyObject *c_function params;
%enddef
/* the FAST_* entries have their own METH_FASTCALL wrappers (kfpy_args.c) */
%define KFPY_SWIG_FAST_POS(name, c_function, params) %enddef
%define KFPY_SWIG_FAST_KW(name, c_function, params) %enddef
%define KFPY_METHOD(type, name, c_function, kw, params, doc)
KFPY_SWIG_##kw(name, c_function, params)
%enddef
%include "kfpy_methods.h"

/* ---- the types ----------------------------------------------------------------- */

%init %{
	if (kfpy_types_init(m) < 0)
		KFPY_INIT_FAIL;
%}
