/* SPDX-License-Identifier: MIT */
/*
 * kfifo.i - SWIG interface of the private extension module kfifo._kfifo.
 *
 * Users see kfifo.Kfifo and kfifo.SpinLock (python/kfifo/__init__.py), thin
 * Python subclasses of the two builtin types defined here.  Everything that
 * is FIFO logic stays in the C core: this file only converts arguments,
 * sizes output buffers, serialises misuse and decides where the GIL is
 * released.  Build with `swig -python -builtin` (setup.py does).
 *
 * Why -builtin: the methods become C-level method descriptors of a static
 * type, so `f.in_(b)` costs one vectorcall and no Python frame.  A proxy
 * class (or any Python-level forwarding method) adds 50-100 ns per call,
 * the whole budget of the 16-byte in_+out benchmark (issue 6).
 *
 * ---- Threads: the side flags ----------------------------------------------
 *
 * The C core is safe for one producer and one consumer.  Python code can
 * call from any number of threads, so each side (producer, consumer) of a
 * wrapper has a busy flag, and every call of a side runs only while the
 * flag of its side is clear:
 *
 *   - Calls that never release the GIL (the common, small case) just check
 *     that the flag is clear.  Holding the GIL, nobody else can start or be
 *     half-way through a call that holds the GIL, so the check is enough and
 *     costs no atomic instruction.
 *   - A call that releases the GIL (a copy of at least KF_GIL_THRESHOLD
 *     bytes, or a wait for the user's SpinLock) first sets its side's flag
 *     and takes the side's gate lock, both under the GIL, and clears them
 *     after it has the GIL back.
 *   - A call that finds its side busy releases the GIL, blocks on the gate
 *     (and lets it go at once), takes the GIL back and checks again.
 *
 * The flags are read and written only under the GIL: that is the lock.
 * reset() and free() wait for both sides.  A call never waits for a gate
 * while holding the GIL, and a gate holder never needs anything but the
 * GIL, so nothing can deadlock.  This relies on the GIL: free-threaded
 * CPython is refused at compile time.
 *
 * Lock order: producer side, consumer side, then the user's SpinLock (taken
 * inside kfifo_in_locked/kfifo_out_locked only, and held there without
 * the GIL or any other lock being waited for).
 *
 * What that buys: two unlocked producers (or consumers) are serialised
 * instead of corrupting the indices; free() waits for calls in flight
 * and every later call raises ValueError; in - out never exceeds the size,
 * so every output buffer sized below is big enough for what the C core
 * copies.
 */
%module(package="kfifo") _kfifo

/* len() is a method name here, not a use of the builtin */
#pragma SWIG nowarn=321

%begin %{
#define PY_SSIZE_T_CLEAN
%}

%{
#include <kfifo.h>

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "pythread.h"

#if defined(Py_GIL_DISABLED)
#error "kfifo._kfifo serialises threads with the GIL; free-threaded CPython is not supported"
#endif

/*
 * The GIL is released around copies of at least this many bytes.
 *
 * Measured (issue 4 report): one thread, in_(x) then out(len(x)) for
 * len(x) = 64 B .. 128 KiB, on a build that always releases the GIL
 * (KFIFO_GIL_THRESHOLD=0, see setup.py) against one that never does;
 * best of 5 timeit repeats, median over 5-7 alternating process runs.
 * Releasing costs a fixed 150-300 ns per in_+out pair (the GIL hand-off
 * plus the side's gate lock): +65 % at 4 KiB, +25-35 % at 8-16 KiB,
 * +8-100 % (noisy) at 32 KiB, +4-5 % at 64 KiB, 0 % at 128 KiB.  The first
 * size under ~5 % is 64 KiB.  Smaller copies keep the GIL: between
 * threads they would spend more on the GIL hand-off than they save.
 */
#ifndef KF_GIL_THRESHOLD
#define KF_GIL_THRESHOLD 65536u
#endif

/* out(n) of at most this many bytes goes through a stack buffer */
#define KF_SMALL_OUT 256u

/* All fields but the gate are read and written only under the GIL. */
typedef struct {
	int busy;                 /* a call of this side runs without the GIL */
	unsigned long next_ticket;/* waiters take tickets ... */
	unsigned long serving;    /* ... and go in in order */
	PyThread_type_lock gate;  /* held by the busy call; waiters block on it */
} kf_side;

/*
 * The wrapper: the fifo and what keeps Python misuse from hurting it.
 * Allocated 64-byte aligned (struct kfifo puts in and out on cache lines
 * of their own and declares that alignment).
 */
typedef struct kfifo_py {
	struct kfifo fifo;
	kf_side prod;
	kf_side cons;
	int freed;                /* free() ran: every call raises */
	int has_view;             /* view holds Kfifo(buffer=obj) */
	Py_buffer view;           /* released by free() or dealloc */
} kfifo_py;

typedef struct kf_spinlock {
	kfifo_spinlock_t lock;
} kf_spinlock;

/* ---- side flags ---------------------------------------------------------- */

/*
 * Wait, without the GIL, for our turn on side @s: the side idle and every
 * earlier waiter gone in (tickets keep waiters in order, so a thread that
 * calls again and again cannot starve the others, nor free()).  GIL held
 * on entry and exit; nothing but @s's fields is touched without it.
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

/* Enter side @s: at once if it is idle and nobody waits, else in turn. */
static inline void kf_side_enter(kf_side *s)
{
	if (s->busy || s->serving != s->next_ticket)
		kf_side_wait_turn(s);
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

static PyObject *kf_freed_error(void)
{
	PyErr_SetString(PyExc_ValueError, "operation on a freed Kfifo");
	return NULL;
}

/* Enter side @s of @k, then refuse a freed fifo. */
static inline int kf_enter(kfifo_py *k, kf_side *s)
{
	kf_side_enter(s);
	if (k->freed) {
		kf_freed_error();
		return -1;
	}
	return 0;
}

/*
 * Have the whole fifo (reset, free): the producer side is claimed first,
 * so no producer gets in while we wait for the consumer side (lock order:
 * producer, then consumer).  Give it back with kf_side_release(&k->prod).
 */
static void kf_enter_both(kfifo_py *k)
{
	kf_side_enter(&k->prod);
	kf_side_claim(&k->prod);
	kf_side_enter(&k->cons);
}

/* ---- argument conversion ------------------------------------------------- */

/*
 * A count: any integer (int, bool, numpy integers: whatever has
 * __index__); negative -> ValueError, >= 2**32 -> OverflowError.
 */
static int kf_count(PyObject *o, const char *name, unsigned int *out)
{
	long long v;
	int overflow;

	/* fast path: a small non-negative int, read without a call */
#if PY_VERSION_HEX >= 0x030C0000
	if (PyLong_CheckExact(o) && PyUnstable_Long_IsCompact((PyLongObject *)o)) {
		Py_ssize_t c = PyUnstable_Long_CompactValue((PyLongObject *)o);

		if (c >= 0) {
			*out = (unsigned int)c;
			return 0;
		}
	}
#else
	if (PyLong_CheckExact(o) && (Py_SIZE(o) == 0 || Py_SIZE(o) == 1)) {
		*out = Py_SIZE(o) ? (unsigned int)((PyLongObject *)o)->ob_digit[0] : 0;
		return 0;
	}
#endif
	if (PyLong_Check(o)) {
		v = PyLong_AsLongLongAndOverflow(o, &overflow);
	} else if (PyIndex_Check(o) && !PyFloat_Check(o)) {
		PyObject *i = PyNumber_Index(o);

		if (i == NULL)
			return -1;
		v = PyLong_AsLongLongAndOverflow(i, &overflow);
		Py_DECREF(i);
	} else {
		PyErr_Format(PyExc_TypeError, "%s must be an integer, not %.100s",
			     name, Py_TYPE(o)->tp_name);
		return -1;
	}
	if (v == -1 && PyErr_Occurred())
		return -1;
	if (overflow < 0 || (overflow == 0 && v < 0)) {
		PyErr_Format(PyExc_ValueError, "%s must not be negative, got %R",
			     name, o);
		return -1;
	}
	if (overflow > 0 || v > (long long)UINT_MAX) {
		PyErr_Format(PyExc_OverflowError,
			     "%s must be less than 2**32, got %R", name, o);
		return -1;
	}
	*out = (unsigned int)v;
	return 0;
}

static int kf_recsize(PyObject *o, unsigned int *out)
{
	long long v;
	int overflow;

	if (!PyLong_Check(o) && !(PyIndex_Check(o) && !PyFloat_Check(o))) {
		PyErr_Format(PyExc_TypeError,
			     "recsize must be an integer, not %.100s",
			     Py_TYPE(o)->tp_name);
		return -1;
	}
	if (PyLong_Check(o)) {
		v = PyLong_AsLongLongAndOverflow(o, &overflow);
	} else {
		PyObject *i = PyNumber_Index(o);

		if (i == NULL)
			return -1;
		v = PyLong_AsLongLongAndOverflow(i, &overflow);
		Py_DECREF(i);
	}
	if (v == -1 && PyErr_Occurred())
		return -1;
	if (overflow || v < 0 || v > 2) {
		PyErr_Format(PyExc_ValueError,
			     "recsize must be 0, 1 or 2, got %R", o);
		return -1;
	}
	*out = (unsigned int)v;
	return 0;
}

/* A buffer longer than 2**32 - 1 bytes is offered as 2**32 - 1 bytes: no
 * fifo can take more (kfifo_in copies min(n, avail)). */
static inline unsigned int kf_clamp(Py_ssize_t len)
{
	return (size_t)len > UINT_MAX ? UINT_MAX : (unsigned int)len;
}

/* Turn a failed PyObject_GetBuffer into the error 2.1 promises. */
static void kf_buffer_error(PyObject *o, const char *name, int writable)
{
	Py_buffer v;

	if (!PyObject_CheckBuffer(o)) {
		PyErr_Clear();
		PyErr_Format(PyExc_TypeError,
			     "%s must be a %sbytes-like object, not %.100s", name,
			     writable ? "writable " : "", Py_TYPE(o)->tp_name);
		return;
	}
	if (PyObject_GetBuffer(o, &v, PyBUF_FULL_RO) < 0)
		return;	/* the exporter's own error says it best */
	PyErr_Clear();
	if (writable && v.readonly)
		PyErr_Format(PyExc_TypeError,
			     "%s must be a writable bytes-like object, not a "
			     "read-only %.100s", name, Py_TYPE(o)->tp_name);
	else
		PyErr_Format(PyExc_TypeError,
			     "%s must be a C-contiguous buffer; this %.100s is "
			     "not contiguous (copy it first, e.g. bytes(x) or "
			     "numpy.ascontiguousarray(x))", name,
			     Py_TYPE(o)->tp_name);
	PyBuffer_Release(&v);
}

/*
 * Borrow the bytes of @o.  An exact bytes object is immutable and kept
 * alive by the call's arguments: no export needed (*got stays 0).
 * Anything else is exported until freearg (*got = 1), which also stops a
 * bytearray from being resized while the C core reads it.
 */
static inline int kf_get_data(PyObject *o, Py_buffer *v, int *got,
			      void **buf, unsigned int *n)
{
	if (PyBytes_CheckExact(o)) {
		*buf = PyBytes_AS_STRING(o);
		*n = kf_clamp(PyBytes_GET_SIZE(o));
		return 0;
	}
	if (PyObject_GetBuffer(o, v, PyBUF_SIMPLE) < 0) {
		kf_buffer_error(o, "data", 0);
		return -1;
	}
	*got = 1;
	*buf = v->buf;
	*n = kf_clamp(v->len);
	return 0;
}

static int kf_get_writable(PyObject *o, Py_buffer *v, int *got, void **buf,
			   unsigned int *n)
{
	if (PyObject_GetBuffer(o, v, PyBUF_WRITABLE) < 0) {
		kf_buffer_error(o, "buffer", 1);
		return -1;
	}
	*got = 1;
	*buf = v->buf;
	*n = kf_clamp(v->len);
	return 0;
}

static PyObject *kfifo_py_free(kfifo_py *k);

/* ---- construction -------------------------------------------------------- */

static kfifo_py *kf_new_wrapper(void)
{
	void *mem = NULL;
	kfifo_py *k;

	/* struct kfifo asks for 64-byte alignment; malloc gives 16 */
	if (posix_memalign(&mem, 64, sizeof(kfifo_py)) != 0) {
		PyErr_NoMemory();
		return NULL;
	}
	k = mem;
	memset(k, 0, sizeof(*k));
	k->prod.gate = PyThread_allocate_lock();
	k->cons.gate = PyThread_allocate_lock();
	if (k->prod.gate == NULL || k->cons.gate == NULL) {
		if (k->prod.gate)
			PyThread_free_lock(k->prod.gate);
		if (k->cons.gate)
			PyThread_free_lock(k->cons.gate);
		free(k);
		PyErr_NoMemory();
		return NULL;
	}
	return k;
}

static void kf_delete_wrapper(kfifo_py *k)
{
	if (!k->freed) {
		kfifo_free(&k->fifo);
		if (k->has_view)
			PyBuffer_Release(&k->view);
	}
	PyThread_free_lock(k->prod.gate);
	PyThread_free_lock(k->cons.gate);
	free(k);
}

/* The fifo behind Kfifo(size, *, start=0, buffer=None). */
static kfifo_py *kf_create(PyObject *size, PyObject *start,
			      PyObject *buffer)
{
	kfifo_py *k;
	unsigned int s = 0, st;
	PyObject *m;
	int ret;

	if ((size == Py_None) == (buffer == Py_None)) {
		PyErr_SetString(PyExc_TypeError,
				"Kfifo() takes either size or buffer=, not both "
				"and not neither");
		return NULL;
	}
	if (!PyLong_Check(start) && !(PyIndex_Check(start) &&
				      !PyFloat_Check(start))) {
		PyErr_Format(PyExc_TypeError,
			     "start must be an integer, not %.100s",
			     Py_TYPE(start)->tp_name);
		return NULL;
	}
	/* start may be any integer: it is taken modulo 2**32 */
	{
		PyObject *i = PyNumber_Index(start), *mask, *r;

		if (i == NULL)
			return NULL;
		mask = PyLong_FromUnsignedLong(UINT_MAX);
		r = mask ? PyNumber_And(i, mask) : NULL;
		Py_DECREF(i);
		Py_XDECREF(mask);
		if (r == NULL)
			return NULL;
		st = (unsigned int)PyLong_AsUnsignedLong(r);
		Py_DECREF(r);
	}
	if (size != Py_None) {
		long long v;
		int overflow;

		if (!PyLong_Check(size) && !(PyIndex_Check(size) &&
					     !PyFloat_Check(size))) {
			PyErr_Format(PyExc_TypeError,
				     "size must be an integer, not %.100s",
				     Py_TYPE(size)->tp_name);
			return NULL;
		}
		m = PyNumber_Index(size);
		if (m == NULL)
			return NULL;
		v = PyLong_AsLongLongAndOverflow(m, &overflow);
		Py_DECREF(m);
		if (v == -1 && PyErr_Occurred())
			return NULL;
		if (overflow || v <= 0 || v > (1LL << 31)) {
			PyErr_Format(PyExc_ValueError,
				     "size must be between 1 and 2**31, got %R",
				     size);
			return NULL;
		}
		s = (unsigned int)v;
	}
	k = kf_new_wrapper();
	if (k == NULL)
		return NULL;
	if (size != Py_None) {
		ret = kfifo_alloc(&k->fifo, s, GFP_KERNEL);
		if (ret == -ENOMEM) {
			PyErr_Format(PyExc_MemoryError,
				     "cannot allocate a fifo of %u bytes", s);
			goto fail;
		}
		if (ret != 0) {
			PyErr_Format(PyExc_ValueError,
				     "size must be between 1 and 2**31, got %R",
				     size);
			goto fail;
		}
	} else {
		void *buf;
		unsigned int n;
		int got = 0;

		if (kf_get_writable(buffer, &k->view, &got, &buf, &n) < 0) {
			if (PyErr_ExceptionMatches(PyExc_TypeError) &&
			    PyObject_CheckBuffer(buffer)) {
				/* a buffer, but not one we can use */
				PyObject *t, *v, *tb;

				PyErr_Fetch(&t, &v, &tb);
				PyErr_Format(PyExc_ValueError, "%S", v);
				Py_XDECREF(t);
				Py_XDECREF(v);
				Py_XDECREF(tb);
			}
			goto fail;
		}
		k->has_view = 1;
		if (k->view.len > (Py_ssize_t)1 << 31 ||
		    kfifo_init(&k->fifo, buf, n) != 0) {
			PyErr_Format(PyExc_ValueError,
				     "buffer length must be a power of two "
				     "between 1 and 2**31, got %zd",
				     k->view.len);
			goto fail;
		}
	}
	/* A new fifo nobody else sees yet: plain stores are enough. */
	k->fifo.in = st;
	k->fifo.out = st;
	return k;
fail:
	kf_delete_wrapper(k);
	return NULL;
}

/*
 * tp_init of Kfifo: SWIG cannot express keyword-only arguments, so the
 * type's init is written here (python:tp_init below).
 */
static int kf_tp_init(PyObject *self, PyObject *args, PyObject *kwds)
{
	static char *kwlist[] = {"size", "start", "buffer", NULL};
	PyObject *size = Py_None, *start = NULL, *buffer = Py_None, *r;
	kfifo_py *k;

	if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O$OO:Kfifo", kwlist,
					 &size, &start, &buffer))
		return -1;
	if (((SwigPyObject *)self)->ptr != NULL) {
		PyErr_SetString(PyExc_RuntimeError,
				"Kfifo.__init__() may run only once");
		return -1;
	}
	if (start == NULL) {
		start = PyLong_FromLong(0);
		k = kf_create(size, start, buffer);
		Py_DECREF(start);
	} else {
		k = kf_create(size, start, buffer);
	}
	if (k == NULL)
		return -1;
	r = SWIG_Python_NewPointerObj(self, k, SWIGTYPE_p_kfifo_py,
				      SWIG_BUILTIN_INIT);
	if (r == Py_None) {
		kf_delete_wrapper(k);
		return -1;
	}
	return 0;
}

/* Kfifo.__init__ as a method too (SWIG 4.4+ installs one that would
 * bypass tp_init); its text signature is what inspect.signature() shows. */
static PyObject *kf_pyinit(PyObject *self, PyObject *args, PyObject *kwds)
{
	if (kf_tp_init(self, args, kwds) < 0)
		return NULL;
	Py_RETURN_NONE;
}

static PyMethodDef kf_pyinit_def = {
	"__init__", (PyCFunction)(void (*)(void))kf_pyinit,
	METH_VARARGS | METH_KEYWORDS,
	"__init__($self, /, size=None, *, start=0, buffer=None)\n--\n\n"
	"Initialise the fifo; see help(kfifo.Kfifo)."
};

static int kf_install_init(swig_type_info *ti)
{
	SwigPyClientData *cd = (SwigPyClientData *)ti->clientdata;
	PyObject *d;
	int r;

	if (cd == NULL || cd->pytype == NULL)
		return 0;
	d = PyDescr_NewMethod(cd->pytype, &kf_pyinit_def);
	if (d == NULL)
		return -1;
	r = PyDict_SetItemString(cd->pytype->tp_dict, "__init__", d);
	Py_DECREF(d);
	PyType_Modified(cd->pytype);
	return r;
}

static kfifo_py *kf_self(PyObject *self)
{
	kfifo_py *k = (kfifo_py *)((SwigPyObject *)self)->ptr;

	if (k == NULL)
		PyErr_SetString(PyExc_TypeError, "Kfifo object is not initialised");
	return k;
}

static PyObject *kf_tp_repr(PyObject *self)
{
	kfifo_py *k = (kfifo_py *)((SwigPyObject *)self)->ptr;
	unsigned int size, len;

	if (k == NULL)
		return PyUnicode_FromString("<kfifo.Kfifo uninitialised>");
	if (k->freed)
		return PyUnicode_FromString("<kfifo.Kfifo freed>");
	size = kfifo_size(&k->fifo);
	len = kfifo_len(&k->fifo);
	return PyUnicode_FromFormat("<kfifo.Kfifo size=%u len=%u avail=%u>",
				    size, len, size - len);
}

static Py_ssize_t kf_sq_length(PyObject *self)
{
	kfifo_py *k = kf_self(self);

	if (k == NULL)
		return -1;
	if (k->freed) {
		kf_freed_error();
		return -1;
	}
	return (Py_ssize_t)kfifo_len(&k->fifo);
}

static void delete_kfifo_py(kfifo_py *k)
{
	kf_delete_wrapper(k);
}

static PyObject *kfifo_py___enter__(kfifo_py *k, PyObject *self)
{
	if (k->freed)
		return kf_freed_error();
	Py_INCREF(self);
	return self;
}

static PyObject *kfifo_py___exit__(kfifo_py *k, PyObject *exc_type,
				   PyObject *exc, PyObject *tb)
{
	PyObject *r;

	(void)exc_type;
	(void)exc;
	(void)tb;
	r = kfifo_py_free(k);
	if (r == NULL)
		return NULL;
	Py_DECREF(r);
	Py_RETURN_FALSE;
}

/* ---- producer side ------------------------------------------------------- */

typedef unsigned int (*kf_in_fn)(struct kfifo *, const void *, unsigned int);

static inline PyObject *kf_in_common(kfifo_py *k, kf_in_fn fn,
				     const void *from, unsigned int n)
{
	unsigned int r;

	if (kf_enter(k, &k->prod) < 0)
		return NULL;
	if (n < KF_GIL_THRESHOLD || kfifo_avail(&k->fifo) < KF_GIL_THRESHOLD) {
		r = fn(&k->fifo, from, n);
	} else {
		kf_side_claim(&k->prod);
		Py_BEGIN_ALLOW_THREADS
		r = fn(&k->fifo, from, n);
		Py_END_ALLOW_THREADS
		kf_side_release(&k->prod);
	}
	return PyLong_FromUnsignedLong(r);
}

static PyObject *kfifo_py_in_(kfifo_py *k, const void *from, unsigned int n)
{
	return kf_in_common(k, kfifo_in, from, n);
}

static PyObject *kfifo_py_from_user(kfifo_py *k, const void *from,
				    unsigned int n)
{
	return kf_in_common(k, kfifo_from_user, from, n);
}

static PyObject *kfifo_py_in_rec(kfifo_py *k, const void *from,
				 unsigned int n, unsigned int recsize)
{
	unsigned int r;

	if (kf_enter(k, &k->prod) < 0)
		return NULL;
	if (n < KF_GIL_THRESHOLD || kfifo_avail(&k->fifo) < n) {
		r = kfifo_in_rec(&k->fifo, from, n, recsize);
	} else {
		kf_side_claim(&k->prod);
		Py_BEGIN_ALLOW_THREADS
		r = kfifo_in_rec(&k->fifo, from, n, recsize);
		Py_END_ALLOW_THREADS
		kf_side_release(&k->prod);
	}
	return PyLong_FromUnsignedLong(r);
}

static PyObject *kfifo_py_from_user_rec(kfifo_py *k, const void *from,
					unsigned int n, unsigned int recsize)
{
	unsigned int r;

	if (kf_enter(k, &k->prod) < 0)
		return NULL;
	if (n < KF_GIL_THRESHOLD || kfifo_avail(&k->fifo) < n) {
		r = kfifo_from_user_rec(&k->fifo, from, n, recsize);
	} else {
		kf_side_claim(&k->prod);
		Py_BEGIN_ALLOW_THREADS
		r = kfifo_from_user_rec(&k->fifo, from, n, recsize);
		Py_END_ALLOW_THREADS
		kf_side_release(&k->prod);
	}
	return PyLong_FromUnsignedLong(r);
}

/* The user's SpinLock looks free (a hint: it is only a choice of path). */
static inline int kf_spin_free(kf_spinlock *l)
{
	return !__atomic_load_n(&l->lock.locked, __ATOMIC_RELAXED);
}

static PyObject *kfifo_py_in_locked(kfifo_py *k, const void *from,
				    unsigned int n, kf_spinlock *lock)
{
	unsigned int r;

	if (kf_enter(k, &k->prod) < 0)
		return NULL;
	/*
	 * With the GIL held we may only wait for the SpinLock briefly: its
	 * holder is inside kfifo_*_locked, which never needs the GIL, but
	 * it may be copying a lot.  A busy lock or a big copy: wait and
	 * copy without the GIL.
	 */
	if (n < KF_GIL_THRESHOLD && kf_spin_free(lock)) {
		r = kfifo_in_locked(&k->fifo, from, n, &lock->lock);
	} else {
		kf_side_claim(&k->prod);
		Py_BEGIN_ALLOW_THREADS
		r = kfifo_in_locked(&k->fifo, from, n, &lock->lock);
		Py_END_ALLOW_THREADS
		kf_side_release(&k->prod);
	}
	return PyLong_FromUnsignedLong(r);
}

/* ---- consumer side ------------------------------------------------------- */

typedef unsigned int (*kf_out_fn)(struct kfifo *, void *, unsigned int);

/*
 * Copy up to @n bytes out with @fn into a new bytes object.  The consumer
 * side is ours, so the fill level can only grow while we run: a buffer of
 * min(n, len) bytes is always filled whole.
 */
static inline PyObject *kf_out_common(kfifo_py *k, kf_out_fn fn,
				      unsigned int n, kf_spinlock *lock)
{
	unsigned int len, cap, r;
	PyObject *res;

	if (kf_enter(k, &k->cons) < 0)
		return NULL;
	if (n <= KF_SMALL_OUT && (lock == NULL || kf_spin_free(lock))) {
		/* small: copy to the stack, then into an exact-size bytes;
		 * cheaper than asking the fill level first */
		unsigned char tmp[KF_SMALL_OUT];

		r = lock ? kfifo_out_locked(&k->fifo, tmp, n, &lock->lock)
			 : fn(&k->fifo, tmp, n);
		return PyBytes_FromStringAndSize((const char *)tmp, (Py_ssize_t)r);
	}
	len = kfifo_len(&k->fifo);
	cap = n < len ? n : len;
	res = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)cap);
	if (res == NULL)
		return NULL;
	if (cap < KF_GIL_THRESHOLD && (lock == NULL || kf_spin_free(lock))) {
		r = lock ? kfifo_out_locked(&k->fifo, PyBytes_AS_STRING(res),
					    cap, &lock->lock)
			 : fn(&k->fifo, PyBytes_AS_STRING(res), cap);
	} else {
		char *to = PyBytes_AS_STRING(res);

		kf_side_claim(&k->cons);
		Py_BEGIN_ALLOW_THREADS
		r = lock ? kfifo_out_locked(&k->fifo, to, cap, &lock->lock)
			 : fn(&k->fifo, to, cap);
		Py_END_ALLOW_THREADS
		kf_side_release(&k->cons);
	}
	if (r != cap && _PyBytes_Resize(&res, (Py_ssize_t)r) < 0)
		return NULL;
	return res;
}

static PyObject *kfifo_py_out(kfifo_py *k, unsigned int n)
{
	return kf_out_common(k, kfifo_out, n, NULL);
}

static PyObject *kfifo_py_to_user(kfifo_py *k, unsigned int n)
{
	return kf_out_common(k, kfifo_to_user, n, NULL);
}

static PyObject *kfifo_py_out_locked(kfifo_py *k, unsigned int n,
				     kf_spinlock *lock)
{
	return kf_out_common(k, kfifo_out, n, lock);
}

static PyObject *kfifo_py_out_into(kfifo_py *k, void *to, unsigned int n)
{
	unsigned int r, len;

	if (kf_enter(k, &k->cons) < 0)
		return NULL;
	len = kfifo_len(&k->fifo);
	if ((n < len ? n : len) < KF_GIL_THRESHOLD) {
		r = kfifo_out(&k->fifo, to, n);
	} else {
		/* the export held by the argument keeps @to alive and sized */
		kf_side_claim(&k->cons);
		Py_BEGIN_ALLOW_THREADS
		r = kfifo_out(&k->fifo, to, n);
		Py_END_ALLOW_THREADS
		kf_side_release(&k->cons);
	}
	return PyLong_FromUnsignedLong(r);
}

/*
 * One record out: (ret, data, total).
 *
 * Sizing.  The C core copies the record's L bytes only when L <= n and
 * recsize + L <= in - out <= size; for recsize 1 and 2, L also fits the
 * header (255, 65535); for recsize 0, L = n.  So a buffer of
 * min(n, size, header max) bytes always holds what it copies, and we can
 * pass the caller's n: when n is larger than that buffer the call cannot
 * copy more than the buffer (for recsize 0 and n > size it cannot succeed
 * at all and returns n).  When a whole header is already stored it cannot
 * change under us (the consumer side is ours, producers only write free
 * space), so its length sizes the buffer exactly.
 */
static PyObject *kf_out_rec_common(kfifo_py *k, unsigned int n,
				   unsigned int recsize, int to_user)
{
	unsigned int size, cap, r, total = 0;
	PyObject *res, *data;

	if (kf_enter(k, &k->cons) < 0)
		return NULL;
	size = kfifo_size(&k->fifo);
	cap = n < size ? n : size;
	if (recsize == 1 && cap > 0xffu)
		cap = 0xffu;
	if (recsize == 2 && cap > 0xffffu)
		cap = 0xffffu;
	if (recsize > 0 && kfifo_len(&k->fifo) >= recsize) {
		unsigned int l = kfifo_peek_rec(&k->fifo, recsize);

		if (l < cap)
			cap = l;
	}
	data = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)cap);
	if (data == NULL)
		return NULL;
	if (cap < KF_GIL_THRESHOLD) {
		r = to_user ? kfifo_to_user_rec(&k->fifo, PyBytes_AS_STRING(data),
						n, recsize, &total)
			    : kfifo_out_rec(&k->fifo, PyBytes_AS_STRING(data), n,
					    recsize, &total);
	} else {
		char *to = PyBytes_AS_STRING(data);

		kf_side_claim(&k->cons);
		Py_BEGIN_ALLOW_THREADS
		r = to_user ? kfifo_to_user_rec(&k->fifo, to, n, recsize, &total)
			    : kfifo_out_rec(&k->fifo, to, n, recsize, &total);
		Py_END_ALLOW_THREADS
		kf_side_release(&k->cons);
	}
	if (r != 0) {
		Py_DECREF(data);
		data = PyBytes_FromStringAndSize(NULL, 0);
		if (data == NULL)
			return NULL;
	} else if (total != cap && _PyBytes_Resize(&data, (Py_ssize_t)total) < 0) {
		return NULL;
	}
	res = PyTuple_New(3);
	if (res == NULL) {
		Py_DECREF(data);
		return NULL;
	}
	PyTuple_SET_ITEM(res, 0, PyLong_FromUnsignedLong(r));
	PyTuple_SET_ITEM(res, 1, data);
	PyTuple_SET_ITEM(res, 2, PyLong_FromUnsignedLong(total));
	if (PyTuple_GET_ITEM(res, 0) == NULL || PyTuple_GET_ITEM(res, 2) == NULL) {
		Py_DECREF(res);
		return NULL;
	}
	return res;
}

static PyObject *kfifo_py_out_rec(kfifo_py *k, unsigned int n,
				  unsigned int recsize)
{
	return kf_out_rec_common(k, n, recsize, 0);
}

static PyObject *kfifo_py_to_user_rec(kfifo_py *k, unsigned int n,
				      unsigned int recsize)
{
	return kf_out_rec_common(k, n, recsize, 1);
}

static PyObject *kfifo_py_peek_rec(kfifo_py *k, unsigned int recsize)
{
	if (kf_enter(k, &k->cons) < 0)
		return NULL;
	return PyLong_FromUnsignedLong(kfifo_peek_rec(&k->fifo, recsize));
}

static PyObject *kfifo_py_skip(kfifo_py *k, unsigned int n)
{
	if (kf_enter(k, &k->cons) < 0)
		return NULL;
	kfifo_skip(&k->fifo, n);
	Py_RETURN_NONE;
}

static PyObject *kfifo_py_skip_rec(kfifo_py *k, unsigned int recsize)
{
	if (kf_enter(k, &k->cons) < 0)
		return NULL;
	kfifo_skip_rec(&k->fifo, recsize);
	Py_RETURN_NONE;
}

static PyObject *kfifo_py_reset_out(kfifo_py *k)
{
	if (kf_enter(k, &k->cons) < 0)
		return NULL;
	kfifo_reset_out(&k->fifo);
	Py_RETURN_NONE;
}

/* ---- both sides ---------------------------------------------------------- */

static PyObject *kfifo_py_reset(kfifo_py *k)
{
	kf_enter_both(k);
	if (!k->freed)
		kfifo_reset(&k->fifo);
	kf_side_release(&k->prod);
	if (k->freed)
		return kf_freed_error();
	Py_RETURN_NONE;
}

/* free() waits for calls in flight; a second free() is harmless, as in C. */
static PyObject *kfifo_py_free(kfifo_py *k)
{
	Py_buffer view;
	int has_view = 0;

	kf_enter_both(k);
	if (!k->freed) {
		k->freed = 1;
		kfifo_free(&k->fifo);
		has_view = k->has_view;
		view = k->view;
		k->has_view = 0;
	}
	kf_side_release(&k->prod);
	/* last: the exporter's release may run code that uses this fifo */
	if (has_view)
		PyBuffer_Release(&view);
	Py_RETURN_NONE;
}

/* ---- queries (either side; a snapshot, under the GIL) -------------------- */

#define KF_QUERY(name, expr)                                                   \
	static PyObject *kfifo_py_##name(kfifo_py *k)                          \
	{                                                                      \
		if (k->freed)                                                  \
			return kf_freed_error();                               \
		return expr;                                                   \
	}

KF_QUERY(len, PyLong_FromUnsignedLong(kfifo_len(&k->fifo)))
KF_QUERY(size, PyLong_FromUnsignedLong(kfifo_size(&k->fifo)))
KF_QUERY(avail, PyLong_FromUnsignedLong(kfifo_avail(&k->fifo)))
KF_QUERY(is_empty, PyBool_FromLong(kfifo_is_empty(&k->fifo)))
KF_QUERY(is_full, PyBool_FromLong(kfifo_is_full(&k->fifo)))

static PyObject *kfifo_py_is_freed(kfifo_py *k)
{
	return PyBool_FromLong(k->freed);
}

static PyObject *kfifo_py_valid(kfifo_py *k)
{
	if (k->freed)
		return kf_freed_error();
	return PyBool_FromLong(kfifo_valid(&k->fifo));
}

/* ---- SpinLock ------------------------------------------------------------ */

static kf_spinlock *new_kf_spinlock(void)
{
	kf_spinlock *l = malloc(sizeof(*l));

	if (l == NULL) {
		PyErr_NoMemory();
		return NULL;
	}
	kfifo_spin_lock_init(&l->lock);
	return l;
}

static void delete_kf_spinlock(kf_spinlock *l)
{
	free(l);
}

static PyObject *kf_spin_repr(PyObject *self)
{
	kf_spinlock *l = (kf_spinlock *)((SwigPyObject *)self)->ptr;

	if (l == NULL)
		return PyUnicode_FromString("<kfifo.SpinLock uninitialised>");
	return PyUnicode_FromFormat("<kfifo.SpinLock %s>",
				    kf_spin_free(l) ? "unlocked" : "locked");
}

/* Show a builtin type as module.Name (SWIG names it kfifo._kfifo.Name). */
static int kf_rename_type(swig_type_info *ti, const char *qualname)
{
	SwigPyClientData *cd = (SwigPyClientData *)ti->clientdata;
	PyObject *mod;
	int r;

	if (cd == NULL || cd->pytype == NULL)
		return 0;
	cd->pytype->tp_name = qualname;
	mod = PyUnicode_FromString("kfifo");
	if (mod == NULL)
		return -1;
	r = PyDict_SetItemString(cd->pytype->tp_dict, "__module__", mod);
	Py_DECREF(mod);
	/*
	 * SWIG starts multi-line docstrings with a newline; without it the
	 * "name(sig)\n--\n\n" first line becomes __text_signature__, which
	 * inspect.signature() and help() show.  Method descriptors read
	 * ml_doc when asked, so moving the pointer is enough.
	 */
	if (cd->pytype->tp_methods) {
		PyMethodDef *m;

		for (m = cd->pytype->tp_methods; m->ml_name; m++)
			if (m->ml_doc && m->ml_doc[0] == '\n')
				m->ml_doc++;
	}
	if (r == 0 && cd->pytype->tp_doc && cd->pytype->tp_doc[0] == '\n') {
		PyObject *doc;

		cd->pytype->tp_doc++;
		doc = PyUnicode_FromString(
			strstr(cd->pytype->tp_doc, "\n--\n\n") ?
			strstr(cd->pytype->tp_doc, "\n--\n\n") + 5 :
			cd->pytype->tp_doc);
		r = doc ? PyDict_SetItemString(cd->pytype->tp_dict, "__doc__", doc) : -1;
		Py_XDECREF(doc);
	}
	PyType_Modified(cd->pytype);
	return r;
}

static PyObject *kf_spinlock_locked(kf_spinlock *l)
{
	return PyBool_FromLong(!kf_spin_free(l));
}
%}

/* ---- typemaps ------------------------------------------------------------ */

/* Every wrapped call returns a new reference or NULL with an exception. */
%typemap(out) PyObject * {
	if ($1 == NULL)
		SWIG_fail;
	$result = $1;
}

/* self: method descriptors of a builtin type already checked its type */
%typemap(in) struct kfifo_py *self {
	$1 = (kfifo_py *)((SwigPyObject *)$input)->ptr;
	if ($1 == NULL) {
		PyErr_SetString(PyExc_TypeError, "Kfifo object is not initialised");
		SWIG_fail;
	}
}

%typemap(in) (const void *from, unsigned int n) (Py_buffer view, int got = 0) {
	if (kf_get_data($input, &view, &got, &$1, &$2) < 0)
		SWIG_fail;
}
%typemap(freearg) (const void *from, unsigned int n) {
	if (got$argnum)
		PyBuffer_Release(&view$argnum);
}

%typemap(in) (void *to, unsigned int n) (Py_buffer view, int got = 0) {
	if (kf_get_writable($input, &view, &got, &$1, &$2) < 0)
		SWIG_fail;
}
%typemap(freearg) (void *to, unsigned int n) {
	if (got$argnum)
		PyBuffer_Release(&view$argnum);
}

%typemap(in) unsigned int n {
	if (kf_count($input, "n", &$1) < 0)
		SWIG_fail;
}

%typemap(in) unsigned int recsize {
	if (kf_recsize($input, &$1) < 0)
		SWIG_fail;
}

%typemap(in) kf_spinlock *lock {
	void *p = NULL;

	if (!SWIG_IsOK(SWIG_ConvertPtr($input, &p, $descriptor(kf_spinlock *), 0)) ||
	    p == NULL) {
		PyErr_Format(PyExc_TypeError,
			     "lock must be a kfifo.SpinLock, not %.100s",
			     Py_TYPE($input)->tp_name);
		SWIG_fail;
	}
	$1 = (kf_spinlock *)p;
}

/* the wrapper's PyObject self, for __enter__ */
%typemap(in, numinputs=0) PyObject *py_self "$1 = self;"

%feature("python:tp_init") kfifo_py "kf_tp_init";
%feature("python:tp_repr") kfifo_py "kf_tp_repr";
%feature("python:sq_length") kfifo_py "kf_sq_length";
%feature("python:tp_repr") kf_spinlock "kf_spin_repr";
%exception kf_spinlock::kf_spinlock {
	$action
	if (result == NULL)
		SWIG_fail;
}

%include "kfifo_doc.i"

%constant const char *VERSION = KFIFO_VERSION_STRING;
%constant unsigned int GIL_THRESHOLD = KF_GIL_THRESHOLD;

%rename(Kfifo) kfifo_py;
%rename(SpinLock) kf_spinlock;

typedef struct kfifo_py {
	%extend {
		~kfifo_py();
		PyObject *__enter__(PyObject *py_self);
		PyObject *__exit__(PyObject *exc_type, PyObject *exc, PyObject *tb);
		PyObject *in_(const void *from, unsigned int n);
		PyObject *from_user(const void *from, unsigned int n);
		PyObject *in_rec(const void *from, unsigned int n, unsigned int recsize);
		PyObject *from_user_rec(const void *from, unsigned int n, unsigned int recsize);
		PyObject *in_locked(const void *from, unsigned int n, kf_spinlock *lock);
		PyObject *out(unsigned int n);
		PyObject *to_user(unsigned int n);
		PyObject *out_into(void *to, unsigned int n);
		PyObject *out_rec(unsigned int n, unsigned int recsize);
		PyObject *to_user_rec(unsigned int n, unsigned int recsize);
		PyObject *out_locked(unsigned int n, kf_spinlock *lock);
		PyObject *peek_rec(unsigned int recsize);
		PyObject *skip(unsigned int n);
		PyObject *skip_rec(unsigned int recsize);
		PyObject *reset();
		PyObject *reset_out();
		PyObject *free();
		PyObject *len();
		PyObject *size();
		PyObject *avail();
		PyObject *is_empty();
		PyObject *is_full();
		PyObject *is_freed();
		PyObject *valid();
	}
} kfifo_py;

typedef struct kf_spinlock {
	%extend {
		kf_spinlock();
		~kf_spinlock();
		PyObject *locked();
	}
} kf_spinlock;

/* Users meet these types as kfifo.Kfifo and kfifo.SpinLock. */
%init %{
	/* cosmetic: a failure leaves SWIG's names (the init's return type
	 * differs between SWIG versions, so it is not reported) */
	if (kf_install_init(SWIGTYPE_p_kfifo_py) < 0 ||
	    kf_rename_type(SWIGTYPE_p_kfifo_py, "kfifo.Kfifo") < 0 ||
	    kf_rename_type(SWIGTYPE_p_kf_spinlock, "kfifo.SpinLock") < 0)
		PyErr_Clear();
%}
