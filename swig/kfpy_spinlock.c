/* SPDX-License-Identifier: MIT */
/*
 * kfpy_spinlock.c - the type kfifo.SpinLock.
 */
#include "kfpy_internal.h"

/* ---- SpinLock ------------------------------------------------------------------------------ */

/* The lock is ready as soon as the object exists: __init__ adds nothing,
 * so SpinLock.__new__ alone, or a subclass that skips __init__, works. */
static PyObject *kf_spin_new(PyTypeObject *type, PyObject *args,
			     PyObject *kwds)
{
	kfpy_spinlock *l;

	if (type == &kfpy_SpinLockType &&
	    ((args && PyTuple_GET_SIZE(args)) || (kwds && PyDict_GET_SIZE(kwds)))) {
		PyErr_SetString(PyExc_TypeError, "SpinLock() takes no arguments");
		return NULL;
	}
	l = (kfpy_spinlock *)type->tp_alloc(type, 0);
	if (l != NULL)
		kfifo_spin_lock_init(&l->lock);
	return (PyObject *)l;
}

PyObject *kfpy_spin_locked(PyObject *self)
{
	return PyBool_FromLong(!kf_spin_free(&((kfpy_spinlock *)self)->lock));
}

static PyObject *kf_spin_repr(PyObject *self)
{
	return PyUnicode_FromFormat("<kfifo.SpinLock %s>",
				    kf_spin_free(&((kfpy_spinlock *)self)->lock) ?
				    "unlocked" : "locked");
}

PyDoc_STRVAR(kf_spinlock_doc,
"SpinLock()\n--\n\n"
"A userspace spinlock (``spinlock_t``) for ``in_locked``/``out_locked``.\n"
"\n"
"All producers of a fifo share one lock, all consumers another. It is\n"
"only taken inside those calls, never from Python, so it cannot be held\n"
"across Python code. A thread that finds it busy waits without the GIL.\n");

PyTypeObject kfpy_SpinLockType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "kfifo.SpinLock",
	.tp_basicsize = sizeof(kfpy_spinlock),
	.tp_repr = kf_spin_repr,
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = kf_spinlock_doc,
	.tp_new = kf_spin_new,
};
