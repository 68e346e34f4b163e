# SPDX-License-Identifier: MIT
"""bench/python/bench_peers.py --quick --smoke runs and writes its table.

The real C benchmark is left out (--no-c, or a stand-in): the C test suite
covers the C core, and its benchmark needs the peers' Debian packages.
"""
import sys


def test_bench_peers_runs_and_writes_its_table(tmp_path, run_script):
    out = tmp_path / "results"
    proc = run_script("bench_peers.py", "--quick", "--smoke", "--no-c", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    table = (out / "bench.md").read_text()
    assert "| kfifo |" in table
    assert "## Goals" in table
    assert "issue" not in table.lower()
    assert "Load average" in table
    assert (out / "python.json").is_file()
    # the printed report is the written one
    assert "## Python: one thread, 16 bytes in then out" in proc.stdout


def test_bench_peers_reports_missing_peers_instead_of_failing(tmp_path, run_script):
    out = tmp_path / "r"
    proc = run_script("bench_peers.py", "--quick", "--smoke", "--no-c", "--out", str(out),
                      hide=("ringbuf", "faster_fifo", "pa_ringbuffer", "matplotlib"))
    assert proc.returncode == 0, proc.stderr
    table = (out / "bench.md").read_text()
    assert "not installed" in table
    assert not (out / "python-throughput.png").exists()


def test_bench_peers_rejects_an_unknown_option(run_script):
    proc = run_script("bench_peers.py", "--no-such-option")
    assert proc.returncode == 2
    assert "unrecognized arguments: --no-such-option" in proc.stderr


def test_bench_peers_refuses_bad_arguments_before_measuring(tmp_path, run_script):
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    for args, message in ((["--reps", "0"], "must be at least 1, got 0"),
                          (["--reps", "x"], "not an integer: 'x'"),
                          (["--out", str(a_file)], "cannot create directory")):
        proc = run_script("bench_peers.py", *args)
        assert proc.returncode == 2, (args, proc.stderr)
        assert message in proc.stderr, (args, proc.stderr)
        assert "Traceback" not in proc.stderr


FAKE_C_BENCH = '''#!{python}
import json, sys
args = sys.argv[1:]
json.dump({{"stream_gbps": [{{"impl": "kfifo", "chunk": 65536, "median": 10.0}},
                            {{"impl": "memcpy", "chunk": 65536, "median": 40.0, "kfifo_ratio": 0.25}}],
           "records_mops": [{{"name": "kfifo records 16 B (recsize 1)", "size": 16, "median": 40.0}}],
           "pingpong16_ns": [{{"impl": "kfifo", "median": 12.5}}]}},
          open(args[args.index("--json") + 1], "w"))
open(args[args.index("--md") + 1], "w").write("## C: the fake C benchmark\\n")
'''


def test_bench_peers_puts_python_beside_c(tmp_path, run_script):
    # A stand-in for the C benchmark: the report joins its medians and sets
    # Python's figures for the same workloads beside them.
    fake = tmp_path / "kfifo-bench"
    fake.write_text(FAKE_C_BENCH.format(python=sys.executable))
    fake.chmod(0o755)
    out = tmp_path / "r"
    proc = run_script("bench_peers.py", "--quick", "--smoke", "--no-plot", "--c-binary", str(fake),
                      "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    table = (out / "bench.md").read_text()
    assert "## Python against C: the binding's cost" in table
    # the goal's row (blocking calls, pinned), then polling, then unpinned
    assert ("| two threads, 64 KiB chunks, `put`/`get_into` (blocking) vs `kfifo_in`/`kfifo_out` "
            "(spinning), threads pinned to two CPUs in both |") in table
    assert "| the same, `in_`/`out_into` polling with `time.sleep(0)` |" in table
    assert "| the same, `put`/`get_into`, Python's threads not pinned |" in table
    assert "| 10.000 GB/s |" in table and "| 40.000 M/s |" in table
    assert "| one thread, 16 B `in_` + `out` vs `kfifo_in` + `kfifo_out`" in table
    assert "| 12.5 ns |" in table
    assert "Python 64 KiB two-thread stream ≥ 0.8× the same in C" in table
    assert "## C: the fake C benchmark" in table
