# SPDX-License-Identifier: MIT
"""The state machine must catch real bugs, not just agree with a correct fifo.

Each class below is :class:`kfifo.model.KfifoModel` with one bug planted:
the six seed bugs of API.md 1.7, a user's ``out_rec`` that copies up to the
caller's capacity, an off-by-one in ``avail``, and two ways of losing a
wraparound.  Every one must be found by the generation phase of
the state machine within a fixed budget of examples; the number of
examples, steps and seconds it took is recorded and printed at the end of
the session (``tests/conftest.py``).

The budget is far above the default 100 examples so that this suite never
fails by chance; how often the default settings find each bug is measured
over many seeded runs by ``scripts/detection_rate.py`` (at least 99 of 100).

The classes are also the broken factories that ``tests/test_fuzz_cli.py``
hands to ``kfifo fuzz`` through ``KFIFO_FUZZ_FACTORY``.
"""
from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test

from kfifo.model import UINT_MAX, KfifoModel, _readable, _recsize
from kfifo.testing import STATS, KfifoMismatch, make_state_machine

#: planted bug -> (examples, steps, seconds) until the first mismatch; printed by conftest.
FOUND: dict = {}

BUDGET = 3000  # examples; each bug below is found in far fewer


class HeaderInBuffer(KfifoModel):
    """Seed bug 1: INIT_KFIFO puts the buffer over the ``struct kfifo`` header.

    The header (buffer pointer 8 bytes, size, in, out) shares its memory with
    the first 20 bytes of the data area, so data written there overwrites
    ``in``/``out``, and moving an index overwrites data.
    """

    IN, OUT = slice(12, 16), slice(16, 20)

    def __init__(self, size, *, start=0):
        self._mem = bytearray(20)
        super().__init__(size, start=start)
        mem = bytearray(max(20, self._size))
        mem[12:20] = self._mem[12:20]
        self._mem = mem
        self._buffer = memoryview(mem)[: self._size]

    @property
    def _in(self):
        return int.from_bytes(self._mem[self.IN], "little")

    @_in.setter
    def _in(self, value):
        self._mem[self.IN] = (value & UINT_MAX).to_bytes(4, "little")

    @property
    def _out(self):
        return int.from_bytes(self._mem[self.OUT], "little")

    @_out.setter
    def _out(self, value):
        self._mem[self.OUT] = (value & UINT_MAX).to_bytes(4, "little")


class CopiesCapacity(KfifoModel):
    """Seed bug 2: ``__kfifo_out_n`` copies ``n`` bytes (the capacity), not the record's ``L``."""

    def out_rec(self, n, recsize):
        start = self._out
        ret, data, total = super().out_rec(n, recsize)
        if ret == 0 and n > total:
            data = self._get(start + recsize, n)
        return ret, data, total


class CopiesUpToCapacity(KfifoModel):
    """A user's ``out_rec`` fills the caller's buffer: it copies up to the capacity
    ``n`` of what is stored (``min(n, len - recsize)`` bytes) instead of the
    record's ``L``, and returns them all; it still removes only the record.

    Unlike :class:`CopiesCapacity` it never reads past the stored data, so the
    bug shows only when ``n > L`` and more data follows the record.
    """

    def out_rec(self, n, recsize):
        start, stored = self._out, self._len()
        ret, data, total = super().out_rec(n, recsize)
        if ret == 0 and n > total:
            data = self._get(start + recsize, min(n, stored - recsize))
        return ret, data, total


class PeekAvail(KfifoModel):
    """Seed bug 3: ``__kfifo_peek_generic`` returns ``avail`` for ``recsize`` 0."""

    def peek_rec(self, recsize):
        if type(recsize) is int and recsize == 0:
            self._check()
            return self._avail()
        return super().peek_rec(recsize)


class TruncatedHeader(KfifoModel):
    """Seed bug 4: a record too long for its header is stored with a truncated length."""

    def in_rec(self, data, recsize):
        self._check()
        recsize = _recsize(recsize)
        view = _readable(data)
        n = len(view)
        if recsize and n + recsize <= self._avail():
            self._put(self._in, memoryview((n & (0xFF if recsize == 1 else 0xFFFF)).to_bytes(recsize, "little")))
            self._put(self._in + recsize, view)
            self._advance_in(recsize + n)
            return 0
        return super().in_rec(data, recsize)


class StaleHeader(KfifoModel):
    """Seed bug 5: ``out_rec``/``peek_rec`` on an empty fifo read a stale header."""

    def _header(self, recsize):
        return int.from_bytes(self._get(self._out, recsize), "little")

    def out_rec(self, n, recsize):
        if type(recsize) is int and recsize in (1, 2) and type(n) is int and 0 <= n <= UINT_MAX \
                and not self._freed and self._len() < recsize:
            length = self._header(recsize)
            return (length, b"", length) if length > n else (n, b"", length)
        return super().out_rec(n, recsize)


class UninitializedOff(KfifoModel):
    """Seed bug 6: ``kfifo_in``/``kfifo_out`` add to an uninitialized ``off``.

    The garbage is modelled as what the stack slot last held: the count of
    the previous call of the same function (0 the first time).  The C code
    would write out of bounds; the model wraps the position instead.
    """

    _in_garbage = 0
    _out_garbage = 0

    def in_(self, data):
        self._check()
        view = _readable(data)
        n = min(len(view), self._avail())
        off = self._in_garbage
        self._put(off + ((self._in + off) & (self._size - 1)), view[:n])
        self._advance_in(n)
        self._in_garbage = n
        return n

    def out(self, n):
        data = super().out(n)  # validates n, removes the bytes ...
        off = self._out_garbage
        start = (self._out - len(data)) & UINT_MAX
        self._out_garbage = len(data)
        return self._get(off + ((start + off) & (self._size - 1)), len(data))  # ... but reads elsewhere


class AvailOffByOne(KfifoModel):
    """``avail = size - len - 1``: the classic ring buffer that keeps one slot empty."""

    def _avail(self):
        return max(0, self._size - self._len() - 1)


class LostIndexWrap(KfifoModel):
    """The fill level is ``in - out`` without the modulo: wrong once ``in`` wraps at 2**32."""

    def _len(self):
        return self._in - self._out


class LostBufferWrap(KfifoModel):
    """A copy into the fifo stops at the buffer's end instead of continuing at its start."""

    def _put(self, index, data):
        off = index & (self._size - 1)
        first = min(len(data), self._size - off)
        self._buffer[off:off + first] = data[:first]


PLANTED = [
    HeaderInBuffer, CopiesCapacity, CopiesUpToCapacity, PeekAvail, TruncatedHeader, StaleHeader, UninitializedOff,
    AvailOffByOne, LostIndexWrap, LostBufferWrap,
]


def hunt(factory, max_examples=BUDGET, shrink=False):
    """Run the machine against ``factory``; return the mismatch it raises (or None)."""
    machine = make_state_machine(factory)
    phases = [Phase.generate, Phase.shrink] if shrink else [Phase.generate]
    STATS.reset()
    try:
        run_state_machine_as_test(machine, settings=settings(
            max_examples=max_examples, stateful_step_count=50, deadline=None, database=None,
            phases=phases, suppress_health_check=list(HealthCheck), report_multiple_bugs=False,
        ))
    except KfifoMismatch as exc:
        return exc
    return None


@pytest.mark.parametrize("broken", PLANTED, ids=[c.__name__ for c in PLANTED])
def test_state_machine_finds_planted_bug(broken):
    t0 = time.monotonic()
    found = hunt(broken)
    elapsed = time.monotonic() - t0
    assert found is not None, f"{broken.__name__} survived {STATS.examples} examples ({STATS.steps} steps)"
    examples, steps, seconds = STATS.first_failure
    FOUND[broken.__name__] = (examples, steps, seconds, elapsed)
    print(f"{broken.__name__}: found after {examples} examples, {steps} steps, {seconds:.2f} s")


def test_shrunk_reproduction_replays_the_bug_and_agrees_with_the_model():
    found = hunt(StaleHeader, shrink=True)
    assert found is not None
    snippet = found.trace.snippet()
    assert snippet in str(found)
    assert "make_fifo = StaleHeader" in snippet
    steps = [line for line in snippet.splitlines() if line.startswith(("assert", "f.", "f =", "raises", "buf"))]
    # Shrunk: usually create, 2-4 calls and the failing check; Hypothesis's
    # shrinker sometimes keeps a few no-op calls, hence the margin.
    assert len(steps) <= 20, snippet
    assert "# <--" in steps[-1]

    with pytest.raises(AssertionError):  # the snippet fails on the broken fifo ...
        exec(compile(snippet, "<reproduction>", "exec"), {"__name__": "repro"})
    correct = snippet.replace("make_fifo = StaleHeader", "make_fifo = KfifoModel")
    correct = correct.replace("from test_planted_bugs import StaleHeader", "from kfifo.model import KfifoModel")
    exec(compile(correct, "<reproduction>", "exec"), {"__name__": "repro"})  # ... not on the model


def test_correct_model_survives_the_same_budget():
    assert hunt(KfifoModel, max_examples=200) is None
