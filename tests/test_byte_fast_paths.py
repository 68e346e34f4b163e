# SPDX-License-Identifier: MIT
"""in_ and out take their common case (the fifo not freed, the side idle, a
copy too small to release the GIL, input that does not overlap the ring)
without the general path; these tests check that both give the same
answers: across the end of the ring at every offset, with more or less
data than asked for, at the sizes where the general path changes its
strategy, and with every kind of input.
"""
import array
import re
from collections import deque

import pytest

import kfifo


def payload(i: int, n: int) -> bytes:
    return bytes((i * 11 + j) & 0xFF for j in range(n))


def test_bytes_across_the_end_of_the_ring_at_every_offset() -> None:
    # a 32-byte ring; lengths 0..40 cycle through every offset, and the
    # model says what in_ stores and out returns when there is too little
    # room or data
    f = kfifo.Kfifo(32)
    model: deque[int] = deque()
    for i in range(900):
        data = payload(i, i % 41)
        stored = f.in_(data)
        assert stored == min(len(data), 32 - len(model))
        model.extend(data[:stored])
        n = (i * 7) % 45
        got = f.out(n)
        assert got == bytes(model.popleft() for _ in range(min(n, len(model))))
        assert len(f) == len(model)
        assert f.valid()


@pytest.mark.parametrize("n", [0, 1, 15, 16, 17, 255, 256, 257, 4096])
def test_out_takes_min_of_n_and_the_fill_level(n: int) -> None:
    f = kfifo.Kfifo(8192)
    data = payload(3, 300)
    assert f.in_(data) == 300
    assert f.out(n) == data[:n]
    assert len(f) == 300 - min(n, 300)
    assert f.out(n) == data[n:][:n]


def test_out_of_an_empty_fifo_is_empty_bytes() -> None:
    f = kfifo.Kfifo(16)
    assert f.out(0) == b"" and f.out(16) == b"" and f.out(1 << 20) == b""
    assert f.in_(b"") == 0
    assert len(f) == 0


def test_at_the_gil_threshold_the_answers_are_the_same() -> None:
    # copies of GIL_THRESHOLD bytes or more take the general path (which
    # releases the GIL); the sizes either side of it give the same answers
    t = kfifo.GIL_THRESHOLD
    f = kfifo.Kfifo(4 * t)
    for n in (t - 1, t, t + 1):
        data = payload(n, n)
        assert f.in_(data) == n
        assert f.out(n - 1) == data[:-1]
        assert f.out(n + 1) == data[-1:]
        assert len(f) == 0


@pytest.mark.parametrize(
    "make", [bytes, bytearray, memoryview, lambda b: array.array("B", b)],
    ids=["bytes", "bytearray", "memoryview", "array"])
def test_every_bytes_like_input_stores_the_same(make) -> None:
    f = kfifo.Kfifo(16)
    assert f.in_(make(payload(1, 10))) == 10
    assert f.in_(make(payload(2, 10))) == 6
    assert f.out(16) == payload(1, 10) + payload(2, 6)


def test_small_input_overlapping_the_ring_is_stored_as_it_was() -> None:
    ring = bytearray(64)
    f = kfifo.Kfifo(buffer=ring)
    assert f.in_(payload(5, 40)) == 40
    assert f.out(8) == payload(5, 8)
    before = bytes(ring[8:24])
    # ring[8:24] is read while ring[40:56] is written: no overlap of the
    # copy itself, but the input lies in the ring
    assert f.in_(memoryview(ring)[8:24]) == 16
    assert f.out(32) == payload(5, 40)[8:40]
    assert f.out(16) == before


def test_freed_fifo_raises_and_an_idle_fifo_still_works() -> None:
    f = kfifo.Kfifo(16)
    g = kfifo.Kfifo(16)
    f.free()
    with pytest.raises(ValueError, match=r"Kfifo\.in_\(\): operation on a freed Kfifo"):
        f.in_(b"abc")
    with pytest.raises(ValueError, match=r"Kfifo\.out\(\): operation on a freed Kfifo"):
        f.out(1)
    assert g.in_(b"abc") == 3 and g.out(3) == b"abc"


@pytest.mark.parametrize("call, given", [
    (lambda f: f.in_(), 0), (lambda f: f.in_(b"a", b"b"), 2),
    (lambda f: f.out(), 0), (lambda f: f.out(1, 2), 2),
    (lambda f: kfifo.Kfifo.in_(f), 0)])
def test_arity_errors_are_cpython_s_own(call, given: int) -> None:
    # in_ and out are METH_O methods: CPython counts their arguments and
    # names them the way it names any method
    f = kfifo.Kfifo(16)
    with pytest.raises(TypeError, match=re.escape(f"() takes exactly one argument ({given} given)")):
        call(f)
    with pytest.raises(TypeError, match="takes no keyword arguments"):
        f.in_(data=b"a")
    with pytest.raises(TypeError, match="takes no keyword arguments"):
        f.out(n=1)
    assert len(f) == 0
