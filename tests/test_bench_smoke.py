# SPDX-License-Identifier: MIT
"""`python -m kfifo bench --quick` runs and writes its table.

A smoke test only: the hidden --smoke flag shrinks every workload so the
run takes seconds, and nothing here looks at a timing (benchmarks are never
timed assertions).  The C benchmark is left out (--no-c): the C test suite
covers the C core, and its benchmark needs the peers' Debian packages.
"""
import subprocess
import sys


def test_bench_quick_runs_and_writes_its_table(tmp_path):
    out = tmp_path / "results"
    proc = subprocess.run(
        [sys.executable, "-m", "kfifo", "bench", "--quick", "--smoke", "--no-c",
         "--out", str(out)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    table = (out / "bench.md").read_text()
    assert "| kfifo |" in table
    assert "## Targets\n" in table
    assert (out / "python.json").is_file()
    # the printed report is the written one
    assert "## Python: one thread, 16 bytes in then out" in proc.stdout


def test_bench_reports_missing_peers_instead_of_failing(tmp_path):
    # A peer that cannot be imported is shown as such; hiding them all
    # behind a path entry that shadows them must not break the run.
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    for name in ("ringbuf", "faster_fifo", "pa_ringbuffer", "matplotlib"):
        (shadow / f"{name}.py").write_text("raise ImportError('hidden by the test')\n")
    env_path = str(shadow)
    proc = subprocess.run(
        [sys.executable, "-c",
         "import sys; sys.path.insert(0, %r); from kfifo.cli import main; "
         "sys.exit(main(['bench', '--quick', '--smoke', '--no-c', '--out', %r]))"
         % (env_path, str(tmp_path / "r"))],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    table = (tmp_path / "r" / "bench.md").read_text()
    assert "not installed" in table
    assert not (tmp_path / "r" / "python-throughput.png").exists()
