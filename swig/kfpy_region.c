/* SPDX-License-Identifier: MIT */
/*
 * kfpy_region.c - zero-copy: memoryviews over the ring (in_prepare,
 * out_prepare) and finishing.
 */
#include "kfpy_internal.h"

/* ---- zero-copy views ------------------------------------------------------------------ */

/*
 * A run of the ring buffer, exported as a memoryview.  The rule: a fifo's
 * memory lives while any object that can reach it lives.  So a region
 * counts in k->regions from its creation to its deallocation, not while
 * a buffer export is open: the memoryview's exporter (mv.obj) reaches
 * the ring even after every memoryview of it was released, and can make
 * new ones.  free() refuses while regions are alive (BufferError), and
 * a region never exports once its fifo is freed.  Regions take part in
 * cyclic GC: a view kept on its own fifo (a subclass attribute, a
 * closure) is a cycle fifo -> memoryview -> region -> fifo, collected
 * like any other.  The type is private: users see the memoryview.
 */
typedef struct {
	PyObject_HEAD
	kfpy_kfifo *fifo;	/* NULL once the region was cleared */
	unsigned char *data;
	Py_ssize_t len;
	int readonly;
} kf_region;

static int kf_region_getbuffer(PyObject *self, Py_buffer *view, int flags)
{
	kf_region *r = (kf_region *)self;

	if (r->fifo == NULL || r->fifo->freed) {
		PyErr_SetString(PyExc_BufferError,
				"Kfifo: this region's fifo was freed");
		view->obj = NULL;
		return -1;
	}
	return PyBuffer_FillInfo(view, self, r->data, r->len, r->readonly, flags);
}

/* Stop counting in the fifo and let it go. */
static int kf_region_clear(PyObject *self)
{
	kf_region *r = (kf_region *)self;
	kfpy_kfifo *k = r->fifo;

	if (k != NULL) {
		r->fifo = NULL;
		r->data = NULL;
		r->len = 0;
		k->regions--;
		Py_DECREF(k);
	}
	return 0;
}

static int kf_region_traverse(PyObject *self, visitproc visit, void *arg)
{
	Py_VISIT(((kf_region *)self)->fifo);
	return 0;
}

static void kf_region_dealloc(PyObject *self)
{
	PyObject_GC_UnTrack(self);
	kf_region_clear(self);
	PyObject_GC_Del(self);
}

static PyBufferProcs kf_region_as_buffer = {
	.bf_getbuffer = kf_region_getbuffer,
};

PyTypeObject kf_RegionType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "kfifo._Region",
	.tp_basicsize = sizeof(kf_region),
	.tp_dealloc = kf_region_dealloc,
	.tp_as_buffer = &kf_region_as_buffer,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
	.tp_traverse = kf_region_traverse,
	.tp_clear = kf_region_clear,
	.tp_doc = "A run of a fifo's ring buffer, seen through a memoryview.",
};

/* A new, empty region of @k, counted from here on. */
static kf_region *kf_region_new(kfpy_kfifo *k, int readonly)
{
	kf_region *r = PyObject_GC_New(kf_region, &kf_RegionType);

	if (r == NULL)
		return NULL;
	Py_INCREF(k);
	r->fifo = k;
	k->regions++;
	r->data = NULL;
	r->len = 0;
	r->readonly = readonly;
	PyObject_GC_Track(r);
	return r;
}

typedef unsigned int (*kf_prepare_fn)(struct kfifo *, struct kfifo_region *,
				      unsigned int);

/*
 * Both regions exist (and count) before the ring is looked at: creating
 * an object may run the garbage collector, and with it any Python code (a
 * __del__, a gc callback) that may call free().  Once counted, free()
 * refuses; a free() that ran before that is seen here.
 */
static PyObject *kf_prepare(kfpy_kfifo *k, kf_side *s, kf_prepare_fn fn,
			    const char *method, unsigned int n, int readonly)
{
	struct kfifo_region reg[2];
	kf_region *ra = NULL, *rb = NULL;
	PyObject *a = NULL, *b = NULL, *res = NULL;

	if (kf_enter(k, s, method) < 0)
		return NULL;
	if (kfifo_mode(&k->st->fifo) &
	    (s == &k->st->prod ? KFIFO_MANY_PRODUCERS : KFIFO_MANY_CONSUMERS)) {
		/* the regions would hold the side's lock, for every process,
		 * for as long as Python code keeps them */
		PyErr_Format(PyExc_ValueError,
			     "Kfifo.%s(): zero-copy regions need a fifo of one "
			     "%s (this one has %s='many'); use %s",
			     method, s == &k->st->prod ? "producer" : "consumer",
			     s == &k->st->prod ? "producers" : "consumers",
			     s == &k->st->prod ? "put_rec()/put_recs()/put()"
					       : "get_rec()/get_recs()/get()");
		return NULL;
	}
	ra = kf_region_new(k, readonly);
	rb = ra ? kf_region_new(k, readonly) : NULL;
	if (rb == NULL)
		goto out;
	/* kept: making the regions can run the collector, and a
	 * finalizer free() */
	if (k->freed) {
		kf_freed_error(method);
		goto out;
	}
	fn(&k->st->fifo, reg, n);
	ra->data = reg[0].data;
	ra->len = (Py_ssize_t)reg[0].len;
	rb->data = reg[1].data;
	rb->len = (Py_ssize_t)reg[1].len;
	a = PyMemoryView_FromObject((PyObject *)ra);
	b = a ? PyMemoryView_FromObject((PyObject *)rb) : NULL;
	if (b != NULL)
		res = PyTuple_Pack(2, a, b);
out:
	Py_XDECREF(a);
	Py_XDECREF(b);
	Py_XDECREF(ra);
	Py_XDECREF(rb);
	return res;
}

PyObject *kfpy_in_prepare(kfpy_kfifo *k, unsigned int n)
{
	return kf_prepare(k, &k->st->prod, kfifo_in_prepare, "in_prepare", n, 0);
}

PyObject *kfpy_out_prepare(kfpy_kfifo *k, unsigned int n)
{
	return kf_prepare(k, &k->st->cons, kfifo_out_prepare, "out_prepare", n, 1);
}

PyObject *kfpy_in_finish(kfpy_kfifo *k, unsigned int n)
{
	if (kf_enter(k, &k->st->prod, "in_finish") < 0)
		return NULL;
	return PyLong_FromUnsignedLong(kfifo_in_finish(&k->st->fifo, n));
}

PyObject *kfpy_out_finish(kfpy_kfifo *k, unsigned int n)
{
	if (kf_enter(k, &k->st->cons, "out_finish") < 0)
		return NULL;
	return PyLong_FromUnsignedLong(kfifo_out_finish(&k->st->fifo, n));
}
