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
