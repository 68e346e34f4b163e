/* SPDX-License-Identifier: MIT */
/*
 * kfpy_args.c - argument conversion for the typemaps of kfifo.i and for
 * Kfifo(): each returns 0, or -1 with an exception naming the method and
 * the argument.
 */
#include "kfpy_internal.h"

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

/* kfpy_arg_live() on a freed fifo */
int kfpy_arg_freed(const char *method)
{
	kf_freed_error(method);
	return -1;
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

int kfpy_arg_recsize_slow(PyObject *o, const char *method, unsigned int *out)
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

/* Turn a failed PyObject_GetBuffer into the error 2.1 promises. */
static void kf_buffer_error(PyObject *o, const char *method, const char *name,
			    int writable)
{
	kf_exc_saved cause;
	Py_buffer v;

	if (!PyObject_CheckBuffer(o)) {
		kf_exc_save(&cause);
		PyErr_Format(PyExc_TypeError,
			     "Kfifo.%s(): %s must be a %sbytes-like object, not "
			     "%.100s", method, name, writable ? "writable " : "",
			     Py_TYPE(o)->tp_name);
		kf_exc_chain(&cause);
		return;
	}
	kf_exc_save(&cause);
	if (PyObject_GetBuffer(o, &v, PyBUF_FULL_RO) < 0) {
		/* the exporter's own error says it best */
		kf_exc_chain(&cause);
		return;
	}
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
	kf_exc_chain(&cause);
	PyBuffer_Release(&v);
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

/* kfpy_arg_data() beyond its inline case: a bytes object too long for a
 * count, or any other exporter.  A buffer longer than 2**32 - 1 bytes is
 * offered as 2**32 - 1 bytes: no call but put() (which takes the whole
 * length) can store more, and the count it returns says what it took. */
int kfpy_arg_data_slow(PyObject *o, const char *method, Py_buffer *view,
		       int *got, const void **buf, unsigned int *n)
{
	Py_ssize_t len = 0;

	if (kfpy_arg_data_len(o, method, view, got, buf, &len) < 0)
		return -1;
	*n = kf_clamp(len);
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

/* size: 1 .. 2**31, or a ValueError naming it */
int kf_size_arg(PyObject *size, unsigned int *out)
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
int kf_start_arg(PyObject *start, unsigned int *out)
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

/* ---- METH_FASTCALL wrappers: the FAST_* entries of kfpy_methods.h ------------------- */

/*
 * The hot calls skip SWIG's METH_VARARGS wrappers, which build a tuple of
 * the arguments (and parse keywords through a dictionary) on every call:
 * these get the arguments as the interpreter holds them and convert them
 * with the typemaps' own functions, in the same order (self, the count of
 * arguments, then each argument), so errors are the same.  What that
 * saves, measured on a probe type (bench/results/swig-modes.md): SWIG's
 * call of two arguments costs about 500 instructions more than a
 * METH_FASTCALL one with the same body, of which about 100-125 find self.
 */

static int kf_nargs(const char *method, Py_ssize_t nargs, Py_ssize_t want)
{
	if (nargs == want)
		return 0;
	PyErr_Format(PyExc_TypeError,
		     "Kfifo.%s() takes exactly %zd argument%s (%zd given)",
		     method, want, want == 1 ? "" : "s", nargs);
	return -1;
}

/*
 * Arguments by position or by keyword: out[i] is the one named names[i]
 * (a NULL-terminated list), NULL when not given; the first @required must
 * be.  0, or -1 with CPython's TypeError for the mistake.
 */
static int kf_kwargs_slow(const char *method, PyObject *const *args,
			  Py_ssize_t nargs, PyObject *kwnames,
			  const char *const *names, Py_ssize_t required,
			  Py_ssize_t max, PyObject **out)
{
	Py_ssize_t i, j;

	if (nargs > max) {
		PyErr_Format(PyExc_TypeError,
			     "Kfifo.%s() takes at most %zd arguments (%zd given)",
			     method, max, nargs);
		return -1;
	}
	for (i = 0; i < max; i++)
		out[i] = i < nargs ? args[i] : NULL;
	for (j = 0; kwnames != NULL && j < PyTuple_GET_SIZE(kwnames); j++) {
		PyObject *key = PyTuple_GET_ITEM(kwnames, j);

		for (i = 0; i < max; i++)
			if (PyUnicode_CompareWithASCIIString(key, names[i]) == 0)
				break;
		if (i == max) {
			PyErr_Format(PyExc_TypeError,
				     "Kfifo.%s() got an unexpected keyword argument "
				     "'%U'", method, key);
			return -1;
		}
		if (out[i] != NULL) {
			PyErr_Format(PyExc_TypeError,
				     "Kfifo.%s() got multiple values for argument "
				     "'%s'", method, names[i]);
			return -1;
		}
		out[i] = args[nargs + j];
	}
	for (i = 0; i < required; i++) {
		if (out[i] == NULL) {
			PyErr_Format(PyExc_TypeError,
				     "Kfifo.%s() missing required argument '%s' "
				     "(pos %zd)", method, names[i], i + 1);
			return -1;
		}
	}
	return 0;
}

/* The common case inline: all by position, none missing. */
static inline int kf_kwargs(const char *method, PyObject *const *args,
			    Py_ssize_t nargs, PyObject *kwnames,
			    const char *const *names, Py_ssize_t required,
			    Py_ssize_t max, PyObject **out)
{
	Py_ssize_t i;

	if (kwnames != NULL || nargs < required || nargs > max)
		return kf_kwargs_slow(method, args, nargs, kwnames, names,
				      required, max, out);
	for (i = 0; i < max; i++)
		out[i] = i < nargs ? args[i] : NULL;
	return 0;
}

/* the number of names in a NULL-terminated list of them */
#define KF_NNAMES(names) ((Py_ssize_t)(sizeof(names) / sizeof(names[0]) - 1))

/* timeout=None when left out */
#define KF_TIMEOUT(o) ((o) != NULL ? (o) : Py_None)

PyObject *kfpy_in_rec_fast(PyObject *self, PyObject *const *args,
			   Py_ssize_t nargs)
{
	static const char method[] = "in_rec";
	PyObject *res = NULL;
	unsigned int n = 0, recsize;
	const void *buf = NULL;
	Py_buffer view;
	kfpy_kfifo *k;
	int got = 0;

	if (kfpy_arg_self(self, method, &k) < 0 ||
	    kf_nargs(method, nargs, 2) < 0 ||
	    kfpy_arg_data(args[0], method, &view, &got, &buf, &n) < 0)
		return NULL;
	if (kfpy_arg_recsize(args[1], method, &recsize) == 0 &&
	    kfpy_arg_live(k, method) == 0) {
		unsigned int r;

		res = kf_in_rec_fast(k, buf, n, recsize, &r)
			      ? PyLong_FromLong((long)r)	/* r <= n + 1 < 2**31 */
			      : kfpy_in_rec(k, buf, n, recsize);
	}
	if (got)
		PyBuffer_Release(&view);
	return res;
}

PyObject *kfpy_out_rec_fast(PyObject *self, PyObject *const *args,
			    Py_ssize_t nargs)
{
	static const char method[] = "out_rec";
	unsigned int n = 0, recsize;
	kfpy_kfifo *k;

	if (kfpy_arg_self(self, method, &k) < 0 ||
	    kf_nargs(method, nargs, 2) < 0 ||
	    kfpy_arg_count(args[0], method, "n", &n) < 0 ||
	    kfpy_arg_recsize(args[1], method, &recsize) < 0 ||
	    kfpy_arg_live(k, method) < 0)
		return NULL;
	return kfpy_out_rec(k, n, recsize);
}

PyObject *kfpy_put_fast(PyObject *self, PyObject *const *args,
			Py_ssize_t nargs, PyObject *kwnames)
{
	static const char method[] = "put";
	static const char *const names[] = { "data", "timeout", NULL };
	PyObject *a[2], *res;
	const void *buf = NULL;
	Py_buffer view;
	kfpy_kfifo *k;
	Py_ssize_t n = 0;
	int got = 0;

	if (kfpy_arg_self(self, method, &k) < 0 ||
	    kf_kwargs(method, args, nargs, kwnames, names, 1,
		      KF_NNAMES(names), a) < 0 ||
	    kfpy_arg_data_len(a[0], method, &view, &got, &buf, &n) < 0)
		return NULL;
	res = kfpy_arg_live(k, method) < 0
		      ? NULL
		      : kfpy_put(k, method, buf, n, KF_TIMEOUT(a[1]));
	if (got)
		PyBuffer_Release(&view);
	return res;
}

PyObject *kfpy_get_fast(PyObject *self, PyObject *const *args,
			Py_ssize_t nargs, PyObject *kwnames)
{
	static const char method[] = "get";
	static const char *const names[] = { "n", "timeout", NULL };
	PyObject *a[2];
	kfpy_kfifo *k;
	unsigned int n;

	if (kfpy_arg_self(self, method, &k) < 0 ||
	    kf_kwargs(method, args, nargs, kwnames, names, 1,
		      KF_NNAMES(names), a) < 0 ||
	    kfpy_arg_count(a[0], method, "n", &n) < 0 ||
	    kfpy_arg_live(k, method) < 0)
		return NULL;
	return kfpy_get(k, method, n, KF_TIMEOUT(a[1]));
}

/* put_rec's general path: every argument form, the checks in order, the
 * wait for room (kept out of line so that the common case below saves no
 * registers and reserves no Py_buffer on the stack) */
static __attribute__((noinline)) PyObject *
kf_put_rec_general(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
		   PyObject *kwnames)
{
	static const char method[] = "put_rec";
	static const char *const names[] = { "data", "recsize", "timeout", NULL };
	PyObject *a[3], *res = NULL;
	unsigned int n = 0, recsize;
	const void *buf = NULL;
	Py_buffer view;
	kfpy_kfifo *k;
	int got = 0;

	if (kfpy_arg_self(self, method, &k) < 0 ||
	    kf_kwargs(method, args, nargs, kwnames, names, 2,
		      KF_NNAMES(names), a) < 0 ||
	    kfpy_arg_data(a[0], method, &view, &got, &buf, &n) < 0)
		return NULL;
	if (kfpy_arg_recsize(a[1], method, &recsize) == 0 &&
	    kfpy_arg_live(k, method) == 0)
		res = kfpy_put_rec(k, method, buf, n, recsize,
				   KF_TIMEOUT(a[2]));
	if (got)
		PyBuffer_Release(&view);
	return res;
}

/*
 * The common case first: put_rec(bytes, recsize) by position on an
 * initialised Kfifo with room now and the fifo open.  No timeout to check
 * (None), and a record that was stored could fit; anything else (no room,
 * closed, an error to raise) takes the general path, which checks it all
 * in order.  This is the producer's whole per-record cost between two
 * threads, so it is one flat test and one call into the core, which
 * also refuses a closed fifo (kfifo__in_rec_open).
 */
PyObject *kfpy_put_rec_fast(PyObject *self, PyObject *const *args,
			    Py_ssize_t nargs, PyObject *kwnames)
{
	kfpy_kfifo *k = (kfpy_kfifo *)self;
	unsigned int recsize;
	PyObject *data;

	if (__builtin_expect(kwnames == NULL, 1) &&
	    (nargs == 2 || (nargs == 3 && args[2] == Py_None)) &&
	    Py_IS_TYPE(self, &kfpy_KfifoType) && k->st != NULL &&
	    k->fork_gen == kfpy_fork_gen) {
		data = args[0];
		/* kf_in_fast_ok()'s tests but the overlap: the bytes of a
		 * bytes object are never the ring (its memory is the
		 * object's own; a ring is malloc'd, a shared mapping or a
		 * buffer exported writable, which a bytes never is) */
		if (PyBytes_CheckExact(data) &&
		    (size_t)PyBytes_GET_SIZE(data) < KFPY_GIL_THRESHOLD &&
		    kfpy_small_uint(args[1], &recsize) && recsize <= 2 &&
		    !k->freed && kf_side_idle(&k->st->prod) &&
		    kfifo__in_rec_open(&k->st->fifo, PyBytes_AS_STRING(data),
				       (unsigned int)PyBytes_GET_SIZE(data),
				       recsize) == 0)
			Py_RETURN_NONE;
	}
	return kf_put_rec_general(self, args, nargs, kwnames);
}

/* get_rec's general path (out of line, as put_rec's): every argument
 * form, the checks in order, the wait for a record */
static __attribute__((noinline)) PyObject *
kf_get_rec_general(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
		   PyObject *kwnames)
{
	static const char method[] = "get_rec";
	static const char *const names[] = { "recsize", "timeout", NULL };
	unsigned int recsize;
	PyObject *a[2];
	kfpy_kfifo *k;

	if (kfpy_arg_self(self, method, &k) < 0 ||
	    kf_kwargs(method, args, nargs, kwnames, names, 1,
		      KF_NNAMES(names), a) < 0 ||
	    kfpy_arg_recsize(a[0], method, &recsize) < 0 ||
	    kfpy_arg_live(k, method) < 0)
		return NULL;
	return kfpy_get_rec(k, method, recsize, KF_TIMEOUT(a[1]));
}

/*
 * The common case first: get_rec(recsize) by position with a record
 * stored (no timeout to check): into the last record's bytes when nobody
 * holds them and the lengths match (kf_take_rec_reuse, one core call),
 * else through the region calls (kf_take_rec_fast); anything else takes
 * the general path, which waits.  The consumer's whole per-record cost
 * between two threads.
 */
PyObject *kfpy_get_rec_fast(PyObject *self, PyObject *const *args,
			    Py_ssize_t nargs, PyObject *kwnames)
{
	kfpy_kfifo *k = (kfpy_kfifo *)self;
	unsigned int recsize, l;
	PyObject *data;

	if (__builtin_expect(kwnames == NULL, 1) &&
	    (nargs == 1 || (nargs == 2 && args[1] == Py_None)) &&
	    Py_IS_TYPE(self, &kfpy_KfifoType) && k->st != NULL &&
	    k->fork_gen == kfpy_fork_gen && kfpy_small_uint(args[0], &recsize)) {
		if (kf_take_rec_reuse(k, recsize, &data))
			return data;
		switch (kf_take_rec_fast(k, recsize, UINT_MAX, &data, &l)) {
		case 1:
			return data;
		case -1:
			return NULL;
		}
	}
	return kf_get_rec_general(self, args, nargs, kwnames);
}

PyObject *kfpy_put_recs_fast(PyObject *self, PyObject *const *args,
			     Py_ssize_t nargs, PyObject *kwnames)
{
	static const char method[] = "put_recs";
	static const char *const names[] = { "records", "recsize", "timeout", NULL };
	unsigned int recsize;
	PyObject *a[3];
	kfpy_kfifo *k;

	if (kfpy_arg_self(self, method, &k) < 0 ||
	    kf_kwargs(method, args, nargs, kwnames, names, 2,
		      KF_NNAMES(names), a) < 0 ||
	    kfpy_arg_recsize(a[1], method, &recsize) < 0 ||
	    kfpy_arg_live(k, method) < 0)
		return NULL;
	return kfpy_put_recs(k, method, a[0], recsize, KF_TIMEOUT(a[2]));
}

PyObject *kfpy_get_recs_fast(PyObject *self, PyObject *const *args,
			     Py_ssize_t nargs, PyObject *kwnames)
{
	static const char method[] = "get_recs";
	static const char *const names[] = { "max", "recsize", "timeout", NULL };
	unsigned int max, recsize;
	PyObject *a[3];
	kfpy_kfifo *k;

	if (kfpy_arg_self(self, method, &k) < 0 ||
	    kf_kwargs(method, args, nargs, kwnames, names, 2,
		      KF_NNAMES(names), a) < 0 ||
	    kfpy_arg_count(a[0], method, "max", &max) < 0 ||
	    kfpy_arg_recsize(a[1], method, &recsize) < 0 ||
	    kfpy_arg_live(k, method) < 0)
		return NULL;
	return kfpy_get_recs(k, method, max, recsize, KF_TIMEOUT(a[2]));
}
