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

Also in the package: :mod:`kfifo.model` (a pure-Python reference model),
:mod:`kfifo.testing` (Hypothesis state machine, ``pip install
kfifo[testing]``) and the ``kfifo`` command line (``python -m kfifo``).
"""
from kfifo._kfifo import GIL_THRESHOLD, Kfifo, Notifier, SpinLock
from kfifo._kfifo import VERSION as __version__

__all__ = ["Kfifo", "Notifier", "SpinLock", "GIL_THRESHOLD", "__version__"]
