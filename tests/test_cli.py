# SPDX-License-Identifier: MIT
"""``python -m kfifo``: every bad argument is a usage error (exit status 2,
argparse's message naming the argument, no traceback), ``--version``, and
help texts that a user can act on."""
import pathlib
import re
import subprocess
import sys

import pytest

import kfifo

TESTS = pathlib.Path(__file__).resolve().parent


def kfifo_cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "kfifo", *args], cwd=str(cwd or TESTS),
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("args, argument, says", [
    (["demo", "--size", "0"], "--size", "between 1 and 2147483648, got 0"),
    (["demo", "--size", "-16"], "--size", "got -16"),
    (["demo", "--size", str(2**31 + 1)], "--size", "got 2147483649"),
    (["demo", "--size", "big"], "--size", "not an integer: 'big'"),
    (["fuzz", "--steps", "0"], "--steps", "at least 1, got 0"),
    (["fuzz", "--steps", "1.5"], "--steps", "not an integer"),
    (["fuzz", "--seconds", "-1"], "--seconds", "greater than 0, got -1"),
    (["fuzz", "--seconds", "0"], "--seconds", "greater than 0, got 0"),
    (["fuzz", "--seconds", "nan"], "--seconds", "got nan"),
    (["fuzz", "--seconds", "inf"], "--seconds", "got inf"),
])
def test_bad_argument_is_a_usage_error_without_traceback(args, argument, says, tmp_path):
    proc = kfifo_cli(*args, cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"error: argument {argument}: " in proc.stderr
    assert says in proc.stderr
    assert proc.stderr.startswith("usage: kfifo " + args[0])
    assert proc.stdout == ""
    assert list(tmp_path.iterdir()) == []  # nothing ran, nothing written


def test_version_prints_the_package_version():
    proc = kfifo_cli("--version")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"kfifo {kfifo.__version__}"


def test_fuzz_help_documents_factory():
    proc = kfifo_cli("fuzz", "--help")
    assert proc.returncode == 0
    # argparse titles the section "options:" from 3.10, "optional arguments:" before
    options = re.split(r"^(?:optional arguments|options):$", proc.stdout, maxsplit=1, flags=re.M)[1]
    assert "--factory MODULE:CALLABLE" in options
    assert "KFIFO_FUZZ_FACTORY" in options


def test_help_texts_have_no_project_internal_wording():
    for verb in ("demo", "fuzz"):
        text = kfifo_cli(verb, "--help").stdout.lower()
        assert "issue" not in text and "api.md" not in text and "not listed" not in text


def test_main_module_runs_nothing_when_imported():
    # stubtest and Sphinx import every module: importing __main__ must not exit
    proc = subprocess.run([sys.executable, "-c", "import kfifo.__main__; print('imported')"],
                          capture_output=True, text=True, timeout=60, cwd=str(TESTS))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "imported"


def test_demo_accepts_the_smallest_size(tmp_path):
    proc = kfifo_cli("demo", "--size", "1", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "a fifo of 1 bytes" in proc.stdout


def test_bench_is_not_a_verb_of_the_installed_package():
    # the benchmarks need a checkout (peers, the C build, bench/results):
    # they run as python bench/python/bench_peers.py
    proc = kfifo_cli("bench")
    assert proc.returncode == 2
    assert "invalid choice: 'bench'" in proc.stderr
    assert "Traceback" not in proc.stderr
