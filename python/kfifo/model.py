# SPDX-License-Identifier: MIT
"""A pure-Python reference model of :class:`kfifo.Kfifo` (docs/spec.md 2.1/2.2).

:class:`KfifoModel` is the oracle of the property tests and is shipped for
users who want to test their own FIFO against the same rules.  It is
written from the contract (``docs/spec.md``, cited below by section: the
specification page of kfifo's documentation, also in the source
distribution, and installed by pip and by ``cmake --install`` as
``share/doc/kfifo/spec.md`` under the prefix, e.g. ``sys.prefix``), not
translated from the C code, and it trades speed for being obviously right:

* ``in`` and ``out`` are free-running 32-bit counters, exactly as in C:
  they wrap at ``2**32`` and the fill level is ``(in - out) mod 2**32``;
* the data lives in a ``bytearray`` of ``size`` bytes, indexed with
  ``index & (size - 1)``, so a copy that crosses the end of the buffer
  continues at its start;
* every operation is built from five small helpers (:meth:`_len`,
  :meth:`_avail`, :meth:`_put`, :meth:`_get`, :meth:`_header`), which the
  test-suite overrides in subclasses to plant known bugs and check that the
  state machine of :mod:`kfifo.testing` finds them.

The model has no dependencies and no threads: the ``_locked`` calls take
their lock only to honour the signature.
"""
from __future__ import annotations

import operator
from typing import Any, Callable, Iterable, List, Tuple, Union

# the timeouts of the batch calls, as kfifo.Kfifo raises them: each is a
# TimeoutError and the queue module's exception of that name
from kfifo._kfifo import Empty, Full

__all__ = ["KfifoModel", "RingModel", "CAPACITIES", "capacity_of", "MAX_SIZE", "UINT_MAX"]

#: The largest value of a C ``unsigned int``; counts must not exceed it.
UINT_MAX = 0xFFFFFFFF
#: The largest fifo ``Kfifo(size)`` accepts (docs/spec.md 1.3, ``kfifo_alloc``).
MAX_SIZE = 1 << 31
#: Longest record each header size can describe (docs/spec.md 1.4).
_RECORD_LIMIT = {0: UINT_MAX, 1: 0xFF, 2: 0xFFFF}


def _count(value: Any, name: str) -> int:
    """Check a count argument the way the C wrapper does (docs/spec.md 2.1)."""
    try:
        value = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an int, not {type(value).__name__}") from None
    if value < 0:
        raise ValueError(f"{name} must not be negative, got {value}")
    if value > UINT_MAX:
        raise OverflowError(f"{name} must fit in 32 bits, got {value}")
    return value


def _recsize(value: Any) -> int:
    """Check a ``recsize`` argument: an int, and one of 0, 1, 2."""
    try:
        value = operator.index(value)
    except TypeError:
        raise TypeError(f"recsize must be an int, not {type(value).__name__}") from None
    if value not in (0, 1, 2):
        raise ValueError(f"recsize must be 0, 1 or 2, got {value}")
    return value


def _readable(data: Any) -> memoryview:
    """A flat byte view of any bytes-like input (``str`` and ints are refused)."""
    try:
        view = memoryview(data)
    except TypeError:
        raise TypeError(f"data must be a bytes-like object, not {type(data).__name__}") from None
    if not view.c_contiguous:
        raise TypeError(f"data must be a C-contiguous buffer; this {type(data).__name__} is not contiguous")
    return view.cast("B") if view.format != "B" or view.ndim != 1 else view


def _writable(buf: Any) -> memoryview:
    """A flat writable byte view of ``buf``, or :class:`TypeError`."""
    try:
        view = memoryview(buf)
    except TypeError:
        raise TypeError(f"buf must be a writable bytes-like object, not {type(buf).__name__}") from None
    if view.readonly:
        raise TypeError(f"buf must be writable, {type(buf).__name__} is read-only")
    if not view.c_contiguous:
        raise TypeError(f"buf must be a C-contiguous buffer; this {type(buf).__name__} is not contiguous")
    return view.cast("B") if view.format != "B" or view.ndim != 1 else view


class KfifoModel:
    """Reference model of :class:`kfifo.Kfifo`: same constructor, methods and results.

    Parameters
    ----------
    size : int
        Requested capacity in bytes, rounded up to a power of two.
        ``ValueError`` if it is 0 or larger than ``2**31``.
    start : int, optional
        Initial value of both indices, taken modulo ``2**32``; a value near
        ``2**32`` makes the indices wrap within a few calls.

    Notes
    -----
    Results follow docs/spec.md 1.3/1.4 with the decisions of the Python layer
    (2.1): invalid ``recsize`` values raise ``ValueError`` instead of
    returning a C error value; a refused call changes nothing; after
    :meth:`free` every call raises ``ValueError``.
    """

    def __init__(self, size: int, *, start: int = 0) -> None:
        try:
            size = operator.index(size)
            start = operator.index(start) & UINT_MAX
        except TypeError:
            raise TypeError("size and start must be ints") from None
        if size < 1 or size > MAX_SIZE:
            raise ValueError(f"size must be between 1 and 2**31, got {size}")
        self._size = 1 << (size - 1).bit_length()
        self._buffer = bytearray(self._size)
        self._in = start
        self._out = start
        self._freed = False
        self._closed = False

    # ------------------------------------------------------------------
    # The five primitives every public call is built from.
    # ------------------------------------------------------------------
    def _len(self) -> int:
        """Bytes stored: ``in - out`` modulo ``2**32``."""
        return (self._in - self._out) & UINT_MAX

    def _avail(self) -> int:
        """Free bytes: ``size - len``."""
        return self._size - self._len()

    def _put(self, index: int, data: memoryview) -> None:
        """Copy ``data`` into the buffer at fifo position ``index``, wrapping at its end."""
        off = index & (self._size - 1)
        first = min(len(data), self._size - off)
        self._buffer[off:off + first] = data[:first]
        self._buffer[:len(data) - first] = data[first:]

    def _get(self, index: int, n: int) -> bytes:
        """The ``n`` bytes at fifo position ``index``, wrapping at the buffer's end."""
        off = index & (self._size - 1)
        first = min(n, self._size - off)
        return bytes(self._buffer[off:off + first]) + bytes(self._buffer[:n - first])

    def _header(self, recsize: int) -> int:
        """Length of the next record, read from its ``recsize``-byte little-endian
        header; 0 when the fifo holds fewer than ``recsize`` bytes (an empty fifo
        has no header, docs/spec.md 1.7 bug 5)."""
        if self._len() < recsize:
            return 0
        return int.from_bytes(self._get(self._out, recsize), "little")

    def _check(self) -> None:
        if self._freed:
            raise ValueError("operation on a freed fifo")

    def _advance_in(self, n: int) -> None:
        self._in = (self._in + n) & UINT_MAX

    def _advance_out(self, n: int) -> None:
        self._out = (self._out + n) & UINT_MAX

    # ------------------------------------------------------------------
    # Raw state, for coverage accounting in tests (not part of kfifo.Kfifo).
    # ------------------------------------------------------------------
    @property
    def in_index(self) -> int:
        """The free-running producer index ``in`` (read-only)."""
        return self._in

    @property
    def out_index(self) -> int:
        """The free-running consumer index ``out`` (read-only)."""
        return self._out

    # ------------------------------------------------------------------
    # Byte stream (docs/spec.md 1.3)
    # ------------------------------------------------------------------
    def in_(self, data: Any) -> int:
        """Store ``min(len(data), avail)`` bytes of ``data``; return that count.

        Concurrency: producer side.
        """
        self._check()
        view = _readable(data)
        n = min(len(view), self._avail())
        self._put(self._in, view[:n])
        self._advance_in(n)
        return n

    def from_user(self, data: Any) -> int:
        """Same as :meth:`in_` (userspace has no separate user memory)."""
        return self.in_(data)

    def out(self, n: int) -> bytes:
        """Remove and return up to ``n`` bytes (``min(n, len)``).

        Concurrency: consumer side.
        """
        self._check()
        n = min(_count(n, "n"), self._len())
        data = self._get(self._out, n)
        self._advance_out(n)
        return data

    def to_user(self, n: int) -> bytes:
        """Same as :meth:`out`."""
        return self.out(n)

    def out_into(self, buf: Any) -> int:
        """Fill the writable buffer ``buf`` like ``readinto``; return the count.

        Bytes of ``buf`` past the count are left untouched.
        """
        self._check()
        view = _writable(buf)
        n = min(len(view), self._len())
        view[:n] = self._get(self._out, n)
        self._advance_out(n)
        return n

    def in_locked(self, data: Any, lock: Any) -> int:
        """:meth:`in_` under ``lock`` (the model only takes the lock if it can)."""
        if hasattr(lock, "__enter__"):
            with lock:
                return self.in_(data)
        return self.in_(data)

    def out_locked(self, n: int, lock: Any) -> bytes:
        """:meth:`out` under ``lock``.  No "reset the indices when empty" trick."""
        if hasattr(lock, "__enter__"):
            with lock:
                return self.out(n)
        return self.out(n)

    def skip(self, n: int) -> None:
        """Drop ``n`` bytes; if ``n >= len`` the fifo is emptied (``out = in``)."""
        self._check()
        n = _count(n, "n")
        if n >= self._len():
            self._out = self._in
        else:
            self._advance_out(n)

    # ------------------------------------------------------------------
    # Records (docs/spec.md 1.4)
    # ------------------------------------------------------------------
    def in_rec(self, data: Any, recsize: int) -> int:
        """Store ``data`` as one record with a ``recsize``-byte length header.

        Returns 0 on success.  Returns ``n + 1`` (``2**32 - 1`` at most) and
        stores nothing when ``n + recsize > avail`` or ``n`` is too long for
        the header (255 for ``recsize`` 1, 65535 for 2).
        """
        self._check()
        recsize = _recsize(recsize)
        view = _readable(data)
        n = len(view)
        if n > _RECORD_LIMIT[recsize] or n + recsize > self._avail():
            return min(n + 1, UINT_MAX)
        if recsize:
            self._put(self._in, memoryview(n.to_bytes(recsize, "little")))
        self._put(self._in + recsize, view)
        self._advance_in(recsize + n)  # published at once: all or nothing
        return 0

    def from_user_rec(self, data: Any, recsize: int) -> int:
        """Same as :meth:`in_rec`."""
        return self.in_rec(data, recsize)

    def out_rec(self, n: int, recsize: int) -> Tuple[int, bytes, int]:
        """Take one record into a buffer of capacity ``n``: ``(ret, data, total)``.

        ``L`` is the record length from the header (``L = n`` for
        ``recsize`` 0) and ``total = L``.

        * fewer than ``recsize`` bytes stored (``recsize`` 1/2): ``(n, b"", 0)``;
        * ``L > n``: ``(L, b"", L)``, nothing removed;
        * fewer than ``recsize + L`` bytes stored: ``(n, b"", L)``, nothing removed;
        * otherwise the record is removed and ``(0, data, L)`` returned, with
          ``len(data) == L``.
        """
        self._check()
        n = _count(n, "n")
        recsize = _recsize(recsize)
        if recsize == 0:
            length = n
        elif self._len() < recsize:
            return n, b"", 0
        else:
            length = self._header(recsize)
        if length > n:
            return length, b"", length
        if self._len() < recsize + length:
            return n, b"", length
        data = self._get(self._out + recsize, length)
        self._advance_out(recsize + length)
        return 0, data, length

    def to_user_rec(self, n: int, recsize: int) -> Tuple[int, bytes, int]:
        """Same as :meth:`out_rec`."""
        return self.out_rec(n, recsize)

    def peek_rec(self, recsize: int) -> int:
        """Length of the next record: ``len`` for ``recsize`` 0, 0 if fewer than
        ``recsize`` bytes are stored, else the header's value."""
        self._check()
        recsize = _recsize(recsize)
        if recsize == 0:
            return self._len()
        return self._header(recsize)

    def skip_rec(self, recsize: int) -> None:
        """Remove the next record; empty the fifo if it holds less than a whole
        record or if ``recsize`` is 0 (seed behaviour)."""
        self._check()
        recsize = _recsize(recsize)
        if recsize:
            whole = recsize + self._header(recsize)  # > len if no header
            if whole <= self._len():
                self._advance_out(whole)
                return
        self._out = self._in

    # ------------------------------------------------------------------
    # State
    # ------------------------------------------------------------------
    def reset(self) -> None:
        """Empty the fifo, set ``in = out = 0`` and reopen it."""
        self._check()
        self._in = self._out = 0
        self._closed = False

    def reset_out(self) -> None:
        """Discard all content from the consumer side (``out = in``)."""
        self._check()
        self._out = self._in

    def size(self) -> int:
        """Buffer size in bytes (a power of two)."""
        self._check()
        return self._size

    def len(self) -> int:
        """Bytes stored."""
        self._check()
        return self._len()

    def __len__(self) -> int:
        return self.len()

    def avail(self) -> int:
        """Free bytes, ``size - len``."""
        self._check()
        return self._avail()

    def is_empty(self) -> bool:
        """True when nothing is stored."""
        self._check()
        return self._len() == 0

    def is_full(self) -> bool:
        """True when no byte is free."""
        self._check()
        return self._avail() == 0

    def free(self) -> None:
        """Release the buffer; afterwards every other call raises ``ValueError``.

        A second call is harmless, as for ``kfifo_free``.  While a view of
        :meth:`in_prepare` or :meth:`out_prepare` is alive it raises
        ``BufferError`` (the buffer is still exported) and changes nothing.
        """
        self._buffer.clear()  # BufferError while a view points into it
        self._freed = True

    # ------------------------------------------------------------------
    # End of stream and the waits that do not block (docs/spec.md 3.1, 3.4)
    # ------------------------------------------------------------------
    def close(self) -> None:
        """Mark the end of the stream; every other call goes on working."""
        self._check()
        self._closed = True

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` ran (:meth:`reset` reopens)."""
        self._check()
        return self._closed

    def _wait(self, n: Any, timeout: Any) -> int:
        self._check()
        n = _count(n, "n")
        self._no_wait(timeout)
        if n > self._size:
            raise ValueError(f"n={n} is more than the fifo's size {self._size}")
        return n

    def _no_wait(self, timeout: Any) -> None:
        """The model never blocks: only ``timeout=0`` (a bool is refused as the fifo does)."""
        if isinstance(timeout, bool):  # as the fifo: not queue.Queue's block
            raise TypeError(
                "timeout must be a number of seconds or None, not bool "
                "(queue.Queue's block argument has no equivalent here: use "
                "timeout=0 to not wait)")
        if timeout != 0:
            raise NotImplementedError("the model does not block: only timeout=0")

    def put_recs(self, records: Iterable[Any], recsize: int, timeout: float = 0) -> int:
        """Store each record of ``records`` whole, in order (``put_rec`` for many).

        Every record is checked first: one that is not bytes-like
        (``TypeError``) or can never fit (``ValueError``: longer than its
        header can say or than the fifo) stores nothing.  With ``timeout=0``
        the records that fit now are stored; then :class:`kfifo.Full` (or
        ``BrokenPipeError`` once the fifo is closed) whose ``stored`` says
        how many were.  Returns the count stored: all of them.
        """
        recsize = _recsize(recsize)
        self._no_wait(timeout)
        self._check()
        views = []
        for i, data in enumerate(list(records)):
            try:
                view = _readable(data)
            except TypeError:
                raise TypeError(f"records[{i}] must be a bytes-like object, not {type(data).__name__}") from None
            n = len(view)
            if n > _RECORD_LIMIT[recsize] or n > self._size or self._size - n < recsize:
                raise ValueError(f"records[{i}], of {n} bytes, can never fit (header of {recsize} bytes, "
                                 f"fifo of {self._size} bytes); nothing stored")
            views.append(view)
        for stored, view in enumerate(views):
            if self._closed:
                exc: OSError = BrokenPipeError(f"the fifo is closed ({stored} of {len(views)} records stored)")
            elif self.in_rec(view, recsize) != 0:
                exc = Full(f"timed out ({stored} of {len(views)} records stored)")
            else:
                continue
            exc.stored = stored  # type: ignore[attr-defined]
            raise exc
        return len(views)

    def get_recs(self, max: int, recsize: int, timeout: float = 0) -> List[bytes]:
        """Take up to ``max`` whole records, oldest first (``get_rec`` for many).

        ``[]`` for ``max`` 0, and at end of stream (closed, no whole record
        left); :class:`kfifo.Empty` when no whole record is stored (the model
        does not wait).  ``recsize`` must be 1 or 2.
        """
        max = _count(max, "max")
        recsize = _recsize(recsize)
        self._no_wait(timeout)
        if recsize == 0:
            raise ValueError("recsize must be 1 or 2 (a record of recsize 0 has no length to wait for)")
        self._check()
        taken: List[bytes] = []
        while len(taken) < max:
            ret, data, _ = self.out_rec(_RECORD_LIMIT[recsize], recsize)
            if ret != 0:
                break
            taken.append(data)
        if taken or max == 0 or self._closed:
            return taken
        raise Empty("no whole record stored")

    def wait_avail(self, n: int, timeout: float = 0) -> bool:
        """``avail() >= n`` and not closed (``kfifo_wait_avail``, timeout 0)."""
        n = self._wait(n, timeout)
        return not self._closed and self._avail() >= n

    def wait_len(self, n: int, timeout: float = 0) -> bool:
        """``len() >= n`` (``kfifo_wait_len``, timeout 0)."""
        n = self._wait(n, timeout)
        return self._len() >= n

    # ------------------------------------------------------------------
    # Zero-copy views (docs/spec.md 3.3, 3.4)
    # ------------------------------------------------------------------
    def _regions(self, index: int, n: int, readonly: bool) -> Tuple[memoryview, memoryview]:
        off = index & (self._size - 1)
        first = min(n, self._size - off)
        whole = memoryview(self._buffer)
        a, b = whole[off:off + first], whole[:n - first]
        if readonly:
            a, b = a.toreadonly(), b.toreadonly()
        return a, b

    def in_prepare(self, n: int) -> Tuple[memoryview, memoryview]:
        """Writable views of ``min(n, avail)`` free bytes, split where the ring wraps."""
        self._check()
        n = min(_count(n, "n"), self._avail())
        return self._regions(self._in, n, readonly=False)

    def in_finish(self, n: int) -> int:
        """Publish ``min(n, avail)`` bytes written into the prepared views."""
        self._check()
        n = min(_count(n, "n"), self._avail())
        self._advance_in(n)
        return n

    def out_prepare(self, n: int) -> Tuple[memoryview, memoryview]:
        """Read-only views of ``min(n, len)`` stored bytes, in order."""
        self._check()
        n = min(_count(n, "n"), self._len())
        return self._regions(self._out, n, readonly=True)

    def out_finish(self, n: int) -> int:
        """Remove ``min(n, len)`` bytes."""
        self._check()
        n = min(_count(n, "n"), self._len())
        self._advance_out(n)
        return n

    def __enter__(self) -> "KfifoModel":
        self._check()
        return self

    def __exit__(self, *exc: object) -> None:
        # as Kfifo: leaving `with` ends the stream, then frees
        if not self._freed:
            self.close()
        self.free()

    def __repr__(self) -> str:
        name = type(self).__name__
        if self._freed:
            return f"<{name} freed>"
        return f"<{name} size={self._size} len={self._len()} in={self._in} out={self._out}>"


# ----------------------------------------------------------------------
# Element fifos: the kernel's typed API (docs/kernel-compatibility.md)
# ----------------------------------------------------------------------
class ElementKfifoModel:
    """Reference model of an element fifo: the C typed API and :class:`kfifo.elements.ElementKfifo`.

    A fifo of ``size`` elements (at least 2, else ``ValueError``, as
    ``kfifo_alloc()`` returns ``-EINVAL``; rounded up to a power of two)
    of ``itemsize`` bytes each, counted in elements.  Elements are ``bytes``
    of length ``itemsize``; buffers are their concatenation.  Like
    :class:`KfifoModel`, the indices are free-running 32-bit element
    counters (``start`` sets both), the fill level is ``in - out`` modulo
    ``2**32`` and an element lives at ``index & (size - 1)``: that is what
    ``out_linear`` reports.

    Calls (C name without ``kfifo_``): ``in_(data) -> int`` (whole
    elements stored, ``min(len(data) // itemsize, avail)``), ``out(n) ->
    bytes``, ``out_peek(n) -> bytes``, ``put(elem) -> int`` (1 or 0),
    ``get()``/``peek()`` (an element or ``None``), ``skip()``,
    ``skip_count(n)`` (at most ``len``), ``from_user(data) -> int`` and
    ``to_user(nbytes) -> bytes`` (byte counts, whole elements),
    ``out_linear(n) -> (count, tail)``, ``peek_len()`` (bytes stored),
    ``len``, ``avail``, ``size``, ``is_empty``, ``is_full``, ``reset``,
    ``reset_out``.
    """

    def __init__(self, size: int, itemsize: int, *, start: int = 0) -> None:
        size = operator.index(size)
        itemsize = operator.index(itemsize)
        if size < 2 or itemsize < 1:
            raise ValueError("size must be at least 2 and itemsize at least 1")
        self._size = 1 << (size - 1).bit_length()
        self._esize = itemsize
        self._slots: List[bytes] = [bytes(itemsize)] * self._size
        self._in = self._out = operator.index(start) & UINT_MAX

    def _len(self) -> int:
        return (self._in - self._out) & UINT_MAX

    def _elems(self, data: bytes) -> List[bytes]:
        k = self._esize
        return [bytes(data[i:i + k]) for i in range(0, len(data) - len(data) % k, k)]

    def _at(self, index: int) -> bytes:
        return self._slots[index & (self._size - 1)]

    @property
    def itemsize(self) -> int:
        return self._esize

    def size(self) -> int:
        return self._size

    def len(self) -> int:
        return self._len()

    def avail(self) -> int:
        return self._size - self._len()

    def is_empty(self) -> bool:
        return self._len() == 0

    def is_full(self) -> bool:
        return self._len() == self._size

    def peek_len(self) -> int:
        return self._len() * self._esize

    def in_(self, data: Any) -> int:
        elems = self._elems(bytes(_readable(data)))[:self.avail()]
        for e in elems:
            self._slots[self._in & (self._size - 1)] = e
            self._in = (self._in + 1) & UINT_MAX
        return len(elems)

    def put(self, elem: bytes) -> int:
        return self.in_(elem)

    def out_peek(self, n: int) -> bytes:
        n = min(operator.index(n), self._len())
        return b"".join(self._at(self._out + i) for i in range(n))

    def out(self, n: int) -> bytes:
        data = self.out_peek(n)
        self._out = (self._out + len(data) // self._esize) & UINT_MAX
        return data

    def get(self) -> Any:
        return self.out(1) or None

    def peek(self) -> Any:
        return self.out_peek(1) or None

    def skip_count(self, n: int) -> None:
        self._out = (self._out + min(operator.index(n), self._len())) & UINT_MAX

    def skip(self) -> None:
        self.skip_count(1)

    def from_user(self, data: Any) -> int:
        return self.in_(data) * self._esize

    def to_user(self, nbytes: int) -> bytes:
        return self.out(operator.index(nbytes) // self._esize)

    def out_linear(self, n: int) -> Tuple[int, int]:
        tail = self._out & (self._size - 1)
        return min(operator.index(n), self._len(), self._size - tail), tail

    def reset(self) -> None:
        self._in = self._out = 0

    def reset_out(self) -> None:
        self._out = self._in


class TypedRecordKfifoModel:
    """Reference model of a record fifo of the C typed API (``STRUCT_KFIFO_REC_1``/``_2``).

    The bytes are :class:`KfifoModel`'s records (docs/spec.md 1.4 wire
    format, a record too long for its header refused); what differs is
    what the typed calls return, as in mainline: ``in_(data)`` returns
    ``len(data)`` or 0; ``out(n)``/``out_peek(n)`` return at most ``n``
    bytes of the next record and ``out`` removes the whole record however
    long (``b""`` when no whole record is stored); ``avail`` is the
    longest record that fits now; ``peek_len`` the next record's length;
    ``len`` counts bytes, headers included; ``skip`` is
    :meth:`KfifoModel.skip_rec`; ``put``/``get``/``peek`` move one-byte
    records (``get``/``peek`` return ``None`` for nothing copied);
    ``out_linear(n)`` is ``(count, tail)`` of the next record's data, or
    ``(0, None)`` without a whole record.
    """

    def __init__(self, size: int, recsize: int, *, start: int = 0) -> None:
        size = operator.index(size)
        if size < 2 or recsize not in (1, 2):
            raise ValueError("size must be at least 2 and recsize 1 or 2")
        self._fifo = KfifoModel(size, start=start)
        self._recsize = recsize

    def _next(self) -> int:
        """The next record's length, or -1 without a whole record."""
        f, r = self._fifo, self._recsize
        if f.len() < r:
            return -1
        length = f.peek_rec(r)
        return length if f.len() - r >= length else -1

    def size(self) -> int:
        return self._fifo.size()

    def len(self) -> int:
        return self._fifo.len()

    def is_empty(self) -> bool:
        return self._fifo.is_empty()

    def is_full(self) -> bool:
        return self._fifo.is_full()

    def avail(self) -> int:
        return max(0, min(self._fifo.avail() - self._recsize, _RECORD_LIMIT[self._recsize]))

    def peek_len(self) -> int:
        return self._fifo.peek_rec(self._recsize)

    def in_(self, data: Any) -> int:
        data = bytes(_readable(data))
        return len(data) if self._fifo.in_rec(data, self._recsize) == 0 else 0

    def put(self, byte: bytes) -> int:
        return self.in_(byte)

    def out_peek(self, n: int) -> bytes:
        length = self._next()
        if length < 0:
            return b""
        first, second = self._fifo.out_prepare(self._recsize + min(operator.index(n), length))
        return (bytes(first) + bytes(second))[self._recsize:]

    def out(self, n: int) -> bytes:
        data = self.out_peek(n)
        length = self._next()
        if length >= 0:
            self._fifo.skip(self._recsize + length)
        return data

    def get(self) -> Any:
        return self.out(1) or None

    def peek(self) -> Any:
        return self.out_peek(1) or None

    def skip(self) -> None:
        self._fifo.skip_rec(self._recsize)

    def from_user(self, data: Any) -> int:
        return self.in_(data)

    def to_user(self, nbytes: int) -> bytes:
        return self.out(nbytes)

    def out_linear(self, n: int) -> Tuple[int, Any]:
        length = self._next()
        if length < 0:
            return 0, None
        size = self._fifo.size()
        tail = (self._fifo.out_index + self._recsize) & (size - 1)
        return min(operator.index(n), length, size - tail), tail

    def reset(self) -> None:
        self._fifo.reset()

    def reset_out(self) -> None:
        self._fifo.reset_out()


__all__ += ["ElementKfifoModel", "TypedRecordKfifoModel"]


# ----------------------------------------------------------------------
# Rings that are not kfifo-sized (docs/testing-your-fifo.rst, "Capacity")
# ----------------------------------------------------------------------
def _pow2(size: int) -> int:
    return 1 << (size - 1).bit_length()


#: The capacity models: how many bytes a ring made for ``size`` holds.
#: ``pow2`` is kfifo's (and ``round-up`` another name for it); ``pow2-1``
#: keeps one slot of a power-of-two buffer free (JACK, ck_ring, DPDK's
#: rte_ring without RING_F_EXACT_SZ); ``exact`` holds ``size`` (Boost
#: ``spsc_queue(size)``, a ring of ``size + 1`` slots); ``size-1`` keeps one
#: of ``size`` slots free (the textbook ring).
CAPACITIES: "dict[str, Callable[[int], int]]" = {
    "pow2": _pow2,
    "round-up": _pow2,
    "pow2-1": lambda size: _pow2(size) - 1,
    "exact": lambda size: size,
    "size-1": lambda size: size - 1,
}

Capacity = Union[str, Callable[[int], int]]


def capacity_of(capacity: Capacity, size: int) -> int:
    """The bytes a ring made for ``size`` holds under the model ``capacity``
    (a name of :data:`CAPACITIES` or a callable ``size -> capacity``)."""
    if callable(capacity):
        value = capacity(size)
    elif capacity in CAPACITIES:
        value = CAPACITIES[capacity](size)
    else:
        raise ValueError(f"capacity must be one of {sorted(CAPACITIES)} or a callable size -> capacity; "
                         f"got {capacity!r}")
    try:
        value = operator.index(value)
    except TypeError:
        raise TypeError(f"capacity({size}) returned {value!r}, not an int") from None
    return value


class RingModel(KfifoModel):
    """:class:`KfifoModel` for a ring that holds ``capacity`` bytes, not the
    power of two kfifo rounds ``size`` up to, and that can peek bytes.

    A FIFO's answers depend on how many bytes it holds, never on where in
    its buffer it keeps them, so the model keeps kfifo's power-of-two buffer
    (large enough for the capacity) and its free-running 32-bit indices,
    and stops at ``capacity``: ``avail`` is ``capacity - len``, ``is_full``
    is ``len == capacity``, and ``size()`` answers the capacity.

    Parameters
    ----------
    size : int
        The size the ring is made with.
    start : int, optional
        As for :class:`KfifoModel`.
    capacity : str or callable
        A name of :data:`CAPACITIES` or ``size -> capacity``; ``ValueError``
        if the capacity is below 1 or above the buffer kfifo would make.
    """

    def __init__(self, size: int, *, start: int = 0, capacity: Capacity = "pow2") -> None:
        cap = capacity_of(capacity, operator.index(size))
        super().__init__(max(cap, 1), start=start)
        if cap < 1 or cap > MAX_SIZE:
            raise ValueError(f"a ring of size {size} holds {cap} bytes under capacity {capacity!r}; "
                             f"it must hold 1 to 2**31")
        self._capacity = cap

    def _avail(self) -> int:
        return self._capacity - self._len()

    @property
    def buffer_size(self) -> int:
        """The power-of-two buffer the model keeps the bytes in."""
        return self._size

    def size(self) -> int:
        """The capacity: the most bytes the ring holds."""
        self._check()
        return self._capacity

    def peek(self, n: int) -> bytes:
        """Up to ``n`` bytes from the front, without removing them."""
        self._check()
        n = _count(n, "n")
        return self._get(self._out, min(n, self._len()))
