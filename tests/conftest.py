# SPDX-License-Identifier: MIT
"""Test configuration: the Hypothesis profile, and a report of the planted-bug hunt.

``KFIFO_HYPOTHESIS_PROFILE`` selects the profile (``kfifo-dev`` by default,
``ci`` - that is ``kfifo-ci`` - in CI, ``long`` for a campaign); see
:mod:`kfifo.testing`, which registers them under ``kfifo-`` names so that
no profile of the user's is touched.
"""
from kfifo.testing import load_profile

PROFILE = load_profile()


def pytest_report_header(config):
    return f"hypothesis profile: {PROFILE} (set KFIFO_HYPOTHESIS_PROFILE to change)"


def pytest_terminal_summary(terminalreporter):
    import sys

    planted = sys.modules.get("test_planted_bugs")
    found = getattr(planted, "FOUND", None)
    if not found:
        return
    tr = terminalreporter
    tr.section("planted bugs: time to first mismatch (generation only)")
    tr.write_line(f"{'bug':<24} {'examples':>8} {'steps':>7} {'seconds':>8}")
    for name, (examples, steps, seconds, _) in found.items():
        tr.write_line(f"{name:<24} {examples:>8} {steps:>7} {seconds:>8.2f}")
