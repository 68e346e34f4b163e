# SPDX-License-Identifier: MIT
"""bench/python/bench_notify.py --smoke runs and prints its tables, under
fork and spawn (the consumer process waits on a notifier, or on the
futex, for 20 publications)."""
import pytest


@pytest.mark.parametrize("start", ["fork", "spawn"])
def test_bench_notify_prints_and_writes_its_tables(tmp_path, run_script, start):
    out = tmp_path / "results"
    proc = run_script("bench_notify.py", "--smoke", "--start", start, "--out", str(out), timeout=180)
    assert proc.returncode == 0, proc.stderr
    for text in (proc.stdout, (out / "notify.md").read_text()):
        assert "| consumer | median us | p99 us | samples |" in text
        for consumer in ("selectors", "asyncio", "futex wait_len"):
            assert f"| {consumer} |" in text
        assert "| 20 |" in text
        assert "| ordinary | data notifier armed |" in text
        assert "| shared | no notifier |" in text
        assert f"consumer started with {start}" in text
