# SPDX-License-Identifier: MIT
"""The kernel's typed API against its model: C, Python and the model agree.

``c/tests/typed_shim.c`` puts the C typed macros (``kfifo_in``,
``kfifo_put``, ``kfifo_skip``, ... on ``DECLARE_KFIFO_PTR`` fifos of
element size 1, 2, 4, 8 and 12) behind plain functions; it is compiled here
with the library's sources into a shared library and driven through
ctypes.  A Hypothesis state machine runs random calls on it, on
:class:`kfifo.elements.ElementKfifo` (the Python face, over the byte
``Kfifo``) and on :class:`kfifo.model.ElementKfifoModel` side by side and
checks every result, every element and the counts after each step; a
second machine does the same for record fifos (``struct kfifo_rec_ptr_1``,
``_2``) against :class:`kfifo.model.TypedRecordKfifoModel`.
"""
from __future__ import annotations

import ctypes
import os
import pathlib
import shutil
import struct
import subprocess
import tempfile
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

import kfifo
from kfifo.elements import ElementKfifo
from kfifo.model import ElementKfifoModel, TypedRecordKfifoModel

ROOT = pathlib.Path(__file__).resolve().parent.parent
CC = os.environ.get("CC", "cc")

if shutil.which(CC) is None:  # pragma: no cover
    pytest.fail("the typed API tests need a C compiler (cc or $CC)", pytrace=False)


def _build_shim() -> ctypes.CDLL:
    out = pathlib.Path(tempfile.mkdtemp(prefix="kfifo-typed-")) / "libtyped_shim.so"
    sources = [str(ROOT / "c" / "tests" / "typed_shim.c")] + sorted(str(p) for p in (ROOT / "c" / "src").glob("*.c"))
    subprocess.run([CC, "-std=gnu11", "-O1", "-g", "-fPIC", "-shared", "-I", str(ROOT / "c" / "include"),
                    "-I", str(ROOT / "c" / "src"), *sources, "-lpthread", "-o", str(out)],
                   check=True, capture_output=True, text=True)
    lib = ctypes.CDLL(str(out))
    u, p, i = ctypes.c_uint, ctypes.c_void_p, ctypes.c_int
    sigs = {
        "shim_new": ([u, u, u], p), "shim_free": ([p], None),
        "shim_in": ([p, p, u], u), "shim_out": ([p, p, u], u), "shim_out_peek": ([p, p, u], u),
        "shim_put": ([p, p], u), "shim_get": ([p, p], u), "shim_peek": ([p, p], u),
        "shim_skip": ([p], None), "shim_skip_count": ([p, u], None),
        "shim_len": ([p], u), "shim_avail": ([p], u), "shim_size": ([p], u), "shim_esize": ([p], u),
        "shim_is_empty": ([p], i), "shim_is_full": ([p], i), "shim_peek_len": ([p], u),
        "shim_reset": ([p], None), "shim_reset_out": ([p], None),
        "shim_out_linear": ([p, ctypes.POINTER(u), u], u),
        "shim_to_user": ([p, p, u], u), "shim_from_user": ([p, p, u], u), "shim_valid": ([p], i),
    }
    for name, (args, res) in sigs.items():
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = args, res
    return lib


LIB = _build_shim()


class CTyped:
    """The C typed API through the shim, with the model's calling convention."""

    def __init__(self, size: int, itemsize: int, start: int, recsize: int = 0) -> None:
        self.esize = itemsize
        self.h = LIB.shim_new(100 + recsize if recsize else itemsize, size, start)
        assert self.h, "shim_new failed"

    def _buf(self, nbytes: int):
        return ctypes.create_string_buffer(b"\xee" * max(nbytes, 1), max(nbytes, 1))

    def in_(self, data: bytes) -> int:
        return LIB.shim_in(self.h, data, len(data) // self.esize)

    def put(self, elem: bytes) -> int:
        return LIB.shim_put(self.h, elem)

    def out(self, n: int) -> bytes:
        b = self._buf(n * self.esize)
        k = LIB.shim_out(self.h, b, n)
        return b.raw[:k * self.esize]

    def out_peek(self, n: int) -> bytes:
        b = self._buf(n * self.esize)
        k = LIB.shim_out_peek(self.h, b, n)
        return b.raw[:k * self.esize]

    def get(self):
        b = self._buf(self.esize)
        return b.raw[:self.esize] if LIB.shim_get(self.h, b) else None

    def peek(self):
        b = self._buf(self.esize)
        return b.raw[:self.esize] if LIB.shim_peek(self.h, b) else None

    def skip(self) -> None:
        LIB.shim_skip(self.h)

    def skip_count(self, n: int) -> None:
        LIB.shim_skip_count(self.h, n)

    def from_user(self, data: bytes) -> int:
        return LIB.shim_from_user(self.h, data, len(data))

    def to_user(self, nbytes: int) -> bytes:
        b = self._buf(nbytes)
        k = LIB.shim_to_user(self.h, b, nbytes)
        return b.raw[:k]

    def out_linear(self, n: int):
        tail = ctypes.c_uint(0xDEAD)
        k = LIB.shim_out_linear(self.h, ctypes.byref(tail), n)
        return k, tail.value

    def reset(self) -> None:
        LIB.shim_reset(self.h)

    def reset_out(self) -> None:
        LIB.shim_reset_out(self.h)

    def len(self) -> int:
        return LIB.shim_len(self.h)

    def avail(self) -> int:
        return LIB.shim_avail(self.h)

    def size(self) -> int:
        return LIB.shim_size(self.h)

    def is_empty(self) -> bool:
        return bool(LIB.shim_is_empty(self.h))

    def is_full(self) -> bool:
        return bool(LIB.shim_is_full(self.h))

    def peek_len(self) -> int:
        return LIB.shim_peek_len(self.h)

    def free(self) -> None:
        LIB.shim_free(self.h)
        self.h = None


ITEMSIZES = [1, 2, 4, 8, 12]


class TypedMachine(RuleBasedStateMachine):
    """Random typed-API calls on C, the Python face and the model at once."""

    def __init__(self) -> None:
        super().__init__()
        self.c = None
        self.py = None
        self.counter = 0

    @initialize(itemsize=st.sampled_from(ITEMSIZES), size=st.integers(2, 40),
                start=st.sampled_from([0, 5, 2**32 - 3, 2**32 - 40]))
    def setup(self, itemsize, size, start):
        self.esize = itemsize
        self.model = ElementKfifoModel(size, itemsize, start=start)
        self.c = CTyped(size, itemsize, start)
        self.py = ElementKfifo(size, itemsize)

    def teardown(self) -> None:
        if self.c is not None:
            self.c.free()
            self.py.free()

    def _data(self, k: int) -> bytes:
        """k elements of distinct content."""
        data = bytes((self.counter + i) * 7 % 251 for i in range(k * self.esize))
        self.counter += k * self.esize
        return data

    def _split(self, data: bytes):
        return [data[i:i + self.esize] for i in range(0, len(data), self.esize)]

    @rule(k=st.integers(0, 45))
    def in_(self, k):
        data = self._data(k)
        want = self.model.in_(data)
        assert self.c.in_(data) == want
        assert self.py.in_(self._split(data)) == want

    @rule()
    def put(self):
        elem = self._data(1)
        want = self.model.put(elem)
        assert self.c.put(elem) == want
        assert self.py.put(elem) == want

    @rule(n=st.integers(0, 45))
    def out(self, n):
        want = self.model.out(n)
        assert self.c.out(n) == want
        assert b"".join(self.py.out(n)) == want

    @rule(n=st.integers(0, 45))
    def out_peek(self, n):
        want = self.model.out_peek(n)
        assert self.c.out_peek(n) == want
        assert b"".join(self.py.out_peek(n)) == want

    @rule()
    def get(self):
        want = self.model.get()
        assert self.c.get() == want
        assert self.py.get() == want

    @rule()
    def peek(self):
        want = self.model.peek()
        assert self.c.peek() == want
        assert self.py.peek() == want

    @rule()
    def skip(self):
        self.model.skip()
        self.c.skip()
        self.py.skip()

    @rule(n=st.integers(0, 45))
    def skip_count(self, n):
        self.model.skip_count(n)
        self.c.skip_count(n)
        self.py.skip_count(n)

    @rule(k=st.integers(0, 20), extra=st.integers(0, 11))
    def from_user(self, k, extra):
        data = self._data(k) + bytes(extra % self.esize)
        want = self.model.from_user(data)
        assert self.c.from_user(data) == want
        assert self.py.in_bytes(data[:len(data) - len(data) % self.esize]) * self.esize == want

    @rule(nbytes=st.integers(0, 300))
    def to_user(self, nbytes):
        want = self.model.to_user(nbytes)
        assert self.c.to_user(nbytes) == want
        assert self.py.out_bytes(nbytes // self.esize) == want

    @rule(n=st.integers(0, 45))
    def out_linear(self, n):
        assert self.c.out_linear(n) == self.model.out_linear(n)

    @rule()
    def reset_out(self):
        self.model.reset_out()
        self.c.reset_out()
        self.py.reset_out()

    @rule()
    def reset(self):
        self.model.reset()
        self.c.reset()
        self.py.reset()

    @invariant()
    def counts_agree(self):
        if self.c is None:
            return
        m = self.model
        for f in (self.c, self.py):
            assert (f.len(), f.avail(), f.size(), f.is_empty(), f.is_full()) == \
                (m.len(), m.avail(), m.size(), m.is_empty(), m.is_full())
        assert self.c.peek_len() == m.peek_len()
        assert LIB.shim_valid(self.c.h)
        assert LIB.shim_esize(self.c.h) == self.esize


TypedMachine.TestCase.settings = settings(deadline=None, stateful_step_count=40)
TestTypedMachine = TypedMachine.TestCase


class TypedRecordMachine(RuleBasedStateMachine):
    """Random typed-API calls on a C record fifo (STRUCT_KFIFO_REC_1/_2
    semantics, through struct kfifo_rec_ptr_1/_2) and on the model."""

    def __init__(self) -> None:
        super().__init__()
        self.c = None
        self.counter = 0

    @initialize(recsize=st.sampled_from([1, 2]), size=st.sampled_from([2, 16, 64, 256, 512]),
                start=st.sampled_from([0, 2**32 - 3, 2**32 - 200]))
    def setup(self, recsize, size, start):
        self.model = TypedRecordKfifoModel(size, recsize, start=start)
        self.c = CTyped(size, 1, start, recsize=recsize)

    def teardown(self) -> None:
        if self.c is not None:
            self.c.free()

    def _data(self, k: int) -> bytes:
        data = bytes((self.counter + i) * 7 % 251 for i in range(k))
        self.counter += k
        return data

    @rule(k=st.one_of(st.integers(0, 20), st.integers(250, 300)))
    def in_(self, k):
        data = self._data(k)
        assert self.c.in_(data) == self.model.in_(data)

    @rule()
    def put(self):
        data = self._data(1)
        assert self.c.put(data) == self.model.put(data)

    @rule(n=st.integers(0, 300))
    def out(self, n):
        assert self.c.out(n) == self.model.out(n)

    @rule(n=st.integers(0, 300))
    def out_peek(self, n):
        assert self.c.out_peek(n) == self.model.out_peek(n)

    @rule()
    def get(self):
        assert self.c.get() == self.model.get()

    @rule()
    def peek(self):
        assert self.c.peek() == self.model.peek()

    @rule()
    def skip(self):
        self.c.skip()
        self.model.skip()

    @rule(k=st.integers(0, 40))
    def from_user(self, k):
        data = self._data(k)
        assert self.c.from_user(data) == self.model.from_user(data)

    @rule(nbytes=st.integers(0, 40))
    def to_user(self, nbytes):
        assert self.c.to_user(nbytes) == self.model.to_user(nbytes)

    @rule(n=st.integers(0, 300))
    def out_linear(self, n):
        k, tail = self.c.out_linear(n)
        want_k, want_tail = self.model.out_linear(n)
        assert k == want_k
        if want_tail is not None:
            assert tail == want_tail

    @rule()
    def reset_out(self):
        self.c.reset_out()
        self.model.reset_out()

    @invariant()
    def counts_agree(self):
        if self.c is None:
            return
        m, c = self.model, self.c
        assert (c.len(), c.avail(), c.size(), c.is_empty(), c.is_full(), c.peek_len()) == \
            (m.len(), m.avail(), m.size(), m.is_empty(), m.is_full(), m.peek_len())
        assert LIB.shim_valid(c.h) and LIB.shim_esize(c.h) == 1


TypedRecordMachine.TestCase.settings = settings(deadline=None, stateful_step_count=40)
TestTypedRecordMachine = TypedRecordMachine.TestCase


def test_shim_sizes_are_elements_rounded_up_to_powers_of_two():
    for esize in ITEMSIZES:
        for n, want in [(2, 2), (3, 4), (5, 8), (33, 64)]:
            c = CTyped(n, esize, 0)
            assert c.size() == want and c.avail() == want
            c.free()
        assert LIB.shim_new(esize, 1, 0) is None  # kfifo_alloc(fifo, 1): -EINVAL
    assert LIB.shim_new(3, 8, 0) is None  # no fifo of 3-byte elements in the shim


@given(st.lists(st.integers(-2**15, 2**15 - 1), max_size=20))
def test_struct_format_items_round_trip(values):
    with ElementKfifo(16, "<h") as f:
        stored = f.in_(values)
        assert stored == min(len(values), 16)
        assert f.out(100) == values[:stored]


def test_format_with_several_fields_gives_tuples_and_counts_elements():
    f = ElementKfifo(3, "<IHB")
    assert (f.itemsize, f.size()) == (struct.calcsize("<IHB"), 4)
    assert f.in_([(1, 2, 3), (4, 5, 6)]) == 2
    assert f.peek() == (1, 2, 3) and f.len() == 2 and f.avail() == 2
    f.skip()
    assert f.get() == (4, 5, 6) and f.get() is None and f.is_empty()
    assert "len=0 size=4" in repr(f)
    f.free()


def test_twelve_byte_elements_fill_exactly_the_element_count():
    f = ElementKfifo(8, 12)
    elems = [bytes([i]) * 12 for i in range(10)]
    assert f.in_(elems) == 8 and f.is_full() and f.put(elems[9]) == 0
    assert f.out(3) == elems[:3]
    assert f.in_(elems[8:]) == 2
    assert f.out(20) == elems[3:10]


def test_bad_arguments_raise_and_change_nothing():
    with pytest.raises(TypeError):
        ElementKfifo(4, 2.5)
    with pytest.raises(ValueError):
        ElementKfifo(1, 4)
    with pytest.raises(ValueError):
        ElementKfifo(4, 0)
    with pytest.raises(ValueError):
        ElementKfifo(2**30, 8)
    with pytest.raises(ValueError, match="bad struct format"):
        ElementKfifo(4, "not a format")
    f = ElementKfifo(4, 4)
    f.put(b"abcd")
    with pytest.raises(ValueError):
        f.put(b"abc")
    with pytest.raises(ValueError):
        f.in_bytes(b"abcdef")
    with pytest.raises(ValueError):
        f.out(-1)
    assert f.len() == 1 and f.get() == b"abcd"
    f.free()
    with pytest.raises(ValueError):
        f.len()


def test_exported_from_the_package():
    assert kfifo.ElementKfifo is ElementKfifo and "ElementKfifo" in kfifo.__all__


def test_close_ends_the_stream_and_keeps_what_is_stored():
    f = ElementKfifo(4, "<i")
    assert f.in_([1, 2]) == 2 and not f.closed
    f.close()
    assert f.closed
    assert f.out(4) == [1, 2]  # the consumer still drains what was stored
    f.free()
    with pytest.raises(ValueError, match="freed"):
        f.close()


def test_leaving_with_closes_then_frees_and_on_an_exception_too():
    calls = []

    class Recorder:
        """The element fifo's byte fifo, recording the order of the calls."""

        def __init__(self, fifo):
            self._fifo = fifo

        def __getattr__(self, name):
            attr = getattr(self._fifo, name)
            if name in ("close", "free"):
                def record(*args):
                    calls.append(name)
                    return attr(*args)
                return record
            return attr

    f = ElementKfifo(4, "<i")
    inner = f._fifo
    f._fifo = Recorder(inner)
    with f as entered:
        assert entered is f and f.put(7) == 1
    assert calls == ["close", "free"] and inner.is_freed()

    calls.clear()
    g = ElementKfifo(4, "<i")
    inner = g._fifo
    g._fifo = Recorder(inner)
    with pytest.raises(KeyError):
        with g:
            raise KeyError("inside")
    assert calls == ["close", "free"] and inner.is_freed()

    calls.clear()
    h = ElementKfifo(4, "<i")
    inner = h._fifo
    h._fifo = Recorder(inner)
    with h:
        h.free()  # freed inside the block: leaving does not close a freed fifo
    assert calls == ["free", "free"] and inner.is_freed()


def _check_of(producer: int, seq: int) -> int:
    return (producer * 40503 + seq * 2654435761) & 0xFFFF


@pytest.mark.parametrize("store", ["put", "in_", "in_bytes"])
def test_producer_threads_store_whole_elements_within_the_size(store):
    """Two producer threads and one consumer thread: every element arrives
    once, whole, in its producer's order, and the fifo never holds more
    than its size.  The elements are longer than ``kfifo.GIL_THRESHOLD``,
    so each store copies without the GIL: a producer that checked the room
    in one call and stored in another was let in between by the other
    producer's copy, stored a third element into the byte fifo (which
    holds 262144 bytes for 2 elements of 70000), then only the part of one
    that fit.  Nothing depends on time."""
    itemsize, per, producers = 70000, 100, 2
    assert itemsize >= kfifo.GIL_THRESHOLD
    f = ElementKfifo(2, itemsize)
    head = struct.Struct("<HHH")
    stop = threading.Event()  # a broken stream ends the test early

    def element(p: int, seq: int) -> bytes:
        return head.pack(p, seq, _check_of(p, seq)).ljust(itemsize, bytes([p + 1]))

    def store_one(data: bytes) -> int:
        if store == "put":
            return f.put(data)
        if store == "in_":
            return f.in_([data])
        return f.in_bytes(data)

    def produce(p: int) -> None:
        for seq in range(per):
            data = element(p, seq)
            while store_one(data) == 0:
                if stop.is_set():
                    return

    threads = [threading.Thread(target=produce, args=(p,)) for p in range(producers)]
    for t in threads:
        t.start()
    last = [-1] * producers
    seen, over, bad = 0, 0, 0
    while bad <= 10:
        if f.len() > f.size():
            over += 1
        data = f.get()
        if data is None:
            if not any(t.is_alive() for t in threads) and f.len() == 0:
                break
            continue
        p, seq, check = head.unpack_from(data)
        if (p >= producers or check != _check_of(p, seq) or seq <= last[p]
                or data != element(p, seq)):
            bad += 1
            continue
        last[p] = seq
        seen += 1
    stop.set()
    for t in threads:
        t.join()
    assert (bad, over) == (0, 0)
    assert seen == producers * per and last == [per - 1] * producers
    assert f._fifo.len() == 0  # no piece of an element left behind
