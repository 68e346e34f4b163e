# SPDX-License-Identifier: MIT
"""The reference model, checked against results worked out by hand from docs/spec.md.

The state machine trusts :class:`kfifo.model.KfifoModel`; this table is what
keeps the model honest, so that the model and the C core cannot agree on
the same mistake unnoticed.  Every expected value below was derived from
the text of docs/spec.md (section in the scenario's name), not by running code.

The same table runs against :class:`kfifo.Kfifo` when the extension is
installed.
"""
from __future__ import annotations

import array

import pytest

from kfifo.model import UINT_MAX, KfifoModel

from kfifo import Kfifo

IMPLEMENTATIONS = [
    pytest.param(KfifoModel, id="model"),
    pytest.param(Kfifo, id="Kfifo"),
]

P300 = bytes(i % 251 for i in range(300))

# (name, size, start, steps); a step is (method, args, expected) where
# expected is a value, or an exception class the call must raise.
SCENARIOS = [
    ("1.3 size rounds up, empty fifo", 5, 0, [
        ("size", (), 8), ("len", (), 0), ("avail", (), 8), ("is_empty", (), True), ("is_full", (), False),
        ("out", (4,), b""),
    ]),
    ("1.3 in_ stores min(n, avail), out takes min(n, len)", 4, 0, [
        ("in_", (b"abcdef",), 4), ("is_full", (), True), ("avail", (), 0), ("in_", (b"z",), 0),
        ("out", (2,), b"ab"), ("in_", (b"xy",), 2), ("len", (), 4),
        ("out", (10,), b"cdxy"), ("is_empty", (), True),
    ]),
    ("1.3 from_user/to_user are in_/out", 8, 0, [
        ("from_user", (bytearray(b"hello"),), 5), ("to_user", (3,), b"hel"), ("to_user", (0,), b""),
        ("len", (), 2),
    ]),
    ("2.1 any bytes-like input", 16, 0, [
        ("in_", (memoryview(b"ab"),), 2), ("in_", (array.array("B", b"cd"),), 2),
        ("in_", (bytearray(b"e"),), 1), ("out", (16,), b"abcde"),
    ]),
    ("1.1 indices wrap at 2**32", 4, UINT_MAX - 1, [
        ("in_", (b"abc",), 3), ("out", (2,), b"ab"), ("in_", (b"defg",), 3), ("len", (), 4),
        ("is_full", (), True), ("out", (4,), b"cdef"), ("is_empty", (), True),
    ]),
    ("1.3 start mod 2**32", 2, 2 ** 32 + 7, [("in_", (b"ab",), 2), ("len", (), 2)]),
    ("1.3 skip drops n bytes; n >= len empties", 8, 0, [
        ("in_", (b"abcdef",), 6), ("skip", (2,), None), ("out", (1,), b"c"),
        ("skip", (3,), None), ("is_empty", (), True), ("in_", (b"xy",), 2), ("skip", (UINT_MAX,), None),
        ("len", (), 0),
    ]),
    ("1.3 reset and reset_out empty the fifo", 8, UINT_MAX, [
        ("in_", (b"abc",), 3), ("reset_out", (), None), ("len", (), 0), ("in_", (b"de",), 2),
        ("reset", (), None), ("is_empty", (), True), ("in_", (b"fg",), 2), ("out", (5,), b"fg"),
    ]),
    ("1.4 recsize 1: header byte n then data", 8, 0, [
        ("in_rec", (b"abc", 1), 0), ("len", (), 4), ("peek_rec", (1,), 3), ("out", (4,), b"\x03abc"),
    ]),
    ("1.4 recsize 2: little-endian header", 512, 0, [
        ("in_rec", (P300, 2), 0), ("len", (), 302), ("peek_rec", (2,), 300), ("out", (2,), b"\x2c\x01"),
    ]),
    ("1.4 recsize 2 header split across the buffer end", 8, 0, [
        ("in_", (b"1234567",), 7), ("skip", (7,), None), ("in_rec", (b"abc", 2), 0),
        ("peek_rec", (2,), 3), ("out_rec", (3, 2), (0, b"abc", 3)), ("is_empty", (), True),
    ]),
    ("1.4 recsize 0: a fixed-size record of n bytes", 8, 0, [
        ("in_rec", (b"abc", 0), 0), ("len", (), 3), ("in_rec", (b"123456", 0), 7), ("len", (), 3),
        ("out_rec", (5, 0), (5, b"", 5)), ("out_rec", (2, 0), (0, b"ab", 2)),
        ("out_rec", (0, 0), (0, b"", 0)), ("peek_rec", (0,), 1),
    ]),
    ("1.4 zero-length records", 4, 0, [
        ("in_rec", (b"", 1), 0), ("len", (), 1), ("peek_rec", (1,), 0),
        ("out_rec", (0, 1), (0, b"", 0)), ("is_empty", (), True), ("in_rec", (b"", 0), 0), ("len", (), 0),
    ]),
    ("1.4 in_rec all or nothing: n + recsize > avail returns n + 1", 8, 0, [
        ("in_rec", (b"1234567", 1), 0), ("is_full", (), True), ("reset", (), None),
        ("in_rec", (b"12345678", 1), 9), ("in_rec", (b"1234567", 2), 8), ("is_empty", (), True),
        ("in_rec", (b"12345678", 0), 0), ("in_rec", (b"", 1), 1),
    ]),
    ("1.7 bug 4: too long for the header is refused", 512, 0, [
        ("in_rec", (bytes(256), 1), 257), ("is_empty", (), True), ("in_rec", (bytes(255), 1), 0),
        ("peek_rec", (1,), 255), ("len", (), 256),
    ]),
    ("1.4 out_rec: L > n returns L, keeps the record", 16, 0, [
        ("in_rec", (b"hello", 1), 0), ("out_rec", (4, 1), (5, b"", 5)), ("len", (), 6),
        ("to_user_rec", (5, 1), (0, b"hello", 5)), ("is_empty", (), True),
    ]),
    ("1.7 bug 2: out_rec copies exactly L bytes", 16, 0, [
        ("in_rec", (b"ab", 1), 0), ("in_rec", (b"cde", 1), 0), ("out_rec", (10, 1), (0, b"ab", 2)),
        ("out_rec", (10, 1), (0, b"cde", 3)), ("out_rec", (10, 1), (10, b"", 0)),
    ]),
    ("1.4 out_rec: fewer than recsize + L bytes returns n", 16, 0, [
        ("in_", (b"\x05ab",), 3), ("out_rec", (10, 1), (10, b"", 5)), ("len", (), 3),
        ("peek_rec", (1,), 5), ("out_rec", (2, 1), (5, b"", 5)),
    ]),
    ("1.7 bug 5: empty fifo has no header", 4, 0, [
        ("in_", (b"\x07\x07",), 2), ("out", (2,), b"\x07\x07"), ("peek_rec", (1,), 0), ("peek_rec", (2,), 0),
        ("out_rec", (3, 1), (3, b"", 0)), ("out_rec", (9, 2), (9, b"", 0)), ("to_user_rec", (0, 1), (0, b"", 0)),
    ]),
    ("1.4 fewer than recsize bytes: no header", 4, 0, [
        ("in_", (b"\x09",), 1), ("peek_rec", (2,), 0), ("out_rec", (5, 2), (5, b"", 0)), ("len", (), 1),
    ]),
    ("1.7 bug 3: peek_rec(0) is len, not avail", 8, 0, [
        ("peek_rec", (0,), 0), ("in_", (b"abc",), 3), ("peek_rec", (0,), 3),
    ]),
    ("1.4 skip_rec: one record, or empties", 16, 0, [
        ("in_rec", (b"ab", 1), 0), ("in_rec", (b"cde", 1), 0), ("skip_rec", (1,), None), ("len", (), 4),
        ("peek_rec", (1,), 3), ("skip_rec", (0,), None), ("is_empty", (), True),
        ("in_", (b"\x09ab",), 3), ("skip_rec", (1,), None), ("is_empty", (), True), ("skip_rec", (2,), None),
    ]),
    ("2.1 bad arguments raise and change nothing", 8, 0, [
        ("in_", (b"abc",), 3),
        ("in_", ("text",), TypeError), ("in_", (3,), TypeError), ("out", (1.0,), TypeError),
        ("out", (-1,), ValueError), ("out", (2 ** 32,), OverflowError), ("skip", (-1,), ValueError),
        ("skip", (2 ** 32,), OverflowError), ("in_rec", (b"x", 3), ValueError), ("in_rec", (b"x", -1), ValueError),
        ("out_rec", (4, 3), ValueError), ("out_rec", (-1, 1), ValueError),
        ("out_rec", (2 ** 32, 1), OverflowError), ("peek_rec", (3,), ValueError), ("skip_rec", (7,), ValueError),
        ("from_user_rec", (b"x", 5), ValueError), ("to_user_rec", (1, 9), ValueError),
        ("len", (), 3), ("out", (8,), b"abc"),
    ]),
]


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize("name,size,start,steps", SCENARIOS, ids=[s[0] for s in SCENARIOS])
def test_table(impl, name, size, start, steps):
    fifo = impl(size, start=start)
    for i, (method, args, expected) in enumerate(steps):
        where = f"step {i}: {method}{args!r}"
        if isinstance(expected, type) and issubclass(expected, Exception):
            with pytest.raises(expected):
                getattr(fifo, method)(*args)
            continue
        got = getattr(fifo, method)(*args)
        if isinstance(expected, tuple):
            got = tuple(got)
        assert got == expected, where
        assert type(got) is type(expected), where


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize("size", [0, 2 ** 31 + 1, -1])
def test_constructor_refuses_bad_sizes(impl, size):
    with pytest.raises(ValueError):
        impl(size)


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize("size,rounded", [(1, 1), (2, 2), (3, 4), (1000, 1024), (4096, 4096)])
def test_size_rounds_up_to_a_power_of_two(impl, size, rounded):
    assert impl(size).size() == rounded


def test_model_start_sets_both_indices_modulo_2_32():
    fifo = KfifoModel(4, start=-1)
    assert fifo.in_index == fifo.out_index == UINT_MAX
    fifo.in_(b"ab")
    assert (fifo.in_index, fifo.out_index) == (1, UINT_MAX)
    fifo.reset()
    assert fifo.in_index == fifo.out_index == 0


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_out_into_fills_like_readinto_and_leaves_the_rest(impl):
    fifo = impl(8)
    fifo.in_(b"abc")
    buf = bytearray(b"\xee" * 5)
    assert fifo.out_into(buf) == 3
    assert buf == b"abc\xee\xee"
    assert fifo.out_into(memoryview(buf)) == 0
    with pytest.raises(TypeError):
        fifo.out_into(b"read-only")


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_free_makes_every_call_raise_value_error(impl):
    fifo = impl(8)
    fifo.in_(b"abc")
    fifo.free()
    for method, args in [("len", ()), ("in_", (b"x",)), ("out", (1,)), ("out_rec", (1, 1)),
                         ("peek_rec", (0,)), ("skip", (1,)), ("reset", ()), ("size", ())]:
        with pytest.raises(ValueError):
            getattr(fifo, method)(*args)
    with pytest.raises(ValueError):
        len(fifo)


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_context_manager_frees(impl):
    with impl(8) as fifo:
        assert fifo.in_(b"ab") == 2
    with pytest.raises(ValueError):
        fifo.len()


def test_model_second_free_is_harmless():
    fifo = KfifoModel(8)
    fifo.free()
    fifo.free()
    assert "freed" in repr(fifo)


def test_model_repr_shows_size_and_fill():
    fifo = KfifoModel(8, start=5)
    fifo.in_(b"abc")
    assert repr(fifo) == "<KfifoModel size=8 len=3 in=8 out=5>"
