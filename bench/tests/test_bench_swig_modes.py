# SPDX-License-Identifier: MIT
"""Smoke test of bench/swig/modes.sh, the measurement behind the binding's
hand-written types (bench/results/swig-modes.md): it builds the probe type
three ways and prints its table; --smoke leaves out the callgrind counts."""
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "swig" / "modes.sh"


def test_modes_builds_the_three_ways_and_reads_what_a_user_sees():
    out = subprocess.run(["bash", str(SCRIPT), "--smoke"], env={"PATH": "/usr/bin:/bin", "PYTHON": sys.executable},
                         capture_output=True, text=True, timeout=600, check=True).stdout
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
            for line in out.splitlines() if line.startswith("| ") and not line.startswith("| way")}
    assert sorted(rows) == ["builtin", "hand", "standard"], out
    # the hand type: the signature from its docstring, a method before
    # __init__ returns, nothing beyond its three methods
    assert rows["hand"][3:] == ["($self, x, /)", "returned", "none"], out
    # SWIG's two types were built, imported and called
    for way in ("builtin", "standard"):
        assert rows[way][5] != "none" and "this" in rows[way][5].split(", "), out
