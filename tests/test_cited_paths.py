# SPDX-License-Identifier: MIT
"""The map stays true: every file path the tree cites - in the README, the
docs, comments and docstrings, scripts - names a file or directory that
exists.  A path is cited when it starts with one of the tree's top-level
directories (``swig/kfpy_type.c``, ``docs/spec.md``) or is one of its
top-level files (``setup.py``); ``*`` and ``{a,b}`` are expanded, and a
glob must match something.  CHANGELOG.md and the entries waiting for it
in changes/ are history (they name files that were renamed or removed), .gitignore and MANIFEST.in name generated files on
purpose; none of them is read.
"""
import glob
import os
import pathlib
import re
import subprocess

ROOT = pathlib.Path(__file__).resolve().parent.parent
DIRS = ("c", "swig", "python", "tests", "scripts", "docs", "examples", "bench", "cmake", ".github")
TOP_FILES = ("README.md", "CHANGELOG.md", "CMakeLists.txt", "setup.py", "pyproject.toml",
             "MANIFEST.in", "run-tests", "LICENSE")
# this file cites missing paths on purpose, to show the extractor sees them
NOT_READ = {"CHANGELOG.md", ".gitignore", "MANIFEST.in", "tests/test_cited_paths.py"}
TEXT = {".c", ".h", ".cpp", ".i", ".py", ".pyi", ".md", ".rst", ".sh", ".txt", ".toml",
        ".cmake", ".in", ".map", ".yml", ".ini", ".cfg", ""}

# a path: not part of a URL or of a longer path (no / or word character
# before it), then DIR/ and path characters; or a top-level file by name
CITED = re.compile(
    r"(?<![\w/.$-])((?:%s)/[\w.*{},/-]*[\w*}]|(?:%s)(?![\w-]|\.\w))"
    % ("|".join(re.escape(d) for d in DIRS), "|".join(re.escape(f) for f in TOP_FILES)))


def cited(text: str):
    """The paths cited in text, braces expanded."""
    out = []
    for m in CITED.finditer(text):
        path = m.group(1)
        brace = re.search(r"\{([^{}]*)\}", path)
        if brace and "," in brace.group(1):
            out += [path[:brace.start()] + alt + path[brace.end():] for alt in brace.group(1).split(",")]
        else:
            out.append(path)
    return out


def exists(path: str, where: str = "") -> bool:
    """path names something, from the top of the tree or from where's directory."""
    for base in (ROOT, (ROOT / where).parent):
        if "*" in path and glob.glob(str(base / path)) or "*" not in path and (base / path).exists():
            return True
    return False


def files():
    """The tracked files (in a git checkout), else every file of the tree (an sdist)."""
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=str(ROOT), capture_output=True,
                             check=True).stdout.decode()
        names = [p for p in out.split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        names = []
    if not names:  # not a checkout of its own
        names = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file() and not
                 {"build", "dist", "__pycache__", ".hypothesis"} & set(p.relative_to(ROOT).parts)]
    for name in sorted(names):
        p = pathlib.PurePosixPath(name)
        if name in NOT_READ or p.parts[0] == "changes" or p.suffix not in TEXT \
                or not (ROOT / name).is_file():
            continue
        if p.parts[0] in ("bench",) and "results" in p.parts:
            continue  # records of past runs: they name what the run used
        yield name


def citations():
    """{cited path: [file:line, ...]} over the tree."""
    found = {}
    for name in files():
        try:
            text = (ROOT / name).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            for path in cited(line):
                found.setdefault(path, []).append(f"{name}:{n}")
    return found


def test_the_extractor_sees_paths_and_only_paths():
    text = ("see scripts/callgrind-check.sh, swig/kfifo_py.{h,c} and `docs/spec.md`; "
            "https://github.com/x/y/blob/main/README.md and build/c-gcc/x and setup.py.")
    assert cited(text) == ["scripts/callgrind-check.sh", "swig/kfifo_py.h", "swig/kfifo_py.c",
                           "docs/spec.md", "setup.py"]
    assert not exists("scripts/callgrind-check.sh") and exists("swig/kfpy_*.c")


def test_every_cited_path_exists():
    found = citations()
    assert len(found) > 100, sorted(found)  # the tree cites a lot; an empty scan is a broken test
    missing = {path: where for path, where in found.items()
               # a build directory's contents are outputs, not sources
               if "build" not in path.split("/") and not all(exists(path, w.split(":")[0]) for w in where)}
    assert missing == {}, "cited but not in the tree:\n" + "\n".join(
        f"  {path}: {', '.join(where[:5])}" for path, where in sorted(missing.items()))


if __name__ == "__main__":  # the list the test checks
    for path, where in sorted(citations().items()):
        print(f"{path}\t{len(where)}")
