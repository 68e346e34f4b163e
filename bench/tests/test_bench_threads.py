# SPDX-License-Identifier: MIT
"""bench/python/bench_threads.py with tiny sizes runs and prints every row."""


def test_bench_threads_prints_every_workload(run_script):
    proc = run_script("bench_threads.py", "--repeats", "1", "--mb", "1", "--records", "2000")
    assert proc.returncode == 0, proc.stderr
    for title in ("65536 B chunks: median of 1 paired runs", "16 B records: median of 1 paired runs",
                  "zero-copy, 4096 B chunks, 1 thread"):
        assert title in proc.stdout
    assert "kfifo put_rec/get_rec, 2 threads" in proc.stdout
    assert "kfifo put_recs/get_recs (256/call), 2 threads" in proc.stdout
    assert "kfifo put_rec/records(), 2 threads" in proc.stdout
    assert "this / SimpleQueue:" in proc.stdout
    assert "Load average" in proc.stdout


def test_bench_threads_reports_a_missing_peer(run_script):
    proc = run_script("bench_threads.py", "--repeats", "1", "--mb", "1", "--records", "2000",
                      hide=("janus",))
    assert proc.returncode == 0, proc.stderr
    assert "janus sync_q, 2 threads" in proc.stdout
    assert "not installed (pip install janus)" in proc.stdout
    assert "queue.SimpleQueue, 2 threads" in proc.stdout
