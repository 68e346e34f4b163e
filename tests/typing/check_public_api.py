# SPDX-License-Identifier: MIT
"""The public API as users write it, for the type checkers.

scripts/check-types.sh runs ``mypy --strict`` and basedpyright (strict) on
this file for every supported Python version: it must type-check cleanly,
and each ``assert_type`` pins what a checker infers.  It also runs (pytest
collects ``test_the_typing_checks_run``), so every line here is real use.
"""
from __future__ import annotations

import array
import unittest
from typing import Iterator, List, Literal, Optional, Tuple

import numpy as np
from typing_extensions import assert_type

import kfifo
from kfifo.model import KfifoModel
from kfifo.testing import make_state_machine


def byte_stream(f: kfifo.Kfifo) -> None:
    assert_type(f.in_(b"abc"), int)
    assert_type(f.in_(bytearray(b"abc")), int)
    assert_type(f.in_(memoryview(b"abc")), int)
    assert_type(f.in_(array.array("i", [1, 2])), int)
    assert_type(f.out(3), bytes)
    assert_type(f.out_into(bytearray(8)), int)
    assert_type(f.len(), int)
    assert_type(len(f), int)
    assert_type(f.is_empty(), bool)
    f.skip(1)
    f.reset_out()
    f.reset()


def numpy_arrays(f: kfifo.Kfifo) -> None:
    # numpy arrays are bytes-like inputs on every supported Python
    # (numpy's stubs give ndarray.__buffer__ only from 3.12)
    samples = np.arange(16, dtype=np.int16)
    assert_type(f.in_(samples), int)
    f.put(samples, timeout=1.0)
    out = np.empty(16, dtype=np.int16)
    assert_type(f.get_into(out, timeout=1.0), int)
    assert_type(f.out_into(out), int)
    f.put_rec(np.zeros(4, dtype=np.uint8), 1)
    shared = kfifo.Kfifo(buffer=np.zeros(64, dtype=np.uint8))
    shared.free()


def records(f: kfifo.Kfifo, recsize: Literal[1, 2]) -> Optional[bytes]:
    # recsize held in a variable: typed as the literals it may be (an int
    # that may be anything is refused: tests/typing/fail_cases.py)
    assert_type(f.in_rec(b"ping", recsize), int)
    ret, data, total = f.out_rec(64, recsize)
    assert_type(ret, int)
    assert_type(data, bytes)
    assert_type(total, int)
    assert_type(f.peek_rec(recsize), int)
    f.skip_rec(recsize)
    # many records per call: any iterable of bytes-like objects in, a list out
    assert_type(f.put_recs([b"a", bytearray(b"b"), np.zeros(2, dtype=np.uint8)], recsize, timeout=1.0), int)
    assert_type(f.get_recs(3, recsize, timeout=0), List[bytes])
    f.put_rec(b"pong", recsize, timeout=None)
    f.close()  # records() ends at the end of the stream
    got: List[bytes] = list(f.records(recsize))
    assert got == [b"pong"]
    return f.get_rec(recsize, timeout=0.5)  # None: closed and empty


def blocking(f: kfifo.Kfifo) -> Tuple[bytes, bytes, bool]:
    f.put(b"data", timeout=None)
    first = f.get(4, timeout=1)
    exactly = f.get_exactly(0)
    waited = f.wait_avail(1, timeout=0) or f.wait_len(1, timeout=0.1)
    f.close()
    assert_type(f.closed, bool)
    return first, exactly, waited


def zero_copy(f: kfifo.Kfifo) -> int:
    first, second = f.in_prepare(8)
    assert_type(first, memoryview)
    first[:2] = b"ok"
    np.frombuffer(second, dtype=np.uint8)
    del first, second
    published = f.in_finish(2)
    views = f.out_prepare(2)
    del views
    return published + f.out_finish(2)


def locked(f: kfifo.Kfifo) -> bytes:
    lock = kfifo.SpinLock()
    assert_type(lock.locked(), bool)
    f.in_locked(b"x", lock)
    return f.out_locked(1, lock)


def lifetime() -> Optional[str]:
    with kfifo.Kfifo(16, start=2**32 - 4) as f:
        assert_type(f, kfifo.Kfifo)
        byte_stream(f)
    assert f.is_freed()
    g = kfifo.Kfifo(64, shared=True)
    name = g.name
    if name is not None:
        h = kfifo.Kfifo.attach(name)
        assert_type(h, kfifo.Kfifo)
        h.free()
    g.free()
    return name


def notifier(f: kfifo.Kfifo) -> bytes:
    """The no-lost-wake recipe with selectors."""
    import selectors

    with selectors.DefaultSelector() as sel, f.notifier("data") as n:
        assert_type(n, kfifo.Notifier)
        sel.register(n.fileno(), selectors.EVENT_READ)
        f.in_(b"ready")
        while not (data := f.out(16)):
            sel.select(1.0)
            n.clear()
    assert n.closed and not n.armed
    room = f.notifier("room")
    assert room.direction == "room"
    room.close()
    return data


def model_and_versions() -> str:
    m = KfifoModel(8)
    assert_type(m.in_(b"abc"), int)
    assert isinstance(kfifo.GIL_THRESHOLD, int)
    return kfifo.__version__


class MyFifo:
    """A user's own fifo, tested with kfifo.testing."""

    def __init__(self, size: int, *, start: int = 0) -> None:
        self._fifo = kfifo.Kfifo(size, start=start)

    def in_(self, data: bytes) -> int:
        return self._fifo.in_(data)

    def out(self, n: int) -> bytes:
        return self._fifo.out(n)


# make_state_machine(...).TestCase is a unittest test class
TestMyFifo: type[unittest.TestCase] = make_state_machine(MyFifo).TestCase


def run_everything() -> Iterator[object]:
    """Every function above on real fifos (for the pytest run)."""
    f = kfifo.Kfifo(256)
    numpy_arrays(f)
    f.reset()
    sizes: Tuple[Literal[1], Literal[2]] = (1, 2)
    for recsize in sizes:
        yield records(f, recsize)
        f.reset()  # reopens the fifo
    yield blocking(kfifo.Kfifo(16))
    yield zero_copy(kfifo.Kfifo(16))
    yield locked(kfifo.Kfifo(16))
    yield lifetime()
    yield notifier(kfifo.Kfifo(16))
    yield model_and_versions()
