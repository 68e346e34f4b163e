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

/* (kf_overlaps(), the check that input does not overlap the ring, is in
 * kfpy_internal.h, with kf_in_rec_fast()) */
static int kf_in_entered(kfpy_kfifo *k, enum kf_op op, const void *from,
			 unsigned int n, unsigned int recsize,
			 kfpy_spinlock *lock, unsigned int *r);


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
		     : op == KF_IN_REC ? kfifo_in_rec(&k->st->fifo, from, n, recsize)
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

/*
 * in_'s common case without the layers of kf_in_call() (kf_in_fast_ok(),
 * as for kf_in_rec_fast()).  Anything else takes the general path, which
 * checks it all in order.
 */
PyObject *kfpy_in(kfpy_kfifo *k, const void *from, unsigned int n)
{
	if (kf_in_fast_ok(k, from, n))
		/* the count is at most n < KFPY_GIL_THRESHOLD < 2**31 */
		return PyLong_FromLong((long)kfifo_in(&k->st->fifo, from, n));
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

/*
 * out's common case without the layers of kf_out_common(): the fifo not
 * freed, the consumer side idle and a copy too small to release the GIL.
 * The bytes object is made min(n, len) long and the core copies straight
 * into it: the consumer side is ours, so the fill level only grows and
 * the copy fills it whole (should a consumer we do not know of take bytes
 * meanwhile, through a shared fifo, the bytes shrink to what was copied,
 * as in kf_out_common()).
 */
PyObject *kfpy_out(kfpy_kfifo *k, unsigned int n)
{
	if (!k->freed && kf_side_idle(&k->st->cons) &&
	    n < KFPY_GIL_THRESHOLD) {
		struct kfifo *f = &k->st->fifo;
		unsigned int len = kfifo_len(f), r;
		PyObject *res;

		if (len > n)
			len = n;
		res = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)len);
		if (res == NULL || len == 0)
			return res;
		r = kfifo_out(f, PyBytes_AS_STRING(res), len);
		if (r != len && _PyBytes_Resize(&res, (Py_ssize_t)r) < 0)
			return NULL;
		return res;
	}
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

/*
 * One record out into a new bytes object of its exact length, with the
 * consumer side entered: the core's answer in *ret and *total, as
 * kfifo_out_rec(n) gives them, and the record in *data (NULL unless
 * *ret == 0).  0, or -1 with an exception (no memory).
 *
 * The core's peek gives the record's length L; the bytes object is made
 * that long and the core copies straight into it, told that capacity (the
 * rule at the top: it is the memory we own, not a second read of the
 * header).  Only a header that changed between the two reads (memory
 * rewritten under us: Kfifo(buffer=obj), a shared fifo) makes the core
 * answer otherwise, and then we ask again with the header's maximum.
 * A peek of 0 (an empty record, or no header yet) gets a one-byte
 * capacity on the stack, which tells "empty record" (0) from "no whole
 * record" (the capacity).  A smaller capacity than n changes one answer
 * only, "not enough data", which returns the capacity: translated to n.
 *
 * recsize 0: the record is exactly n bytes.  A fifo holding fewer (the
 * consumer side is ours, so the fill level only grows) gets the core's
 * answer for that case, (n, n), without a call; otherwise n <= len <= size
 * bytes are owned.
 */
int kf_take_rec(kfpy_kfifo *k, unsigned int n, unsigned int recsize,
		PyObject **data, unsigned int *ret, unsigned int *total)
{
	struct kf_call c = { KF_OUT_REC, NULL, NULL, 0, recsize, 0, NULL };
	struct kfifo *f = &k->st->fifo;
	unsigned char one[1];
	unsigned int l, r, tries = 0;
	PyObject *res = NULL;

	*data = NULL;
	if (recsize == 0) {
		if (n > kfifo_len(f)) {
			*ret = *total = n;
			return 0;
		}
		l = n;
	} else {
		l = kfifo_peek_rec(f, recsize);
	}
	for (;;) {
		/* the capacity we own: the record, else one byte (or none for n 0) */
		c.n = l != 0 && l <= n ? l : n != 0;
		if (c.n > 1 || (c.n == 1 && l == 1)) {
			res = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)c.n);
			if (res == NULL)
				return -1;
			c.to = PyBytes_AS_STRING(res);
		} else {
			c.to = one;
		}
		if (kf_nogil(c.n, NULL))
			r = kf_run(k->st, &k->st->cons, &c, 1);
		else
			r = kfifo_out_rec(f, c.to, c.n, recsize, &c.total);
		if (r == 0 || r <= c.n || r > n || tries++ > 0)
			break;
		/* longer than we thought but fits n: the header changed
		 * (see above); its maximum is enough whatever it says now */
		Py_CLEAR(res);
		l = kfifo_rec_max(recsize) < n ? kfifo_rec_max(recsize) : n;
	}
	*total = c.total;
	if (r != 0) {
		Py_XDECREF(res);
		*ret = r == c.n ? n : r;	/* not enough data: n */
		return 0;
	}
	*ret = 0;
	if (res == NULL)
		res = PyBytes_FromStringAndSize((const char *)one, (Py_ssize_t)c.total);
	else if (c.total != c.n && _PyBytes_Resize(&res, (Py_ssize_t)c.total) < 0)
		return -1;
	*data = res;
	return res == NULL ? -1 : 0;
}

/* Records up to this long are made in the last one's bytes object when
 * the caller let go of it (kf_rec_bytes); a longer one is not kept. */
#define KF_REUSE_MAX 256

/*
 * A new bytes of the @l bytes at @p, as PyBytes_FromStringAndSize() makes
 * it, for one record taken.  Measured (bench_threads' consumer, 16-byte
 * records, 1 MiB fifo, CPython 3.11, one thread taking 60,000 stored
 * records, medians of 15): get_rec 31.3 -> 24.2 ns; two threads, the
 * loops warmed up, medians of 7: 16.0-16.3 -> 17.7-18.0 M records/s
 * (SimpleQueue ~21).  The allocation and free were ~12 % of the samples.
 *
 * The bytes of the last two short records are kept (k->last_rec), and
 * when the fifo holds the only reference to one of them and it has the
 * length wanted, it is filled again and returned instead of a new one, as
 * zip() and out_rec's tuple (kf_out_rec_common) reuse their result.  Two,
 * because a loop that keeps each record in a variable (`for rec in
 * f.records(1)`, `rec = f.get_rec(1)`) still holds the last one during
 * the next call, not the one before.  Nobody else can
 * see it change: no one else holds it (a memoryview, a dict key, a list
 * all hold references; bytes take no weak references), the GIL is held
 * (free-threaded builds are refused, kfpy_internal.h), and no Python code
 * runs here.  Its cached hash is reset, so hash() sees the new contents.
 * Lengths 0 and 1 are left to CPython, whose objects for them are shared
 * singletons.
 */
static PyObject *kf_rec_bytes(kfpy_kfifo *k, const char *p, unsigned int l)
{
#if PY_VERSION_HEX >= 0x030E0000
	/* The layout of a bytes object (ob_shash) is known up to 3.13, the
	 * versions this is tested on; later ones get a new bytes each time. */
	(void)k;
	return PyBytes_FromStringAndSize(p, (Py_ssize_t)l);
#else
	PyObject *last, *rec;
	size_t n;
	int i;

	if (l < 2 || l > KF_REUSE_MAX)
		return PyBytes_FromStringAndSize(p, (Py_ssize_t)l);
	for (i = 0; i < 2; i++) {
		last = k->last_rec[i];
		if (last == NULL || Py_REFCNT(last) != 1 ||
		    PyBytes_GET_SIZE(last) != (Py_ssize_t)l)
			continue;
		n = l;
#if defined(__GNUC__)
		/* past the bound check gcc would inline the copy as `rep
		 * movsq`, whose start-up costs more than a short record's
		 * copy (as in kfifo_rec.c): keep the length unknown to it */
		__asm__("" : "+r"(n));
#endif
		memcpy(PyBytes_AS_STRING(last), p, n);
		return kf_refilled(last);
	}
	rec = PyBytes_FromStringAndSize(p, (Py_ssize_t)l);
	if (rec != NULL) {
		Py_INCREF(rec);
		Py_XSETREF(k->last_rec[k->last_next], rec);
		k->last_next ^= 1;
	}
	return rec;
#endif
}

/*
 * get_rec's and out_rec's common case without the general path: the
 * consumer side idle, recsize 1 or 2, and a whole record of at most @max
 * bytes stored in one run (not split where the ring wraps).  1 with the
 * record in *data and its length in *len; 0 when the case does not apply
 * (nothing taken, nothing raised: the caller takes the general path); -1
 * with an exception (no memory, nothing taken).  The header is read once,
 * from the fifo's memory, and bounds the copy within the bytes stored, as
 * in kf_take_recs(); no Python code runs between the prepare and the
 * finish (making a bytes object runs none).
 */
int kf_take_rec_fast(kfpy_kfifo *k, unsigned int recsize, unsigned int max,
		     PyObject **data, unsigned int *len)
{
	struct kfifo_region r[2];
	struct kfifo *f;
	unsigned int l;
	PyObject *rec;

	if (k->freed || !kf_side_idle(&k->st->cons) ||
	    (recsize != 1 && recsize != 2))
		return 0;
	f = &k->st->fifo;
	/* with many consumers a prepare that found bytes holds their lock
	 * until a finish: every way out below finishes (0 takes nothing) */
	if (kfifo_out_prepare(f, r, UINT_MAX) == 0)
		return 0;
	if (r[0].len < recsize)
		goto none;
	l = r[0].data[0];
	if (recsize == 2)
		l |= (unsigned int)r[0].data[1] << 8;
	if (l > max || l > r[0].len - recsize)
		goto none;
	rec = kf_rec_bytes(k, (const char *)r[0].data + recsize, l);
	if (rec == NULL) {
		kfifo_out_finish(f, 0);
		return -1;
	}
	kfifo_out_finish(f, recsize + l);
	*data = rec;
	*len = l;
	return 1;
none:
	kfifo_out_finish(f, 0);
	return 0;
}

/* an int of @v: PyLong_FromLong has the small ints (0, a short record's
 * length) ready, PyLong_FromUnsignedLong makes each */
static inline PyObject *kf_pyuint(unsigned int v)
{
#if LONG_MAX >= UINT_MAX
	return PyLong_FromLong((long)v);
#else
	return v <= LONG_MAX ? PyLong_FromLong((long)v)
			     : PyLong_FromUnsignedLong(v);
#endif
}

/*
 * One record out: (ret, data, total), as kfifo_out_rec(n) answers.
 *
 * The tuple of the last call is reused when the caller has let go of it
 * (the fifo holds its only reference), as zip() reuses its result tuple:
 * a loop that unpacks or drops each result then makes and frees no tuple,
 * which is a third of the call.  Nobody else can see it change.  It holds
 * ints and bytes only, so it can close no cycle (not visited by GC).
 */
static PyObject *kf_out_rec_common(kfpy_kfifo *k, const char *method,
				   unsigned int n, unsigned int recsize)
{
	PyObject *data, *res, *r, *t, *old[3];
	unsigned int ret, total;

	ret = 0;
	switch (kf_take_rec_fast(k, recsize,
				 n < KFPY_GIL_THRESHOLD ? n : KFPY_GIL_THRESHOLD - 1,
				 &data, &total)) {
	case -1:
		return NULL;
	case 0:
		if (kf_enter(k, &k->st->cons, method) < 0 ||
		    kf_take_rec(k, n, recsize, &data, &ret, &total) < 0)
			return NULL;
	}
	if (data == NULL) {
		data = PyBytes_FromStringAndSize(NULL, 0);
		if (data == NULL)
			return NULL;
	}
	res = k->rec_result;
	if (res != NULL && Py_REFCNT(res) == 1) {
		unsigned int was;

		/* the ints stay when they are the same numbers */
		old[0] = PyTuple_GET_ITEM(res, 0);
		old[2] = PyTuple_GET_ITEM(res, 2);
		if (old[0] == NULL || !kfpy_small_uint(old[0], &was) || was != ret) {
			if ((r = kf_pyuint(ret)) == NULL)
				goto fail;
			PyTuple_SET_ITEM(res, 0, r);
			Py_XDECREF(old[0]);
		}
		if (old[2] == NULL || !kfpy_small_uint(old[2], &was) || was != total) {
			if ((t = kf_pyuint(total)) == NULL)
				goto fail;
			PyTuple_SET_ITEM(res, 2, t);
			Py_XDECREF(old[2]);
		}
		old[1] = PyTuple_GET_ITEM(res, 1);
		PyTuple_SET_ITEM(res, 1, data);
		Py_XDECREF(old[1]);
		Py_INCREF(res);
		return res;
	}
	r = kf_pyuint(ret);
	t = kf_pyuint(total);
	res = r != NULL && t != NULL ? PyTuple_New(3) : NULL;
	if (res == NULL) {
		Py_XDECREF(r);
		Py_XDECREF(t);
		goto fail;
	}
	PyTuple_SET_ITEM(res, 0, r);
	PyTuple_SET_ITEM(res, 1, data);
	PyTuple_SET_ITEM(res, 2, t);
	Py_XSETREF(k->rec_result, res);
	Py_INCREF(res);
	return res;
fail:
	/* a reused tuple keeps what it held (all set, or NULL: its owner
	 * copes with either) */
	Py_DECREF(data);
	return NULL;
}

PyObject *kfpy_out_rec(kfpy_kfifo *k, unsigned int n, unsigned int recsize)
{
	return kf_out_rec_common(k, "out_rec", n, recsize);
}

PyObject *kfpy_to_user_rec(kfpy_kfifo *k, unsigned int n, unsigned int recsize)
{
	return kf_out_rec_common(k, "to_user_rec", n, recsize);
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

/* ---- batches of records (put_recs, get_recs, records) ------------------------------------- */

/*
 * A batch goes through the zero-copy regions of the core: one look at the
 * other side's index and one publish (and at most one wake-up) for all
 * its records, where a call per record would pay them every time.  Only
 * whole records are published, so the other side never sees part of one.
 * No Python code may run between a prepare and its finish (it could free
 * the fifo): bytes objects neither run code nor trigger the garbage
 * collector when made, and any other input is exported only after what
 * was written is published.
 */

/* The byte at @p of the regions @r (one run, split where the ring wraps):
 * a record header, read or written in place. */
static inline unsigned char *kf_regions_at(const struct kfifo_region r[2],
					   unsigned int p)
{
	return p < r[0].len ? r[0].data + p : r[1].data + (p - r[0].len);
}

/* Bytes @p .. @p + @n of the regions @r to @to. */
static inline void kf_regions_read(const struct kfifo_region r[2], unsigned int p,
			    void *to, unsigned int n)
{
	unsigned int first = p < r[0].len ? r[0].len - p : 0;

	if (first > n)
		first = n;
	if (first > 0)
		memcpy(to, r[0].data + p, first);
	if (n > first)
		memcpy((unsigned char *)to + first, r[1].data + (p + first - r[0].len),
		       n - first);
}

/* @n bytes from @from to @p .. @p + @n of the regions @r.  memmove: the
 * input may be a view of the fifo's own memory. */
static inline void kf_regions_write(const struct kfifo_region r[2], unsigned int p,
			     const void *from, unsigned int n)
{
	unsigned int first = p < r[0].len ? r[0].len - p : 0;

	if (first > n)
		first = n;
	if (first > 0)
		memmove(r[0].data + p, from, first);
	if (n > first)
		memmove(r[1].data + (p + first - r[0].len),
			(const unsigned char *)from + first, n - first);
}

/*
 * put_recs' record items[*i] when it is not a bytes object: exported
 * first (which may run Python code, so no regions are prepared then), and
 * stored alone by kf_in_call (which copies input that overlaps the ring).
 * Checked by the caller, but a bytearray may have grown since.
 */
static int kf_put_rec_buffer(kfpy_kfifo *k, const char *method,
			     PyObject *items, Py_ssize_t *i,
			     unsigned int recsize, unsigned int *need)
{
	const void *buf = NULL;
	unsigned int n = 0, r;
	Py_buffer view;
	int got = 0, ret = 0;

	if (kfpy_arg_data(PyTuple_GET_ITEM(items, *i), method, &view, &got,
			  &buf, &n) < 0)
		return -1;
	if (!kf_rec_fits(k, n, recsize)) {
		PyErr_Format(PyExc_ValueError,
			     "Kfifo.%s(): records[%zd], of %u bytes, can "
			     "never fit (header of %u bytes, fifo of %u bytes)",
			     method, *i, n, recsize, kfifo_size(&k->st->fifo));
		ret = -1;
	} else if (kf_in_call(k, KF_IN_REC, method, buf, n, recsize, NULL,
			      &r) < 0) {
		ret = -1;
	} else if (r == 0) {
		(*i)++;
	} else {
		*need = recsize + n;
	}
	if (got)
		PyBuffer_Release(&view);
	return ret;
}

/*
 * Store records items[*i], items[*i + 1], ... (a tuple of bytes-like
 * objects, each checked by the caller to fit the fifo and its header)
 * while they fit, each whole, advancing *i past them; *need is the room
 * the first one left behind needs (0 when it was not left for room: the
 * end, or a record that is not a bytes object, which goes alone).  A run
 * of bytes objects (immutable: their checks still hold) is written into
 * the prepared regions and published at once.  0, or -1 with an
 * exception; what was stored stays stored either way.
 */
int kf_put_recs_some(kfpy_kfifo *k, const char *method, PyObject *items,
		     Py_ssize_t *i, unsigned int recsize, unsigned int *need)
{
	Py_ssize_t j = *i, count = PyTuple_GET_SIZE(items);
	struct kfifo *f = &k->st->fifo;
	struct kfifo_region r[2];
	unsigned int avail, p = 0, n;

	*need = 0;
	if (j < count && !PyBytes_CheckExact(PyTuple_GET_ITEM(items, j)))
		return kf_put_rec_buffer(k, method, items, i, recsize, need);
	if (kf_enter(k, &k->st->prod, method) < 0)
		return -1;
	avail = kfifo_in_prepare(f, r, UINT_MAX);
	for (; j < count; j++) {
		PyObject *item = PyTuple_GET_ITEM(items, j);

		if (!PyBytes_CheckExact(item))
			break;
		n = (unsigned int)PyBytes_GET_SIZE(item);
		if (recsize + n > avail - p) {
			*need = recsize + n;
			break;
		}
		if (recsize >= 1)
			*kf_regions_at(r, p) = (unsigned char)(n & 0xffu);
		if (recsize == 2)
			*kf_regions_at(r, p + 1) = (unsigned char)(n >> 8);
		kf_regions_write(r, p + recsize, PyBytes_AS_STRING(item), n);
		p += recsize + n;
	}
	kfifo_in_finish(f, p);
	*i = j;
	return 0;
}

/*
 * Take up to @max whole records, oldest first, appending each to @list as
 * a bytes object (or, @list NULL and @max 1, the record in *@one: get_rec,
 * whose take is this one with a batch of one); the number taken (0: no
 * whole record stored), or -1 with an exception (nothing taken).  The header is read once per record, from
 * the fifo's memory, and bounds the copy within the bytes stored: memory
 * rewritten under us (a buffer= object, a peer process) gives wrong bytes,
 * never a read outside the regions.
 */
Py_ssize_t kf_take_recs(kfpy_kfifo *k, const char *method, PyObject *list,
			Py_ssize_t max, unsigned int recsize, PyObject **one)
{
	struct kfifo *f = &k->st->fifo;
	struct kfifo_region r[2];
	unsigned int total, p = 0, l;
	Py_ssize_t got = 0;
	PyObject *rec;
	int err = 0;

	if (kf_enter(k, &k->st->cons, method) < 0)
		return -1;
	total = kfifo_out_prepare(f, r, UINT_MAX);
	while (got < max && total - p >= recsize) {
		l = *kf_regions_at(r, p);
		if (recsize == 2)
			l |= (unsigned int)*kf_regions_at(r, p + 1) << 8;
		if (l > total - p - recsize)
			break;	/* the last record is not all there yet */
		rec = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)l);
		if (rec == NULL) {
			err = 1;
			break;
		}
		kf_regions_read(r, p + recsize, PyBytes_AS_STRING(rec), l);
		if (list == NULL) {
			*one = rec;
		} else if (PyList_Append(list, rec) < 0) {
			Py_DECREF(rec);
			err = 1;
			break;
		} else {
			Py_DECREF(rec);
		}
		p += recsize + l;
		got++;
	}
	/* also with nothing taken: a many-consumer fifo's prepare that found
	 * bytes holds their lock until the finish */
	if (total > 0)
		kfifo_out_finish(f, p);
	if (err) {
		/* out of memory: hand over what was taken, if anything */
		if (got == 0)
			return -1;
		PyErr_Clear();
	}
	return got;
}
