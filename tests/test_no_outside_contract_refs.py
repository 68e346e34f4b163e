# SPDX-License-Identifier: MIT
"""The docs are the project's spec: no tracked file cites the old contract
file, which was never in the repository (cite docs/spec.md by section
instead; CHANGELOG.md's released sections are history and keep theirs)."""
import pathlib
import re
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
OLD = "API" + ".md"  # in two parts, so that this file does not cite it


def tracked_files():
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=str(ROOT), capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout (an sdist or an installed copy): nothing tracked to check")
    return [p for p in out.decode().split("\0") if p]


def unreleased(changelog: str):
    """(number of lines before it, text) of the Unreleased section."""
    m = re.search(r"^## \[Unreleased\].*?(?=^## \[)", changelog, re.M | re.S)
    if m is None:
        return 0, changelog
    return changelog[:m.start()].count("\n"), m.group(0)


def test_no_tracked_file_cites_the_old_contract():
    offenders = []
    for path in tracked_files():
        try:
            text = (ROOT / path).read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue
        first = 1
        if path == "CHANGELOG.md":
            skipped, text = unreleased(text)
            first += skipped
        offenders += [f"{path}:{n}" for n, line in enumerate(text.splitlines(), first) if OLD in line]
    assert offenders == [], f"cite docs/spec.md by section instead: {offenders}"


def test_the_spec_the_sources_cite_exists_with_its_numbered_sections():
    spec = (ROOT / "docs" / "spec.md").read_text(encoding="utf-8")
    for section in ("1.1", "1.3", "1.4", "1.5", "1.6", "1.7", "2.1", "2.2", "2.3", "2.4",
                    "3.1", "3.2", "3.3", "3.4"):
        assert re.search(rf"^### {re.escape(section)} ", spec, re.M), section
