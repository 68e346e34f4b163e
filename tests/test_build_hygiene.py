# SPDX-License-Identifier: MIT
"""Build and test hygiene of the tree itself (README "Tests"): every script
answers ``--help`` without running anything, every extra names the same
tools on every supported Python, and a user's ``-O`` level wins over the
build type's."""
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent

# every runnable script; scripts/toolchain.sh is sourced, not run
SCRIPTS = sorted(
    [p for p in ROOT.glob("scripts/*.sh") if p.name != "toolchain.sh"]
    + list(ROOT.glob("scripts/*.py")) + list(ROOT.glob("bench/run-*.sh"))
    + [ROOT / "run-tests", ROOT / "c/tests/run-c-tests.sh", ROOT / "c/tests/install/check.sh"]
)


def snapshot(tree: pathlib.Path):
    return sorted(str(p.relative_to(tree)) for p in tree.rglob("*"))


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_help_prints_the_usage_and_runs_nothing(script, tmp_path):
    # a copy of the tree's scripts, so that anything --help made would show
    tree = tmp_path / "tree"
    for part in ("scripts", "c/tests/install", "tests", "bench"):  # detection_rate.py imports tests/
        shutil.copytree(ROOT / part, tree / part,
                        ignore=shutil.ignore_patterns("__pycache__", "build", "results"))
    shutil.copy2(ROOT / "run-tests", tree / "run-tests")
    shutil.copy2(ROOT / "c/tests/run-c-tests.sh", tree / "c/tests/run-c-tests.sh")
    shutil.copy2(ROOT / "pyproject.toml", tree / "pyproject.toml")
    before = snapshot(tree)
    copy = tree / script.relative_to(ROOT)
    cmd = [sys.executable, str(copy)] if copy.suffix == ".py" else ["bash", str(copy)]
    # the timeout only guards against a hang (a --help that starts a run)
    proc = subprocess.run(cmd + ["--help"], cwd=str(tmp_path), capture_output=True, text=True,
                          timeout=120, env=dict(os.environ, KFIFO_NO_INSTALL_DEPS="1"))
    assert proc.returncode == 0, proc.stderr
    assert len(proc.stdout.splitlines()) >= 3, proc.stdout
    assert snapshot(tree) == before, "--help wrote into the tree"
    assert sorted(os.listdir(tmp_path)) == ["tree"], "--help wrote into its working directory"


def extras():
    """{extra: [requirement strings]} from pyproject.toml."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    section = text.split("[project.optional-dependencies]", 1)[1].split("\n[", 1)[0]
    return {m.group(1): re.findall(r'"([^"]+)"', m.group(2))
            for m in re.finditer(r"^(\w+)\s*=\s*\[(.*?)\]", section, re.M | re.S)}


def claimed_pythons():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    return re.findall(r'"Programming Language :: Python :: (3\.\d+)"', text)


def test_every_extra_names_the_same_tools_on_every_supported_python():
    # Sphinx 9 needs 3.11, mypy 2 needs 3.10: the extras pin other releases
    # for the older Pythons by environment marker; none may lose a tool or
    # name one twice there
    from packaging.requirements import Requirement

    versions = claimed_pythons()
    assert versions[0] == "3.9" and len(versions) >= 5, versions
    for extra, reqs in extras().items():
        names = {Requirement(r).name.lower() for r in reqs}
        for v in versions:
            env = {"python_version": v, "python_full_version": v + ".0", "sys_platform": "linux"}
            active = [Requirement(r).name.lower() for r in reqs
                      if Requirement(r).marker is None or Requirement(r).marker.evaluate(env)]
            assert sorted(active) == sorted(names), (extra, v, active)


def cmake():
    exe = shutil.which("cmake")
    if exe is None:
        try:
            import cmake as pypi_cmake  # the PyPI package, if installed
            exe = os.path.join(pypi_cmake.CMAKE_BIN_DIR, "cmake")
        except ImportError:
            pytest.skip("no cmake here (the C stage of ./run-tests has one)")
    return exe


def compile_command(tmp_path, cflags):
    build = tmp_path / ("build" + str(len(os.listdir(tmp_path))))
    env = dict(os.environ)
    # a plain configure: no CFLAGS of ours, no sanitizer runtime preloaded
    # into cmake and the compilers (scripts/test-binding-asan.sh sets one)
    for name in ("CFLAGS", "LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS"):
        env.pop(name, None)
    if cflags is not None:
        env["CFLAGS"] = cflags
    subprocess.run([cmake(), "-S", str(ROOT), "-B", str(build), "-DKFIFO_BUILD_TESTS=OFF",
                    "-DKFIFO_INSTALL=OFF", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"],
                   env=env, check=True, capture_output=True, timeout=600)
    text = (build / "compile_commands.json").read_text(encoding="utf-8")
    m = re.search(r'"command": "([^"]*/c/src/kfifo\.c)"', text)
    assert m, text[:2000]
    return m.group(1).split()


def test_a_users_optimisation_level_wins_over_the_build_types(tmp_path):
    default = compile_command(tmp_path, None)
    assert "-O2" in default and "-g" in default  # RelWithDebInfo
    mine = compile_command(tmp_path, "-O3")
    assert [f for f in mine if f.startswith("-O")] == ["-O3"], mine
    assert "-g" in mine and "-DNDEBUG" in mine  # the rest of RelWithDebInfo stays
