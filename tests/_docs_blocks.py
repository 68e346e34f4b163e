# SPDX-License-Identifier: MIT
"""The fenced code blocks of README.md and docs/ (tests/test_docs_blocks.py).

Markdown: a fence of three or more backticks or tildes; its info string's
first word is the language.  MyST directives (```{note}, ```{toctree},
```{literalinclude} ...) are markup, not code blocks.  reStructuredText:
the ``.. code-block:: LANG`` directive and its indented body.

A block that cannot run alone carries its reason in the line right before
it (blank lines between are allowed): ``<!-- fragment: REASON -->`` in
Markdown, ``.. fragment: REASON`` (a comment) in reStructuredText.
"""
import re
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

ROOT = Path(__file__).resolve().parent.parent

FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
MD_FRAGMENT = re.compile(r"^\s*<!--\s*fragment:\s*(?P<reason>.*?)\s*-->\s*$")
RST_DIRECTIVE = re.compile(r"^(?P<indent>\s*)\.\. code-block::\s*(?P<lang>\S*)\s*$")
RST_FRAGMENT = re.compile(r"^\s*\.\. fragment:\s*(?P<reason>.*?)\s*$")


@dataclass
class Block:
    path: Path
    line: int  # 1-based line of the opening fence or directive
    lang: str
    text: str
    fragment: Optional[str]  # the reason, when marked
    follows: Optional["Block"] = None  # the block right before, nothing but blank lines between

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def doc_files() -> List[Path]:
    return [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md")) + sorted((ROOT / "docs").rglob("*.rst"))


def _marker(lines: List[str], i: int, pattern: "re.Pattern[str]") -> Optional[str]:
    """The fragment reason on the last non-blank line before line i, if any."""
    j = i - 1
    while j >= 0 and not lines[j].strip():
        j -= 1
    if j < 0:
        return None
    m = pattern.match(lines[j])
    return m.group("reason") if m else None


def _md_blocks(path: Path) -> List[Block]:
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: List[Block] = []
    i = 0
    last_end = -2
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, info = m.group("fence"), m.group("info").strip()
        j = i + 1
        while j < len(lines) and not (lines[j].strip().startswith(fence[0] * len(fence))
                                      and set(lines[j].strip()) == {fence[0]}):
            j += 1
        body = "\n".join(lines[i + 1:j]) + "\n"
        if not info.startswith("{"):  # a MyST directive is markup
            lang = info.split()[0] if info else ""
            block = Block(path, i + 1, lang, body, _marker(lines, i, MD_FRAGMENT))
            if blocks and last_end >= 0 and all(not x.strip() for x in lines[last_end + 1:i]):
                block.follows = blocks[-1]
            blocks.append(block)
            last_end = j
        i = j + 1
    return blocks


def _rst_blocks(path: Path) -> List[Block]:
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: List[Block] = []
    for i, line in enumerate(lines):
        m = RST_DIRECTIVE.match(line)
        if not m:
            continue
        indent = len(m.group("indent"))
        j = i + 1
        while j < len(lines) and (not lines[j].strip() or lines[j].lstrip().startswith(":")
                                  and len(lines[j]) - len(lines[j].lstrip()) > indent
                                  and not blocks_started(lines, i + 1, j)):
            j += 1
        body: List[str] = []
        while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > indent):
            body.append(lines[j])
            j += 1
        while body and not body[-1].strip():
            body.pop()
        text = "\n".join(body)
        strip = min((len(x) - len(x.lstrip()) for x in body if x.strip()), default=0)
        text = "\n".join(x[strip:] for x in body) + "\n"
        blocks.append(Block(path, i + 1, m.group("lang"), text, _marker(lines, i, RST_FRAGMENT)))
    return blocks


def blocks_started(lines: List[str], start: int, j: int) -> bool:
    """Whether a non-option line came between the directive and line j."""
    return any(x.strip() and not x.lstrip().startswith(":") for x in lines[start:j])


def all_blocks() -> List[Block]:
    out: List[Block] = []
    for path in doc_files():
        out += _rst_blocks(path) if path.suffix == ".rst" else _md_blocks(path)
    return out
