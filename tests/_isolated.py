# SPDX-License-Identifier: MIT
"""Run test code in a child interpreter: what could crash or hang fails
the test (a negative returncode, a TimeoutExpired) instead of the run."""
import subprocess
import sys
import textwrap

# Python 3.12+ warns that fork() in a process with threads may deadlock the
# child; these scripts fork with threads on purpose (to show that the
# binding's state does not).
FORK_WARNING = "ignore:This process:DeprecationWarning"


def run_isolated(code, timeout=60, env=None):
    """Run *code* in a fresh interpreter; its CompletedProcess."""
    return subprocess.run(
        [sys.executable, "-W", FORK_WARNING, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


def assert_clean(proc):
    """The child exited 0 and printed nothing on stderr (no warning)."""
    assert proc.returncode == 0, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stderr == "", proc.stderr
