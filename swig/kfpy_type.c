/* SPDX-License-Identifier: MIT */
/*
 * kfpy_type.c - the type kfifo.Kfifo: its whole life (construction,
 * cyclic GC, free, reset, destruction), its protocols and queries, and the
 * module's types.
 *
 * ---- Interpreter exit --------------------------------------------------------
 *
 * At finalisation daemon threads stop for ever the moment they ask for the
 * GIL, so a side they hold (or queue for) is never given back.  A call that
 * would wait for such a side then raises instead of hanging, and free() or
 * the destructor leave the fifo's memory (and the exported buffer=) alone:
 * a daemon thread may still be copying into it without the GIL.  That
 * memory is leaked, once, at exit.
 */
#include "kfpy_internal.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

/* ---- construction and destruction ---------------------------------------------------- */

kf_state *kf_state_new(void)
{
	void *mem = NULL;
	kf_state *st;

	if (posix_memalign(&mem, 64, sizeof(kf_state)) != 0) {
		PyErr_NoMemory();
		return NULL;
	}
	st = mem;
	memset(st, 0, sizeof(*st));
	st->prod.gate = PyThread_allocate_lock();
	st->cons.gate = PyThread_allocate_lock();
	if (st->prod.gate == NULL || st->cons.gate == NULL) {
		if (st->prod.gate)
			PyThread_free_lock(st->prod.gate);
		if (st->cons.gate)
			PyThread_free_lock(st->cons.gate);
		free(st);
		PyErr_NoMemory();
		return NULL;
	}
	return st;
}

/* Nobody may be in flight on @st: its memory goes away. */
static void kf_state_delete(kf_state *st)
{
	PyThread_free_lock(st->prod.gate);
	PyThread_free_lock(st->cons.gate);
	free(st);
}

/*
 * Free the fifo's buffer and hand back the Py_buffer of Kfifo(buffer=obj)
 * in *view (to be released by the caller, last: the exporter's release may
 * run code that uses this fifo).  No call in flight.  Returns whether
 * *view must be released.
 */
static int kf_release_memory(kfpy_kfifo *k, Py_buffer *view)
{
	int has_view = k->has_view;

	k->freed = 1;
	/* notifiers first: they count themselves in the fifo's memory */
	kf_notifiers_fifo_gone(k);
	kfifo_free(&k->st->fifo);
	if (has_view)
		*view = k->view;
	k->has_view = 0;
	return has_view;
}

/*
 * At exit with a daemon thread in flight: leave the state and the buffer
 * export to it, for ever (see "Interpreter exit" above).
 */
static void kf_abandon(kfpy_kfifo *k)
{
	k->freed = 1;
	k->st = NULL;
	k->has_view = 0;
}

/* kfifo_init over the writable buffer @buffer, exported into k->view. */
static int kf_init_buffer(kfpy_kfifo *k, PyObject *buffer)
{
	void *buf;
	unsigned int n;

	if (kfpy_arg_writable(buffer, "__init__", &k->view, "buffer", &buf,
			      &n) < 0) {
		if (PyErr_ExceptionMatches(PyExc_TypeError) &&
		    PyObject_CheckBuffer(buffer)) {
			/* a buffer, but not one we can use */
			kf_exc_reraise_as(PyExc_ValueError);
		}
		return -1;
	}
	k->has_view = 1;
	if (k->view.len > (Py_ssize_t)1 << 31 ||
	    kfifo_init(&k->st->fifo, buf, n) != 0) {
		PyErr_Format(PyExc_ValueError,
			     "Kfifo(): buffer length must be a power of two "
			     "between 1 and 2**31, got %zd", k->view.len);
		return -1;
	}
	return 0;
}

/* producers= / consumers=: "one" or "many"; adds @many to *@mode. */
static int kf_count_arg(PyObject *v, const char *name, unsigned int many,
			unsigned int *mode)
{
	if (v == NULL)
		return 0;
	if (PyUnicode_Check(v)) {
		if (PyUnicode_CompareWithASCIIString(v, "one") == 0)
			return 0;
		if (PyUnicode_CompareWithASCIIString(v, "many") == 0) {
			*mode |= many;
			return 0;
		}
	}
	PyErr_Format(PyExc_ValueError,
		     "Kfifo(): %s must be 'one' or 'many', got %.200R", name, v);
	return -1;
}

/* Kfifo(size=None, *, start=0, buffer=None, shared=False, sealed=False,
 *       producers='one', consumers='one') */
static int kf_tp_init(PyObject *self, PyObject *args, PyObject *kwds)
{
	static char *kwlist[] = {"size", "start", "buffer", "shared", "sealed",
				 "producers", "consumers", NULL};
	PyObject *size = Py_None, *start = NULL, *buffer = Py_None;
	PyObject *producers = NULL, *consumers = NULL;
	kfpy_kfifo *k = (kfpy_kfifo *)self;
	unsigned int s = 0, st = 0, mode = 0;
	int ret, shared = 0, sealed = 0;

	if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O$OOppOO:Kfifo", kwlist,
					 &size, &start, &buffer, &shared, &sealed,
					 &producers, &consumers))
		return -1;
	if (kf_count_arg(producers, "producers", KFIFO_MANY_PRODUCERS, &mode) < 0 ||
	    kf_count_arg(consumers, "consumers", KFIFO_MANY_CONSUMERS, &mode) < 0)
		return -1;
	if (k->st != NULL || k->freed) {
		PyErr_SetString(PyExc_RuntimeError,
				"Kfifo.__init__() may run only once");
		return -1;
	}
	if ((size == Py_None) == (buffer == Py_None)) {
		PyErr_SetString(PyExc_TypeError,
				"Kfifo() takes either size or buffer=, not both "
				"and not neither");
		return -1;
	}
	if (shared && buffer != Py_None) {
		PyErr_SetString(PyExc_TypeError,
				"Kfifo(): shared=True makes its own shared memory "
				"block; it takes size, not buffer=");
		return -1;
	}
	if (sealed && !shared) {
		PyErr_SetString(PyExc_TypeError,
				"Kfifo(): sealed=True is a form of shared fifo; "
				"give shared=True too");
		return -1;
	}
	if (start != NULL && kf_start_arg(start, &st) < 0)
		return -1;
	if (size != Py_None && kf_size_arg(size, &s) < 0)
		return -1;
	k->fork_gen = kfpy_fork_gen;
	k->st = kf_state_new();
	if (k->st == NULL)
		return -1;
	if (shared) {
		if (kf_init_shared(k, s, st, sealed, mode) < 0)
			goto fail;
		return 0;
	}
	if (size != Py_None) {
		ret = kfifo_alloc(&k->st->fifo, s, GFP_KERNEL);
		if (ret != 0) {
			PyErr_Format(ret == -ENOMEM ? PyExc_MemoryError :
				     PyExc_ValueError,
				     "Kfifo(): cannot allocate a fifo of %u bytes",
				     s);
			goto fail;
		}
	} else if (kf_init_buffer(k, buffer) < 0) {
		goto fail;
	}
	/* A new fifo nobody else sees yet: plain stores are enough. */
	k->st->fifo.in = st;
	k->st->fifo.out = st;
	/* threads of this process are serialised per side by the binding
	 * anyway; the mode locks the sides for C code sharing the fifo and
	 * is what the attributes report */
	if (kfifo_set_mode(&k->st->fifo, mode) != 0) {
		/* only a handle or a bad bit refuses, and neither is here */
		PyErr_SetString(PyExc_SystemError,
				"Kfifo(): kfifo_set_mode() refused the mode");
		goto fail;
	}
	return 0;
fail:
	if (k->has_view)
		PyBuffer_Release(&k->view);
	k->has_view = 0;
	kfifo_free(&k->st->fifo);
	kf_state_delete(k->st);
	k->st = NULL;
	kf_drop_own_block_quietly(k);
	return -1;
}

/*
 * Cyclic GC.  The only reference a Kfifo holds that can close a cycle is
 * the object of Kfifo(buffer=obj); subclasses add their __dict__ (visited
 * by the subtype's own traverse).  Clearing frees the fifo: its memory is the
 * object's, so the two cannot outlive each other.
 */
static int kf_tp_traverse(PyObject *self, visitproc visit, void *arg)
{
	kfpy_kfifo *k = (kfpy_kfifo *)self;

	/*
	 * A block (a _Block, kfpy_shm.c) refers to no Python object, so it
	 * cannot close a cycle; it is not visited, so that the collector
	 * never clears it before this object has given it back (kf_tp_clear
	 * closes it).
	 */
	if (k->has_view && k->block == NULL)
		Py_VISIT(k->view.obj);
	return 0;
}

/*
 * Release what the object holds.  Unreachable (GC) or dead (dealloc): no
 * call is in flight, except at exit in daemon threads frozen in a call.
 */
static int kf_tp_clear(PyObject *self)
{
	kfpy_kfifo *k = (kfpy_kfifo *)self;
	Py_buffer view;

	Py_CLEAR(k->rec_result);
	Py_CLEAR(k->last_rec[0]);
	Py_CLEAR(k->last_rec[1]);
	kf_check_fork(k);
	if (k->st == NULL || k->regions > 0)
		return 0;	/* a region still points in: freed by dealloc */
	if (kf_exiting_in_flight(k->st)) {
		kf_abandon(k);
		return 0;
	}
	if (!k->freed) {
		if (kf_release_memory(k, &view))
			PyBuffer_Release(&view);
		kf_drop_own_block_quietly(k);
	}
	return 0;
}

static void kf_tp_dealloc(PyObject *self)
{
	kfpy_kfifo *k = (kfpy_kfifo *)self;

	PyObject_GC_UnTrack(self);
	kf_tp_clear(self);
	if (k->st != NULL)
		kf_state_delete(k->st);
	Py_TYPE(self)->tp_free(self);
}

static PyObject *kf_tp_repr(PyObject *self)
{
	kfpy_kfifo *k = (kfpy_kfifo *)self;
	unsigned int size, len;

	if (k->freed)
		return PyUnicode_FromString("<kfifo.Kfifo freed>");
	if (k->st == NULL)
		return PyUnicode_FromString("<kfifo.Kfifo uninitialised>");
	size = kfifo_size(&k->st->fifo);
	len = kfifo_len(&k->st->fifo);
	return PyUnicode_FromFormat("<kfifo.Kfifo size=%u len=%u avail=%u>",
				    size, len, size - len);
}

static Py_ssize_t kf_sq_length(PyObject *self)
{
	kfpy_kfifo *k;

	if (kfpy_arg_self_live(self, "__len__", &k) < 0)
		return -1;
	return (Py_ssize_t)kfifo_len(&k->st->fifo);
}

/* ---- both sides ------------------------------------------------------------------------ */

PyObject *kfpy_reset(kfpy_kfifo *k)
{
	if (kf_exiting_in_flight(k->st))
		return kf_exiting_error("reset");
	kf_enter_both(k->st);
	if (!k->freed) {
		kfifo_reset(&k->st->fifo);
		/* kfifo_reset() wakes nobody: moving out (to where it is)
		 * wakes the producers waiting for room, which there is now */
		kfifo_reset_out(&k->st->fifo);
	}
	kf_side_release(&k->st->prod);
	/* kept: kf_enter_both() may have let go of the GIL, and free() run */
	if (k->freed)
		return kf_freed_error("reset");
	Py_RETURN_NONE;
}

/*
 * free() waits for calls in flight; a second free() is harmless, as in C.
 * The fifo counts as freed at once, so nothing new starts; threads asleep
 * in a blocking call (get, put, the waits) are woken by closing it, see
 * the fifo freed and raise ValueError; free() lets them all leave before
 * the memory goes (kfifo_close: "waiters still touch @fifo while they
 * return").
 */
PyObject *kfpy_free(kfpy_kfifo *k)
{
	kf_state *st = k->st;
	Py_buffer view;
	int has_view = 0;

	if (k->freed)
		Py_RETURN_NONE;
	if (k->regions > 0) {
		PyErr_Format(PyExc_BufferError,
			     "Kfifo.free(): %zd view(s) of in_prepare() or "
			     "out_prepare() (memoryviews, or their .obj) still "
			     "point into the fifo; release and drop them first",
			     k->regions);
		return NULL;
	}
	if (kf_exiting_in_flight(st)) {
		kf_abandon(k);
		Py_RETURN_NONE;
	}
	k->freed = 1;
	while (st->waiters > 0) {
		/* Wake them: they see k->freed and leave.  A shared fifo is
		 * not closed (that would end the stream for the other
		 * processes): its waiters notice within one slice of
		 * KF_WAIT_SLICE_NS. */
		if (!kfifo_is_shared(&st->fifo))
			kfifo_close(&st->fifo);
		Py_BEGIN_ALLOW_THREADS
		sched_yield();
		Py_END_ALLOW_THREADS
	}
	kf_enter_both(st);
	has_view = kf_release_memory(k, &view);
	kf_side_release(&st->prod);
	if (has_view)
		PyBuffer_Release(&view);
	if (kf_drop_block(kf_take_block(k)) < 0)
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *kf_get_closed(PyObject *self, void *closure)
{
	kfpy_kfifo *k;

	(void)closure;
	if (kfpy_arg_self_live(self, "closed", &k) < 0)
		return NULL;
	return PyBool_FromLong(kfifo_is_closed(&k->st->fifo));
}

static PyObject *kf_get_name(PyObject *self, void *closure)
{
	kfpy_kfifo *k;

	(void)closure;
	if (kfpy_arg_self_live(self, "name", &k) < 0)
		return NULL;
	if (k->block == NULL)
		Py_RETURN_NONE;
	return kf_block_name(k->block);
}

/* producers / consumers: 'one' or 'many' (the mode, kfifo_mode) */
static PyObject *kf_get_count(PyObject *self, void *closure)
{
	unsigned int many = (unsigned int)(uintptr_t)closure;
	kfpy_kfifo *k;

	if (kfpy_arg_self_live(self, many == KFIFO_MANY_PRODUCERS ? "producers"
								   : "consumers",
			       &k) < 0)
		return NULL;
	return PyUnicode_FromString(kfifo_mode(&k->st->fifo) & many ? "many"
								     : "one");
}

static PyObject *kf_get_sealed(PyObject *self, void *closure)
{
	kfpy_kfifo *k;

	(void)closure;
	if (kfpy_arg_self_live(self, "sealed", &k) < 0)
		return NULL;
	return PyBool_FromLong(k->block != NULL && kf_block_sealed(k->block));
}

static PyGetSetDef kf_getset[] = {
	{"producers", kf_get_count, NULL,
	 "``'one'`` or ``'many'``: how many producers may use the fifo at\n"
	 "once (the constructor's ``producers=``; a shared fifo's is in its\n"
	 "header, so every handle, attached or unpickled, reports it).",
	 (void *)(uintptr_t)KFIFO_MANY_PRODUCERS},
	{"consumers", kf_get_count, NULL,
	 "``'one'`` or ``'many'``: how many consumers may use the fifo at\n"
	 "once (``consumers=``), as ``producers``.",
	 (void *)(uintptr_t)KFIFO_MANY_CONSUMERS},
	{"closed", kf_get_closed, NULL,
	 "Whether ``close()`` ran (``kfifo_is_closed``); ``reset()`` reopens.", NULL},
	{"name", kf_get_name, NULL,
	 "The name of the shared memory block of a shared fifo (for\n"
	 "``Kfifo.attach()``), ``None`` for a fifo of this process only.", NULL},
	{"sealed", kf_get_sealed, NULL,
	 "Whether the fifo's block is a memfd sealed against shrinking, so that\n"
	 "no peer can make this process's accesses fault (``sealed=True``, or\n"
	 "``attach()`` of such a descriptor); ``False`` otherwise.", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

/* ---- queries (either side; a snapshot, under the GIL) ----------------------------------- */

#define KF_QUERY(name, expr)                                                   \
	PyObject *kfpy_##name(kfpy_kfifo *k)                                   \
	{                                                                      \
		struct kfifo *f = &k->st->fifo;                                \
		return expr;                                                   \
	}

KF_QUERY(len, PyLong_FromUnsignedLong(kfifo_len(f)))
KF_QUERY(size, PyLong_FromUnsignedLong(kfifo_size(f)))
KF_QUERY(avail, PyLong_FromUnsignedLong(kfifo_avail(f)))
KF_QUERY(is_empty, PyBool_FromLong(kfifo_is_empty(f)))
KF_QUERY(is_full, PyBool_FromLong(kfifo_is_full(f)))
KF_QUERY(valid, PyBool_FromLong(kfifo_valid(f)))

/* ---- methods on any Kfifo ----------------------------------------------------------------- */

PyObject *kfpy_is_freed(PyObject *self)
{
	kfpy_kfifo *k;

	if (kfpy_arg_self(self, "is_freed", &k) < 0)
		return NULL;
	return PyBool_FromLong(k->freed);
}

PyObject *kfpy_enter(PyObject *self)
{
	kfpy_kfifo *k;

	if (kfpy_arg_self_live(self, "__enter__", &k) < 0)
		return NULL;
	Py_INCREF(self);
	return self;
}

PyObject *kfpy_exit(PyObject *self, PyObject *exc_type, PyObject *exc,
		    PyObject *tb)
{
	kfpy_kfifo *k;
	PyObject *r;

	(void)exc_type;
	(void)exc;
	(void)tb;
	if (kfpy_arg_self(self, "__exit__", &k) < 0)
		return NULL;
	/*
	 * Leaving `with` ends the stream for the peer, then lets go of this
	 * handle, as leaving `with` does for a socket or a pipe: a consumer
	 * sees the end of the stream (b"", None, EOFError), not a timeout.
	 * Not when free() is going to refuse (views still point into the
	 * ring): a call that fails changes nothing.  kfifo.freeing(f) frees
	 * without closing.
	 */
	if (!k->freed && k->regions == 0)
		kfifo_close(&k->st->fifo);
	r = kfpy_free(k);
	if (r == NULL)
		return NULL;
	Py_DECREF(r);
	Py_RETURN_FALSE;
}

/*
 * An ordinary fifo is memory of this process: there is nothing a pickle
 * could carry that another process (or a later one) could use.  Refused at
 * every protocol, and so are copy.copy() and copy.deepcopy().  A shared
 * fifo pickles to its block's name and unpickles as Kfifo.attach(name): a
 * new handle to the same fifo, in any process (copy.copy() too).
 */
PyObject *kfpy_reduce_ex(PyObject *self, PyObject *protocol)
{
	kfpy_kfifo *k = (kfpy_kfifo *)self;
	(void)protocol;
	if (PyObject_TypeCheck(self, &kfpy_KfifoType) && k->freed)
		return kf_freed_error("__reduce_ex__");
	if (!PyObject_TypeCheck(self, &kfpy_KfifoType) || k->st == NULL ||
	    k->block == NULL) {
		PyErr_Format(PyExc_TypeError, "cannot pickle '%.100s' object: "
			     "a Kfifo is memory of this process (only a "
			     "Kfifo(size, shared=True) pickles)",
			     Py_TYPE(self)->tp_name);
		return NULL;
	}
	/* by name, or by fd (kfpy_shm.c) */
	return kf_block_reduce(k->block);
}

/* ---- the types --------------------------------------------------------------------------- */

static PySequenceMethods kf_as_sequence = {
	.sq_length = kf_sq_length,
};

PyDoc_STRVAR(kf_kfifo_doc,
"Kfifo(size=None, *, start=0, buffer=None, shared=False, sealed=False, producers='one', consumers='one')\n--\n\n"
"A byte FIFO over a power-of-two ring buffer: the Linux kernel's kfifo\n"
"(\"new kfifo API v0.3\") in C, here with a Python interface.\n"
"\n"
"Methods keep the C names without the ``kfifo_`` prefix (``in`` is a\n"
"Python keyword, hence ``in_``) and the C return conventions, with\n"
"``bytes`` in place of output buffers.\n"
"\n"
"Parameters\n"
"----------\n"
"size : int, optional\n"
"    Buffer size in bytes, rounded up to a power of two\n"
"    (``kfifo_alloc``). 1 to 2**31.\n"
"start : int, keyword-only\n"
"    Initial value of both indices, taken modulo 2**32. Indices run\n"
"    freely and wrap at 2**32; a start near 2**32 lets tests cross the\n"
"    wrap at once.\n"
"buffer : writable bytes-like object, keyword-only\n"
"    Use this memory instead of allocating (``kfifo_init``); its length\n"
"    must be a power of two (1 to 2**31). The object is kept alive and\n"
"    exported (a ``bytearray`` cannot be resized) until ``free()``; it is\n"
"    never copied, so the fifo's bytes are visible in it.\n"
"shared : bool, keyword-only\n"
"    Put the fifo in a new POSIX shared memory block, backed at once\n"
"    (``OSError`` when it does not fit, never SIGBUS later): ``name`` is\n"
"    the block's name, ``Kfifo.attach(name)`` a handle in another process;\n"
"    the fifo pickles to its name. The other process is not trusted: this\n"
"    one never touches memory outside the block, never crashes, never\n"
"    waits past its timeout. The creator unlinks the block at ``free()``\n"
"    or exit. Leaving ``with f:`` closes the fifo for all, ``free()``\n"
"    does not. See docs/processes.md.\n"
"sealed : bool, keyword-only\n"
"    With ``shared=True``: a ``memfd`` with no name, sealed so that no\n"
"    peer can shrink it (SIGBUS for its users), instead of a named block.\n"
"    It travels as a file descriptor (``fork``, ``multiprocessing``'s\n"
"    pickling, ``Kfifo.attach(fd)``); ``name`` is ``None``. Threat model:\n"
"    docs/shared-memory.md.\n"
"producers, consumers : {'one', 'many'}, keyword-only\n"
"    How many producers (consumers) may use the fifo at once. ``'one'``\n"
"    is lock-free; ``'many'`` locks that side (across processes, and\n"
"    recovered from a killed holder). A shared fifo of ``'one'`` refuses\n"
"    a second process on that side with ``RuntimeError``. See\n"
"    docs/pools.md.\n"
"\n"
"Give either ``size`` or ``buffer``.\n"
"\n"
"Raises\n"
"------\n"
"ValueError\n"
"    ``size`` is 0 or larger than 2**31; ``buffer`` is read-only, not\n"
"    contiguous, or its length is not a power of two.\n"
"TypeError\n"
"    A wrong type, or both or neither of ``size`` and ``buffer``, or\n"
"    ``shared=True`` with ``buffer``, or ``sealed=True`` without\n"
"    ``shared=True``.\n"
"ValueError\n"
"    ``producers`` or ``consumers`` other than ``'one'`` or ``'many'``.\n"
"OSError\n"
"    A shared fifo's memory cannot be had (``ENOSPC``: ``/dev/shm`` or\n"
"    the memory is too small for it).\n"
"MemoryError\n"
"    The buffer cannot be allocated.\n"
"\n"
"Notes\n"
"-----\n"
"Inputs are any C-contiguous bytes-like object (bytes, bytearray,\n"
"memoryview, array.array, numpy arrays), read in place without a copy.\n"
"Non-contiguous buffers are refused with ``TypeError``: copy them first.\n"
"\n"
"Threads: one producer thread and one consumer thread run in parallel\n"
"without a lock, as in C; copies of 64 KiB or more run without the GIL.\n"
"Other use from several threads is serialised per side and never\n"
"crashes. ``reset()`` and ``free()`` wait for calls in flight.\n"
"\n"
"A Kfifo is memory of this process: it cannot be pickled or copied, and\n"
"two fifos are equal only when they are the same object. It takes part\n"
"in cyclic garbage collection, so a fifo in a reference cycle (or whose\n"
"``buffer=`` object refers back to it) is freed with the cycle.\n"
"\n"
"Examples\n"
"--------\n"
">>> f = Kfifo(1000)\n"
">>> f.size()\n"
"1024\n"
">>> f.in_(b\"hello\")\n"
"5\n"
">>> f.out(3)\n"
"b'hel'\n"
">>> f.in_rec(b\"record\", 1)\n"
"0\n"
">>> f.out(2), f.out_rec(64, 1)\n"
"(b'lo', (0, b'record', 6))\n");

PyTypeObject kfpy_KfifoType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "kfifo.Kfifo",
	.tp_basicsize = sizeof(kfpy_kfifo),
	.tp_dealloc = kf_tp_dealloc,
	.tp_repr = kf_tp_repr,
	.tp_as_sequence = &kf_as_sequence,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
	.tp_doc = kf_kfifo_doc,
	.tp_traverse = kf_tp_traverse,
	.tp_clear = kf_tp_clear,
	.tp_getset = kf_getset,
	.tp_init = kf_tp_init,
	.tp_new = PyType_GenericNew,
};

/* ---- the module ------------------------------------------------------------------------ */

/*
 * The name, type and docstring of every method, from the one table; for
 * the FAST_* entries also their METH_FASTCALL wrapper (the others are
 * SWIG's, found in the module).
 */
struct kf_method_spec {
	const char *type;
	const char *name;
	const char *doc;
	PyCFunction fast;
	int flags;
};

#define KF_FAST_POS(c_function) NULL, 0
#define KF_FAST_KW(c_function) NULL, 0
#define KF_FAST_FAST_POS(c_function) \
	(PyCFunction)(void (*)(void))c_function##_fast, METH_FASTCALL
#define KF_FAST_FAST_KW(c_function) \
	(PyCFunction)(void (*)(void))c_function##_fast, \
	METH_FASTCALL | METH_KEYWORDS

static const struct kf_method_spec kf_specs[] = {
#define KFPY_METHOD(type, name, c_function, kw, params, doc) \
	{ #type, #name, doc, KF_FAST_##kw(c_function) },
#include "kfpy_methods.h"
#undef KFPY_METHOD
};

#define KF_NSPECS (sizeof(kf_specs) / sizeof(kf_specs[0]))

/* the types' method tables, filled once (a NULL entry ends each) */
static PyMethodDef kf_kfifo_methods[KF_NSPECS + 1];
static PyMethodDef kf_spinlock_methods[KF_NSPECS + 1];

/*
 * The method @sp from @module's function of that name (SWIG's wrapper),
 * through the public C API only: the wrapper's C function and calling
 * convention, with the table's name and docstring.
 */
static int kf_method_from_module(PyObject *module,
				 const struct kf_method_spec *sp,
				 PyMethodDef *def)
{
	PyObject *fn = PyObject_GetAttrString(module, sp->name);

	if (fn == NULL)
		return -1;
	if (!PyCFunction_Check(fn)) {
		PyErr_Format(PyExc_SystemError,
			     "kfifo._kfifo: %s is not a C function", sp->name);
		Py_DECREF(fn);
		return -1;
	}
	def->ml_name = sp->name;
	def->ml_meth = PyCFunction_GetFunction(fn);
	def->ml_flags = PyCFunction_GetFlags(fn);
	def->ml_doc = sp->doc;
	Py_DECREF(fn);
	return 0;
}

/*
 * Fill both method tables from the module's functions, then take every C
 * function out of the module (SWIG's wrappers and any helpers it adds):
 * the module exports only the types and the constants.
 */
static int kf_methods_from_module(PyObject *module)
{
	PyObject *dict = PyModule_GetDict(module), *key, *value, *names;
	size_t i, nk = 0, ns = 0;
	Py_ssize_t pos = 0, j;

	for (i = 0; i < KF_NSPECS; i++) {
		int spin = strcmp(kf_specs[i].type, "SpinLock") == 0;
		PyMethodDef *def = spin ? &kf_spinlock_methods[ns++]
					: &kf_kfifo_methods[nk++];

		if (kf_specs[i].fast != NULL) {
			def->ml_name = kf_specs[i].name;
			def->ml_meth = kf_specs[i].fast;
			def->ml_flags = kf_specs[i].flags;
			def->ml_doc = kf_specs[i].doc;
		} else if (kf_method_from_module(module, &kf_specs[i], def) < 0) {
			return -1;
		}
	}
	names = PyList_New(0);
	if (names == NULL)
		return -1;
	while (PyDict_Next(dict, &pos, &key, &value)) {
		if (PyCFunction_Check(value) && PyList_Append(names, key) < 0) {
			Py_DECREF(names);
			return -1;
		}
	}
	for (j = 0; j < PyList_GET_SIZE(names); j++) {
		if (PyDict_DelItem(dict, PyList_GET_ITEM(names, j)) < 0) {
			Py_DECREF(names);
			return -1;
		}
	}
	Py_DECREF(names);
	return 0;
}

static int kf_add_type(PyObject *module, PyTypeObject *type, const char *name,
		       PyMethodDef *methods)
{
	type->tp_methods = methods;
	if (PyType_Ready(type) < 0)
		return -1;
	Py_INCREF(type);
	if (PyModule_AddObject(module, name, (PyObject *)type) < 0) {
		Py_DECREF(type);
		return -1;
	}
	return 0;
}

int kfpy_types_init(PyObject *module)
{
	static int atfork_done;
	PyObject *attach;

	if (!atfork_done) {
		if (pthread_atfork(NULL, NULL, kf_atfork_child) != 0) {
			PyErr_SetString(PyExc_OSError,
					"kfifo: pthread_atfork() failed");
			return -1;
		}
		atfork_done = 1;
	}
	if (PyType_Ready(&kf_RegionType) < 0 || PyType_Ready(&kf_RecordsType) < 0 ||
	    kf_methods_from_module(module) < 0)
		return -1;
	if (kf_add_type(module, &kfpy_KfifoType, "Kfifo", kf_kfifo_methods) < 0 ||
	    kf_add_type(module, &kfpy_SpinLockType, "SpinLock",
			kf_spinlock_methods) < 0 ||
	    kf_notify_init(module) < 0 || kf_errors_init(module) < 0 ||
	    kf_shm_init(module) < 0)
		return -1;
	attach = PyDescr_NewClassMethod(&kfpy_KfifoType, &kf_attach_def);
	if (attach == NULL ||
	    PyDict_SetItemString(kfpy_KfifoType.tp_dict, "attach", attach) < 0) {
		Py_XDECREF(attach);
		return -1;
	}
	Py_DECREF(attach);
	PyType_Modified(&kfpy_KfifoType);
	return PyModule_AddIntConstant(module, "GIL_THRESHOLD",
				       (long)KFPY_GIL_THRESHOLD);
}
