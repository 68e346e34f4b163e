# SPDX-License-Identifier: MIT
"""bench/python/bench_calls.py with a few iterations runs and prints every row."""


def test_bench_calls_prints_every_call_and_its_ratio(run_script):
    proc = run_script("bench_calls.py", "--quick", "--iterations", "2000", "--repeats", "1")
    assert proc.returncode == 0, proc.stderr
    for row in ("kfifo in_ + out", "kfifo in_rec + out_rec", "kfifo put_rec + get_rec",
                "kfifo put_recs + get_recs (64/call)", "queue.SimpleQueue put + get",
                "deque append + popleft"):
        assert row in proc.stdout
    assert "1.00x" in proc.stdout  # the reference against itself
    assert "Load average" in proc.stdout
