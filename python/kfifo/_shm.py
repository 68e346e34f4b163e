# SPDX-License-Identifier: MIT
"""The Python half of shared fifos' blocks (``Kfifo(size, shared=True)``,
``Kfifo(size, shared=True, sealed=True)``, ``Kfifo.attach()``); not part
of the API.

The C core owns a block's whole life: ``kfifo_block_create()`` (a named
POSIX shared memory object, ``O_EXCL``, mode 0600, backed with
``posix_fallocate``), ``kfifo_block_create_sealed()`` (a memfd sealed
against shrinking and growing), ``kfifo_block_open()``,
``kfifo_block_attach_fd()`` (which refuses a descriptor not sealed against
shrinking unless trusted), ``kfifo_block_close()`` and
``kfifo_block_unlink()``; the extension holds each block in a private
``kfifo._kfifo._Block``.  This module does only what needs Python, and
hands it to the extension with ``_kfifo._set_shm_hooks()`` when kfifo is
imported (the extension never imports this module: no import cycle):

* ``_created(name)``: the creator registers the name with
  ``multiprocessing``'s resource tracker and arranges its unlinking at exit;
* ``_release(name)``: the creator's handle was freed: unlink, unregister;
* ``_reduce_fd(fd)``: a sealed fifo pickles as a descriptor
  (``multiprocessing.reduction.DupFd``).

Two forms
---------
*Named* (``shared=True``): a POSIX shared memory object ``/dev/shm/NAME``
(``shm_open``, a random name ``kfifo_`` and 16 hexadecimal digits),
reached by its name: ``Kfifo.attach(name)``, pickling,
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
* takes a name first -- named: ``kfifo_block_create`` opens with
  ``O_EXCL`` and tries another random name; sealed: there is no name.
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
  which it got.  The seals and the length are read from the duplicate this
  process keeps, before mapping.
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
* A block collected without ``close()`` (at exit) is only unmapped: its
  name is let go by the creator's ``free()`` or at exit, never by the
  collector.
* A sealed memfd needs no clean-up: it disappears with its last
  descriptor and mapping.
"""
import atexit
import os
from typing import Callable, Dict, Optional, Protocol, Tuple

from kfifo import _kfifo


class _Passed(Protocol):
    """What a pickled ``DupFd`` is once unpickled."""

    def detach(self) -> int: ...


#: names of named blocks created and not yet unlinked: name -> creator pid
_created_names: Dict[str, int] = {}
#: the pid whose multiprocessing finalizer is registered
_finalizer_pid: Optional[int] = None


def _created(name: str) -> None:
    """A named block *name* was just created by this process."""
    from multiprocessing import resource_tracker

    _created_names[name] = os.getpid()
    resource_tracker.register("/" + name, "shared_memory")
    _finalize_at_exit()


def _release(name: str) -> None:
    """Unlink *name* if this process created it and has not yet."""
    if _created_names.get(name) != os.getpid():
        return
    from multiprocessing import resource_tracker

    del _created_names[name]
    try:
        _kfifo._Block.unlink(name)
    except FileNotFoundError:  # someone unlinked it already
        pass
    resource_tracker.unregister("/" + name, "shared_memory")


def _reduce_fd(fd: int) -> Tuple[Callable[..., "_kfifo.Kfifo"], Tuple[object, ...]]:
    """How a fifo over the memfd *fd* pickles: (callable, args)."""
    from multiprocessing.reduction import DupFd

    return (_attach_passed_fd, (DupFd(fd),))


def _attach_passed_fd(dup: "_Passed") -> "_kfifo.Kfifo":
    """Unpickle a sealed fifo: attach to the descriptor passed with it
    (what ``DupFd`` became on this side: ``detach()`` gives our copy)."""
    fd = dup.detach()
    try:
        return _kfifo.Kfifo.attach(fd)
    finally:
        os.close(fd)


def _release_all() -> None:
    for name in list(_created_names):
        _release(name)


def _finalize_at_exit() -> None:
    """Unlink at exit in this process, also when it leaves through
    multiprocessing's ``os._exit`` (a fork-start child)."""
    global _finalizer_pid
    if _finalizer_pid == os.getpid():
        return
    from multiprocessing import util

    util.Finalize(None, _release_all, exitpriority=0)
    _finalizer_pid = os.getpid()


atexit.register(_release_all)
_kfifo._set_shm_hooks(_created, _release, _reduce_fd)
