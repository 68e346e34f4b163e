# SPDX-License-Identifier: MIT
"""Shared memory blocks for shared fifos (``Kfifo(size, shared=True)``,
``Kfifo.attach(name)``); used by the C type, not part of the API.

A block is a :class:`multiprocessing.shared_memory.SharedMemory` (or, to
attach on Python < 3.13, an object with the same ``buf``, ``name`` and
``close()``).  The rules of API.md 3.4:

* The process that creates a block (``create``) is the only one that
  unlinks it: when its fifo is freed, or at normal exit (an ``atexit``
  hook here), whichever comes first.  Its ``SharedMemory`` registers the
  block with multiprocessing's resource tracker, and ``unlink()``
  unregisters it, so a creator that dies without unlinking (a crash,
  SIGKILL) still leaves no block behind: the tracker unlinks it.
* Every other handle (``attach``: ``Kfifo.attach``, unpickling) opens the
  block without registering it, so that the tracker of the attaching
  process neither unlinks the block nor warns about a "leaked" block when
  that process exits.  Python 3.13 documents ``SharedMemory(name,
  track=False)`` for that.  Before 3.13 every ``SharedMemory(name)``
  registers; unregistering afterwards is not safe (a ``fork`` child shares
  its parent's tracker, and would remove the creator's registration), so
  the block is opened as ``SharedMemory`` opens it, with the POSIX
  ``shm_open`` of its private ``_posixshmem`` module, and mapped with
  :mod:`mmap`, without the registration.
* A ``fork`` child inherits the creator's fifo object but not the right to
  unlink: the creator is recorded by process id.
"""
import atexit
import mmap
import os
import sys
from multiprocessing import shared_memory

#: blocks created by this process and not yet unlinked: name -> (block, pid)
_created = {}

_TRACK_PARAMETER = sys.version_info >= (3, 13)


def create(nbytes):
    """A new block of at least *nbytes* bytes, created by this process."""
    block = shared_memory.SharedMemory(create=True, size=nbytes)
    _created[block.name] = (block, os.getpid())
    return block


class _UntrackedBlock:
    """A block opened without the resource tracker (Python < 3.13)."""

    def __init__(self, name):
        import _posixshmem  # what SharedMemory uses on POSIX

        self.name = name
        fd = _posixshmem.shm_open("/" + name, os.O_RDWR, mode=0o600)
        try:
            size = os.fstat(fd).st_size
            if size == 0:
                raise ValueError(
                    f"Kfifo.attach(): the shared memory block {name!r} is empty"
                )
            self._mmap = mmap.mmap(fd, size)
        finally:
            os.close(fd)
        self.buf = memoryview(self._mmap)

    def close(self):
        self.buf.release()
        self._mmap.close()


def attach(name):
    """The existing block *name*, opened without registering it."""
    if not name or "/" in name or "\0" in name:
        raise FileNotFoundError(f"no shared memory block named {name!r}")
    if _TRACK_PARAMETER:
        return shared_memory.SharedMemory(name, track=False)
    return _UntrackedBlock(name)


def _unlink(name):
    block, pid = _created.get(name, (None, None))
    if block is None or pid != os.getpid():
        return
    del _created[name]
    try:
        block.unlink()
    except FileNotFoundError:  # someone unlinked it already
        pass


def release(block, owner):
    """Unmap *block*; unlink it if this process created it (*owner* is the
    creator's pid, 0 for an attached block)."""
    try:
        block.close()
    finally:
        if owner == os.getpid():
            _unlink(block.name)


@atexit.register
def _unlink_at_exit():
    for name in list(_created):
        _unlink(name)
