# SPDX-License-Identifier: MIT
"""Conventions of the blocking calls (docs/conventions.md): a bool is not a
timeout, a put that fails says how much it stored, and timeout is told from
end of stream by the kind of answer, not by a second look."""
import pytest

from kfifo import Kfifo

# (name, call with a given timeout) for every call that takes a timeout
BLOCKING = [
    ("put", lambda f, t: f.put(b"xy", t)),
    ("put", lambda f, t: f.put(b"xy", timeout=t)),
    ("get", lambda f, t: f.get(4, t)),
    ("get", lambda f, t: f.get(4, timeout=t)),
    ("get_into", lambda f, t: f.get_into(bytearray(4), timeout=t)),
    ("get_exactly", lambda f, t: f.get_exactly(2, timeout=t)),
    ("put_rec", lambda f, t: f.put_rec(b"xy", 1, timeout=t)),
    ("get_rec", lambda f, t: f.get_rec(1, timeout=t)),
    ("wait_avail", lambda f, t: f.wait_avail(1, timeout=t)),
    ("wait_len", lambda f, t: f.wait_len(1, timeout=t)),
]


def filled():
    f = Kfifo(16)
    f.in_rec(b"abc", 1)  # 4 bytes: a record for get_rec, bytes for get
    return f


@pytest.mark.parametrize("value", [True, False])
@pytest.mark.parametrize("name,call", BLOCKING)
def test_a_bool_timeout_is_a_type_error_naming_block(name, call, value):
    f = filled()
    with pytest.raises(TypeError) as info:
        call(f, value)
    msg = str(info.value)
    assert "block" in msg and "bool" in msg and f"Kfifo.{name}()" in msg
    assert "timeout=0" in msg
    # nothing changed
    assert len(f) == 4 and not f.closed
    assert f.get_rec(1, timeout=0) == b"abc"


def test_records_takes_no_timeout():
    f = filled()
    with pytest.raises(TypeError):
        f.records(1, timeout=True)
    assert len(f) == 4


@pytest.mark.parametrize("t", [0, 0.0, 0.01, 1 << 70])
def test_numbers_are_still_timeouts(t):
    f = filled()
    assert f.get(16, t) == bytes([3]) + b"abc"


def test_put_timeout_on_a_full_fifo_carries_the_count():
    f = Kfifo(8)
    f.in_(b"abc")
    with pytest.raises(TimeoutError) as info:
        f.put(b"0123456789", timeout=0.01)
    assert info.value.stored == 5 and type(info.value.stored) is int
    assert len(f) == 8
    assert "5 of 10" in str(info.value)  # the message still says it
    assert f.out(8) == b"abc01234"


def test_put_timeout_zero_on_a_full_fifo_stores_nothing():
    f = Kfifo(4)
    f.in_(b"abcd")
    with pytest.raises(TimeoutError) as info:
        f.put(b"xy", 0)
    assert info.value.stored == 0 and len(f) == 4


def test_put_on_a_closed_fifo_carries_the_count():
    f = Kfifo(8)
    f.in_(b"ab")
    f.close()
    with pytest.raises(BrokenPipeError) as info:
        f.put(b"xyz", timeout=0)
    assert info.value.stored == 0
    assert len(f) == 2


def test_put_that_finds_the_fifo_closed_while_waiting_carries_the_count():
    import threading

    f = Kfifo(8)
    t = threading.Timer(0.05, f.close)
    t.start()
    try:
        with pytest.raises(BrokenPipeError) as info:
            f.put(b"0123456789AB", timeout=10)
    finally:
        t.join()
    assert info.value.stored == 8 == len(f)
    assert f.out(8) == b"01234567"


def test_put_rec_timeout_stores_nothing():
    f = Kfifo(8)
    f.in_(b"abcdef")
    with pytest.raises(TimeoutError) as info:
        f.put_rec(b"xyz", 1, timeout=0.01)
    assert info.value.stored == 0 and len(f) == 6


def test_put_rec_closed_stores_nothing():
    f = Kfifo(8)
    f.close()
    with pytest.raises(BrokenPipeError) as info:
        f.put_rec(b"xyz", 1, timeout=0)
    assert info.value.stored == 0 and len(f) == 0


def test_put_rec_stores_the_record_whole():
    f = Kfifo(8)
    assert f.put_rec(b"xyz", 1, timeout=0) is None
    assert len(f) == 4 and f.get_rec(1, timeout=0) == b"xyz"


# ---- timeout and end of stream: one answer each, no second look ----------------


def test_get_timeout_is_an_exception_and_end_of_stream_a_value():
    f = Kfifo(8)
    with pytest.raises(TimeoutError):
        f.get(4, timeout=0)
    with pytest.raises(TimeoutError):
        f.get_into(bytearray(4), timeout=0)
    with pytest.raises(TimeoutError):
        f.get_rec(1, timeout=0)
    with pytest.raises(TimeoutError):
        f.get_exactly(1, timeout=0)
    f.close()
    assert f.get(4, timeout=0) == b""
    assert f.get_into(bytearray(4), timeout=0) == 0
    assert f.get_rec(1, timeout=0) is None
    with pytest.raises(EOFError):
        f.get_exactly(1, timeout=0)


def test_data_left_in_a_closed_fifo_is_still_delivered():
    f = Kfifo(8)
    f.in_(b"ab")
    f.close()
    assert f.get(4, timeout=0) == b"ab"
    assert f.get(4, timeout=0) == b""


@pytest.mark.parametrize("value", [True, False])
def test_the_model_refuses_a_bool_timeout_too(value):
    from kfifo.model import KfifoModel

    m = KfifoModel(8)
    m.in_(b"ab")
    for call in (m.wait_avail, m.wait_len):
        with pytest.raises(TypeError, match="block"):
            call(1, timeout=value)
    assert len(m) == 2 and m.wait_len(2, timeout=0)
