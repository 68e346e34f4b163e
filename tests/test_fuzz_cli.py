# SPDX-License-Identifier: MIT
"""``python -m kfifo fuzz``: exit 0 on the C core, exit 1 and a runnable
reproduction on a broken fifo (``KFIFO_FUZZ_FACTORY``)."""
import os
import pathlib
import subprocess
import sys


TESTS = pathlib.Path(__file__).resolve().parent


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TESTS), env.get("PYTHONPATH")]))
    env.pop("KFIFO_FUZZ_FACTORY", None)
    return env


def fuzz(*args, factory=None, timeout=240, cwd=TESTS):
    env = _env()
    if factory:
        env["KFIFO_FUZZ_FACTORY"] = factory
    return subprocess.run([sys.executable, "-m", "kfifo", "fuzz", *args], env=env, cwd=str(cwd),
                          capture_output=True, text=True, timeout=timeout)


def test_fuzz_on_the_c_core_passes_and_reports_coverage(tmp_path):
    proc = fuzz("--seconds", "2", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "fuzzing kfifo.Kfifo" in out
    assert "examples" in out and "steps" in out and "operations" in out  # progress line
    assert "no mismatch" in out
    assert "edge cases (" in out and "in wraps 2**32" in out  # coverage summary


def test_fuzz_on_a_broken_fifo_exits_1_with_a_runnable_reproduction(tmp_path):
    proc = fuzz("--seconds", "60", "--quiet", factory="test_planted_bugs:PeekAvail", cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    out = proc.stdout
    assert "MISMATCH" in out
    assert "make_fifo = PeekAvail" in out
    assert "# <--" in out  # the failing call is marked
    snippet = out[out.index("# Reproduction"):]
    script = tmp_path / "repro.py"
    script.write_text(snippet)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")])))
    replay = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=60)
    assert replay.returncode == 1
    assert "AssertionError" in replay.stderr


def test_a_failure_found_by_fuzz_replays_from_the_example_database(tmp_path):
    proc = fuzz("--seconds", "60", "--quiet", factory="test_planted_bugs:AvailOffByOne", cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "example database" in proc.stdout
    assert (tmp_path / ".hypothesis" / "examples").is_dir()
    # What a pytest run of make_state_machine(AvailOffByOne).TestCase does from
    # that directory: the reuse phase alone finds the failure again (the
    # database named, as CI=true makes Hypothesis turn its default off).
    replay = subprocess.run([sys.executable, "-c", (
        "from hypothesis import Phase, settings\n"
        "from hypothesis.database import DirectoryBasedExampleDatabase\n"
        "from hypothesis.stateful import run_state_machine_as_test\n"
        "from kfifo.testing import KfifoMismatch, make_state_machine\n"
        "from test_planted_bugs import AvailOffByOne\n"
        "try:\n"
        "    run_state_machine_as_test(make_state_machine(AvailOffByOne),\n"
        "                              settings=settings(phases=[Phase.reuse], deadline=None,\n"
        "                                  database=DirectoryBasedExampleDatabase('.hypothesis/examples')))\n"
        "except KfifoMismatch:\n"
        "    print('replayed')\n")],
        cwd=str(tmp_path), env=_env(), capture_output=True, text=True, timeout=120)
    assert replay.stdout.strip() == "replayed", replay.stdout + replay.stderr


def test_fuzz_hidden_factory_option_wins_over_the_environment(tmp_path):
    proc = fuzz("--seconds", "60", "--quiet", "--factory", "test_planted_bugs:AvailOffByOne",
                factory="kfifo.model:KfifoModel", cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "make_fifo = AvailOffByOne" in proc.stdout


def test_fuzz_refuses_a_bad_factory_spec():
    proc = fuzz("--seconds", "1", factory="no_such_module_here:thing")
    assert proc.returncode == 2
    assert "cannot load the factory" in proc.stderr


def test_fuzz_help_documents_the_factory_variable():
    proc = fuzz("--help")
    assert proc.returncode == 0
    assert "KFIFO_FUZZ_FACTORY=module:callable" in proc.stdout
    assert "--seconds" in proc.stdout


def test_demo_runs_and_its_threads_deliver_every_byte_in_order():
    proc = subprocess.run([sys.executable, "-m", "kfifo", "demo"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "out_rec(64, 1)" in proc.stdout
    assert "got 1000 bytes" in proc.stdout and "in order: True" in proc.stdout
    assert "get(1) -> b'' (end of stream)" in proc.stdout


_BYTE_RING = '''
class Ring:
    """A byte ring without records or start=: only what it can do is counted."""

    def __init__(self, size):
        self.cap = 1 << (size - 1).bit_length()
        self.buf = b""

    def in_(self, data):
        n = min(len(data), self.cap - len(self.buf))
        self.buf += bytes(data)[:n]
        return n

    def out(self, n):
        got, self.buf = self.buf[:n], self.buf[n:]
        return got

    def len(self):
        return len(self.buf)
'''


def _console_script():
    script = pathlib.Path(sys.executable).with_name("kfifo")
    if not script.exists():  # pragma: no cover - an install without console scripts
        import pytest

        pytest.fail(f"the kfifo console script is not next to {sys.executable}", pytrace=False)
    return script


def test_console_script_imports_the_factory_from_the_current_directory(tmp_path):
    (tmp_path / "myring_cli.py").write_text(_BYTE_RING)
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env.pop("KFIFO_FUZZ_FACTORY", None)
    proc = subprocess.run([str(_console_script()), "fuzz", "--seconds", "1", "--quiet",
                           "--factory", "myring_cli:Ring"],
                          env=env, cwd=str(tmp_path), capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "fuzzing myring_cli:Ring" in out and "no mismatch" in out
    # Coverage only of what this ring has: 3 operations, no record or
    # 2**32-wrap edges, and no "run longer" hint for edges it cannot reach.
    assert "operations (3/3 covered)" in out
    assert "in wraps 2**32" not in out and "out_rec success" not in out


def test_fuzz_without_hypothesis_names_the_extra_in_one_line_and_exits_3(tmp_path):
    (tmp_path / "sitecustomize.py").write_text("import sys\nsys.modules['hypothesis'] = None\n")
    env = _env()
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env["PYTHONPATH"]])
    proc = subprocess.run([sys.executable, "-m", "kfifo", "fuzz", "--seconds", "1"], env=env,
                          cwd=str(tmp_path), capture_output=True, text=True, timeout=60)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert proc.stderr.strip().splitlines() == [
        "kfifo fuzz: needs Hypothesis, which is not installed: pip install 'kfifo[testing]'"]
    assert "Traceback" not in proc.stderr


def test_fuzz_reports_a_crashing_c_ring_with_a_reproduction(tmp_path):
    crash_ring = TESTS.parent / "examples" / "crash_ring"
    env = _env()
    env["PYTHONPATH"] = os.pathsep.join([str(crash_ring), env["PYTHONPATH"]])
    proc = subprocess.run([sys.executable, "-m", "kfifo", "fuzz", "--seconds", "60", "--quiet",
                           "--factory", "test_wrapring:WrapRing"], env=env, cwd=str(tmp_path),
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "CRASH: the fifo killed the process it ran in (killed by SIG" in proc.stdout
    assert "crashed the process the fifo ran in" in proc.stdout and "make_fifo = WrapRing" in proc.stdout
