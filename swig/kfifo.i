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
 *
 * Why the types are not SWIG's own (-builtin, or a proxy class): measured
 * in bench/results/swig-modes.md.  A -builtin call costs 100-125 more
 * instructions than the same body in a hand type (about 500 more with two
 * arguments), a -builtin object used before __init__ crashes the
 * interpreter, every object carries SwigPyObject's disown(), append() and
 * thisown, and SWIG's docstrings lose the text signatures; a proxy class
 * costs 2.4-9.8 times the call.
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

/*
 * The conversions, each keyed on one of the argument kinds of kfifo_py.h,
 * never on a parameter's name.  SWIG is not told what the kinds are
 * typedefs of, so a parameter of a raw C type (unsigned int, PyObject *)
 * gets none of these conversions; tests/test_binding_safety.py refuses
 * one in kfpy_methods.h.
 */

/* The object the method is called on (see the top of the file).  A
 * kfpy_live self is refused once freed by its `check` typemap, which SWIG
 * runs after every argument is converted: a conversion can run Python
 * code (__index__, a buffer export) that frees the fifo. */
%typemap(in, numinputs=0) kfpy_live *, kfpy_any_kfifo * {
	if (kfpy_arg_self(self, "$symname", &$1) < 0)
		SWIG_fail;
}
%typemap(check) kfpy_live * {
	if (kfpy_arg_live($1, "$symname") < 0)
		SWIG_fail;
}
%typemap(in, numinputs=0) kfpy_pyself * "$1 = self;"

/* The method's own name, for the messages of a body that names it more
 * than once (a FAST_* wrapper passes its own): typed once, in the table. */
%typemap(in, numinputs=0) kfpy_method "$1 = \"$symname\";"

/*
 * A buffer and its length are one Python argument.  SWIG matches a
 * multi-argument typemap only with the first parameter's name, so the
 * buffer is always named (data for input, buffer for output, the
 * keywords the blocking calls take); a buffer under another name, or a
 * length without its buffer, gets the #error typemaps below and does not
 * compile.
 */
%typemap(in) (kfpy_inbuf data, kfpy_buflen) (Py_buffer view, int got = 0, const void *buf = NULL) {
	if (kfpy_arg_data($input, "$symname", &view, &got, &buf, &$2) < 0)
		SWIG_fail;
	$1 = buf;
}
%typemap(freearg) (kfpy_inbuf data, kfpy_buflen) {
	if (got$argnum)
		PyBuffer_Release(&view$argnum);
}

/* put() takes any length: a Py_ssize_t, never clamped */
%typemap(in) (kfpy_inbuf data, kfpy_streamlen) (Py_buffer view, int got = 0, const void *buf = NULL) {
	if (kfpy_arg_data_len($input, "$symname", &view, &got, &buf, &$2) < 0)
		SWIG_fail;
	$1 = buf;
}
%typemap(freearg) (kfpy_inbuf data, kfpy_streamlen) {
	if (got$argnum)
		PyBuffer_Release(&view$argnum);
}

%typemap(in) (kfpy_outbuf buffer, kfpy_buflen) (Py_buffer view, int got = 0) {
	if (kfpy_arg_writable($input, "$symname", &view, "buffer", &$1, &$2) < 0)
		SWIG_fail;
	got = 1;
}
%typemap(freearg) (kfpy_outbuf buffer, kfpy_buflen) {
	if (got$argnum)
		PyBuffer_Release(&view$argnum);
}

%typemap(in) kfpy_inbuf, kfpy_outbuf, kfpy_buflen, kfpy_streamlen
	"#error a kfpy_inbuf must be named data, a kfpy_outbuf buffer, each followed by its length"

/* the argument's name in the message is the parameter's: the keyword */
%typemap(in) kfpy_count {
	if (kfpy_arg_count($input, "$symname", "$1_name", &$1) < 0)
		SWIG_fail;
}

%typemap(in) kfpy_recsize {
	if (kfpy_arg_recsize($input, "$symname", &$1) < 0)
		SWIG_fail;
}

%typemap(in) kfpy_spinlock * {
	if (kfpy_arg_lock($input, "$symname", &$1) < 0)
		SWIG_fail;
}

/* timeout=None (seconds); kfpy_wait.c checks it, naming the method */
%typemap(default) kfpy_timeout "$1 = Py_None;"
%typemap(in) kfpy_timeout "$1 = $input;"
/* a flag such as get_into(..., whole=False): the body checks it is a bool */
%typemap(default) kfpy_flag "$1 = Py_False;"
%typemap(in) kfpy_flag "$1 = $input;"

/* Any object: Kfifo.notifier(direction) and put_recs(records) check it,
 * naming the method; __exit__ and __reduce_ex__ accept and ignore theirs. */
%typemap(in) kfpy_object "$1 = $input;"

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
