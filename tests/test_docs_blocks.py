# SPDX-License-Identifier: MIT
"""Every fenced code block of README.md and docs/ runs as pasted, or says
why it cannot (a fragment marker; tests/_docs_blocks.py has the syntax).

- ``python``: run alone in a fresh interpreter, from a file in an empty
  directory (so ``multiprocessing``'s spawn can import it), with a timeout
  generous for a busy machine; when a ``text`` block follows it (nothing
  but blank lines between), its output must be exactly that text.
- ``c``: compiled against ``c/include/kfifo.h`` with ``-Wall -Wextra
  -Werror`` (``-std=c11``); a block without a function of its own is the
  body of one (its ``#include`` lines go first).
- anything else (``sh`` commands, a ``text`` transcript, a diagram): must
  be marked as a fragment, with a reason.

The C compiler is ``$CC`` or ``cc``; without one the C blocks fail (the
project's tests need a C compiler anyway).
"""
import os
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

from _docs_blocks import ROOT, all_blocks

BLOCKS = all_blocks()
#: seconds a Python block may take: generous, the machine may be busy
PY_TIMEOUT = 300

OUTPUTS = {id(b.follows) for b in BLOCKS if b.lang == "text" and b.follows is not None
           and b.follows.lang == "python" and not b.fragment and not b.follows.fragment}


def _ids(blocks):
    return [b.where for b in blocks]


PYTHON = [b for b in BLOCKS if b.lang == "python" and not b.fragment]
C = [b for b in BLOCKS if b.lang == "c" and not b.fragment]
OTHER = [b for b in BLOCKS if b.lang not in ("python", "c")
         and not (b.lang == "text" and b.follows is not None and id(b.follows) in OUTPUTS)]


def _expected_output(block):
    for b in BLOCKS:
        if b.lang == "text" and b.follows is block and not b.fragment:
            return b.text
    return None


@pytest.mark.parametrize("block", PYTHON, ids=_ids(PYTHON))
def test_python_block_runs_as_pasted(block, tmp_path):
    script = tmp_path / "block.py"
    script.write_text(block.text, encoding="utf-8")
    env = dict(os.environ, PYTHONHASHSEED="0")
    env.pop("PYTHONPATH", None)
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=PY_TIMEOUT, env=env)
    assert proc.returncode == 0, f"{block.where}: exit {proc.returncode}\n{proc.stderr}"
    expected = _expected_output(block)
    if expected is not None:
        got = [line.rstrip() for line in proc.stdout.splitlines()]
        want = [line.rstrip() for line in expected.splitlines()]
        assert got == want, f"{block.where}: printed\n{proc.stdout}\nthe doc shows\n{expected}"


#: the head of a function definition at the start of a line (not a statement)
FUNCTION = re.compile(r"^(?!(?:if|while|for|switch|do|return|else)\b)[A-Za-z_][\w \t\*]*[\s\*]\w+\s*\([^;]*\)\s*\{?\s*$",
                      re.M)


def _c_source(text):
    if FUNCTION.search(text):  # defines a function: a whole translation unit
        return text if "#include <kfifo.h>" in text else "#include <kfifo.h>\n" + text
    head = [x for x in text.splitlines() if x.startswith("#")]
    body = [x for x in text.splitlines() if not x.startswith("#")]
    return ("#include <kfifo.h>\n" + "\n".join(head) + "\n\nint kfifo_doc_block(void);\n"
            "int kfifo_doc_block(void)\n{\n" + textwrap.indent("\n".join(body), "\t")
            + "\n\treturn 0;\n}\n")


@pytest.mark.parametrize("block", C, ids=_ids(C))
def test_c_block_compiles_without_warnings(block, tmp_path):
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    assert cc, "no C compiler (set CC)"
    src = tmp_path / "block.c"
    src.write_text(_c_source(block.text), encoding="utf-8")
    proc = subprocess.run([cc, "-std=c11", "-D_GNU_SOURCE", "-Wall", "-Wextra", "-Werror",
                           "-I", str(ROOT / "c" / "include"), "-c", str(src), "-o", str(tmp_path / "block.o")],
                          capture_output=True, text=True, timeout=PY_TIMEOUT)
    assert proc.returncode == 0, f"{block.where}:\n{src.read_text()}\n{proc.stderr}"


@pytest.mark.parametrize("block", OTHER, ids=_ids(OTHER))
def test_a_block_that_is_not_run_says_why(block):
    assert block.fragment, (f"{block.where}: a {block.lang or 'plain'} block that no test runs: mark it "
                            "<!-- fragment: REASON --> (Markdown) or .. fragment: REASON (rst)")


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.fragment], ids=_ids([b for b in BLOCKS if b.fragment]))
def test_a_fragment_reason_says_something(block):
    assert len(block.fragment.split()) >= 2, f"{block.where}: fragment reason {block.fragment!r} is too short"


def test_the_blocks_are_found():
    # the parser sees the files' blocks: one of each kind at least
    langs = {b.lang for b in BLOCKS}
    assert {"python", "c", "sh", "text"} <= langs
    assert any(b.path.suffix == ".rst" for b in BLOCKS)
    assert len(PYTHON) >= 10 and len(C) >= 1
