# SPDX-License-Identifier: MIT
"""The strategies of the machine: sizes, starts, lengths, records, bad calls.

Lengths are mostly relative (``("avail", -1)``: one less than the room
left), resolved by the machine against the model when the step runs; see
:func:`kfifo.testing.make_state_machine` for why.
"""
from __future__ import annotations

from typing import Any, Tuple

from hypothesis import strategies as st

from kfifo.model import UINT_MAX, KfifoModel
from kfifo.testing.reproduction import _np

_SIZES = st.one_of(
    # A third small: they fill and wrap within a few calls ...
    st.sampled_from([1, 2, 3, 4, 8, 16, 17, 64]),
    # ... two thirds large enough for a 256-byte record, one past the recsize-1
    # header limit (lengths relative to len/avail/size fill and wrap them
    # quickly too); 65537 rounds up to 128 KiB: room for 65536 bytes and a header.
    st.sampled_from([300, 512, 1024, 65537]),
    st.integers(257, 2048),
)
_STARTS = st.one_of(
    st.sampled_from([0, UINT_MAX]),  # UINT_MAX: the first byte goes to the buffer's last slot
    st.integers(UINT_MAX - 40, UINT_MAX),
    st.integers(UINT_MAX - 300, UINT_MAX),
    st.integers(UINT_MAX - 70_000, UINT_MAX),
    st.integers(0, UINT_MAX),
)
#: An absolute length, or (what, delta): the fifo's len/size/avail, the next
#: record's length ("peek"), the bytes left before the buffer's end
#: ("to_end"), the length last stored or taken ("last"), plus delta.
_LENGTHS = st.one_of(
    st.integers(0, 20),
    st.sampled_from([0, 1, 255, 256, 65535, 65536]),
    st.tuples(st.sampled_from(["avail", "size", "len", "peek", "to_end", "last"]), st.integers(-2, 2)),
    st.integers(0, 5000),
)
_COUNTS = st.one_of(_LENGTHS, st.just(UINT_MAX))
#: Record lengths: short ones, so that several records fit and follow each
#: other; ("limit", delta), the longest record the header holds (255 or
#: 65535; 255 for recsize 0) plus delta, one past it first; lengths relative
#: to the room left, the buffer's end or the last record.  No absolute long
#: lengths: in most fifos they would only be refused for room.
_HEADER_LIMITS = st.sampled_from([("limit", 1), ("limit", 0)])
_REC_LENGTHS = st.one_of(
    st.integers(0, 12),
    _HEADER_LIMITS,
    st.tuples(st.sampled_from(["avail", "to_end", "last"]), st.integers(-3, 1)),
    # The length that makes the next record's header straddle the buffer's end.
    st.just(("split", 0)),
)
#: The records a new fifo holds: it is empty, the one moment a record at the
#: header limit is sure to fit if the fifo can hold it, so they lean there.
_FILL = st.lists(st.one_of(_HEADER_LIMITS, _REC_LENGTHS), min_size=1, max_size=3)
#: out_rec capacities: about the next record's length (one too small, exact,
#: or larger, so bytes past L would show), the header limit, any count.
_CAPACITIES = st.one_of(
    st.tuples(st.just("peek"), st.integers(-1, 4)),
    st.tuples(st.just("limit"), st.integers(-1, 1)),
    _COUNTS,
)
#: The same without ``2**32 - 1``: what a ring that is not asked for huge
#: counts gets (an ``out(2**32 - 1)`` is a fine test of Kfifo's count checks,
#: and a sure crash of a C ring that trusts its caller).
_SMALL_CAPACITIES = st.one_of(
    st.tuples(st.just("peek"), st.integers(-1, 4)),
    st.tuples(st.just("limit"), st.integers(-1, 1)),
    _LENGTHS,
)
_SEEDS = st.integers(0, 250)

_BAD_CALLS = [
    ("in_", ("text",)), ("in_", (5,)), ("in_", (None,)), ("from_user", ([1, 2],)),
    ("out", (-1,)), ("out", (UINT_MAX + 1,)), ("out", (1.0,)), ("out", ("3",)),
    ("to_user", (-5,)), ("to_user", (2 ** 40,)), ("skip", (2 ** 64,)), ("out_rec", (2 ** 64, 1)),
    ("out_into", (b"read-only",)), ("out_into", ("text",)),
    ("in_rec", (b"abc", 3)), ("in_rec", (b"", 255)), ("in_rec", (b"abc", -1)),
    ("in_rec", ("abc", 1)), ("in_rec", (b"abc", 1.0)), ("from_user_rec", (b"x", 4)),
    ("out_rec", (4, 3)), ("out_rec", (4, -1)), ("out_rec", (-1, 1)),
    ("out_rec", (UINT_MAX + 1, 1)), ("out_rec", (4.0, 1)), ("to_user_rec", (4, 65536)),
    ("peek_rec", (3,)), ("peek_rec", (-1,)), ("peek_rec", (None,)),
    ("skip", (-1,)), ("skip", (UINT_MAX + 1,)), ("skip", (2.5,)),
    ("skip_rec", (3,)), ("skip_rec", (7,)), ("skip_rec", ("1",)), ("peek_rec", (UINT_MAX + 1,)),
    ("put_recs", (5, 1)), ("put_recs", ([b"x", "text"], 1)), ("put_recs", ([b"x"], 3)),
    ("put_recs", ([b"x"], -1)),
    ("get_recs", (-1, 1)), ("get_recs", (UINT_MAX + 1, 1)), ("get_recs", (2.0, 1)),
    ("get_recs", (2, 3)), ("get_recs", (2, 0)),
]

_ALL_KINDS = ["bytes", "bytearray", "memoryview", "array"] + (["numpy"] if _np else [])


def _bad_category(name: str, args: Tuple[Any, ...]) -> str:
    """Which of :data:`ARGUMENT_ERRORS` the bad call ``name(*args)`` is."""
    try:
        getattr(KfifoModel(8), name)(*args)
    except TypeError:
        return "wrong type"
    except OverflowError:
        return "count >= 2**32"
    except ValueError as exc:
        return "invalid recsize" if "recsize" in str(exc) else "negative count"
    raise AssertionError(f"the model accepts {name}{args!r}")  # pragma: no cover


_BAD_CATEGORY = {i: _bad_category(name, args) for i, (name, args) in enumerate(_BAD_CALLS)}
