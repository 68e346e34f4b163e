# SPDX-License-Identifier: MIT
"""bench/bench_procs.py --quick --smoke runs and prints its table.

A smoke test only: the hidden --smoke flag shrinks every workload to a few
thousand records and a few MiB, one run each, and nothing here looks at a
timing (benchmarks are never timed assertions).  faster-fifo is optional:
hidden behind a module that fails to import, it shows as "not installed".
"""
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "bench" / "bench_procs.py"


def run(tmp_path, *args, env=None):
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--smoke", *args],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env,
    )


def check_table(text):
    assert "| workload | kfifo | rate | peer | rate | median paired ratio | target | |" in text
    assert "| 16 B records | kfifo put_rec/get_rec |" in text
    assert "multiprocessing.Queue put/get" in text
    assert "multiprocessing.Pipe send_bytes/recv_bytes_into" in text
    assert "2 threads of 1 process" in text


@pytest.mark.parametrize("start", ["fork", "spawn"])
def test_bench_procs_smoke_prints_and_writes_its_table(tmp_path, start):
    out = tmp_path / "results"
    proc = run(tmp_path, "--start", start, "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    check_table(proc.stdout)
    assert f"start method {start}" in proc.stdout
    written = (out / "procs.md").read_text()
    check_table(written)


def test_bench_procs_smoke_without_faster_fifo(tmp_path):
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "faster_fifo.py").write_text("raise ImportError('hidden by the test')\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(shadow), env.get("PYTHONPATH")) if p)
    proc = run(tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr
    check_table(proc.stdout)
    assert "| faster-fifo put/get_many | not installed" in proc.stdout
