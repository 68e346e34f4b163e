/* SPDX-License-Identifier: MIT */
/*
 * probe.i - one small type three ways, for bench/swig/modes.sh: SWIG's
 * -builtin type, SWIG's standard mode (a Python proxy class), and a
 * hand-written CPython type like kfifo._kfifo's.  All three call the same
 * C bodies, so what differs per call is the wrapping alone.
 */
%module(package="probe") PROBE_MODULE

%{
typedef struct box {
	unsigned long v;
} box;

static box *box_make(void)
{
	return calloc(1, sizeof(box));
}

static void box_drop(box *b)
{
	free(b);
}

/* the bodies, shared by every wrapping */
static PyObject *body0(box *b)
{
	return PyLong_FromUnsignedLong(b->v);
}

static PyObject *body1(box *b, PyObject *x)
{
	b->v += PyLong_AsUnsignedLong(x);
	return PyErr_Occurred() ? NULL : PyLong_FromUnsignedLong(b->v);
}

static PyObject *body2(box *b, PyObject *x, PyObject *y)
{
	b->v += PyLong_AsUnsignedLong(x) + PyLong_AsUnsignedLong(y);
	return PyErr_Occurred() ? NULL : PyLong_FromUnsignedLong(b->v);
}
%}

%typemap(out) PyObject * {
	if ($1 == NULL)
		SWIG_fail;
	$result = $1;
}
%typemap(in) PyObject * "$1 = $input;"

%rename(Box) box;
typedef struct box {
} box;
%extend box {
	box() { return box_make(); }
	~box() { box_drop($self); }
	%feature("docstring") get0 "get0($self, /)\n--\n\nNo argument.";
	PyObject *get0() { return body0($self); }
	%feature("docstring") get1 "get1($self, x, /)\n--\n\nOne argument.";
	PyObject *get1(PyObject *x) { return body1($self, x); }
	%feature("docstring") get2 "get2($self, x, y, /)\n--\n\nTwo arguments.";
	PyObject *get2(PyObject *x, PyObject *y) { return body2($self, x, y); }
}

/* The hand-written type: the struct inside the object, METH_NOARGS,
 * METH_O and METH_FASTCALL, as kfifo._kfifo's own types. */
%{
typedef struct {
	PyObject_HEAD
	box b;
} hand;

static PyObject *hand_get0(PyObject *self, PyObject *unused)
{
	(void)unused;
	return body0(&((hand *)self)->b);
}

static PyObject *hand_get1(PyObject *self, PyObject *x)
{
	return body1(&((hand *)self)->b, x);
}

static PyObject *hand_get2(PyObject *self, PyObject *const *args,
			   Py_ssize_t nargs)
{
	if (nargs != 2) {
		PyErr_Format(PyExc_TypeError,
			     "get2() takes 2 arguments (%zd given)", nargs);
		return NULL;
	}
	return body2(&((hand *)self)->b, args[0], args[1]);
}

static PyMethodDef hand_methods[] = {
	{"get0", hand_get0, METH_NOARGS, "get0($self, /)\n--\n\nNo argument."},
	{"get1", hand_get1, METH_O, "get1($self, x, /)\n--\n\nOne argument."},
	{"get2", (PyCFunction)(void (*)(void))hand_get2, METH_FASTCALL,
	 "get2($self, x, y, /)\n--\n\nTwo arguments."},
	{NULL, NULL, 0, NULL},
};

static PyTypeObject hand_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "probe.Hand",
	.tp_basicsize = sizeof(hand),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_methods = hand_methods,
	.tp_new = PyType_GenericNew,
};

static int hand_add(PyObject *module)
{
	if (PyType_Ready(&hand_type) < 0)
		return -1;
	Py_INCREF(&hand_type);
	return PyModule_AddObject(module, "Hand", (PyObject *)&hand_type);
}
%}

%init %{
	/* a failure shows as a missing Hand */
	if (hand_add(m) < 0)
		PyErr_Clear();
%}
