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
	Py_ssize_t len;

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
