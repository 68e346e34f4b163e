# SPDX-License-Identifier: MIT
"""kfifo.testing on rings it did not write: JACK, Boost spsc_queue, ck_ring
(examples/third_party/rings.py), each with its capacity model, and the C
types of CFifo's declared prototypes.

The three rings must pass (no false alarm); the same rings under the wrong
capacity model must fail, which shows the model checks the capacity.  A
ring whose Debian package cannot be had (scripts/install-deps.sh installs
libjack-jackd2-dev, libboost-dev and libck-dev) is skipped, naming it.
"""
from __future__ import annotations

import importlib.util
import os
import pathlib
import shutil
import subprocess
import tempfile

import pytest
from hypothesis import HealthCheck, Phase, settings

from kfifo.testing import CFifo, KfifoMismatch, make_state_machine, run_machine

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _load(path: pathlib.Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


rings = _load(ROOT / "examples" / "third_party" / "rings.py", "third_party_rings")

# The default number of examples, derandomized: the same calls on every run.
PASSES = settings(max_examples=100, stateful_step_count=50, deadline=None, database=None, derandomize=True,
                  suppress_health_check=list(HealthCheck), phases=[Phase.generate])
FINDS = settings(PASSES, max_examples=300)


def _ring(name):
    if name in rings.MISSING:
        package, why = rings.MISSING[name]
        pytest.skip(f"{name} needs the Debian package {package} ({why}); scripts/install-deps.sh installs it")
    return rings.RINGS[name]


@pytest.mark.parametrize("name", sorted(rings.RINGS))
def test_third_party_ring_passes_with_its_capacity_model(name):
    ring = _ring(name)
    run_machine(make_state_machine(ring), settings=PASSES)


@pytest.mark.parametrize("name, wrong", [("JackRing", "pow2"), ("BoostSpscRing", "pow2-1"), ("CkRing", "exact")])
def test_the_model_checks_the_capacity(name, wrong):
    ring = _ring(name)
    with pytest.raises(KfifoMismatch):
        run_machine(make_state_machine(ring, capacity=wrong), settings=FINDS)


def test_jack_skip_past_len_is_outside_its_contract_and_asked_only_when_allowed():
    ring = _ring("JackRing")
    bold = type("JackSkipsPastLen", (ring,), {"skip_past_len": True})
    with pytest.raises(KfifoMismatch, match="jack_ringbuffer"):
        run_machine(make_state_machine(bold), settings=FINDS)


# ----------------------------------------------------------------------
# Declared C types
# ----------------------------------------------------------------------
def _build_c_ring(extra: str = "") -> pathlib.Path:
    """examples/c_ring/ring.c plus ``extra`` C, as a shared library."""
    cc = shutil.which(os.environ.get("CC", "cc"))
    if cc is None:  # pragma: no cover
        pytest.fail("these tests need a C compiler (cc or $CC)", pytrace=False)
    out = pathlib.Path(tempfile.mkdtemp(prefix="kfifo-ctypes-"))
    (out / "extra.c").write_text('#include <stddef.h>\n#include "ring.h"\n' + extra)
    subprocess.run([cc, "-std=c11", "-O1", "-shared", "-fPIC", "-I", str(ROOT / "examples" / "c_ring"),
                    "-o", str(out / "libring.so"), str(ROOT / "examples" / "c_ring" / "ring.c"), str(out / "extra.c")],
                   check=True)
    return out / "libring.so"


BASE = {"new": "struct ring *ring_new(unsigned int size)", "free": "void ring_free(struct ring *r)",
        "in_": "unsigned int ring_put(struct ring *r, const void *from, unsigned int n)",
        "out": "unsigned int ring_get(struct ring *r, void *to, unsigned int n)"}


def test_a_64_bit_len_wrong_in_its_upper_half_is_caught():
    lib = _build_c_ring("size_t ring_len64(const struct ring *r) { return ring_len(r) + ((size_t)1 << 32); }\n")
    ring = type("Len64", (CFifo,), {"library": lib, "functions": dict(BASE, len="size_t ring_len64(const struct ring *r)")})
    with pytest.raises(KfifoMismatch, match=r"returned 42949672\d\d; expected \d+ \[len is ring_len64\(\)"):
        run_machine(make_state_machine(ring), settings=PASSES)


def test_a_prototype_that_does_not_fit_the_operation_is_refused_naming_the_function():
    lib = _build_c_ring()
    with pytest.raises(TypeError, match=r"ring_get.*2 parameter\(s\), 3 expected"):
        type("Short", (CFifo,), {"library": lib,
                                 "functions": dict(BASE, out="unsigned int ring_get(struct ring *r, void *to)")})
    with pytest.raises(TypeError, match=r"ring_get.*parameter 3 is 'void \*', an integer \(a count\) expected"):
        type("Pointer", (CFifo,), {"library": lib,
                                   "functions": dict(BASE, out="unsigned int ring_get(struct ring *, void *, void *)")})
    with pytest.raises(TypeError, match=r"ring_len.*returns 'void'"):
        type("Void", (CFifo,), {"library": lib, "functions": dict(BASE, len="void ring_len(const struct ring *r)")})
    with pytest.raises(TypeError, match=r"struct by value"):
        type("ByValue", (CFifo,), {"library": lib, "functions": dict(BASE, len="unsigned ring_len(struct ring r)")})


def test_a_count_larger_than_asked_for_is_reported_naming_the_function():
    # long in C is ssize_t on the platforms ctypes runs these tests on
    lib = _build_c_ring("long ring_get_more(struct ring *r, void *to, size_t n)"
                        " { return (long)ring_get(r, to, (unsigned)n) + (n ? 1 : 0); }\n")
    ring = type("More", (CFifo,), {"library": lib,
                                   "functions": dict(BASE, out="ssize_t ring_get_more(struct ring *r, void *to, size_t n)")})
    with pytest.raises(KfifoMismatch, match=r"ring_get_more\(\) \(mapped to out\) returned \d+, more than"):
        run_machine(make_state_machine(ring), settings=PASSES)
