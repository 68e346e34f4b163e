# SPDX-License-Identifier: MIT
"""Crash-safe and nondeterministic rings under kfifo.testing.

examples/crash_ring/wrapring.c computes its fill level in 64 bits and dies
by SIGSEGV once its producer index wraps 2**32: the machine must report the
crash with a shrunk reproduction that crashes the same way when run.  Built
with WRAPRING_GARBAGE it returns heap bytes it never stored: reported as a
mismatch, never as Hypothesis flakiness.  A fifo that fails once and never
again is reported as nondeterministic, with the failing example.
"""
from __future__ import annotations

import importlib.util
import os
import pathlib
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.errors import Flaky

import kfifo.testing
from kfifo.testing import KfifoMismatch, make_state_machine, run_machine

EXAMPLE = pathlib.Path(__file__).resolve().parent.parent / "examples" / "crash_ring"

spec = importlib.util.spec_from_file_location("test_wrapring", EXAMPLE / "test_wrapring.py")
wrapring = importlib.util.module_from_spec(spec)
sys.modules["test_wrapring"] = wrapring  # the reproduction imports WrapRing from it
spec.loader.exec_module(wrapring)

# The defaults' budget, derandomized, shrinking on: what a user's run does.
DEFAULTS = settings(max_examples=100, stateful_step_count=50, deadline=None, database=None, derandomize=True,
                    suppress_health_check=list(HealthCheck), phases=[Phase.generate, Phase.shrink])


@pytest.fixture(autouse=True)
def quiet():
    """No output, and shrinking to the end: the tests check how short the
    reproduction gets, which a busy machine must not cut at 10 s."""
    old = kfifo.testing.PROGRESS, kfifo.testing.PRINT_REPRODUCTION, kfifo.testing.SHRINK_SECONDS
    kfifo.testing.PROGRESS = kfifo.testing.PRINT_REPRODUCTION = False
    kfifo.testing.SHRINK_SECONDS = None
    yield
    kfifo.testing.PROGRESS, kfifo.testing.PRINT_REPRODUCTION, kfifo.testing.SHRINK_SECONDS = old


def test_a_ring_that_crashes_gives_a_shrunk_reproduction_that_crashes(tmp_path):
    with pytest.raises(KfifoMismatch) as info:
        run_machine(make_state_machine(wrapring.WrapRing), settings=DEFAULTS)
    exc = info.value
    assert exc.crashed and exc.crashed.startswith("killed by SIG"), exc.message
    assert "crashed the process the fifo ran in" in exc.message and "wrapring_get()" in exc.message
    snippet = exc.trace.snippet()
    assert len([line for line in snippet.splitlines() if line.startswith(("f.", "assert f."))]) <= 4, snippet
    script = tmp_path / "repro.py"
    script.write_text(snippet)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(EXAMPLE), os.environ.get("PYTHONPATH")])))
    env.pop("WRAPRING_GARBAGE", None)
    replay = subprocess.run([sys.executable, str(script)], env=env, cwd=str(tmp_path),
                            capture_output=True, text=True, timeout=120)
    assert replay.returncode < 0, (replay.returncode, replay.stderr)  # killed by a signal, as in the test


def test_a_ring_that_returns_bytes_it_never_stored_is_the_rings_bug():
    garbage = type("GarbageRing", (wrapring.WrapRing,), {"library": wrapring.build(garbage=True)})
    try:
        run_machine(make_state_machine(garbage), settings=DEFAULTS)
    except Flaky as exc:  # pragma: no cover - what this test guards against
        pytest.fail(f"reported as Hypothesis flakiness: {exc!r}")
    except KfifoMismatch as exc:
        assert "f.out(" in exc.message and "wrapring_get()" in exc.message
    else:
        pytest.fail("the garbage bytes were not caught")


class FailsOnce:
    """Answers wrong exactly once in the whole process: a replay passes."""

    failed = False

    def __init__(self, size):
        self.cap = 1 << (size - 1).bit_length()
        self.buf = b""

    def in_(self, data):
        n = min(len(data), self.cap - len(self.buf))
        self.buf += bytes(data)[:n]
        return n

    def out(self, n):
        got, self.buf = self.buf[:n], self.buf[n:]
        if got and not FailsOnce.failed:
            FailsOnce.failed = True
            return bytes([got[0] ^ 0xFF]) + got[1:]
        return got


def test_a_nondeterministic_fifo_is_reported_with_its_failing_example_not_as_flaky():
    FailsOnce.failed = False
    with pytest.raises(KfifoMismatch) as info:
        run_machine(make_state_machine(FailsOnce), settings=DEFAULTS)
    exc = info.value
    assert exc.nondeterministic
    assert "answered differently when the same calls were replayed" in exc.message
    assert "make_fifo = FailsOnce" in exc.trace.snippet() and "# <-- f.out(" in exc.trace.snippet()
    assert isinstance(exc.__cause__, Flaky)


def test_the_testcase_of_a_nondeterministic_fifo_fails_with_the_mismatch():
    FailsOnce.failed = False
    case = make_state_machine(FailsOnce).TestCase
    case.settings = DEFAULTS
    with pytest.raises(KfifoMismatch):
        case("runTest").runTest()
