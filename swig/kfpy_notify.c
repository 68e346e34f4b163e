/* SPDX-License-Identifier: MIT */
/*
 * kfpy_notify.c - the type kfifo.Notifier, its whole life: a file
 * descriptor that an event loop (asyncio, selectors, trio, anyio) waits on
 * instead of a thread blocked in get() or put().  Each is a C notifier of
 * the core (kfifo.h, kfifo_notifier_*()), made by Kfifo.notifier().
 *
 * The no-lost-wake recipe, which kfifo.aio follows:
 *
 *     n.arm()
 *     while True:
 *         try the non-blocking call (timeout=0); if it succeeded: break
 *         wait until n.fileno() is readable
 *         n.clear()
 *
 * arm() counts the notifier as a waiter of its direction before the check,
 * and clear() asks for the next signal before the next check, so a
 * publication that the check misses signals the fd.
 *
 * Lifetimes.  Every call runs with the GIL held and none releases it, so
 * Kfifo.free() (which also holds it) never runs in the middle of one.  A
 * Notifier holds a reference to its Kfifo; the Kfifo does not hold its
 * notifiers: every open Notifier is on one list (kf_open), and when a
 * fifo's memory goes (free(), or its collection as garbage) each of its
 * notifiers is detached first (kf_notifiers_fifo_gone(): counted out,
 * made readable so that a waiter wakes and gets the fifo's ValueError from
 * its retry, the fifo forgotten), while the memory is still there.  The
 * fd stays open until close(): an event loop that watches it must not see
 * it vanish or be reused.  At interpreter exit an atexit handler closes
 * every open notifier (a shared fifo's slot is given back).
 */
#include "kfpy_internal.h"

#include <errno.h>
#include <string.h>

typedef struct kf_notifier {
	PyObject_HEAD
	struct kfifo_notifier *n;       /* NULL once closed */
	kfpy_kfifo *fifo;               /* NULL once closed */
	struct kf_notifier *prev, *next; /* on kf_open while not closed */
	int dir;                        /* KFIFO_NOTIFY_DATA or _ROOM */
	int armed;
	int detached;                   /* the fifo was freed */
	unsigned long fork_gen;         /* kfpy_fork_gen when made */
} kf_notifier;

/* every Notifier not closed yet (GIL-protected) */
static kf_notifier *kf_open;

static const char *kf_dir_name(int dir)
{
	return dir == KFIFO_NOTIFY_DATA ? "data" : "room";
}

static void kf_unlink(kf_notifier *self)
{
	if (self->prev)
		self->prev->next = self->next;
	else if (kf_open == self)
		kf_open = self->next;
	if (self->next)
		self->next->prev = self->prev;
	self->prev = self->next = NULL;
}

/* Close the C notifier (disarming it) and let go of the fifo. */
static void kf_close(kf_notifier *self)
{
	kfpy_kfifo *fifo = self->fifo;

	if (self->n == NULL)
		return;
	kf_unlink(self);
	kfifo_notifier_close(self->n);
	self->n = NULL;
	self->armed = 0;
	self->fifo = NULL;
	Py_XDECREF(fifo);
}

void kf_notifiers_fifo_gone(kfpy_kfifo *k)
{
	kf_notifier *self;

	for (self = kf_open; self != NULL; self = self->next) {
		if (self->fifo == k && !self->detached) {
			kfifo_notifier_detach(self->n);
			self->detached = 1;
			self->armed = 0;
		}
	}
}

static PyObject *kf_os_error(int err, const char *fmt, const char *method)
{
	PyObject *msg = PyUnicode_FromFormat(fmt, method), *exc;

	if (msg == NULL)
		return NULL;
	exc = PyObject_CallFunction(PyExc_OSError, "iO", err, msg);
	Py_DECREF(msg);
	if (exc != NULL) {
		PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
		Py_DECREF(exc);
	}
	return NULL;
}

/* ValueError for a notifier that cannot be used by @method; NULL if it
 * can.  Closed, made before a fork() in the parent, or its fifo freed. */
static int kf_usable(kf_notifier *self, const char *method)
{
	if (self->n == NULL) {
		PyErr_Format(PyExc_ValueError,
			     "Notifier.%s(): the notifier is closed", method);
		return -1;
	}
	if (self->fork_gen != kfpy_fork_gen) {
		PyErr_Format(PyExc_ValueError,
			     "Notifier.%s(): the notifier was made in the parent "
			     "process, before fork(); make a new one here with "
			     "Kfifo.notifier()", method);
		return -1;
	}
	if (self->detached) {
		PyErr_Format(PyExc_ValueError,
			     "Notifier.%s(): operation on a freed Kfifo", method);
		return -1;
	}
	return 0;
}

/* ---- Kfifo.notifier() ------------------------------------------------------------- */

PyObject *kfpy_notifier(kfpy_kfifo *k, PyObject *direction)
{
	kf_notifier *self;
	int dir, err;

	if (!PyUnicode_Check(direction)) {
		PyErr_Format(PyExc_TypeError,
			     "Kfifo.notifier(): direction must be 'data' or "
			     "'room', not %.100s", Py_TYPE(direction)->tp_name);
		return NULL;
	}
	if (PyUnicode_CompareWithASCIIString(direction, "data") == 0)
		dir = KFIFO_NOTIFY_DATA;
	else if (PyUnicode_CompareWithASCIIString(direction, "room") == 0)
		dir = KFIFO_NOTIFY_ROOM;
	else {
		PyErr_Format(PyExc_ValueError,
			     "Kfifo.notifier(): direction must be 'data' (wake "
			     "when data is stored) or 'room' (wake when room is "
			     "made), got %R", direction);
		return NULL;
	}
	self = PyObject_GC_New(kf_notifier, &kfpy_NotifierType);
	if (self == NULL)
		return NULL;
	self->n = NULL;
	self->fifo = NULL;
	self->prev = self->next = NULL;
	self->dir = dir;
	self->armed = 0;
	self->detached = 0;
	self->fork_gen = kfpy_fork_gen;
	err = kfifo_notifier_open(&self->n, &k->st->fifo, dir);
	if (err < 0) {
		Py_DECREF(self);
		if (err == -ENOSYS)
			return kf_os_error(-err,
					   "Kfifo.%s(): notifiers need Linux "
					   "futexes; this build waits with the "
					   "sleep-poll fallback",
					   "notifier");
		if (err == -EOPNOTSUPP)
			return kf_os_error(-err,
					   "Kfifo.%s(): this shared block was "
					   "laid out by a kfifo without "
					   "notifiers (no notifier slots)",
					   "notifier");
		errno = -err;
		return PyErr_SetFromErrno(PyExc_OSError);
	}
	Py_INCREF(k);
	self->fifo = k;
	self->next = kf_open;
	if (kf_open)
		kf_open->prev = self;
	kf_open = self;
	PyObject_GC_Track(self);
	return (PyObject *)self;
}

/* ---- the methods ------------------------------------------------------------------ */

static PyObject *kf_n_fileno(PyObject *op, PyObject *unused)
{
	kf_notifier *self = (kf_notifier *)op;

	(void)unused;
	if (kf_usable(self, "fileno") < 0)
		return NULL;
	return PyLong_FromLong(kfifo_notifier_fd(self->n));
}

static PyObject *kf_n_arm(PyObject *op, PyObject *unused)
{
	kf_notifier *self = (kf_notifier *)op;
	int err;

	(void)unused;
	if (kf_usable(self, "arm") < 0)
		return NULL;
	if (self->fifo->freed)	/* never: free() detaches; but be sure */
		return kf_freed_error("arm");
	err = kfifo_notifier_arm(self->n);
	if (err == -EBUSY)
		return kf_os_error(EBUSY,
				   "Notifier.%s(): all notifier slots of this "
				   "shared fifo are taken (at most 16 notifiers "
				   "are armed on one shared fifo at a time); "
				   "disarm one, or wait without a notifier",
				   "arm");
	if (err < 0) {
		errno = -err;
		return PyErr_SetFromErrno(PyExc_OSError);
	}
	self->armed = 1;
	Py_RETURN_NONE;
}

static PyObject *kf_n_disarm(PyObject *op, PyObject *unused)
{
	kf_notifier *self = (kf_notifier *)op;

	(void)unused;
	if (self->n != NULL && self->fork_gen == kfpy_fork_gen)
		kfifo_notifier_disarm(self->n);
	self->armed = 0;
	Py_RETURN_NONE;
}

static PyObject *kf_n_clear(PyObject *op, PyObject *unused)
{
	kf_notifier *self = (kf_notifier *)op;

	(void)unused;
	if (self->n == NULL) {
		PyErr_SetString(PyExc_ValueError,
				"Notifier.clear(): the notifier is closed");
		return NULL;
	}
	if (self->fork_gen == kfpy_fork_gen)
		kfifo_notifier_clear(self->n);
	Py_RETURN_NONE;
}

static PyObject *kf_n_close(PyObject *op, PyObject *unused)
{
	(void)unused;
	kf_close((kf_notifier *)op);
	Py_RETURN_NONE;
}

static PyObject *kf_n_enter(PyObject *op, PyObject *unused)
{
	PyObject *r = kf_n_arm(op, unused);

	if (r == NULL)
		return NULL;
	Py_DECREF(r);
	Py_INCREF(op);
	return op;
}

static PyObject *kf_n_exit(PyObject *op, PyObject *args)
{
	(void)args;
	kf_close((kf_notifier *)op);
	Py_RETURN_FALSE;
}

static PyObject *kf_n_get_armed(PyObject *op, void *closure)
{
	kf_notifier *self = (kf_notifier *)op;

	(void)closure;
	/* the library's word, not only ours: a shared fifo's notifier can
	 * lose its slot (kfifo_notifier_armed()) */
	return PyBool_FromLong(self->n != NULL && self->armed &&
			       !self->detached &&
			       self->fork_gen == kfpy_fork_gen &&
			       kfifo_notifier_armed(self->n));
}

static PyObject *kf_n_get_closed(PyObject *op, void *closure)
{
	(void)closure;
	return PyBool_FromLong(((kf_notifier *)op)->n == NULL);
}

static PyObject *kf_n_get_direction(PyObject *op, void *closure)
{
	(void)closure;
	return PyUnicode_FromString(kf_dir_name(((kf_notifier *)op)->dir));
}

static PyObject *kf_n_repr(PyObject *op)
{
	kf_notifier *self = (kf_notifier *)op;

	if (self->n == NULL)
		return PyUnicode_FromFormat("<kfifo.Notifier %s closed>",
					    kf_dir_name(self->dir));
	return PyUnicode_FromFormat("<kfifo.Notifier %s %s fd=%d%s>",
				    kf_dir_name(self->dir),
				    self->armed && !self->detached ? "armed"
								   : "disarmed",
				    kfifo_notifier_fd(self->n),
				    self->detached ? " (fifo freed)" : "");
}

static int kf_n_traverse(PyObject *op, visitproc visit, void *arg)
{
	Py_VISIT(((kf_notifier *)op)->fifo);
	return 0;
}

static int kf_n_clear_gc(PyObject *op)
{
	kf_close((kf_notifier *)op);
	return 0;
}

static void kf_n_dealloc(PyObject *op)
{
	PyObject_GC_UnTrack(op);
	kf_close((kf_notifier *)op);
	PyObject_GC_Del(op);
}

static PyObject *kf_n_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
	(void)args;
	(void)kwds;
	PyErr_Format(PyExc_TypeError,
		     "cannot create '%.100s' instances: use Kfifo.notifier('data') "
		     "or Kfifo.notifier('room')", type->tp_name);
	return NULL;
}

static PyMethodDef kf_n_methods[] = {
	{ "fileno", kf_n_fileno, METH_NOARGS,
	  "fileno($self, /)\n--\n\n"
	  "The file descriptor to wait on (readable when signalled).\n\n"
	  "Owned by the notifier: do not read or close it. It stays readable\n"
	  "until ``clear()``. Raises ``ValueError`` once the notifier is\n"
	  "closed or its fifo freed." },
	{ "arm", kf_n_arm, METH_NOARGS,
	  "arm($self, /)\n--\n\n"
	  "Count the notifier as a waiter of its direction.\n\n"
	  "From now on every publication in that direction (data stored, or\n"
	  "room made), ``close()`` and ``free()`` of the fifo make the fd\n"
	  "readable. Idempotent. Raises ``ValueError`` on a freed fifo and\n"
	  "``OSError`` (``errno.EBUSY``) when all 16 notifier slots of a\n"
	  "shared fifo are taken." },
	{ "disarm", kf_n_disarm, METH_NOARGS,
	  "disarm($self, /)\n--\n\n"
	  "Stop counting as a waiter: publishers no longer signal the fd.\n\n"
	  "Idempotent; never raises." },
	{ "clear", kf_n_clear, METH_NOARGS,
	  "clear($self, /)\n--\n\n"
	  "Drain the fd without blocking and ask for the next signal.\n\n"
	  "Call it after the fd was readable, before checking the fifo again." },
	{ "close", kf_n_close, METH_NOARGS,
	  "close($self, /)\n--\n\n"
	  "Disarm and close the fd. Idempotent." },
	{ "__enter__", kf_n_enter, METH_NOARGS,
	  "__enter__($self, /)\n--\n\nArm; return the notifier." },
	{ "__exit__", kf_n_exit, METH_VARARGS,
	  "__exit__($self, exc_type, exc, tb, /)\n--\n\nClose." },
	{ NULL, NULL, 0, NULL }
};

static PyGetSetDef kf_n_getset[] = {
	{ "armed", kf_n_get_armed, NULL,
	  "Whether publishers signal the notifier now (False once disarmed, closed\n"
	  "or its fifo freed, and while it has lost its slot of a shared fifo\n"
	  "with all 16 taken: clear() then leaves it readable and claims a slot\n"
	  "again once one is free).",
	  NULL },
	{ "closed", kf_n_get_closed, NULL, "Whether close() ran.", NULL },
	{ "direction", kf_n_get_direction, NULL, "'data' or 'room'.", NULL },
	{ NULL, NULL, NULL, NULL, NULL }
};

PyTypeObject kfpy_NotifierType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "kfifo.Notifier",
	.tp_basicsize = sizeof(kf_notifier),
	.tp_dealloc = kf_n_dealloc,
	.tp_repr = kf_n_repr,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
	.tp_doc = "Notifier: a file descriptor that becomes readable when a fifo moves\n"
		  "\n"
		  "Made by ``Kfifo.notifier('data')`` (readable when data is stored)\n"
		  "or ``Kfifo.notifier('room')`` (when room is made), each call a new\n"
		  "registration. While armed, every publication in its direction,\n"
		  "``close()`` and ``free()`` of the fifo make ``fileno()``\n"
		  "readable: wait on it with selectors, ``loop.add_reader``,\n"
		  "``trio.lowlevel.wait_readable`` or ``anyio.wait_readable``.\n"
		  "\n"
		  "The no-lost-wake recipe::\n"
		  "\n"
		  "    with f.notifier('data') as n:      # arms\n"
		  "        while (data := f.get(64, timeout=0)) == b'':\n"
		  "            wait until n.fileno() is readable\n"
		  "            n.clear()\n"
		  "\n"
		  "Arming (and clearing) before the check means a publication the\n"
		  "check misses signals the fd. A readable fd may be spurious: check\n"
		  "again. Works across processes for a shared fifo (at most 16 armed\n"
		  "notifiers per shared fifo). Linux only.",
	.tp_traverse = kf_n_traverse,
	.tp_clear = kf_n_clear_gc,
	.tp_methods = kf_n_methods,
	.tp_getset = kf_n_getset,
	.tp_new = kf_n_new,
};

/* ---- the module ------------------------------------------------------------------- */

static PyObject *kf_close_all(PyObject *module, PyObject *unused)
{
	(void)module;
	(void)unused;
	while (kf_open != NULL)
		kf_close(kf_open);
	Py_RETURN_NONE;
}

static PyMethodDef kf_close_all_def = {
	"_close_notifiers", kf_close_all, METH_NOARGS,
	"Close every open Notifier (run at interpreter exit)."
};

int kf_notify_init(PyObject *module)
{
	PyObject *atexit, *fn, *r;

	if (PyType_Ready(&kfpy_NotifierType) < 0)
		return -1;
	Py_INCREF(&kfpy_NotifierType);
	if (PyModule_AddObject(module, "Notifier",
			       (PyObject *)&kfpy_NotifierType) < 0) {
		Py_DECREF(&kfpy_NotifierType);
		return -1;
	}
	atexit = PyImport_ImportModule("atexit");
	if (atexit == NULL)
		return -1;
	fn = PyCFunction_New(&kf_close_all_def, NULL);
	r = fn ? PyObject_CallMethod(atexit, "register", "O", fn) : NULL;
	Py_XDECREF(fn);
	Py_DECREF(atexit);
	if (r == NULL)
		return -1;
	Py_DECREF(r);
	return 0;
}
