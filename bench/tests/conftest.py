# SPDX-License-Identifier: MIT
"""Smoke tests of the benchmark scripts in bench/python/.

They are not unit tests of kfifo: each runs a script with workloads shrunk
until it takes seconds (the scripts' hidden --smoke flag, or tiny sizes)
and checks that it runs and writes its report.  Nothing here looks at a
timing: benchmarks are never timed assertions.  They need the source
checkout (the scripts live there, not in the installed package), so they
sit apart from tests/ and run as their own stage:

    python -m pytest -q bench/tests          # or: -m bench

Every test here carries the ``bench`` marker.
"""
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parent.parent / "python"


def pytest_configure(config):
    config.addinivalue_line("markers", "bench: a smoke test of a benchmark script (bench/tests)")


def pytest_collection_modifyitems(config, items):
    here = Path(__file__).resolve().parent
    for item in items:
        if here in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.bench)


@pytest.fixture
def run_script(tmp_path):
    """run_script(name, *args, hide=()) runs bench/python/<name> in tmp_path;
    the modules named in ``hide`` fail to import there (a peer "not installed")."""

    def run(name, *args, hide=(), timeout=300):
        env = dict(os.environ)
        if hide:
            shadow = tmp_path / "shadow"
            shadow.mkdir(exist_ok=True)
            for mod in hide:
                (shadow / f"{mod}.py").write_text("raise ImportError('hidden by the test')\n")
            env["PYTHONPATH"] = os.pathsep.join(
                p for p in (str(shadow), env.get("PYTHONPATH")) if p)
        return subprocess.run([sys.executable, str(SCRIPTS / name), *args], cwd=tmp_path,
                              capture_output=True, text=True, timeout=timeout, env=env)

    return run
