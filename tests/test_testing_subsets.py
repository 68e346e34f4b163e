# SPDX-License-Identifier: MIT
"""kfifo.testing on the FIFOs users write: any subset of the API, their own
answers to bad arguments, no start=, and their own Hypothesis profiles.

``LaxRing`` and ``ByteRing`` are written here from the contract, the way a
user would: plain Python, no argument checks, no ``start=`` for the second.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test

from kfifo.model import KfifoModel
from kfifo.testing import (
    ARGUMENT_ERRORS, STATS, KfifoMismatch, find_operations, make_state_machine,
)

MASK32 = 0xFFFFFFFF


class LaxRing:
    """Byte stream and records with a 1- or 2-byte header; no argument checks:
    ``out(-1)`` answers ``b""`` and ``in_rec(b"", 3)`` stores a 3-byte header."""

    def __init__(self, size, start=0):
        self.cap = 1 << (size - 1).bit_length()
        self.buf = bytearray(self.cap)
        self.head = self.tail = start & MASK32

    def len(self):
        return (self.head - self.tail) & MASK32

    __len__ = len

    def size(self):
        return self.cap

    def avail(self):
        return self.cap - self.len()

    def is_empty(self):
        return self.len() == 0

    def is_full(self):
        return self.avail() == 0

    def _write(self, pos, data):
        for i, b in enumerate(data):
            self.buf[(pos + i) % self.cap] = b

    def _read(self, pos, n):
        return bytes(self.buf[(pos + i) % self.cap] for i in range(n))

    def in_(self, data):
        n = min(len(data), self.avail())
        self._write(self.head, bytes(data)[:n])
        self.head = (self.head + n) & MASK32
        return n

    def out(self, n):
        n = max(0, min(n, self.len()))
        data = self._read(self.tail, n)
        self.tail = (self.tail + n) & MASK32
        return data

    def skip(self, n):
        self.tail = self.head if n >= self.len() else (self.tail + n) & MASK32

    def reset(self):
        self.head = self.tail = 0

    def reset_out(self):
        self.tail = self.head

    def peek_rec(self, recsize):
        if recsize == 0:
            return self.len()
        if self.len() < recsize:
            return 0
        return int.from_bytes(self._read(self.tail, recsize), "little")

    def in_rec(self, data, recsize):
        n = len(data)
        if (recsize and n >= 256 ** recsize) or n + recsize > self.avail():
            return min(n + 1, MASK32)
        header = n.to_bytes(recsize, "little") if recsize else b""
        self._write(self.head, header + bytes(data))
        self.head = (self.head + recsize + n) & MASK32
        return 0

    def out_rec(self, n, recsize):
        if recsize and self.len() < recsize:
            return n, b"", 0
        length = self.peek_rec(recsize) if recsize else n
        if length > n:
            return length, b"", length
        if self.len() < recsize + length:
            return n, b"", length
        data = self._read(self.tail + recsize, length)
        self.tail = (self.tail + recsize + length) & MASK32
        return 0, data, length

    def skip_rec(self, recsize):
        whole = recsize + self.peek_rec(recsize)
        if recsize and self.len() >= recsize and whole <= self.len():
            self.tail = (self.tail + whole) & MASK32
        else:
            self.tail = self.head


class ByteRing:
    """A byte-only ring: put, get, len, avail; no start=, no records."""

    def __init__(self, size):
        self.data = bytearray(1 << (size - 1).bit_length())
        self.r = self.w = 0  # free-running

    def len(self):
        return self.w - self.r

    def avail(self):
        return len(self.data) - self.len()

    def in_(self, data):
        n = min(len(data), self.avail())
        for b in bytes(data)[:n]:
            self.data[self.w % len(self.data)] = b
            self.w += 1
        return n

    def out(self, n):
        n = min(n, self.len())
        got = bytes(self.data[(self.r + i) % len(self.data)] for i in range(n))
        self.r += n
        return got


class ByteRingKeepsOneSlot(ByteRing):
    """The bug JACK's ringbuffer has by design: one slot always kept empty."""

    def avail(self):
        return len(self.data) - self.len() - 1


class StrictRing(LaxRing):
    """LaxRing that refuses every bad argument with ValueError (Kfifo raises
    TypeError or OverflowError for some of them)."""

    def _count(self, n):
        if type(n) is not int or not 0 <= n <= MASK32:
            raise ValueError(f"bad count {n!r}")
        return n

    def _data(self, data):
        if isinstance(data, str) or not hasattr(data, "__len__") or isinstance(data, list):
            raise ValueError(f"bad data {data!r}")

    def _recsize(self, recsize):
        if type(recsize) is not int or recsize not in (0, 1, 2):
            raise ValueError(f"bad recsize {recsize!r}")

    def in_(self, data):
        self._data(data)
        return super().in_(data)

    def out(self, n):
        return super().out(self._count(n))

    def skip(self, n):
        return super().skip(self._count(n))

    def in_rec(self, data, recsize):
        self._data(data)
        self._recsize(recsize)
        return super().in_rec(data, recsize)

    def out_rec(self, n, recsize):
        self._recsize(recsize)
        return super().out_rec(self._count(n), recsize)

    def peek_rec(self, recsize):
        self._recsize(recsize)
        return super().peek_rec(recsize)

    def skip_rec(self, recsize):
        self._recsize(recsize)
        return super().skip_rec(recsize)


FAST = settings(max_examples=60, stateful_step_count=30, deadline=None, database=None, derandomize=True,
                suppress_health_check=list(HealthCheck), phases=[Phase.generate])


def run(machine, **kw):
    run_state_machine_as_test(machine, settings=settings(FAST, **kw))


# ----------------------------------------------------------------------- subsets
def test_lax_ring_passes_at_default_argument_checking():
    machine = make_state_machine(LaxRing)
    assert "in_rec" in machine.operations and "from_user" not in machine.operations
    run(machine)


def test_lax_ring_fails_kfifo_exact_argument_checks_when_asked():
    with pytest.raises(KfifoMismatch, match="expected"):
        run(make_state_machine(LaxRing, check_arguments="kfifo"))


def test_ring_that_raises_value_error_passes_when_told_so_but_not_kfifo_exact():
    run(make_state_machine(StrictRing, check_arguments=ValueError), max_examples=100)
    assert STATS.edges["negative count"] and STATS.edges["invalid recsize"] and STATS.edges["wrong type"]
    with pytest.raises(KfifoMismatch, match="raised ValueError"):
        run(make_state_machine(StrictRing, check_arguments="kfifo"), max_examples=300)


def test_argument_checks_of_some_kinds_only():
    STATS.reset()
    run(make_state_machine(StrictRing, check_arguments={"invalid recsize": ValueError}), max_examples=100)
    assert STATS.edges["invalid recsize"]
    assert not STATS.edges["negative count"] and not STATS.edges["wrong type"]


def test_byte_only_ring_without_start_passes():
    machine = make_state_machine(ByteRing)
    assert machine.operations == {"in_", "out", "len", "avail"}
    STATS.reset()
    run(machine)
    assert STATS.ops["in_"] and STATS.ops["out"]
    assert not STATS.ops["in_rec"] and not STATS.ops["size"]


def test_byte_only_ring_bug_is_caught():
    with pytest.raises(KfifoMismatch, match="returned"):
        run(make_state_machine(ByteRingKeepsOneSlot), max_examples=100)


def test_records_only_subset_named_explicitly():
    machine = make_state_machine(LaxRing, operations={"in_rec", "out_rec", "len"}, recsizes=[2])
    STATS.reset()
    run(machine)
    assert STATS.ops["in_rec"] and STATS.ops["out_rec"] and not STATS.ops["in_"] and not STATS.ops["peek_rec"]


def test_correct_model_passes_every_subset_of_features():
    for ops in ({"in_", "out"}, {"from_user", "to_user", "out_into"}, {"in_rec", "peek_rec", "skip_rec"},
                {"in_", "skip", "reset_out", "is_full", "is_empty", "size"}):
        run(make_state_machine(KfifoModel, operations=ops), max_examples=30)


def test_sizes_and_start_options_are_obeyed():
    made = []

    class Recording(LaxRing):
        def __init__(self, size, start=0):
            made.append((size, start))
            super().__init__(size, start)

    run(make_state_machine(Recording, sizes=[4, 16], start=False), max_examples=20)
    assert made and {size for size, _ in made} <= {4, 16} and {start for _, start in made} == {0}
    made.clear()
    run(make_state_machine(Recording), max_examples=20)
    assert any(start > 2 ** 31 for _, start in made)  # start= is found and used


def test_operations_found_on_a_factory_function():
    def make(size, start=0):
        return ByteRing(size)

    assert find_operations(make) == {"in_", "out", "len", "avail"}
    assert find_operations(KfifoModel) >= {"in_", "out_rec", "free", "__len__"}


def test_bad_options_are_refused_with_a_clear_error():
    with pytest.raises(ValueError, match="no way in"):
        make_state_machine(ByteRing, operations={"out", "len"})
    with pytest.raises(ValueError, match="unknown operation"):
        make_state_machine(ByteRing, operations={"in_", "put"})
    with pytest.raises(ValueError, match="recsizes"):
        make_state_machine(LaxRing, recsizes=[3])
    with pytest.raises(TypeError, match="check_arguments"):
        make_state_machine(LaxRing, check_arguments=42)
    with pytest.raises(ValueError, match="unknown kind"):
        make_state_machine(LaxRing, check_arguments={"negative": ValueError})
    assert "negative count" in ARGUMENT_ERRORS


# ---------------------------------------------------------------------- settings
def _python(code):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=120, env=dict(os.environ, KFIFO_HYPOTHESIS_PROFILE=""))


def test_importing_kfifo_testing_leaves_the_users_profiles_alone():
    proc = _python("""
        from hypothesis import settings
        settings.register_profile("ci", max_examples=7)
        settings.register_profile("dev", max_examples=3)
        import kfifo.testing
        from kfifo.model import KfifoModel
        kfifo.testing.make_state_machine(KfifoModel)
        settings.load_profile("ci")
        assert settings.default.max_examples == 7, settings.default
        settings.load_profile("dev")
        assert settings.default.max_examples == 3, settings.default
        try:
            settings.get_profile("kfifo-ci")
        except Exception:
            print("not registered")
    """)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "not registered"


def test_load_profile_maps_short_names_to_kfifo_profiles():
    proc = _python("""
        from hypothesis import settings
        from kfifo.testing import load_profile
        assert load_profile("ci") == "kfifo-ci" and settings.default.max_examples == 200
        assert load_profile() == "kfifo-dev" and settings.default.max_examples == 100
        settings.register_profile("mine", max_examples=9)
        assert load_profile("mine") == "mine" and settings.default.max_examples == 9
    """)
    assert proc.returncode == 0, proc.stderr


def test_machine_settings_drop_only_the_explain_phase():
    phases = make_state_machine(ByteRing).TestCase.settings.phases
    assert Phase.explain not in phases and Phase.shrink in phases and Phase.reuse in phases
