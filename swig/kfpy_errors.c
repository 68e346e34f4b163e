/* SPDX-License-Identifier: MIT */
/*
 * kfpy_errors.c - the exceptions the binding raises, and how it keeps
 * one aside (the 3.12 API where there is one) or chains one to another.
 */
#include "kfpy_internal.h"

/* ---- errors ------------------------------------------------------------------ */

/*
 * kfifo.Empty and kfifo.Full: the timeouts of the get and put calls.  Each
 * is both a TimeoutError and the queue module's exception of the same
 * name, so code moved over from queue.Queue or multiprocessing.Queue
 * (`except queue.Empty`) and code written for sockets (`except
 * TimeoutError`) both catch them.  Their instances have a __dict__: a put's
 * carries ``stored``.
 */
PyObject *kfpy_Empty, *kfpy_Full;

static PyObject *kf_new_timeout(const char *name, PyObject *queue_exc,
				const char *doc)
{
	PyObject *bases, *type;

	bases = PyTuple_Pack(2, PyExc_TimeoutError, queue_exc);
	if (bases == NULL)
		return NULL;
	type = PyErr_NewExceptionWithDoc(name, doc, bases, NULL);
	Py_DECREF(bases);
	return type;
}

int kf_errors_init(PyObject *module)
{
	PyObject *queue, *empty = NULL, *full = NULL;
	int rc = -1;

	queue = PyImport_ImportModule("queue");
	if (queue == NULL)
		return -1;
	empty = PyObject_GetAttrString(queue, "Empty");
	full = PyObject_GetAttrString(queue, "Full");
	if (empty == NULL || full == NULL)
		goto out;
	if (kfpy_Empty == NULL)
		kfpy_Empty = kf_new_timeout("kfifo.Empty", empty,
			"A get call timed out: nothing (or not enough) was stored in "
			"time.\n\nBoth a ``TimeoutError`` and a ``queue.Empty``.");
	if (kfpy_Full == NULL)
		kfpy_Full = kf_new_timeout("kfifo.Full", full,
			"A put call timed out: no room in time.  ``stored`` says how "
			"much this call stored.\n\nBoth a ``TimeoutError`` and a "
			"``queue.Full``.");
	if (kfpy_Empty == NULL || kfpy_Full == NULL)
		goto out;
	Py_INCREF(kfpy_Empty);
	if (PyModule_AddObject(module, "Empty", kfpy_Empty) < 0) {
		Py_DECREF(kfpy_Empty);
		goto out;
	}
	Py_INCREF(kfpy_Full);
	if (PyModule_AddObject(module, "Full", kfpy_Full) < 0) {
		Py_DECREF(kfpy_Full);
		goto out;
	}
	rc = 0;
out:
	Py_XDECREF(empty);
	Py_XDECREF(full);
	Py_DECREF(queue);
	return rc;
}

PyObject *kf_freed_error(const char *method)
{
	PyErr_Format(PyExc_ValueError, "Kfifo.%s(): operation on a freed Kfifo",
		     method);
	return NULL;
}

PyObject *kf_exiting_error(const char *method)
{
	PyErr_Format(PyExc_RuntimeError,
		     "Kfifo.%s(): the interpreter is exiting while another "
		     "thread is inside a call on this fifo", method);
	return NULL;
}

void kf_exc_save(kf_exc_saved *s)
{
#if PY_VERSION_HEX >= 0x030C0000
	s->exc = PyErr_GetRaisedException();
#else
	PyErr_Fetch(&s->type, &s->value, &s->tb);
#endif
}

void kf_exc_restore(kf_exc_saved *s)
{
#if PY_VERSION_HEX >= 0x030C0000
	PyErr_SetRaisedException(s->exc);
#else
	PyErr_Restore(s->type, s->value, s->tb);
#endif
}

/*
 * Replace the exception set now by a new one of type @type whose
 * message is the old one's, the old one as its __cause__ (PEP 3134).
 */
void kf_exc_reraise_as(PyObject *type)
{
	PyObject *cause, *exc;
#if PY_VERSION_HEX >= 0x030C0000
	cause = PyErr_GetRaisedException();
#else
	PyObject *t, *tb;

	PyErr_Fetch(&t, &cause, &tb);
	PyErr_NormalizeException(&t, &cause, &tb);
	if (tb != NULL)
		PyException_SetTraceback(cause, tb);
	Py_XDECREF(t);
	Py_XDECREF(tb);
#endif
	if (cause == NULL)
		return;
	exc = PyObject_CallFunction(type, "N", PyObject_Str(cause));
	if (exc == NULL) {
		Py_DECREF(cause);
		return;
	}
	PyException_SetCause(exc, cause); /* steals cause */
	PyErr_SetObject(type, exc);
	Py_DECREF(exc);
}

/*
 * Make the exception set now the consequence of @cause (kept aside with
 * kf_exc_save() when it was raised): its __cause__, as `raise ... from`.
 * Steals @cause.
 */
void kf_exc_chain(kf_exc_saved *cause)
{
	PyObject *c;
#if PY_VERSION_HEX >= 0x030C0000
	PyObject *exc = PyErr_GetRaisedException();

	c = cause->exc;
	if (exc != NULL && c != NULL)
		PyException_SetCause(exc, c);	/* steals c */
	else
		Py_XDECREF(c);
	PyErr_SetRaisedException(exc);
#else
	PyObject *t, *v, *tb;

	/* the current one first: normalising runs code, which needs no
	 * exception set */
	PyErr_Fetch(&t, &v, &tb);
	PyErr_NormalizeException(&t, &v, &tb);
	PyErr_NormalizeException(&cause->type, &cause->value, &cause->tb);
	c = cause->value;
	if (c != NULL && cause->tb != NULL)
		PyException_SetTraceback(c, cause->tb);
	Py_XDECREF(cause->type);
	Py_XDECREF(cause->tb);
	if (v != NULL && c != NULL)
		PyException_SetCause(v, c);	/* steals c */
	else
		Py_XDECREF(c);
	PyErr_Restore(t, v, tb);
#endif
}
