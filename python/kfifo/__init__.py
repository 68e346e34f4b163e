# SPDX-License-Identifier: MIT
"""kfifo: the Linux kernel's lock-free byte FIFO ("new kfifo API v0.3").

The FIFO itself is C (``libkfifo.a``); :class:`Kfifo`, :class:`SpinLock`
and :class:`Notifier` (a file descriptor for event loops) are C types of the private extension module ``kfifo._kfifo``
(``swig/kfpy_*.c``), whose methods are the wrappers SWIG generates from
``swig/kfifo.i``; CMake builds it (``CMakeLists.txt``, target ``kfifo_ext``).  They are used directly, not wrapped in a Python
subclass: CPython's fast path for method calls needs the exact C type, and
the 16-byte ``in_``/``out`` round trip is as cheap as two ``deque`` calls
only that way.  Their docstrings (``help(kfifo.Kfifo)``), ``__repr__``,
``__len__`` and context manager are defined there too; ``kfifo/__init__.pyi``
gives the type hints and is the list of their public methods (a test holds
``dir(Kfifo)`` to it).

>>> import kfifo
>>> with kfifo.Kfifo(8) as f:
...     f.in_(b"hello"), f.out(3), len(f)
(5, b'hel', 2)

Leaving ``with f:`` ends the stream (``close()``) and frees the handle;
:class:`freeing` only frees.  A get call that times out raises
:class:`Empty`, a put call :class:`Full`: each is both a ``TimeoutError``
and the ``queue`` module's exception of that name.

Also in the package: :mod:`kfifo.model` (a pure-Python reference model),
:class:`kfifo.elements.ElementKfifo` (a fifo of fixed-size
elements, the kernel's typed kfifo), :mod:`kfifo.testing` (Hypothesis state machine, ``pip install
kfifo[testing]``) and the ``kfifo`` command line (``python -m kfifo``).
"""
from types import TracebackType
from typing import Literal, Optional, Type

from kfifo._kfifo import GIL_THRESHOLD, Empty, Full, Kfifo, Notifier, SpinLock
from kfifo._kfifo import VERSION as __version__
from kfifo.elements import ElementKfifo
from kfifo import _shm  # noqa: F401 (hands shared blocks' Python half to the extension)

__all__ = ["Kfifo", "Notifier", "SpinLock", "Empty", "Full", "freeing", "GIL_THRESHOLD", "__version__",
           "ElementKfifo"]


class freeing:
    """``with kfifo.freeing(f):`` frees ``f`` on exit without closing it.

    ``with f:`` ends the stream for the peer (``close()``) and then frees
    this handle, as leaving ``with`` does for a socket.  A handle that must
    let go of its memory but leave the stream open for others (a second
    consumer of a shared fifo, a helper that borrows a fifo) uses this
    instead, as ``contextlib.closing`` wraps an object's ``close``.

    >>> f = Kfifo(8)
    >>> with freeing(f) as g:
    ...     g.in_(b"abc")
    3
    >>> f.is_freed()
    True
    """

    __slots__ = ("_fifo",)

    def __init__(self, fifo: Kfifo) -> None:
        if not isinstance(fifo, Kfifo):
            raise TypeError(f"kfifo.freeing() needs a kfifo.Kfifo, not {type(fifo).__name__}")
        self._fifo = fifo

    def __enter__(self) -> Kfifo:
        if self._fifo.is_freed():
            raise ValueError("kfifo.freeing(): operation on a freed Kfifo")
        return self._fifo

    def __exit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException],
                 tb: Optional[TracebackType]) -> Literal[False]:
        self._fifo.free()
        return False
