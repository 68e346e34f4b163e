# SPDX-License-Identifier: MIT
"""The model's non-blocking part of docs/spec.md 3 (close, waits with timeout 0,
zero-copy views) against the C core, call by call."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kfifo import Kfifo
from kfifo.model import KfifoModel

U32 = 2**32

ops = st.lists(
    st.one_of(
        st.tuples(st.just("in_"), st.binary(max_size=40)),
        st.tuples(st.just("out"), st.integers(0, 40)),
        st.tuples(st.just("close"), st.none()),
        st.tuples(st.just("reset"), st.none()),
        st.tuples(st.just("wait_avail"), st.integers(0, 40)),
        st.tuples(st.just("wait_len"), st.integers(0, 40)),
        st.tuples(st.just("write_in_place"), st.binary(max_size=40)),
        st.tuples(st.just("read_in_place"), st.integers(0, 40)),
    ),
    max_size=60,
)


def apply(f, op, arg):
    if op == "in_":
        return f.in_(arg)
    if op == "out":
        return f.out(arg)
    if op in ("close", "reset"):
        getattr(f, op)()
        return f.closed
    if op in ("wait_avail", "wait_len"):
        try:
            return getattr(f, op)(arg, timeout=0)
        except ValueError as e:
            return ("ValueError", "size" in str(e))
    if op == "write_in_place":
        a, b = f.in_prepare(len(arg))
        n = len(a) + len(b)
        a[:] = arg[: len(a)]
        b[:] = arg[len(a) : n]
        del a, b
        return (n, f.in_finish(len(arg)))
    if op == "read_in_place":
        a, b = f.out_prepare(arg)
        data = bytes(a) + bytes(b)
        readonly = a.readonly and b.readonly
        del a, b
        return (data, readonly, f.out_finish(arg))
    raise AssertionError(op)


@settings(deadline=None)
@given(size=st.sampled_from([1, 2, 8, 32]), start=st.sampled_from([0, U32 - 5, U32 - 33]), ops=ops)
def test_model_matches_the_c_core(size, start, ops):
    real, model = Kfifo(size, start=start), KfifoModel(size, start=start)
    for op, arg in ops:
        assert apply(real, op, arg) == apply(model, op, arg), (op, arg)
        assert real.len() == model.len()
        assert real.closed == model.closed
    assert real.out(size) == model.out(size)
    real.free()
    model.free()


def test_model_free_refuses_while_a_view_lives_like_the_binding():
    for f in (Kfifo(8), KfifoModel(8)):
        a, b = f.in_prepare(4)
        with pytest.raises(BufferError):
            f.free()
        del a, b
        f.free()


def test_model_waits_only_without_blocking():
    m = KfifoModel(8)
    with pytest.raises(NotImplementedError):
        m.wait_len(1, timeout=None)
    with pytest.raises(ValueError):
        m.wait_avail(9, timeout=0)
