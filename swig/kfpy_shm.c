/* SPDX-License-Identifier: MIT */
/*
 * kfpy_shm.c - a fifo over a shared memory block.  kfifo._shm owns the
 * block (creates, backs, seals, unlinks it); this file only maps what it
 * is handed, through a buffer export of block.buf, and gives it back with
 * block.close().
 */
#include "kfpy_internal.h"

/*
 * The block is a kfifo._shm.Block (an mmap of a named POSIX shared memory
 * object or of a sealed memfd); kfifo._shm made it and alone decides when
 * to unlink its name.  The fifo maps it through k->view, a buffer export of
 * block.buf (the mmap itself), like any Kfifo(buffer=obj).  The two calls
 * below are the only ones into the module: create() and attach().
 */
static PyObject *kf_shm_call(const char *fn, PyObject *args)
{
	PyObject *mod = PyImport_ImportModule("kfifo._shm"), *f, *r;

	if (mod == NULL)
		return NULL;
	f = PyObject_GetAttrString(mod, fn);
	Py_DECREF(mod);
	if (f == NULL)
		return NULL;
	r = PyObject_CallObject(f, args);
	Py_DECREF(f);
	return r;
}

/*
 * block.close(): kfifo._shm unmaps the block and, in the process that
 * created it, unlinks its name; the C side only hands the mapping back,
 * after its own view of it was released.  Steals @block.  0, or -1 with
 * an exception.  At exit the block is only let go: the process's end
 * unmaps it, and kfifo._shm unlinks its own blocks at exit by itself.
 */
int kf_drop_block(PyObject *block)
{
	PyObject *r;

	if (block == NULL)
		return 0;
	if (kf_finalizing()) {
		Py_DECREF(block);
		return 0;
	}
	r = PyObject_CallMethod(block, "close", NULL);
	Py_DECREF(block);
	if (r == NULL)
		return -1;
	Py_DECREF(r);
	return 0;
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

/*
 * Map @block (a kfifo._shm block, stolen) into @k, whose state exists, and
 * lay a new fifo of @size out in it (@create) or attach to the one there.
 * On failure the block stays in @k, to be dropped with it.
 */
static int kf_init_block(kfpy_kfifo *k, PyObject *block, int create,
			 unsigned int size, unsigned int mode)
{
	PyObject *buf;
	int ret;

	k->block = block;
	buf = PyObject_GetAttrString(block, "buf");
	if (buf == NULL)
		return -1;
	ret = PyObject_GetBuffer(buf, &k->view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS);
	Py_DECREF(buf);
	if (ret < 0)
		return -1;
	k->has_view = 1;
	ret = create ? kfifo_shared_create_mode(&k->st->fifo, k->view.buf,
						(size_t)k->view.len, size, mode)
		     : kfifo_shared_attach(&k->st->fifo, k->view.buf,
					   (size_t)k->view.len);
	if (ret != 0) {
		PyObject *name = PyObject_GetAttrString(block, "name");

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

static PyObject *kf_from_block(PyObject *cls, PyObject *block);

/* Kfifo.attach(name, *, trust_unsealed=False): a classmethod, added to the
 * type by kfpy_types_init */
static PyObject *kf_attach(PyObject *cls, PyObject *a, PyObject *kw)
{
	static char *kwlist[] = {"name", "trust_unsealed", NULL};
	PyObject *args, *block, *name;
	int trust = 0;

	if (!PyArg_ParseTupleAndKeywords(a, kw, "O|$p:attach", kwlist, &name,
					 &trust))
		return NULL;
	if (!PyUnicode_Check(name) && !PyLong_Check(name)) {
		PyErr_Format(PyExc_TypeError,
			     "Kfifo.attach(): name must be a str (or a file "
			     "descriptor, an int), not %.100s",
			     Py_TYPE(name)->tp_name);
		return NULL;
	}
	args = Py_BuildValue("(OO)", name, trust ? Py_True : Py_False);
	block = args ? kf_shm_call("attach", args) : NULL;
	Py_XDECREF(args);
	if (block == NULL)
		return NULL;
	return kf_from_block(cls, block);
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
 * block from kfifo._shm, a new fifo of @size laid out in it, indices at
 * @start.  On failure the block stays in @k, to be dropped with it.
 */
int kf_init_shared(kfpy_kfifo *k, unsigned int size, unsigned int start,
		   int sealed, unsigned int mode)
{
	PyObject *a = Py_BuildValue("(nO)", (Py_ssize_t)kfifo_shared_bytes(size),
				    sealed ? Py_True : Py_False);
	PyObject *block = a ? kf_shm_call("create", a) : NULL;

	Py_XDECREF(a);
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
