# SPDX-License-Identifier: MIT
"""Element fifos from Python: the kernel's typed kfifo (2.6.36 on), prototyped.

A kernel driver declares ``DECLARE_KFIFO(events, struct my_event, 64)`` and
counts in elements: ``kfifo_put(&events, ev)``, ``kfifo_get(&events, &ev)``,
``kfifo_len(&events)``.  :class:`ElementKfifo` is the same fifo in Python,
with the element described by a :mod:`struct` format (``"i"``, ``"<HBd"``)
or only by its size in bytes:

>>> from kfifo.elements import ElementKfifo
>>> f = ElementKfifo(4, "<hh")          # 4 elements of two int16
>>> f.put((1, -1)), f.in_([(2, -2), (3, -3)]), f.len(), f.avail()
(1, 2, 3, 1)
>>> f.get(), f.out(8)
((1, -1), [(2, -2), (3, -3)])

It is a thin pure-Python layer over a byte :class:`kfifo.Kfifo`: every
element is ``itemsize`` bytes in the byte fifo, stored and taken whole, so
the byte fifo's guarantees carry over (one producer thread and one
consumer thread need no lock, large copies run without the GIL).  The
element counts follow the C typed API (docs/kernel-compatibility.md):
``size`` elements (at least 2) rounded up to a power of two; ``in_``/
``out`` store and take as many whole elements as fit; ``skip`` drops one,
``skip_count(n)`` at most ``n``.  :class:`kfifo.model.ElementKfifoModel`
is its reference model and the C typed API's; tests/test_typed_api.py
checks all three against each other.
"""
from __future__ import annotations

import operator
import struct
import threading
from typing import Any, Iterable, List, Optional, Union

from kfifo._kfifo import Kfifo

__all__ = ["ElementKfifo"]

_MAX_BYTES = 1 << 31


def _pow2_at_least(n: int) -> int:
    return 1 << (n - 1).bit_length()


class ElementKfifo:
    """A fifo of fixed-size elements, counted in elements.

    Parameters
    ----------
    size : int
        Capacity in elements, at least 2, rounded up to a power of two,
        as ``kfifo_alloc()`` does for a typed fifo.
    format : str or int
        A :mod:`struct` format describing one element (items are then the
        values ``struct.unpack`` gives: a single value for a one-field
        format, a tuple otherwise), or an ``int``: the element size in
        bytes (items are then ``bytes`` of that length).

    Raises
    ------
    ValueError
        ``size`` below 2 (``kfifo_alloc()`` returns ``-EINVAL``), an
        element size of 0, an invalid format string, or a fifo larger
        than ``2**31`` bytes.
    TypeError
        ``format`` neither a ``str`` nor an ``int``.

    Notes
    -----
    Producers (``put``, ``in_``, ``in_bytes``) and consumers (``get``,
    ``peek``, ``out``, ``out_peek``, ``out_bytes``, ``skip``,
    ``skip_count``, ``reset_out``) may run in any number of threads.  A
    store checks the room in elements and then stores into the byte fifo,
    two calls; each side holds a lock of its own (a ``threading.Lock``)
    across them, so that a second producer cannot take the room between
    the two and leave a piece of an element, or one element more than
    ``size``.  One producer and one consumer never wait for each other.
    """

    def __init__(self, size: int, format: Union[str, int]) -> None:
        size = operator.index(size)
        if isinstance(format, bool) or not isinstance(format, (str, int)):
            raise TypeError(f"format must be a struct format or an item size, got {format!r}")
        if isinstance(format, str):
            try:
                self._struct: Optional[struct.Struct] = struct.Struct(format)
            except struct.error as exc:
                raise ValueError(f"bad struct format {format!r}: {exc}") from None
            itemsize = self._struct.size
            self._single = len(self._struct.unpack(bytes(itemsize))) == 1
        else:
            self._struct = None
            itemsize = format
            self._single = False
        if itemsize < 1:
            raise ValueError(f"the element size must be at least 1 byte, got {itemsize}")
        if size < 2:
            raise ValueError(f"size must be at least 2 elements, got {size}")
        cap = _pow2_at_least(size)
        if cap * itemsize > _MAX_BYTES:
            raise ValueError(f"{cap} elements of {itemsize} bytes exceed 2**31 bytes")
        self._cap = cap
        self._itemsize = itemsize
        self._format = format
        self._fifo = Kfifo(_pow2_at_least(cap * itemsize))
        # each side's check and act under one lock (see Notes)
        self._in_lock = threading.Lock()
        self._out_lock = threading.Lock()

    # ---- element <-> bytes ----
    def _pack(self, item: Any) -> bytes:
        if self._struct is None:
            data = bytes(item)
            if len(data) != self._itemsize:
                raise ValueError(f"an element is {self._itemsize} bytes, got {len(data)}")
            return data
        if self._single:
            return self._struct.pack(item)
        return self._struct.pack(*item)

    def _unpack(self, data: bytes) -> Any:
        if self._struct is None:
            return data
        values = self._struct.unpack(data)
        return values[0] if self._single else values

    def _split(self, data: bytes) -> List[Any]:
        k = self._itemsize
        return [self._unpack(data[i:i + k]) for i in range(0, len(data), k)]

    # ---- queries ----
    @property
    def itemsize(self) -> int:
        """The size of one element in bytes (``kfifo_esize``)."""
        return self._itemsize

    @property
    def format(self) -> Union[str, int]:
        """The format the fifo was made with."""
        return self._format

    def size(self) -> int:
        """Capacity in elements (``kfifo_size``)."""
        return self._cap

    def len(self) -> int:
        """Elements stored (``kfifo_len``)."""
        return self._fifo.len() // self._itemsize

    def __len__(self) -> int:
        return self.len()

    def avail(self) -> int:
        """Free elements (``kfifo_avail``)."""
        return min(self._cap - self.len(), self._fifo.avail() // self._itemsize)

    def is_empty(self) -> bool:
        """Whether no element is stored."""
        return self._fifo.is_empty()

    def is_full(self) -> bool:
        """Whether no element fits (``kfifo_is_full``)."""
        return self.avail() == 0

    # ---- producer ----
    def in_bytes(self, data: Any) -> int:
        """Store the whole elements of ``data`` (bytes-like, a multiple of
        ``itemsize``) that fit; return how many were stored."""
        view = memoryview(data).cast("B")
        if len(view) % self._itemsize:
            raise ValueError(f"{len(view)} bytes is not a whole number of {self._itemsize}-byte elements")
        with self._in_lock:
            k = min(len(view) // self._itemsize, self.avail())
            return self._fifo.in_(view[:k * self._itemsize]) // self._itemsize

    def in_(self, items: Iterable[Any]) -> int:
        """Store as many of ``items`` as fit, in order (``kfifo_in``); return the count."""
        return self.in_bytes(b"".join(self._pack(item) for item in items))

    def put(self, item: Any) -> int:
        """Store one element (``kfifo_put``): 1, or 0 when the fifo is full."""
        data = self._pack(item)
        with self._in_lock:
            if self.avail() == 0:
                return 0
            return self._fifo.in_(data) // self._itemsize

    # ---- consumer ----
    def out_bytes(self, n: int) -> bytes:
        """Remove up to ``n`` elements and return their bytes."""
        n = operator.index(n)
        if n < 0:
            raise ValueError(f"n must not be negative, got {n}")
        with self._out_lock:
            return self._fifo.out(min(n, self.len()) * self._itemsize)

    def out(self, n: int) -> List[Any]:
        """Remove and return up to ``n`` elements (``kfifo_out``)."""
        return self._split(self.out_bytes(n))

    def out_peek(self, n: int) -> List[Any]:
        """Return up to ``n`` elements without removing them (``kfifo_out_peek``)."""
        n = operator.index(n)
        if n < 0:
            raise ValueError(f"n must not be negative, got {n}")
        with self._out_lock:
            k = min(n, self.len()) * self._itemsize
            regions = self._fifo.out_prepare(k)
            data = bytes(regions[0]) + bytes(regions[1])
        return self._split(data)

    def get(self) -> Optional[Any]:
        """Remove and return the oldest element, or ``None`` when empty (``kfifo_get``)."""
        data = self.out_bytes(1)
        return self._unpack(data) if data else None

    def peek(self) -> Optional[Any]:
        """Return the oldest element without removing it, or ``None`` (``kfifo_peek``)."""
        items = self.out_peek(1)
        return items[0] if items else None

    def skip(self) -> None:
        """Drop the oldest element, if any (``kfifo_skip`` with one argument)."""
        self.skip_count(1)

    def skip_count(self, n: int) -> None:
        """Drop up to ``n`` elements (``kfifo_skip_count``)."""
        n = operator.index(n)
        if n < 0:
            raise ValueError(f"n must not be negative, got {n}")
        with self._out_lock:
            self._fifo.skip(min(n, self.len()) * self._itemsize)

    def reset_out(self) -> None:
        """Drop everything, from the consumer side (``kfifo_reset_out``)."""
        self._fifo.reset_out()

    def reset(self) -> None:
        """Empty the fifo; not while anyone else uses it (``kfifo_reset``)."""
        self._fifo.reset()

    def free(self) -> None:
        """Free the buffer; afterwards every call raises ``ValueError``."""
        self._fifo.free()

    def close(self) -> None:
        """End the stream: the peer's waits see end of stream (``Kfifo.close``)."""
        self._fifo.close()

    @property
    def closed(self) -> bool:
        """True after :meth:`close` (by this handle or another one)."""
        return bool(self._fifo.closed)

    def __enter__(self) -> "ElementKfifo":
        return self

    def __exit__(self, *exc: object) -> None:
        """Leaving ``with`` closes, then frees, as ``with`` on a Kfifo does."""
        if not self._fifo.is_freed():
            self._fifo.close()
        self.free()

    def __repr__(self) -> str:
        return (f"<kfifo.elements.ElementKfifo format={self._format!r} "
                f"len={self.len()} size={self._cap}>")
