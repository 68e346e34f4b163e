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


@pytest.fixture(scope="module")
def ab_bench(tmp_path_factory):
    """bench/c/ab_bench.c linked with the working tree's library, built the
    way scripts/bench-ab.sh builds each side (its build() function)."""
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        pytest.skip("needs a C compiler")
    out = tmp_path_factory.mktemp("ab")
    flags = ["-std=c11", "-O2", "-DNDEBUG", "-fPIC", "-fvisibility=hidden", "-pthread"]
    objs = []
    for src in sorted((ROOT / "c" / "src").glob("*.c")):
        obj = out / (src.stem + ".o")
        subprocess.run([cc, *flags, "-I", str(ROOT / "c" / "include"), "-c", str(src),
                        "-o", str(obj)], check=True)
        objs.append(str(obj))
    exe = out / "ab-bench"
    subprocess.run([cc, *flags, "-D_GNU_SOURCE", "-I", str(ROOT / "c" / "include"),
                    "-I", str(ROOT / "bench" / "c"), str(ROOT / "bench" / "c" / "ab_bench.c"),
                    *objs, "-o", str(exe)], check=True)
    return exe


@pytest.mark.parametrize("row", ["msg8", "stream64", "stream4096"])
def test_ab_bench_polls_prints_the_figure_and_two_shares(ab_bench, row):
    proc = subprocess.run([str(ab_bench), row, "0.02", "--polls"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    figure, empty, short = (float(v) for v in proc.stdout.split())
    assert figure > 0 and math.isfinite(figure)
    # shares of calls: the consumer called at least once per chunk, so at
    # most all but those found it empty; likewise the producer's short calls
    assert 0.0 <= empty < 1.0 and 0.0 <= short < 1.0


def test_ab_bench_without_polls_prints_one_figure(ab_bench):
    proc = subprocess.run([str(ab_bench), "stream64", "0.02"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert len(proc.stdout.split()) == 1 and float(proc.stdout) > 0


@pytest.mark.parametrize("args", [["ping16", "0.02", "--polls"], ["c2c", "0.02", "--polls"],
                                  ["msg8_rec0", "0.02", "--polls"], ["msg8", "0.02", "--bad"]])
def test_ab_bench_polls_is_refused_where_it_counts_nothing(ab_bench, args):
    proc = subprocess.run([str(ab_bench), *args], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "ab-bench" in proc.stderr or "usage" in proc.stderr
