# SPDX-License-Identifier: MIT
"""Shared memory blocks of shared fifos (``Kfifo(size, shared=True)``,
``Kfifo(size, shared=True, sealed=True)``, ``Kfifo.attach()``); used by
the C type, not part of the API.

This module owns a block's whole life: it creates, backs, seals, maps,
unmaps and unlinks it.  The C type holds a :class:`Block` and uses only
its mapping (``buf``, exported for as long as the fifo lives), its
``name``, ``close()`` and ``reduce()``.

Two forms
---------
*Named* (``shared=True``): a POSIX shared memory object ``/dev/shm/NAME``
(``shm_open``), reached by its name: ``Kfifo.attach(name)``, pickling,
any process of the same user.

*Sealed* (``shared=True, sealed=True``): a ``memfd`` with no name, sealed
against shrinking and growing (``F_SEAL_SHRINK | F_SEAL_GROW |
F_SEAL_SEAL``).  It reaches other processes only as a file descriptor: a
``fork`` child inherits the mapping, ``multiprocessing`` passes a
duplicate of the descriptor when it pickles the fifo (``DupFd``: a
``Process`` argument under spawn or forkserver, a ``Queue`` item), and
``Kfifo.attach(fd)`` takes one passed by other means (``SCM_RIGHTS``).

Threat model: what a peer can do to this process
------------------------------------------------
A peer is another process of the same user that can open the block.  The
C core treats everything in the mapping as untrusted (indices, header,
size word, data): whatever a peer writes there, this process never reads
or writes outside its mapping, never waits past its timeout and returns
no count above what was asked; at worst it reads garbled data or sees the
fifo closed.  Beyond writing, by form:

* writes garbage into it -- named: garbled data, no crash; sealed: the
  same.
* shrinks it (``ftruncate``) -- named: **SIGBUS** at our next access past
  the new end (a peer can kill us); sealed: refused with ``EPERM`` by
  ``F_SEAL_SHRINK``.
* grows it -- named: harmless, we use the size we mapped; sealed: refused
  (``F_SEAL_GROW``).
* removes the seals -- sealed: impossible (``F_SEAL_SEAL``).
* unlinks the name -- named: no effect on any mapping, later ``attach``
  calls fail; sealed: there is no name.
* takes a name first -- named: ``create`` opens with ``O_EXCL`` and tries
  another random name; sealed: there is no name.
* opens it at all -- named: any process of the same user (names are listed
  in ``/dev/shm``; mode 0600 keeps other users out); sealed: only the
  processes it was handed to as a descriptor.
* lays out a bad header before our ``attach`` -- both: ``ValueError`` (no
  fifo of this layout, or a size that does not fit the mapping).
* uses up the memory -- both: creation fails with ``OSError`` (backed at
  creation), never a SIGBUS later; a memfd counts against memory and cgroup
  limits, a named block against ``/dev/shm``'s size.

* hands us a descriptor (``Kfifo.attach(fd)``) -- the sender keeps its
  own: if the block is not a memfd sealed against shrinking, the sender
  can shrink it under us (SIGBUS).  ``attach(fd)`` checks the seals
  (``F_GET_SEALS``) and refuses an unsealed block with ``ValueError``
  unless the caller passes ``trust_unsealed=True``; ``f.sealed`` says
  which it got.
* signals its notifiers -- any process of the same user (or root): the
  notifiers' sockets are files of mode 0600 in ``/dev/shm``; other users
  are refused by the kernel (docs/notifiers.md, "Who may wake a
  notifier").  A peer can at worst cause spurious wake-ups, or, writing
  the slots, make a notifier miss signals until its waiter polls.

So a peer that must not be able to kill us gets only a sealed fifo.  No
form protects against a peer with ``ptrace`` rights or root.

Backing
-------
tmpfs reserves nothing on ``ftruncate``: a page it cannot supply later is
a SIGBUS at first touch.  Both forms are reserved with
``posix_fallocate`` at creation, so a fifo that does not fit raises
``OSError`` (``ENOSPC``) from ``Kfifo(...)`` instead.

Names and clean-up
------------------
* Only the process that created a named block unlinks it: when its fifo
  is freed, or at its normal exit, whichever comes first.  At exit that
  is an ``atexit`` hook and a ``multiprocessing.util.Finalize`` (fork
  children of ``multiprocessing`` leave through ``os._exit``, where
  ``atexit`` does not run but finalizers do).  A ``fork`` child inherits
  the fifo, not the right to unlink: the creator is recorded by pid.
* The creator registers the name with ``multiprocessing``'s resource
  tracker, so a creator that dies without unlinking (a crash, SIGKILL)
  leaves nothing behind; it unregisters when it unlinks.  Other handles
  neither register nor unlink, so no process warns about "leaked"
  blocks after a normal exit.
* A block is a plain ``mmap`` with no ``__del__``: unmapping never
  complains about exported buffers at exit, whatever order objects die in.
* A sealed memfd needs no clean-up: it disappears with its last
  descriptor and mapping.
"""
import atexit
import errno
import fcntl
import mmap
import os
import secrets
import stat

_PREFIX = "kfifo_"

#: names of named blocks created and not yet unlinked: name -> creator pid
_created = {}
#: the pid whose multiprocessing finalizer is registered
_finalizer_pid = None


class Block:
    """A mapping of a shared memory file, as the C type uses it.

    *fd* is mapped whole.  *keep_fd*: keep (and later close) *fd*, for
    passing the block on by descriptor; otherwise it is closed at once.
    """

    #: the pid of the process that created the name, for the handle
    #: that created it (only that handle unlinks, and only there)
    _owner = None
    #: whether the block is a memfd sealed against shrinking (no peer can
    #: make this process's accesses fault)
    sealed = False

    def __init__(self, fd, name, keep_fd, what):
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size == 0:
            raise ValueError(f"{what}: {self._label(name)} holds no kfifo (it is empty or not a file)")
        self.name = name
        # the C type exports the mmap itself: no memoryview in between
        # that the collector or a __del__ could try to release
        self._mmap = self.buf = mmap.mmap(fd, st.st_size)
        self._fd = fd if keep_fd else None
        if not keep_fd:
            os.close(fd)

    @staticmethod
    def _label(name):
        return "the shared memory block %r" % name if name else "the file descriptor"

    def close(self):
        """Unmap; close the kept descriptor; unlink the name if this
        process created it."""
        try:
            self._mmap.close()
        finally:
            if self._fd is not None:
                fd, self._fd = self._fd, None
                os.close(fd)
            if self._owner == os.getpid():
                _unlink(self.name)

    def reduce(self):
        """How a fifo over this block pickles: (callable, args)."""
        from kfifo import Kfifo

        if self.name is not None:
            return (Kfifo.attach, (self.name,))
        if self._fd is None:
            raise ValueError("Kfifo: this shared fifo's block is closed")
        from multiprocessing.reduction import DupFd

        return (_attach_passed_fd, (DupFd(self._fd),))


def _attach_passed_fd(dup):
    """Unpickle a sealed fifo: attach to the descriptor passed with it."""
    from kfifo import Kfifo

    fd = dup.detach()
    try:
        return Kfifo.attach(fd)
    finally:
        os.close(fd)


def _reserve(fd, nbytes):
    """Back *nbytes* of *fd* now (ENOSPC here, not SIGBUS later)."""
    try:
        os.posix_fallocate(fd, 0, nbytes)
    except OSError as e:
        if e.errno in (errno.EOPNOTSUPP, errno.ENOSYS):
            return  # a file system that cannot reserve: nothing to gain
        raise OSError(
            e.errno,
            f"Kfifo(): cannot reserve {nbytes} bytes of shared memory "
            f"({os.strerror(e.errno)}; is /dev/shm too small?)",
        ) from e


def create(nbytes, sealed=False):
    """A new block of *nbytes* bytes, backed, created by this process."""
    if sealed:
        return _create_sealed(nbytes)
    return _create_named(nbytes)


def _create_sealed(nbytes):
    fd = os.memfd_create("kfifo", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    try:
        os.ftruncate(fd, nbytes)
        _reserve(fd, nbytes)
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
        block = Block(fd, None, True, "Kfifo()")
        block.sealed = True
        return block
    except BaseException:
        os.close(fd)
        raise


def _create_named(nbytes):
    import _posixshmem  # what multiprocessing.shared_memory uses on POSIX
    from multiprocessing import resource_tracker

    while True:
        name = _PREFIX + secrets.token_hex(8)
        try:
            fd = _posixshmem.shm_open("/" + name, os.O_CREAT | os.O_EXCL | os.O_RDWR, mode=0o600)
        except FileExistsError:
            continue
        break
    _created[name] = os.getpid()
    resource_tracker.register("/" + name, "shared_memory")
    _finalize_at_exit()
    try:
        os.ftruncate(fd, nbytes)
        _reserve(fd, nbytes)
        block = Block(fd, name, False, "Kfifo()")
        block._owner = os.getpid()
        return block
    except BaseException:
        os.close(fd)  # Block closes it only on success
        _unlink(name)
        raise


def _sealed(fd):
    """Whether *fd* is a memfd sealed against shrinking (the seal that
    keeps a sender from making this process's accesses fault)."""
    try:
        return bool(fcntl.fcntl(fd, fcntl.F_GET_SEALS) & fcntl.F_SEAL_SHRINK)
    except OSError:  # EINVAL: not a memfd, no seals at all
        return False


def attach(name, trust_unsealed=False):
    """The existing block *name* (a str), or the file *name* (an int fd,
    duplicated), opened without registering it anywhere.  A descriptor
    must be sealed against shrinking unless *trust_unsealed*: whoever
    holds an unsealed one can shrink it under us (SIGBUS)."""
    if isinstance(name, int):
        fd = os.dup(name)
        try:
            block = Block(fd, None, True, "Kfifo.attach()")
        except BaseException:
            os.close(fd)
            raise
        block.sealed = _sealed(fd)
        if not block.sealed and not trust_unsealed:
            block.close()
            raise ValueError(
                "Kfifo.attach(): the descriptor's block is not sealed against shrinking "
                "(a memfd with F_SEAL_SHRINK, as Kfifo(size, shared=True, sealed=True) makes): "
                "whoever sent it could shrink it and kill this process with SIGBUS; pass "
                "trust_unsealed=True if you trust the sender"
            )
        return block
    import _posixshmem

    if not name or "/" in name or "\0" in name:
        raise FileNotFoundError(errno.ENOENT, f"Kfifo.attach(): no shared memory block named {name!r}")
    try:
        fd = _posixshmem.shm_open("/" + name, os.O_RDWR, mode=0o600)
    except OSError as e:
        # a name too long, a directory, ...: none can be a block
        if isinstance(e, FileNotFoundError):
            raise
        raise FileNotFoundError(
            errno.ENOENT, f"Kfifo.attach(): no shared memory block named {name!r} ({e.strerror})"
        ) from e
    try:
        return Block(fd, name, False, "Kfifo.attach()")
    except BaseException:
        os.close(fd)  # Block closes it only on success
        raise


def _unlink(name):
    """Unlink *name* if this process created it and has not yet."""
    if _created.get(name) != os.getpid():
        return
    import _posixshmem
    from multiprocessing import resource_tracker

    del _created[name]
    try:
        _posixshmem.shm_unlink("/" + name)
    except FileNotFoundError:  # someone unlinked it already
        pass
    resource_tracker.unregister("/" + name, "shared_memory")


def _unlink_all():
    for name in list(_created):
        _unlink(name)


def _finalize_at_exit():
    """Unlink at exit in this process, also when it leaves through
    multiprocessing's ``os._exit`` (a fork-start child)."""
    global _finalizer_pid
    if _finalizer_pid == os.getpid():
        return
    from multiprocessing import util

    util.Finalize(None, _unlink_all, exitpriority=0)
    _finalizer_pid = os.getpid()


atexit.register(_unlink_all)
