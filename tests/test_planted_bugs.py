# SPDX-License-Identifier: MIT
"""The state machine must catch real bugs, not just agree with a correct fifo.

Each class below is :class:`kfifo.model.KfifoModel` with one bug planted:
the six seed bugs of the contract's "Seed bugs we fix", a user's ``out_rec``
that copies up to the caller's capacity, an off-by-one in ``avail``, two
ways of losing a wraparound, and fifteen bugs ring buffers had in the wild
(``WILD``: off-by-ones at the wrap, the record header, full and empty, each
with the project it comes from).  Every one must be found by the generation phase of
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

from kfifo.model import UINT_MAX, KfifoModel, RingModel, _readable, _recsize
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


# ----------------------------------------------------------------------
# Bugs ring buffers had in the wild (issue trackers and fixes of JACK,
# PortAudio, DPDK, the kernel's kfifo and embedded rings), each moved onto
# the model.  The class docstring names the boundary the bug lives on.
# ----------------------------------------------------------------------
class FullLooksEmpty(KfifoModel):
    """Indices kept masked to the buffer, so ``in == out`` is both empty and
    full: a full fifo reads as empty (littlekernel lk's cbuf, PR 173;
    SnowflakeOS's ringbuffer, PR 26).  Boundary: full."""

    def _len(self):
        return (self._in - self._out) & (self._size - 1)


class WrapSecondChunkOffByOne(KfifoModel):
    """The part of a write that continues at the buffer's start is taken one
    byte too far into the data (``copy(buf[0:], p[c1+1:])``, smallnest's Go
    ringbuffer, issue 1); the last slot it should fill keeps stale data.
    Boundary: the wrap of a write."""

    def _put(self, index, data):
        off = index & (self._size - 1)
        first = min(len(data), self._size - off)
        self._buffer[off:off + first] = data[:first]
        rest = data[first + 1:]
        self._buffer[:len(rest)] = rest


class ReadWrapMissing(KfifoModel):
    """A read that crosses the buffer's end goes on reading past it instead
    of continuing at the start (mpv's mp_ring_read_cb, PR 275: noise whenever
    the JACK output ring wrapped).  Past the end lies other memory, zeros
    here.  Boundary: the wrap of a read."""

    def _get(self, index, n):
        off = index & (self._size - 1)
        first = min(n, self._size - off)
        return bytes(self._buffer[off:off + first]) + bytes(n - first)


class UnderReportsWhenWrapped(KfifoModel):
    """Free space is one byte short whenever the stored data wraps around
    the buffer's end: the reserved slot is placed at the physical end
    instead of before the reader (crun's ring_buffer iovec helpers, issue
    2191).  Boundary: the wrap, near full."""

    def _avail(self):
        stored = self._len()
        wrapped = (self._out & (self._size - 1)) + stored > self._size
        return self._size - stored - (1 if wrapped and stored < self._size else 0)


class RecordLengthSlotShared(KfifoModel):
    """Record lengths kept in one variable instead of one per record
    (``*(pfo->plen) = len`` for ``pfo->plen[pfo->wridx]``, QO100_Transceiver's
    kmfifo, issue 26): every record reads as long as the last one written.
    Boundary: the record header, with more than one record stored."""

    _last_written = None

    def in_rec(self, data, recsize):
        ret = super().in_rec(data, recsize)
        if ret == 0 and recsize in (1, 2):
            self._last_written = len(memoryview(data).cast("B"))
        return ret

    def _header(self, recsize):
        length = super()._header(recsize)
        if self._len() >= recsize and self._last_written is not None:
            return self._last_written
        return length


class PeekClearsFull(KfifoModel):
    """A ring with a "full" flag whose peek clears it (awtk's ring_buffer_peek,
    issue 359): after peeking at a full fifo, ``in == out`` reads as empty and
    its content is lost.  Boundary: full."""

    def peek_rec(self, recsize):
        full = not self._freed and self._avail() == 0
        length = super().peek_rec(recsize)
        if full:
            self._out = self._in
        return length


class RecordRoomIgnoresHeader(KfifoModel):
    """``in_rec`` checks room for the data but not for its header
    (``if (len > kfifo_avail)`` for ``len + recsize``): a record that fits
    but for its header overwrites the oldest bytes.  Boundary: the header,
    at full."""

    def in_rec(self, data, recsize):
        self._check()
        recsize = _recsize(recsize)
        n = len(_readable(data))
        if recsize and n <= self._avail() < n + recsize and n <= (0, 255, 65535)[recsize]:
            self._put(self._in, memoryview(n.to_bytes(recsize, "little")))
            self._put(self._in + recsize, _readable(data))
            self._advance_in(recsize + n)
            return 0
        return super().in_rec(data, recsize)


class HeaderMaxRefused(KfifoModel):
    """``n >= 255`` where ``n > 255`` was meant: the longest record the
    header holds (255 for recsize 1, 65535 for 2) is refused.  Boundary: the
    header limit."""

    def in_rec(self, data, recsize):
        n = len(_readable(data)) if not isinstance(data, str) else 0
        if type(recsize) is int and recsize in (1, 2) and n == (0, 255, 65535)[recsize]:
            self._check()
            return n + 1
        return super().in_rec(data, recsize)


class SkipRecForgetsHeader(KfifoModel):
    """``skip_rec`` advances by the record's length but not its header
    (``out += n`` for ``out += n + recsize``): the reader lands inside the
    record.  Boundary: the header."""

    def skip_rec(self, recsize):
        if type(recsize) is int and recsize in (1, 2) and not self._freed:
            length = self._header(recsize)
            if self._len() >= recsize and recsize + length <= self._len():
                self._advance_out(length)
                return
        super().skip_rec(recsize)


class LastRecordStuck(KfifoModel):
    """``out_rec`` tests ``len <= recsize + L`` where ``<`` was meant: a
    record that ends exactly where the data ends (the last one stored) is
    reported incomplete and never comes out (the check of a record's bytes
    before reading it: nxthdr risotto PR 35, ktls PR 28).  Boundary: the
    record header, at the end of the data."""

    def out_rec(self, n, recsize):
        if type(recsize) is int and recsize in (1, 2) and type(n) is int and 0 <= n <= UINT_MAX \
                and not self._freed and self._len() >= recsize:
            length = self._header(recsize)
            if length <= n and self._len() == recsize + length:
                return n, b"", length
        return super().out_rec(n, recsize)


class SkipUnclamped(KfifoModel):
    """``skip(n)`` moves the reader ``n`` bytes without looking at ``len``:
    past the writer when ``n > len`` (a consume() without its bound check).
    Boundary: empty."""

    def skip(self, n):
        self._check()
        if type(n) is int and 0 <= n <= UINT_MAX:
            self._advance_out(n)
            return None
        return super().skip(n)


class OutUnclamped(KfifoModel):
    """``out(n)`` takes ``min(n, size)`` bytes however few are stored: a read
    that trusts the caller's count and runs the reader past the writer
    (mpv's mp_ring, PR 275, ``buffered > available``).  Boundary: empty."""

    def out(self, n):
        self._check()
        if type(n) is int and self._len() < n <= UINT_MAX:
            n = min(n, self._size)
            data = self._get(self._out, n)
            self._advance_out(n)
            return data
        return super().out(n)


class WriteReturnsRequested(KfifoModel):
    """A partial write stores what fits but returns the count it was asked
    to store, so the caller drops the rest unknowingly.  Boundary: full."""

    def in_(self, data):
        super().in_(data)
        return len(_readable(data))


class IsFullOffByOne(KfifoModel):
    """``is_full`` is ``len >= size - 1``, a leftover of the "one slot kept
    empty" rings (JACK's ringbuffer holds size - 1, jack2 issue 94; DPDK's
    rte_ring count - 1; dnsjit PR 123 on ck_ring).  Boundary: full."""

    def is_full(self):
        self._check()
        return self._len() >= self._size - 1


class HeaderSplitLost(KfifoModel):
    """The second byte of a 2-byte header is written at ``off + 1`` without
    the mask, past the buffer's end, when the header straddles it (a peek or
    header access without the wrap: one-collect PR 266); the reader then
    takes the stale byte at the buffer's start as the high byte.  Boundary:
    the header, at the wrap."""

    _header_pending = False

    def _put(self, index, data):
        off = index & (self._size - 1)
        if self._header_pending and off == self._size - 1:
            self._buffer[off] = data[0]
        else:
            super()._put(index, data)
        self._header_pending = False

    def in_rec(self, data, recsize):
        self._header_pending = recsize == 2
        try:
            return super().in_rec(data, recsize)
        finally:
            self._header_pending = False


class HeaderPresentOffByOne(KfifoModel):
    """The "is a record header present?" test is ``len >= recsize - 1``: with
    one byte of a 2-byte header stored (byte calls mixed with record calls),
    the next record's length is read from that byte and a stale one.
    Boundary: fewer bytes than a header."""

    def _header(self, recsize):
        if self._len() + 1 < recsize:
            return 0
        return int.from_bytes(self._get(self._out, recsize), "little")


class SlotKeptAvailForgets(RingModel):
    """A ring that keeps one byte of its power-of-two buffer free (JACK's
    ringbuffer, ck_ring): stores at most size - 1, but its ``avail`` forgets
    the kept byte.  Boundary: full, of a size - 1 ring."""

    capacity = "pow2-1"

    def __init__(self, size, *, start=0):
        super().__init__(size, start=start, capacity="pow2-1")

    def _avail(self):
        return super()._avail() + 1 if self._len() else super()._avail()

    def in_(self, data):
        self._check()
        view = _readable(data)
        n = min(len(view), self._capacity - self._len())
        self._put(self._in, view[:n])
        self._advance_in(n)
        return n


#: The seed bugs and the first planted ones.
SEED_AND_CLASSIC = [
    HeaderInBuffer, CopiesCapacity, CopiesUpToCapacity, PeekAvail, TruncatedHeader, StaleHeader, UninitializedOff,
    AvailOffByOne, LostIndexWrap, LostBufferWrap,
]
#: Bugs from the wild (see above).
WILD = [
    FullLooksEmpty, WrapSecondChunkOffByOne, ReadWrapMissing, UnderReportsWhenWrapped, RecordLengthSlotShared,
    PeekClearsFull, RecordRoomIgnoresHeader, HeaderMaxRefused, SkipRecForgetsHeader, LastRecordStuck,
    SkipUnclamped, OutUnclamped, WriteReturnsRequested, IsFullOffByOne, HeaderSplitLost,
]
#: Bugs of two states and rings: below a header, a size - 1 ring.
RINGS = [HeaderPresentOffByOne, SlotKeptAvailForgets]
PLANTED = SEED_AND_CLASSIC + WILD + RINGS


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


def test_shrunk_reproduction_replays_the_bug_and_agrees_with_the_model(capsys):
    found = hunt(StaleHeader, shrink=True)
    assert found is not None
    snippet = found.trace.snippet()
    # Printed once, clean, to stderr by the final run; the exception points there.
    err = capsys.readouterr().err
    assert "shrinking it to a short reproduction" in err
    assert snippet in err and found.printed and snippet not in str(found)
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


def test_wild_bugs_are_ten_or_more_distinct_classes():
    assert len(WILD) >= 10 and len(set(WILD)) == len(WILD)
    assert all(cls.__doc__ and "Boundary" in cls.__doc__ for cls in WILD)


def test_below_header_leaves_one_byte_of_a_two_byte_header_then_reads_records():
    # The rule called by hand: a fifo holding a whole record is emptied and
    # given one byte (9); the off-by-one "header present?" test reads a
    # length from it and a stale byte, where the model says no record.
    machine = make_state_machine(HeaderPresentOffByOne)()
    machine.create(size=16, start=0, recsize=2, fill=[3], seed=5)
    with pytest.raises(KfifoMismatch, match=r"f\.peek_rec\(2\) returned \d+; expected 0"):
        machine.below_header(method="out_rec", count=4, recsize=2, keep=False, seed=9)

    correct = make_state_machine(KfifoModel)()
    correct.create(size=16, start=0, recsize=2, fill=[3], seed=5)
    correct.below_header(method="out_rec", count=4, recsize=2, keep=True, seed=9)
    assert correct.model.len() == 1  # the last byte of the record stays, below its header
    correct.teardown()


def test_shrinking_stops_after_shrink_seconds_and_the_reproduction_still_fails(monkeypatch, capsys):
    from hypothesis.internal.conjecture import engine

    import kfifo.testing
    from kfifo.testing import run_machine

    saved = engine.MAX_SHRINKING_SECONDS
    monkeypatch.setattr(kfifo.testing, "SHRINK_SECONDS", 1e-6)  # stopped after the first shrink step
    with pytest.raises(KfifoMismatch) as info:
        run_machine(make_state_machine(StaleHeader), settings=settings(
            max_examples=BUDGET, stateful_step_count=50, deadline=None, database=None, derandomize=True,
            phases=[Phase.generate, Phase.shrink], suppress_health_check=list(HealthCheck)))
    assert engine.MAX_SHRINKING_SECONDS == saved
    out, err = capsys.readouterr()
    assert "shrinking stopped after kfifo.testing.SHRINK_SECONDS = 1e-06 s" in err
    assert "five minutes" not in out + err  # Hypothesis's own warning, not true of this cap
    snippet = info.value.trace.snippet()
    assert snippet in err
    with pytest.raises(AssertionError):  # the unshrunk reproduction fails on the broken fifo too
        exec(compile(snippet, "<reproduction>", "exec"), {"__name__": "repro"})


@pytest.mark.parametrize("bad", [0, -1, "10", True])
def test_shrink_seconds_must_be_positive_seconds_or_none(monkeypatch, bad):
    import kfifo.testing
    from kfifo.testing import run_machine

    monkeypatch.setattr(kfifo.testing, "SHRINK_SECONDS", bad)
    with pytest.raises(ValueError, match="SHRINK_SECONDS must be a number of seconds > 0 or None"):
        run_machine(make_state_machine(StaleHeader), settings=settings(max_examples=1, database=None))
