# SPDX-License-Identifier: MIT
"""bench/python/bench_async.py with tiny sizes runs and prints every table."""


def test_bench_async_prints_every_workload_and_the_targets(run_script):
    proc = run_script("bench_async.py", "--repeats", "1", "--records", "2000", "--proc-records", "500", "--mb", "2")
    assert proc.returncode == 0, proc.stderr
    for title in ("16 B records, producer thread -> asyncio consumer",
                  "64 KiB chunks, producer thread -> asyncio consumer",
                  "16 B records, producer process -> asyncio consumer"):
        assert title in proc.stdout
    for row in ("kfifo aio get_recs", "call_soon_threadsafe + asyncio.Queue", "kfifo aio get_recs, shared fifo",
                "kfifo two threads (sync)", "run_in_executor(None, mp.Queue.get)"):
        assert f"| {row} |" in proc.stdout
    assert "- records, process:" in proc.stdout and "Load average" in proc.stdout


def test_bench_async_reports_missing_peers(run_script):
    proc = run_script("bench_async.py", "--repeats", "1", "--records", "2000", "--proc-records", "500", "--mb", "2",
                      hide=("janus", "aioprocessing"))
    assert proc.returncode == 0, proc.stderr
    assert "| janus | not installed (pip install janus) |" in proc.stdout
    assert "| aioprocessing AioQueue | not installed (pip install aioprocessing) |" in proc.stdout
