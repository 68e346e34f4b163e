/* SPDX-License-Identifier: MIT */
/*
 * kfpy_errors.c - the exceptions the binding raises, and how it keeps
 * one aside (the 3.12 API where there is one) or chains one to another.
 */
#include "kfpy_internal.h"

/* ---- errors ------------------------------------------------------------------ */

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
