# SPDX-License-Identifier: MIT
"""Records many at a time (put_recs, get_recs, records() one at a time) and the
direct record path (docs/spec.md 3.4): each record whole, in order, end of
stream and timeouts as for one record, bad arguments change nothing."""
import array
import gc
import threading
import time
import weakref

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kfifo import Kfifo
from kfifo.model import KfifoModel

U32 = 2**32


def state(f):
    """What a refused call must leave as it was."""
    return f.len(), bytes(f.out_prepare(f.len())[0]) + bytes(f.out_prepare(f.len())[1]), f.closed


# ---- put_recs -------------------------------------------------------------------


def test_put_recs_stores_each_record_whole_in_order_and_returns_the_count():
    f = Kfifo(64)
    assert f.put_recs([b"one", b"", b"three"], 1) == 3
    assert [f.get_rec(1) for _ in range(3)] == [b"one", b"", b"three"]
    assert f.is_empty()


@pytest.mark.parametrize("make", [list, tuple, iter, lambda xs: (x for x in xs)],
                         ids=["list", "tuple", "iterator", "generator"])
def test_put_recs_takes_any_iterable(make):
    f = Kfifo(64)
    assert f.put_recs(make([b"a", b"bb"]), 2) == 2
    assert f.get_recs(10, 2) == [b"a", b"bb"]


@pytest.mark.parametrize("kind", [bytearray, memoryview, lambda b: array.array("B", b)],
                         ids=["bytearray", "memoryview", "array"])
def test_put_recs_takes_any_bytes_like_record(kind):
    f = Kfifo(64)
    assert f.put_recs([kind(b"xy"), b"z", kind(b"")], 1) == 3
    assert f.get_recs(3, 1) == [b"xy", b"z", b""]


def test_put_recs_of_nothing_stores_nothing():
    f = Kfifo(8)
    assert f.put_recs([], 1) == 0
    assert f.is_empty()


@pytest.mark.parametrize("recsize, limit", [(1, 255), (2, 65535)])
def test_put_recs_takes_the_header_maximum_and_refuses_one_past_it(recsize, limit):
    f = Kfifo(1 << 17)
    assert f.put_recs([b"m" * limit], recsize) == 1
    assert f.get_recs(1, recsize) == [b"m" * limit]
    with pytest.raises(ValueError, match="can never fit"):
        f.put_recs([b"ok", b"m" * (limit + 1)], recsize)
    assert f.is_empty()  # the first record was not stored either


def test_put_recs_of_recsize_0_stores_the_bytes_without_headers():
    f = Kfifo(8)
    assert f.put_recs([b"ab", b"cd"], 0) == 2
    assert f.out(8) == b"abcd"


def test_put_recs_on_a_size_1_fifo():
    f = Kfifo(1)
    assert f.put_recs([b""], 1) == 1       # a header alone fills it
    assert f.is_full()
    with pytest.raises(ValueError, match="can never fit"):
        f.put_recs([b"x"], 1)              # 2 bytes > 1
    assert f.get_recs(5, 1) == [b""]


def test_put_recs_on_a_full_fifo_with_timeout_0_stores_nothing_and_says_0():
    f = Kfifo(8)
    f.in_(b"x" * 8)
    with pytest.raises(TimeoutError) as info:
        f.put_recs([b"a"], 1, timeout=0)
    assert info.value.stored == 0
    assert f.len() == 8


def test_put_recs_that_times_out_keeps_the_records_stored_and_counts_them():
    f = Kfifo(8)
    with pytest.raises(TimeoutError, match="2 of 3 records") as info:
        f.put_recs([b"ab", b"cd", b"ef"], 1, timeout=0.05)
    assert info.value.stored == 2
    assert f.get_recs(5, 1) == [b"ab", b"cd"]


def test_put_recs_waits_for_room_record_by_record():
    f = Kfifo(8)
    got = []

    def consume():
        while (r := f.get_rec(1, timeout=5)) is not None:
            got.append(r)

    t = threading.Thread(target=consume)
    t.start()
    recs = [bytes([i]) * 5 for i in range(50)]
    assert f.put_recs(recs, 1, timeout=10) == 50
    f.close()
    t.join(10)
    assert got == recs


def test_put_recs_on_a_closed_fifo_raises_broken_pipe_with_the_count():
    f = Kfifo(64)
    f.close()
    with pytest.raises(BrokenPipeError) as info:
        f.put_recs([b"a"], 1)
    assert info.value.stored == 0
    assert f.is_empty()


def test_put_recs_closed_while_waiting_counts_what_it_stored():
    f = Kfifo(8)
    threading.Timer(0.1, f.close).start()
    with pytest.raises(BrokenPipeError) as info:
        f.put_recs([b"abc", b"def", b"ghi"], 1)
    assert info.value.stored == 2
    assert f.get_recs(5, 1) == [b"abc", b"def"]


@pytest.mark.parametrize("args, exc, match", [
    ((5, 1), TypeError, "iterable"),
    (([b"x", "text"], 1), TypeError, r"records\[1\] must be a bytes-like object, not str"),
    (([b"x", 7], 1), TypeError, r"records\[1\]"),
    (([b"x"], 3), ValueError, "recsize"),
    (([b"x"], -1), ValueError, "recsize"),
    (([b"x"], 1.0), TypeError, "recsize"),
    (([b"x", b"y" * 300], 1), ValueError, r"records\[1\], of 300 bytes, can never fit"),
    (([b"x" * 63], 2), ValueError, "can never fit"),
    (([b"x"], 1, -1), ValueError, "negative"),
    (([b"x"], 1, True), TypeError, "bool"),
])
def test_put_recs_refuses_bad_arguments_and_changes_nothing(args, exc, match):
    f = Kfifo(64)
    f.put_rec(b"kept", 1)
    before = state(f)
    with pytest.raises(exc, match=match):
        f.put_recs(*args)
    assert state(f) == before


def test_put_recs_of_a_view_of_its_own_ring_copies_it_right():
    f = Kfifo(16)
    f.in_(b"abcdef")
    a, _ = f.out_prepare(6)
    data = bytes(a)
    f.put_recs([a], 0)          # overlapping memory: copied as it was
    del a
    assert f.out(12) == data + data


# ---- get_recs -------------------------------------------------------------------


def test_get_recs_takes_up_to_max_oldest_first_without_waiting_more():
    f = Kfifo(64)
    f.put_recs([b"1", b"2", b"3"], 1)
    assert f.get_recs(2, 1) == [b"1", b"2"]
    assert f.get_recs(2, 1) == [b"3"]


def test_get_recs_of_0_returns_an_empty_list_at_once():
    f = Kfifo(64)
    f.put_rec(b"x", 1)
    assert f.get_recs(0, 1) == []
    assert f.get_recs(0, 1, timeout=None) == []
    assert f.len() == 2


def test_get_recs_returns_an_empty_list_at_end_of_stream():
    f = Kfifo(64)
    f.put_recs([b"last"], 1)
    f.close()
    assert f.get_recs(10, 1) == [b"last"]
    assert f.get_recs(10, 1) == []


def test_get_recs_leaves_a_record_that_is_not_all_there():
    f = Kfifo(64)
    f.put_rec(b"whole", 1)
    f.in_(bytes([9]) + b"part")          # a header of 9 with 4 bytes behind it
    assert f.get_recs(10, 1) == [b"whole"]
    assert f.len() == 5
    with pytest.raises(TimeoutError):
        f.get_recs(10, 1, timeout=0)
    f.close()
    assert f.get_recs(10, 1) == []        # closed, and no whole record left


def test_get_recs_on_an_empty_fifo_times_out_and_removes_nothing():
    f = Kfifo(8)
    t0 = time.monotonic()
    with pytest.raises(TimeoutError):
        f.get_recs(4, 1, timeout=0.05)
    assert time.monotonic() - t0 >= 0.04
    assert f.is_empty()


def test_get_recs_waits_for_the_first_record():
    f = Kfifo(64)
    threading.Timer(0.05, f.put_recs, ([b"a", b"b"], 2)).start()
    assert f.get_recs(10, 2, timeout=5) == [b"a", b"b"]


@pytest.mark.parametrize("recsize, limit", [(1, 255), (2, 65535)])
def test_get_recs_takes_zero_length_and_header_maximum_records(recsize, limit):
    f = Kfifo(1 << 17)
    f.put_recs([b"", b"z" * limit, b""], recsize)
    assert f.get_recs(5, recsize) == [b"", b"z" * limit, b""]


def test_get_recs_across_the_end_of_the_ring_and_the_32_bit_wrap():
    f = Kfifo(16, start=U32 - 5)
    for i in range(40):
        recs = [bytes([i]) * (i % 4), bytes([i + 1]) * 3]
        assert f.put_recs(recs, 2, timeout=0) == 2
        assert f.get_recs(5, 2) == recs
    assert f.valid()


@pytest.mark.parametrize("args, exc", [
    ((-1, 1), ValueError), ((U32, 1), OverflowError), ((2.0, 1), TypeError),
    ((2, 0), ValueError), ((2, 3), ValueError), (("2", 1), TypeError),
    ((2, 1, -1.0), ValueError), ((2, 1, False), TypeError),
])
def test_get_recs_refuses_bad_arguments_and_changes_nothing(args, exc):
    f = Kfifo(64)
    f.put_recs([b"a", b"b"], 1)
    before = state(f)
    with pytest.raises(exc):
        f.get_recs(*args)
    assert state(f) == before


# ---- keywords and arity of the FASTCALL wrappers ---------------------------------


def test_batch_calls_take_their_arguments_by_keyword():
    f = Kfifo(64)
    assert f.put_recs(records=[b"k"], recsize=1, timeout=1) == 1
    assert f.get_recs(recsize=1, max=5, timeout=None) == [b"k"]
    f.put_rec(data=b"p", recsize=2)
    assert f.get_rec(recsize=2) == b"p"
    f.put(data=b"q", timeout=0)
    assert f.get(n=1) == b"q"


@pytest.mark.parametrize("call, match", [
    (lambda f: f.get_recs(1, 1, None, 4), "at most 3 arguments"),
    (lambda f: f.get_recs(1), "missing required argument 'recsize'"),
    (lambda f: f.get_recs(1, 1, wait=1), "unexpected keyword argument 'wait'"),
    (lambda f: f.get_recs(1, 1, max=2), "multiple values for argument 'max'"),
    (lambda f: f.put_rec(b"x"), "missing required argument 'recsize'"),
    (lambda f: f.get(), "missing required argument 'n'"),
    (lambda f: f.in_rec(b"x"), "takes exactly 2 arguments"),
    (lambda f: f.out_rec(1, 1, 1), "takes exactly 2 arguments"),
])
def test_wrong_arity_or_keywords_are_type_errors(call, match):
    f = Kfifo(8)
    with pytest.raises(TypeError, match=match):
        call(f)
    assert f.is_empty()


# ---- freed fifo -----------------------------------------------------------------


@pytest.mark.parametrize("call", [
    lambda f: f.put_recs([b"x"], 1), lambda f: f.get_recs(1, 1), lambda f: f.get_recs(0, 1),
    lambda f: f.records(1),
])
def test_batch_calls_on_a_freed_fifo_raise_value_error(call):
    f = Kfifo(8)
    f.free()
    with pytest.raises(ValueError, match="freed"):
        call(f)


# (a thread calling free() while put_recs, get_recs or records() waits:
# test_waiting.py's BLOCKING table)


# ---- records() --------------------------------------------------------


def test_records_yields_every_record_in_order_then_stops_at_end_of_stream():
    f = Kfifo(1 << 12)
    recs = [i.to_bytes(2, "little") * (i % 5) for i in range(200)]
    got = []

    def produce():
        for r in recs:
            f.put_rec(r, 1)
        f.close()

    t = threading.Thread(target=produce)
    t.start()
    got = list(f.records(1))
    t.join(10)
    assert got == recs


def test_records_takes_only_what_it_yields():
    # a loop that stops early leaves every record it did not see
    f = Kfifo(1 << 12)
    f.put_recs([bytes([i]) for i in range(100)], 1)
    it = f.records(1)
    assert next(it) == b"\x00"
    assert f.len() == 2 * 99
    assert [next(it) for _ in range(63)] == [bytes([i]) for i in range(1, 64)]
    assert f.len() == 2 * 36
    del it
    assert f.get_recs(100, 1, timeout=0) == [bytes([i]) for i in range(64, 100)]
    f.close()
    it = f.records(1)
    assert list(it) == []
    assert list(it) == []


def test_records_ends_at_once_on_a_closed_empty_fifo():
    f = Kfifo(8)
    f.close()
    assert list(f.records(2)) == []


# ---- the direct record path --------------------------------------------------------


def test_out_rec_answers_as_kfifo_out_rec():
    f = Kfifo(64)
    assert f.out_rec(10, 1) == (10, b"", 0)       # no header
    assert f.out_rec(0, 1) == (0, b"", 0)         # capacity 0: C's 0 either way
    f.in_rec(b"abcdef", 1)
    assert f.out_rec(5, 1) == (6, b"", 6)         # too long for 5: kept
    assert f.out_rec(0, 1) == (6, b"", 6)
    assert f.out_rec(6, 1) == (0, b"abcdef", 6)
    f.in_(bytes([4]) + b"ab")                      # header of 4, 2 bytes
    assert f.out_rec(255, 1) == (255, b"", 4)     # not all there: n
    f.reset()
    f.in_rec(b"", 2)
    assert f.out_rec(0, 2) == (0, b"", 0)         # an empty record, taken
    assert f.is_empty()
    f.in_(b"xyz")
    assert f.out_rec(4, 0) == (4, b"", 4)         # recsize 0: exactly n bytes
    assert f.out_rec(3, 0) == (0, b"xyz", 3)


def test_out_rec_result_held_by_the_caller_is_never_changed():
    f = Kfifo(64)
    f.put_recs([b"first", b"second"], 1)
    first = f.out_rec(255, 1)
    second = f.out_rec(255, 1)
    assert first == (0, b"first", 5) and second == (0, b"second", 6)
    ret, data, total = f.out_rec(255, 1)          # unpacked: the tuple is reused
    again = f.out_rec(255, 1)
    assert (ret, data, total) == (255, b"", 0) and again == (255, b"", 0)
    assert first == (0, b"first", 5)


def test_a_fifo_in_a_cycle_is_collected_with_its_kept_out_rec_result():
    class Sub(Kfifo):
        pass

    f = Sub(64)
    f.in_rec(b"x", 1)
    f.out_rec(255, 1)
    f.me = f                                       # a cycle through the instance dict
    ref = weakref.ref(f)
    del f
    gc.collect()
    assert ref() is None


# ---- against the model -----------------------------------------------------------

_RECORD = st.binary(max_size=40)
_OPS = st.lists(st.one_of(
    st.tuples(st.just("put_recs"), st.lists(_RECORD, max_size=6)),
    st.tuples(st.just("get_recs"), st.integers(0, 8)),
    st.tuples(st.just("close"), st.none()),
), max_size=25)


def _do(fifo, op, arg, recsize):
    try:
        if op == "put_recs":
            return fifo.put_recs(arg, recsize, 0)
        if op == "get_recs":
            return fifo.get_recs(arg, recsize, 0)
        return fifo.close()
    except (TimeoutError, BrokenPipeError) as e:
        return type(e).__name__, getattr(e, "stored", None)
    except ValueError:  # a record that can never fit: nothing stored
        return "ValueError"


@settings(deadline=None, max_examples=150)
@given(size=st.sampled_from([1, 2, 8, 16, 64, 256]), start=st.integers(0, U32 - 1),
       recsize=st.sampled_from([1, 2]), ops=_OPS)
def test_batch_calls_agree_with_the_model(size, start, recsize, ops):
    fifo, model = Kfifo(size, start=start), KfifoModel(size, start=start)
    for op, arg in ops:
        assert _do(fifo, op, arg, recsize) == _do(model, op, arg, recsize), (op, arg)
        assert fifo.len() == model.len() and fifo.closed == model.closed
    assert fifo.out(size) == model.out(size)


def test_batch_calls_between_two_handles_of_a_shared_fifo():
    f = Kfifo(256, shared=True)
    try:
        g = Kfifo.attach(f.name)
        recs = [bytes([i]) * (i % 7) for i in range(40)]
        got = []
        for start in range(0, 40, 8):
            assert f.put_recs(recs[start:start + 8], 1, timeout=0) == 8
            got += g.get_recs(100, 1, timeout=0)
        f.close()
        assert got == recs and g.get_recs(1, 1) == []
        g.free()
    finally:
        f.free()
