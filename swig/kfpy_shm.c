/* SPDX-License-Identifier: MIT */
/*
 * kfpy_shm.c - a fifo over a shared memory block, and the private type
 * kfifo._kfifo._Block that holds the block.  The block's life is the C
 * core's (kfifo_block_*(): create, back, seal, open, attach with the seals
 * checked, unmap, unlink); the fifo maps it through a buffer export of the
 * _Block, like any Kfifo(buffer=obj).
 *
 * What only Python can do is kfifo._shm's: registering a created name with
 * multiprocessing's resource tracker, unlinking it at exit (also in the
 * os._exit children of multiprocessing) and passing a memfd on when a fifo
 * is pickled.  kfifo._shm hands its three functions to _set_shm_hooks()
 * when kfifo is imported; this file imports no Python module.
 */
#include "kfpy_internal.h"

#include <string.h>
#include <unistd.h>

typedef struct {
	PyObject_HEAD
	struct kfifo_block b;
	Py_ssize_t exports; /* buffers exported: the fifo's view, memoryviews */
	long owner;         /* the creator's pid, in the handle that created
			     * the name (only it releases the name); else 0 */
} kf_block;

static PyTypeObject kf_BlockType;

/* kfifo._shm's functions (_set_shm_hooks): created(name), after this
 * process created a named block; release(name), when the creator's handle
 * lets the name go; reduce_fd(fd), how a memfd pickles. */
enum { KF_HOOK_CREATED, KF_HOOK_RELEASE, KF_HOOK_REDUCE_FD, KF_HOOKS };
static PyObject *kf_hooks[KF_HOOKS];

#define KF_NOT_SEALED_MSG                                                      \
	"Kfifo.attach(): the descriptor's block is not sealed against "       \
	"shrinking (a memfd with F_SEAL_SHRINK, as Kfifo(size, shared=True, " \
	"sealed=True) makes): whoever sent it could shrink it and kill this " \
	"process with SIGBUS; pass trust_unsealed=True if you trust the sender"

/* Raise @type(@err, message) (an OSError subclass picked by errno when
 * @type is OSError); NULL. */
static PyObject *kf_errno_error(PyObject *type, int err, const char *fmt, ...)
{
	PyObject *msg, *exc;
	va_list ap;

	va_start(ap, fmt);
	msg = PyUnicode_FromFormatV(fmt, ap);
	va_end(ap);
	if (msg == NULL)
		return NULL;
	exc = PyObject_CallFunction(type, "iO", err, msg);
	Py_DECREF(msg);
	if (exc != NULL) {
		PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
		Py_DECREF(exc);
	}
	return NULL;
}

static kf_block *kf_block_alloc(void)
{
	kf_block *blk = PyObject_New(kf_block, &kf_BlockType);

	if (blk == NULL)
		return NULL;
	memset(&blk->b, 0, sizeof(blk->b));
	blk->b.fd = -1;
	blk->exports = 0;
	blk->owner = 0;
	return blk;
}

/* The name of @block's named block as a str, or None. */
static PyObject *kf_block_name_str(kf_block *blk)
{
	if (blk->b.name[0] == '\0')
		Py_RETURN_NONE;
	return PyUnicode_DecodeFSDefault(blk->b.name);
}

/*
 * A new named block (@sealed 0) or sealed memfd of @nbytes, created by
 * this process, backed (ENOSPC here, not SIGBUS later).  A named block is
 * reported to kfifo._shm, which unlinks it at exit at the latest.
 */
static PyObject *kf_block_create(size_t nbytes, int sealed)
{
	kf_block *blk;
	PyObject *name, *r;
	int err;

	if (!sealed && kf_hooks[KF_HOOK_CREATED] == NULL) {
		PyErr_SetString(PyExc_RuntimeError,
				"Kfifo(): kfifo._shm has not registered its "
				"hooks (import kfifo)");
		return NULL;
	}
	blk = kf_block_alloc();
	if (blk == NULL)
		return NULL;
	err = sealed ? kfifo_block_create_sealed(&blk->b, nbytes)
		     : kfifo_block_create(&blk->b, NULL, nbytes, 0600);
	if (err != 0) {
		Py_DECREF(blk);
		if (err == -ENOSPC)
			return kf_errno_error(PyExc_OSError, -err,
					      "Kfifo(): cannot reserve %zu bytes "
					      "of shared memory (%s; is /dev/shm "
					      "too small?)", nbytes, strerror(-err));
		if (err == -ENOSYS)
			return kf_errno_error(PyExc_OSError, -err,
					      "Kfifo(): sealed=True needs memfd "
					      "seals, which this system lacks");
		return kf_errno_error(PyExc_OSError, -err,
				      "Kfifo(): cannot create a shared memory "
				      "block of %zu bytes (%s)", nbytes,
				      strerror(-err));
	}
	if (sealed)
		return (PyObject *)blk;
	blk->owner = (long)getpid();
	name = kf_block_name_str(blk);
	r = name ? PyObject_CallFunctionObjArgs(kf_hooks[KF_HOOK_CREATED],
						name, NULL)
		 : NULL;
	Py_XDECREF(name);
	if (r == NULL) {
		/* nobody will unlink it at exit: now (a name gone already
		 * is all the same) */
		err = kfifo_block_unlink(blk->b.name);
		(void)err;
		Py_DECREF(blk);
		return NULL;
	}
	Py_DECREF(r);
	return (PyObject *)blk;
}

/* The existing block of descriptor @fd (duplicated), its seals checked. */
static PyObject *kf_block_attach_fd(PyObject *fdobj, int trust)
{
	kf_block *blk;
	long fd = PyLong_AsLong(fdobj);
	int err;

	if (fd == -1 && PyErr_Occurred())
		return NULL;
	if (fd < 0 || fd > INT_MAX)
		return kf_errno_error(PyExc_OSError, EBADF,
				      "Kfifo.attach(): %ld is not a file "
				      "descriptor", fd);
	blk = kf_block_alloc();
	if (blk == NULL)
		return NULL;
	err = kfifo_block_attach_fd(&blk->b, (int)fd, KFIFO_SHARED_OFF_DATA,
				    trust ? KFIFO_BLOCK_TRUST_UNSEALED : 0);
	if (err == 0)
		return (PyObject *)blk;
	Py_DECREF(blk);
	if (err == -EINVAL)
		PyErr_SetString(PyExc_ValueError,
				"Kfifo.attach(): the file descriptor holds no "
				"kfifo (it is empty, not a file, or shorter "
				"than a fifo's header)");
	else if (err == -EPERM)
		PyErr_SetString(PyExc_ValueError, KF_NOT_SEALED_MSG);
	else
		kf_errno_error(PyExc_OSError, -err,
			       "Kfifo.attach(): cannot map the file descriptor "
			       "%ld (%s)", fd, strerror(-err));
	return NULL;
}

/* The existing named block @name (a str), opened without registering it
 * anywhere: only its creator unlinks it. */
static PyObject *kf_block_open_name(PyObject *name)
{
	PyObject *bytes = PyUnicode_EncodeFSDefault(name);
	const char *s;
	kf_block *blk;
	Py_ssize_t n;
	int err;

	if (bytes == NULL)
		return NULL;
	s = PyBytes_AS_STRING(bytes);
	n = PyBytes_GET_SIZE(bytes);
	/* empty, a path, a directory or with a NUL inside: no block can have
	 * that name (kfifo_block_open() would say -EINVAL, as for a file
	 * too short) */
	if (n == 0 || memchr(s, '/', (size_t)n) || (Py_ssize_t)strlen(s) != n ||
	    strcmp(s, ".") == 0 || strcmp(s, "..") == 0) {
		Py_DECREF(bytes);
		return kf_errno_error(PyExc_FileNotFoundError, ENOENT,
				      "Kfifo.attach(): no shared memory block "
				      "named %R", name);
	}
	blk = kf_block_alloc();
	err = blk ? kfifo_block_open(&blk->b, s, KFIFO_SHARED_OFF_DATA) : 0;
	Py_DECREF(bytes);
	if (blk == NULL || err == 0)
		return (PyObject *)blk;
	Py_DECREF(blk);
	if (err == -ENOENT)
		return kf_errno_error(PyExc_FileNotFoundError, ENOENT,
				      "Kfifo.attach(): no shared memory block "
				      "named %R", name);
	if (err == -EINVAL) {
		PyErr_Format(PyExc_ValueError,
			     "Kfifo.attach(): the shared memory block %R holds "
			     "no kfifo (it is empty, not a file, or shorter "
			     "than a fifo's header)", name);
		return NULL;
	}
	if (err == -ENOMEM || err == -EMFILE || err == -ENFILE)
		return kf_errno_error(PyExc_OSError, -err,
				      "Kfifo.attach(): cannot map the shared "
				      "memory block %R (%s)", name,
				      strerror(-err));
	/* a name too long, a directory, another user's block, ... */
	return kf_errno_error(PyExc_FileNotFoundError, ENOENT,
			      "Kfifo.attach(): no shared memory block named "
			      "%R (%s)", name, strerror(-err));
}

/* A block by name (a str) or by descriptor (an int); TypeError else. */
static PyObject *kf_block_open(PyObject *name, int trust)
{
	if (PyLong_Check(name))
		return kf_block_attach_fd(name, trust);
	if (PyUnicode_Check(name))
		return kf_block_open_name(name);
	PyErr_Format(PyExc_TypeError,
		     "Kfifo.attach(): name must be a str (or a file "
		     "descriptor, an int), not %.100s", Py_TYPE(name)->tp_name);
	return NULL;
}

/*
 * Unmap @blk and close its descriptor; in the process that created its
 * name, from the handle that did, hand the name to kfifo._shm to unlink.
 * 0, or -1 with an exception (BufferError while memory is exported: the
 * mapping stays).
 */
static int kf_block_release(kf_block *blk)
{
	PyObject *name = NULL, *r;

	if (blk->exports > 0) {
		PyErr_SetString(PyExc_BufferError,
				"cannot close a shared memory block while its "
				"memory is exported (a memoryview is alive)");
		return -1;
	}
	if (blk->owner != 0 && blk->owner == (long)getpid()) {
		name = kf_block_name_str(blk);
		if (name == NULL)
			return -1;
	}
	blk->owner = 0;
	kfifo_block_close(&blk->b);
	if (name == NULL)
		return 0;
	/* an owner exists only once kfifo._shm set the hooks (all three) */
	r = PyObject_CallFunctionObjArgs(kf_hooks[KF_HOOK_RELEASE], name, NULL);
	Py_DECREF(name);
	if (r == NULL)
		return -1;
	Py_DECREF(r);
	return 0;
}

/* ---- the _Block type --------------------------------------------------------------------- */

/* _Block(name, *, trust_unsealed=False): as Kfifo.attach() maps it */
static PyObject *kf_block_tp_new(PyTypeObject *type, PyObject *a, PyObject *kw)
{
	static char *kwlist[] = {"name", "trust_unsealed", NULL};
	PyObject *name;
	int trust = 0;

	(void)type;
	if (!PyArg_ParseTupleAndKeywords(a, kw, "O|$p:_Block", kwlist, &name,
					 &trust))
		return NULL;
	return kf_block_open(name, trust);
}

static void kf_block_tp_dealloc(PyObject *self)
{
	/* unmap only: a name is let go by close() or at exit, never by the
	 * collector (kfifo._shm decides) */
	kfifo_block_close(&((kf_block *)self)->b);
	PyObject_Del(self);
}

static int kf_block_getbuffer(PyObject *self, Py_buffer *view, int flags)
{
	kf_block *blk = (kf_block *)self;

	if (blk->b.mem == NULL) {
		PyErr_SetString(PyExc_ValueError,
				"the shared memory block is closed");
		view->obj = NULL;
		return -1;
	}
	if (blk->b.len > (size_t)PY_SSIZE_T_MAX) {
		PyErr_SetString(PyExc_OverflowError,
				"the shared memory block is too large");
		view->obj = NULL;
		return -1;
	}
	if (PyBuffer_FillInfo(view, self, blk->b.mem, (Py_ssize_t)blk->b.len, 0,
			      flags) < 0)
		return -1;
	blk->exports++;
	return 0;
}

static void kf_block_releasebuffer(PyObject *self, Py_buffer *view)
{
	(void)view;
	((kf_block *)self)->exports--;
}

static PyBufferProcs kf_block_as_buffer = {
	.bf_getbuffer = kf_block_getbuffer,
	.bf_releasebuffer = kf_block_releasebuffer,
};

static PyObject *kf_block_close_meth(PyObject *self, PyObject *unused)
{
	(void)unused;
	if (kf_block_release((kf_block *)self) < 0)
		return NULL;
	Py_RETURN_NONE;
}

/* _Block.unlink(name): kfifo._shm's way to let a name go (at exit) */
static PyObject *kf_block_unlink_meth(PyObject *unused, PyObject *name)
{
	PyObject *bytes;
	int err;

	(void)unused;
	if (!PyUnicode_Check(name)) {
		PyErr_Format(PyExc_TypeError,
			     "_Block.unlink(): name must be a str, not %.100s",
			     Py_TYPE(name)->tp_name);
		return NULL;
	}
	bytes = PyUnicode_EncodeFSDefault(name);
	if (bytes == NULL)
		return NULL;
	err = kfifo_block_unlink(PyBytes_AS_STRING(bytes));
	Py_DECREF(bytes);
	if (err != 0)
		return kf_errno_error(PyExc_OSError, -err,
				      "cannot unlink the shared memory block "
				      "%R (%s)", name, strerror(-err));
	Py_RETURN_NONE;
}

static PyMethodDef kf_block_methods[] = {
	{"close", kf_block_close_meth, METH_NOARGS,
	 "Unmap, close the kept descriptor; in the process and handle that\n"
	 "created the name, let kfifo._shm unlink it. ``BufferError`` while a\n"
	 "memoryview of the block is alive."},
	{"unlink", kf_block_unlink_meth, METH_O | METH_STATIC,
	 "unlink(name): remove the name of a named block (``OSError`` if none)."},
	{NULL, NULL, 0, NULL},
};

static PyObject *kf_block_get_name(PyObject *self, void *closure)
{
	(void)closure;
	return kf_block_name_str((kf_block *)self);
}

static PyObject *kf_block_get_sealed(PyObject *self, void *closure)
{
	(void)closure;
	return PyBool_FromLong(kfifo_block_is_sealed(&((kf_block *)self)->b));
}

static PyObject *kf_block_get_buf(PyObject *self, void *closure)
{
	(void)closure;
	return PyMemoryView_FromObject(self);
}

static PyGetSetDef kf_block_getset[] = {
	{"name", kf_block_get_name, NULL,
	 "The block's name, ``None`` for a memfd or a descriptor.", NULL},
	{"sealed", kf_block_get_sealed, NULL,
	 "Whether the block is sealed against shrinking.", NULL},
	{"buf", kf_block_get_buf, NULL,
	 "A new writable memoryview of the whole mapping.", NULL},
	{NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject kf_BlockType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "kfifo._kfifo._Block",
	.tp_basicsize = sizeof(kf_block),
	.tp_dealloc = kf_block_tp_dealloc,
	.tp_as_buffer = &kf_block_as_buffer,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "_Block(name, *, trust_unsealed=False)\n--\n\n"
		  "A mapped shared memory block (private: the block under a\n"
		  "shared Kfifo). *name* is a block's name, or a descriptor\n"
		  "(an int, duplicated) checked for seals as Kfifo.attach()\n"
		  "checks it. The buffer protocol exports the mapping.",
	.tp_methods = kf_block_methods,
	.tp_getset = kf_block_getset,
	.tp_new = kf_block_tp_new,
};

/* _set_shm_hooks(created, release, reduce_fd): called once by kfifo._shm */
static PyObject *kf_set_shm_hooks(PyObject *module, PyObject *args)
{
	PyObject *fn[KF_HOOKS];
	int i;

	(void)module;
	if (!PyArg_ParseTuple(args, "OOO:_set_shm_hooks", &fn[0], &fn[1],
			      &fn[2]))
		return NULL;
	for (i = 0; i < KF_HOOKS; i++) {
		if (!PyCallable_Check(fn[i])) {
			PyErr_SetString(PyExc_TypeError,
					"_set_shm_hooks(): every hook must be "
					"callable");
			return NULL;
		}
	}
	for (i = 0; i < KF_HOOKS; i++) {
		Py_INCREF(fn[i]);
		Py_XSETREF(kf_hooks[i], fn[i]);
	}
	Py_RETURN_NONE;
}

static PyMethodDef kf_shm_functions[] = {
	{"_set_shm_hooks", kf_set_shm_hooks, METH_VARARGS,
	 "_set_shm_hooks(created, release, reduce_fd): kfifo._shm's part of\n"
	 "shared blocks (private)."},
	{NULL, NULL, 0, NULL},
};

int kf_shm_init(PyObject *module)
{
	if (PyType_Ready(&kf_BlockType) < 0)
		return -1;
	Py_INCREF(&kf_BlockType);
	if (PyModule_AddObject(module, "_Block", (PyObject *)&kf_BlockType) < 0) {
		Py_DECREF(&kf_BlockType);
		return -1;
	}
	return PyModule_AddFunctions(module, kf_shm_functions);
}

/* ---- a fifo over a block ----------------------------------------------------------------- */

/*
 * Let @block go (stolen): unmap it and, in the creator, hand its name to
 * kfifo._shm; the caller released its own view first.  0, or -1 with an
 * exception.  At exit the block is only let go: the process's end unmaps
 * it, and kfifo._shm unlinks its own names at exit by itself.
 */
int kf_drop_block(PyObject *block)
{
	int r;

	if (block == NULL)
		return 0;
	if (kf_finalizing()) {
		Py_DECREF(block);
		return 0;
	}
	r = kf_block_release((kf_block *)block);
	Py_DECREF(block);
	return r;
}

/* kf_drop_block() on a path that may have an exception set (a failed
 * constructor, dealloc): the exception stays, a failure here is reported
 * as unraisable (not with the object, which may be dying). */
static void kf_drop_block_quietly(PyObject *block)
{
	kf_exc_saved saved;

	if (block == NULL)
		return;
	kf_exc_save(&saved);
	if (kf_drop_block(block) < 0)
		PyErr_WriteUnraisable(NULL);
	kf_exc_restore(&saved);
}

/* Take the block out of @k: the caller drops it once the view is released. */
PyObject *kf_take_block(kfpy_kfifo *k)
{
	PyObject *block = k->block;

	k->block = NULL;
	return block;
}

/* Take @k's block (if any) and drop it quietly (constructor failure, GC). */
void kf_drop_own_block_quietly(kfpy_kfifo *k)
{
	kf_drop_block_quietly(kf_take_block(k));
}

/* Kfifo.name and Kfifo.sealed of a fifo over @block */
PyObject *kf_block_name(PyObject *block)
{
	return kf_block_name_str((kf_block *)block);
}

int kf_block_sealed(PyObject *block)
{
	return kfifo_block_is_sealed(&((kf_block *)block)->b);
}

/* How a fifo over @block pickles: (Kfifo.attach, (name,)) for a named
 * block; a memfd travels as a descriptor, the way kfifo._shm passes it. */
PyObject *kf_block_reduce(PyObject *block)
{
	kf_block *blk = (kf_block *)block;
	PyObject *attach;

	if (blk->b.name[0] != '\0') {
		attach = PyObject_GetAttrString((PyObject *)&kfpy_KfifoType,
						"attach");
		if (attach == NULL)
			return NULL;
		return Py_BuildValue("(N(N))", attach, kf_block_name_str(blk));
	}
	if (blk->b.fd < 0) {
		PyErr_SetString(PyExc_ValueError,
				"Kfifo: this shared fifo's block is closed");
		return NULL;
	}
	if (kf_hooks[KF_HOOK_REDUCE_FD] == NULL) {
		PyErr_SetString(PyExc_RuntimeError,
				"Kfifo: kfifo._shm has not registered its hooks "
				"(import kfifo)");
		return NULL;
	}
	return PyObject_CallFunction(kf_hooks[KF_HOOK_REDUCE_FD], "i",
				     blk->b.fd);
}

/*
 * Map @block (a _Block, stolen) into @k, whose state exists, and lay a new
 * fifo of @size out in it (@create) or attach to the one there.  On
 * failure the block stays in @k, to be dropped with it.
 */
static int kf_init_block(kfpy_kfifo *k, PyObject *block, int create,
			 unsigned int size, unsigned int mode)
{
	int ret;

	k->block = block;
	if (PyObject_GetBuffer(block, &k->view,
			       PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
		return -1;
	k->has_view = 1;
	ret = create ? kfifo_shared_create_mode(&k->st->fifo, k->view.buf,
						(size_t)k->view.len, size, mode)
		     : kfifo_shared_attach(&k->st->fifo, k->view.buf,
					   (size_t)k->view.len);
	if (ret != 0) {
		PyObject *name = kf_block_name(block);

		PyErr_Format(PyExc_ValueError,
			     create ? "Kfifo(): the shared memory block %R is too "
				      "small for a fifo of %u bytes"
				    : "Kfifo.attach(): the shared memory block %R "
				      "holds no kfifo (of layout version %u)",
			     name ? name : Py_None,
			     create ? size : KFIFO_SHARED_VERSION);
		Py_XDECREF(name);
		return -1;
	}
	kf_set_claims(k);
	return 0;
}

/*
 * Set the indices of the new shared fifo of @k to @start.  The handle
 * kfifo_shared_create() made stays valid: its caches are used only while
 * its own index is what it left (kfifo.h, struct kfifo), so it reads the
 * new indices on its next call.  Nothing is attached a second time: a
 * peer that wrote into the block meanwhile changes nothing here.
 */
static void kf_shared_start(kfpy_kfifo *k, unsigned int start)
{
	unsigned char *mem = k->view.buf;

	__atomic_store_n((unsigned int *)(void *)(mem + KFIFO_SHARED_OFF_IN),
			 start, __ATOMIC_RELEASE);
	__atomic_store_n((unsigned int *)(void *)(mem + KFIFO_SHARED_OFF_OUT),
			 start, __ATOMIC_RELEASE);
}

/* A new Kfifo of type @cls attached to @block (stolen). */
static PyObject *kf_from_block(PyObject *cls, PyObject *block)
{
	PyObject *self;
	kfpy_kfifo *k;

	self = PyType_GenericAlloc((PyTypeObject *)cls, 0);
	if (self == NULL) {
		kf_drop_block_quietly(block);
		return NULL;
	}
	k = (kfpy_kfifo *)self;
	k->fork_gen = kfpy_fork_gen;
	k->st = kf_state_new();
	if (k->st == NULL) {
		kf_drop_block_quietly(block);
		Py_DECREF(self);
		return NULL;
	}
	if (kf_init_block(k, block, 0, 0, 0) < 0) {
		Py_DECREF(self);
		return NULL;
	}
	return self;
}

/* Kfifo.attach(name, *, trust_unsealed=False): a classmethod, added to the
 * type by kfpy_types_init */
static PyObject *kf_attach(PyObject *cls, PyObject *a, PyObject *kw)
{
	static char *kwlist[] = {"name", "trust_unsealed", NULL};
	PyObject *block, *name;
	int trust = 0;

	if (!PyArg_ParseTupleAndKeywords(a, kw, "O|$p:attach", kwlist, &name,
					 &trust))
		return NULL;
	block = kf_block_open(name, trust);
	if (block == NULL)
		return NULL;
	return kf_from_block(cls, block);
}

PyMethodDef kf_attach_def = {
	"attach", (PyCFunction)(void (*)(void))kf_attach,
	METH_VARARGS | METH_KEYWORDS | METH_CLASS,
	"attach(name, *, trust_unsealed=False)\n--\n\n"
	"A handle, in this process, to the shared fifo in the POSIX shared\n"
	"memory block *name* (``f.name`` of a fifo made with\n"
	"``Kfifo(size, shared=True)``, maybe in another process).\n"
	"It never unlinks the block. ``FileNotFoundError`` when no block has\n"
	"that name (or the name cannot be one), ``ValueError`` when the block\n"
	"holds no valid fifo. The block is opened without registering it with\n"
	"multiprocessing's resource tracker, so that nothing unlinks it or\n"
	"warns about it when this process ends.\n"
	"\n"
	"*name* may also be a file descriptor (an ``int``) of a shared memory\n"
	"file or memfd holding a fifo, such as a ``sealed=True`` fifo's that\n"
	"came by fd passing; it is duplicated, the caller keeps its own.\n"
	"A descriptor must be sealed against shrinking (``F_SEAL_SHRINK``):\n"
	"whoever holds an unsealed one can shrink it and kill this process\n"
	"with SIGBUS, so ``ValueError`` unless *trust_unsealed* is true.\n"
	"``f.sealed`` says which the fifo got."};

/*
 * Kfifo(size, shared=True[, sealed=True]) once its state exists: a new
 * block, a new fifo of @size laid out in it, indices at @start.  On
 * failure the block stays in @k, to be dropped with it.
 */
int kf_init_shared(kfpy_kfifo *k, unsigned int size, unsigned int start,
		   int sealed, unsigned int mode)
{
	PyObject *block = kf_block_create(kfifo_shared_bytes(size), sealed);

	if (block == NULL || kf_init_block(k, block, 1, size, mode) < 0)
		return -1;
	kf_shared_start(k, start);
	return 0;
}

/* ---- the side claims of a shared fifo of one producer / consumer ---------- */

/*
 * A shared fifo of one producer (consumer) lets one process produce
 * (consume): the C core claims the side for the first process that moves
 * its index, in the header, and refuses any other live process (kfifo.h,
 * kfifo_in_lock()).  The core would answer a refused call "nothing
 * moved", which the methods would take for a full (empty) fifo; so the
 * first call of a side in this process claims it here, through
 * kf_enter(), and raises instead.  Threads of this process need no claim:
 * the side flags serialise them (kfpy_threads.c).  Set at creation and
 * attach, and again in a fork() child (kf_after_fork), which is another
 * process.
 */
void kf_set_claims(kfpy_kfifo *k)
{
	struct kfifo *f = &k->st->fifo;
	unsigned int mode = kfifo_mode(f);
	int shared = kfifo_is_shared(f);

	k->st->prod.unclaimed = shared && !(mode & KFIFO_MANY_PRODUCERS);
	k->st->cons.unclaimed = shared && !(mode & KFIFO_MANY_CONSUMERS);
}

int kf_side_claim_process(kfpy_kfifo *k, kf_side *s, const char *method)
{
	struct kfifo *f = &k->st->fifo;
	int prod = s == &k->st->prod;
	unsigned int holder;
	int r;

	r = prod ? kfifo_in_lock(f) : kfifo_out_lock(f);
	if (r == 0) {
		if (prod)
			kfifo_in_unlock(f);
		else
			kfifo_out_unlock(f);
		s->unclaimed = 0;
		return 0;
	}
	holder = __atomic_load_n(
		(unsigned int *)(void *)((unsigned char *)k->view.buf +
					 (prod ? KFIFO_SHARED_OFF_IN_CLAIM
					       : KFIFO_SHARED_OFF_OUT_CLAIM)),
		__ATOMIC_RELAXED);
	PyErr_Format(PyExc_RuntimeError,
		     "Kfifo.%s(): another process (pid %u) is the %s of this "
		     "shared fifo, which was made for one %s; for several %s "
		     "processes make it with Kfifo(size, shared=True, %s='many')",
		     method, holder, prod ? "producer" : "consumer",
		     prod ? "producer" : "consumer",
		     prod ? "producer" : "consumer",
		     prod ? "producers" : "consumers");
	return -1;
}
