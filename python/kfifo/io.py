# SPDX-License-Identifier: MIT
"""A fifo as a file: :class:`FifoRawIO`, an :class:`io.RawIOBase` over one
side of a :class:`kfifo.Kfifo`, and :func:`open`, which buffers it as the
builtin ``open`` does.  So a fifo plugs into everything that takes a binary
file: ``shutil.copyfileobj``, ``io.BufferedReader`` (``readline``,
``peek``), ``tarfile.open(fileobj=..., mode="r|")`` / ``"w|"`` streams,
``pickle.dump``/``load``, ``zipfile`` in stream mode, ``gzip.GzipFile``.

>>> import kfifo, kfifo.io, shutil, io, threading
>>> f = kfifo.Kfifo(64)
>>> def produce():
...     with kfifo.io.open(f, "wb") as w:   # close(): end of stream
...         shutil.copyfileobj(io.BytesIO(b"line one\\nline two\\n" * 100), w)
>>> t = threading.Thread(target=produce); t.start()
>>> with kfifo.io.open(f, "rb") as r:
...     lines = r.readlines()
>>> t.join(); len(lines), lines[0]
(200, b'line one\\n')

Reads block until data arrives (``readinto`` returns as soon as some bytes
are there, 0 at end of stream, as a pipe's does); writes store everything,
waiting for room (``write`` returns ``len(data)``).  ``timeout`` (seconds,
``None`` without limit) applies to each call: a read that times out raises
:class:`kfifo.Empty`, a write :class:`kfifo.Full` (with ``stored``), both
``TimeoutError``.  ``close()`` ends the stream for the peer
(``Kfifo.close()``, from either side, as closing either end of a pipe
does); with ``closefd=True`` it also frees the fifo's handle, as leaving
``with f:`` does (not the default: threads of one process share one
handle, and the reader's must outlive the writer's file).  One side per object, as the fifo's
one-producer/one-consumer rule asks.  As for any file, a ``FifoRawIO``
collected without ``close()`` is closed then (so the stream ends).
"""
from __future__ import annotations

import io
from typing import TYPE_CHECKING, Literal, Optional, Union, overload

from kfifo import Kfifo

if TYPE_CHECKING:
    from kfifo import _Buffer, _WritableBuffer

__all__ = ["FifoRawIO", "open"]

_builtin_open = open


class FifoRawIO(io.RawIOBase):
    """One side of a fifo as an unbuffered binary file.

    Parameters
    ----------
    fifo : kfifo.Kfifo
        The fifo (ordinary or shared).
    mode : {"rb", "wb"}
        ``"rb"``: the consumer side (``readinto``, ``read``); ``"wb"``: the
        producer side (``write``).  ``"r"`` and ``"w"`` mean the same.
    timeout : float or None
        Seconds each read or write may wait; ``None`` waits without limit.
    closefd : bool
        Whether ``close()`` also frees the fifo's handle (after ending the
        stream); with False (the default) the fifo stays usable.
    """

    def __init__(self, fifo: Kfifo, mode: str = "rb", *, timeout: Optional[float] = None,
                 closefd: bool = False) -> None:
        self._fifo: Optional[Kfifo] = None  # close() at collection needs it
        super().__init__()
        if not isinstance(fifo, Kfifo):
            raise TypeError(f"FifoRawIO() needs a kfifo.Kfifo, not {type(fifo).__name__}")
        if mode not in ("r", "rb", "w", "wb"):
            raise ValueError(f"FifoRawIO(): mode must be 'rb' or 'wb', not {mode!r}")
        if fifo.is_freed():
            raise ValueError("FifoRawIO(): operation on a freed Kfifo")
        fifo.get(0, timeout)  # the fifo's own checks of the timeout
        self._fifo = fifo
        self._reading = mode.startswith("r")
        self._timeout = timeout
        self._closefd = closefd
        self.mode = "rb" if self._reading else "wb"

    @property
    def fifo(self) -> Kfifo:
        """The fifo this file reads or writes (``ValueError`` once closed)."""
        if self._fifo is None:
            raise ValueError("I/O operation on closed file.")
        return self._fifo

    def readable(self) -> bool:
        self.fifo  # noqa: B018 - refuses a closed file
        return self._reading

    def writable(self) -> bool:
        self.fifo  # noqa: B018
        return not self._reading

    def seekable(self) -> bool:
        self.fifo  # noqa: B018
        return False

    def readinto(self, buffer: _WritableBuffer) -> int:  # type: ignore[override]
        """Wait for some bytes, then take up to ``len(buffer)``; 0 at end of stream."""
        if not self._reading:
            raise io.UnsupportedOperation("read: the file was opened for writing")
        return self.fifo.get_into(buffer, self._timeout)

    def write(self, data: _Buffer) -> int:  # type: ignore[override]
        """Store all of ``data``, waiting for room; returns its length in bytes."""
        if self._reading:
            raise io.UnsupportedOperation("write: the file was opened for reading")
        fifo = self.fifo
        with memoryview(data) as view:  # type: ignore[arg-type]
            n = view.nbytes
        fifo.put(data, self._timeout)
        return n

    def close(self) -> None:
        """End the stream for the peer; with ``closefd``, free the handle too."""
        fifo, self._fifo = self._fifo, None
        try:
            if fifo is not None and not fifo.is_freed():
                if self._closefd:
                    fifo.__exit__(None, None, None)  # close, then free
                else:
                    fifo.close()
        finally:
            super().close()

    def __repr__(self) -> str:
        state = "closed" if self._fifo is None else repr(self._fifo)
        return f"<kfifo.io.FifoRawIO mode={self.mode!r} {state}>"


@overload
def open(fifo: Kfifo, mode: Literal["rb", "r"] = ..., buffering: int = ..., *,
         timeout: Optional[float] = ..., closefd: bool = ...) -> Union[io.BufferedReader, FifoRawIO]: ...
@overload
def open(fifo: Kfifo, mode: Literal["wb", "w"], buffering: int = ..., *,
         timeout: Optional[float] = ..., closefd: bool = ...) -> Union[io.BufferedWriter, FifoRawIO]: ...
def open(fifo: Kfifo, mode: str = "rb", buffering: int = -1, *, timeout: Optional[float] = None,
         closefd: bool = False) -> Union[io.BufferedReader, io.BufferedWriter, FifoRawIO]:
    """One side of ``fifo`` as a binary file, buffered as the builtin ``open`` buffers.

    ``buffering`` 0 returns the :class:`FifoRawIO` itself; -1 (the default)
    a buffer of ``io.DEFAULT_BUFFER_SIZE`` bytes; a positive number that size.
    """
    raw = FifoRawIO(fifo, mode, timeout=timeout, closefd=closefd)
    if buffering == 0:
        return raw
    size = io.DEFAULT_BUFFER_SIZE if buffering < 0 else buffering
    if raw.readable():
        return io.BufferedReader(raw, size)
    return io.BufferedWriter(raw, size)
