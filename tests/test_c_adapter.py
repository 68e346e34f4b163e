# SPDX-License-Identifier: MIT
"""kfifo.testing.CFifo: a C ring buffer tested through ctypes.

The example of the docs, ``examples/c_ring/`` (ring.c and its test,
test_ring.py), is compiled with the system C compiler and must pass; built
with its planted bug it must fail with a reproduction that pastes and runs.
"""
from __future__ import annotations

import importlib.util
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test

from kfifo.testing import C_SIGNATURES, CFifo, KfifoMismatch, find_operations, make_state_machine

EXAMPLE = pathlib.Path(__file__).resolve().parent.parent / "examples" / "c_ring"

if shutil.which(os.environ.get("CC", "cc")) is None:  # pragma: no cover
    pytest.fail("the C adapter tests need a C compiler (cc or $CC)", pytrace=False)


def _load_example():
    spec = importlib.util.spec_from_file_location("c_ring_example", EXAMPLE / "test_ring.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


example = _load_example()
LIB = example.Ring.library
LIB_BUG = example.build(planted_bug=True)

FAST = settings(max_examples=40, stateful_step_count=30, deadline=None, database=None, derandomize=True,
                suppress_health_check=list(HealthCheck), phases=[Phase.generate])


def _pythonpath():
    return os.pathsep.join(filter(None, [str(EXAMPLE), os.environ.get("PYTHONPATH")]))


def _pytest_example(tmp_path, planted_bug):
    env = dict(os.environ, RING_PLANTED_BUG="1" if planted_bug else "0", PYTHONPATH=_pythonpath())
    # From an empty directory, so that Hypothesis's example database lands there.
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "--hypothesis-seed=0", str(EXAMPLE / "test_ring.py")],
                          cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=300)


def test_c_ring_example_passes_under_pytest(tmp_path):
    proc = _pytest_example(tmp_path, planted_bug=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed" in proc.stdout


def test_c_ring_planted_bug_is_caught_with_a_reproduction_that_runs_as_printed(tmp_path):
    proc = _pytest_example(tmp_path, planted_bug=True)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    out = proc.stdout
    assert "kfifo.testing: KfifoStateMachine_Ring: the fifo and the model disagree" in out
    # The reproduction as printed to stderr: between two rulers, no "E " prefix.
    snippet = re.search(r"-{70}\n(# Reproduction.*?)-{70}", out, re.S).group(1)
    assert "from test_ring import Ring" in snippet and "\nE " not in snippet
    script = tmp_path / "repro.py"
    script.write_text(snippet)
    env = dict(os.environ, PYTHONPATH=_pythonpath())
    buggy = subprocess.run([sys.executable, str(script)], env=dict(env, RING_PLANTED_BUG="1"),
                           capture_output=True, text=True, timeout=120)
    assert buggy.returncode == 1 and "AssertionError" in buggy.stderr, buggy.stderr
    fixed = subprocess.run([sys.executable, str(script)], env=dict(env, RING_PLANTED_BUG="0"),
                           capture_output=True, text=True, timeout=120)
    assert fixed.returncode == 0, fixed.stderr


def test_adapter_maps_exactly_the_functions_given():
    ops = find_operations(example.Ring)
    assert ops == {"in_", "out", "skip", "len", "avail", "size", "in_rec", "out_rec", "peek_rec", "skip_rec",
                   "free", "__len__"}
    machine = make_state_machine(example.Ring)
    assert machine.recsizes == (2,)


def test_byte_subset_of_the_c_ring_passes_and_its_bug_is_caught():
    class Bytes(CFifo):
        library = LIB
        functions = {"new": "ring_new", "free": "ring_free", "in_": "ring_put", "out": "ring_get"}

    class BytesBug(CFifo):
        library = LIB_BUG
        functions = Bytes.functions

    assert find_operations(Bytes) == {"in_", "out", "free"}
    run_state_machine_as_test(make_state_machine(Bytes), settings=FAST)
    with pytest.raises(KfifoMismatch):
        run_state_machine_as_test(make_state_machine(BytesBug), settings=settings(FAST, max_examples=200))


def test_adapter_calls_c_and_frees_once():
    ring = example.Ring(5, start=0xFFFFFFFE)
    assert ring.size() == 8 and len(ring) == 0
    assert ring.in_(b"abcdef") == 6 and ring.out(4) == b"abcd"
    assert ring.in_rec(bytearray(b"xyz"), 2) == 0
    assert ring.peek_rec(2) == ord("e") | ord("f") << 8  # "ef" comes first, read as a header
    ring.skip(2)
    assert ring.peek_rec(2) == 3 and ring.out_rec(8, 2) == (0, b"xyz", 3)
    assert ring.out(2 ** 32 - 1) == b""
    with pytest.raises(ValueError, match="2-byte header"):
        ring.in_rec(b"x", 1)
    ring.free()
    ring.free()
    with pytest.raises(ValueError, match="freed"):
        ring.len()


def test_adapter_refuses_a_bad_mapping_with_a_clear_error():
    with pytest.raises(TypeError, match="unknown operation"):
        type("Bad", (CFifo,), {"library": LIB, "functions": {"new": "ring_new", "put": "ring_put"}})
    with pytest.raises(TypeError, match="needs 'new'"):
        type("Bad", (CFifo,), {"library": LIB, "functions": {"in_": "ring_put"}})
    with pytest.raises(TypeError, match="no function 'ring_nothing'"):
        type("Bad", (CFifo,), {"library": LIB, "functions": {"new": "ring_new", "in_": "ring_nothing"}})
    with pytest.raises(ValueError, match="recsize"):
        type("Bad", (CFifo,), {"library": LIB, "recsize": 3, "functions": {"new": "ring_new"}})
    with pytest.raises(TypeError, match="subclass CFifo"):
        CFifo(8)
    assert set(C_SIGNATURES) >= {"new", "in_", "out_rec"}
