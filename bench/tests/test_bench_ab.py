# SPDX-License-Identifier: MIT
"""The A/B benchmark's Python driver (bench/python/bench_ab.py) and the cache
line counter (scripts/cache-lines.py): they run, and the counter's map of an
8-byte message is the one docs/performance.md gives.  The counts come from
a valgrind trace replayed on a model, not from a clock: they are exact."""
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent


def test_bench_ab_lists_its_rows_without_importing_kfifo(run_script):
    proc = run_script("bench_ab.py", "--list", hide=("kfifo",))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["stream64k", "GB/s", "stream16", "GB/s",
                                   "rec16", "Mrec/s", "batch16", "Mrec/s"]


@pytest.mark.parametrize("row", ["stream16", "rec16", "batch16"])
def test_bench_ab_times_a_row_once(run_script, row):
    proc = run_script("bench_ab.py", row, "0.01")
    assert proc.returncode == 0, proc.stderr
    value = float(proc.stdout)
    assert value > 0 and math.isfinite(value)


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="needs valgrind")
@pytest.mark.parametrize("offset", [32, 48])
def test_an_8_byte_message_moves_four_lines_wherever_the_struct_lies(offset):
    # 48: where kfifo-bench's malloc() puts the struct; 32: where @in's
    # group straddled two lines before issue 32 (6 and 8 moves then)
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "cache-lines.py"), "--buddy",
         "--offset", str(offset), "msg8"],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    calls = [line.split() for line in proc.stdout.splitlines() if line.endswith("per call")]
    summary = {" ".join(c[1:c.index("misses")]) + " " + c[0]: (c[-5], c[-3]) for c in calls}
    assert summary == {
        "kfifo_in producer": ("0.0,", "2.0"),
        "kfifo_out consumer": ("2.0,", "0.0"),
        "kfifo_out (empty) consumer": ("0.0,", "0.0"),
    }
