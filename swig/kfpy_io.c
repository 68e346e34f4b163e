/* SPDX-License-Identifier: MIT */
/*
 * kfpy_io.c - the producer's and the consumer's calls: bytes and
 * records in and out.
 *
 * ---- Memory the C core writes ----------------------------------------------
 *
 * Rule: the capacity passed to the C core is the size of memory this file
 * owns for that call, never a number derived from a second read of the
 * fifo.  The data of a Kfifo(buffer=obj) fifo can be rewritten at any time
 * by code that does not hold the GIL (a second fifo over the same object,
 * numpy.copyto), so a record header read twice may differ: out_rec() reads
 * it only inside the C call that copies, with its own buffer's size.
 */
#include "kfpy_internal.h"

#include <stdint.h>
#include <string.h>

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
int kf_in_call(kfpy_kfifo *k, enum kf_op op, const char *method,
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
PyObject *kf_out_common(kfpy_kfifo *k, enum kf_op op,
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
int kf_out_into_call(kfpy_kfifo *k, const char *method, void *to,
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
 * in between: see "Memory the C core writes" above).  A smaller capacity
 * than n changes one answer only, "not enough data", which returns the
 * capacity: it is translated back to n.
 *
 * recsize 0: the record is exactly n bytes, so the capacity must be n.  A
 * fifo holding fewer than n bytes (the consumer side is ours, so the fill
 * level only grows) gets the core's answer for that case, (n, b"", n),
 * without a call; otherwise n <= len <= size bytes are owned.
 */
PyObject *kf_out_rec_common(kfpy_kfifo *k, enum kf_op op,
				   const char *method, unsigned int n,
				   unsigned int recsize)
{
	struct kf_call c = { op, NULL, NULL, n, recsize, 0, NULL };
	unsigned char small[KF_SMALL_OUT];
	unsigned int hdr_max = kfifo_rec_max(recsize);
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
