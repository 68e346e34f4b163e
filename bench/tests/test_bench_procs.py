# SPDX-License-Identifier: MIT
"""bench/python/bench_procs.py --quick --smoke runs and prints its table.

The hidden --smoke flag shrinks every workload to a few thousand records
and a few MiB, one run each.  faster-fifo and pyzmq are optional: hidden
behind a module that fails to import, each shows as "not installed".
"""
import pytest


def check_table(text):
    assert "| workload | kfifo | rate | peer | rate | median paired ratio | target | |" in text
    assert "| 16 B records | kfifo put_rec/get_rec |" in text
    assert "multiprocessing.Queue put/get" in text
    assert "multiprocessing.Pipe send_bytes/recv_bytes_into" in text
    assert "2 threads of 1 process" in text
    assert "pyzmq PUSH/PULL ipc:// send/recv |" in text
    assert "pyzmq PUSH/PULL ipc:// send/recv_into |" in text
    assert "| 16 B records, batched | kfifo put_recs/get_recs (256/call) |" in text
    assert "send_multipart/recv_multipart (256 frames)" in text
    assert "256 records joined per message, cut by the consumer" in text


@pytest.mark.parametrize("start", ["fork", "spawn"])
def test_bench_procs_prints_and_writes_its_table(tmp_path, run_script, start):
    out = tmp_path / "results"
    proc = run_script("bench_procs.py", "--quick", "--smoke", "--start", start,
                      "--out", str(out), timeout=120)
    assert proc.returncode == 0, proc.stderr
    check_table(proc.stdout)
    assert f"start method {start}" in proc.stdout
    check_table((out / "procs.md").read_text())


def test_bench_procs_without_faster_fifo_and_pyzmq(run_script):
    proc = run_script("bench_procs.py", "--quick", "--smoke", hide=("faster_fifo", "zmq"),
                      timeout=120)
    assert proc.returncode == 0, proc.stderr
    check_table(proc.stdout)
    assert "| faster-fifo put/get_many | not installed" in proc.stdout
    assert "| pyzmq PUSH/PULL ipc:// send/recv | not installed (pip install pyzmq)" in proc.stdout
