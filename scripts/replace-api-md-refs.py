#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Point every citation of the old out-of-tree contract at docs/spec.md.

The contract the sources cite ("<old name> 3.1", "written from <old name>")
was a file outside the repository; its text is now ``docs/spec.md``, whose
numbered headings keep the old section numbers.  This script rewrites, in
every tracked text file:

* ``<old name> N.M`` -> ``docs/spec.md N.M`` and a bare ``<old name>`` ->
  ``docs/spec.md``; in Markdown files a link, relative to the file, to
  the section's heading anchor (``[docs/spec.md 3.3](docs/spec.md#33-...)``);
* the two places where the package *prints* the citation (a ``kfifo fuzz``
  failure, the reproduction snippet of ``kfifo.testing``) name the model
  the user can open instead: ``kfifo.model.KfifoModel``;
* a comment ruler (``/* ---- title (cite) ---- */``) loses as many dashes
  as the citation grew, so the line keeps its width.

CHANGELOG.md is history: only its "Unreleased" section is rewritten.

It is idempotent (a second run changes nothing) and is meant to be rerun
after merging branches that still carry old citations:
``python3 scripts/replace-api-md-refs.py [--check]``; ``--check`` changes
nothing and exits 1 if a file still needs rewriting.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from typing import Dict, List, Tuple

OLD = "API" + ".md"  # spelt in two parts so that this file does not cite it
SPEC = "docs/spec.md"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: exact printed texts -> what they become (checked before the generic rule)
PRINTED: List[Tuple[str, str]] = [
    (f"MISMATCH between the fifo and the model ({OLD})",
     "MISMATCH between the fifo and the model (kfifo.model.KfifoModel)"),
    (f"# kfifo.model.KfifoModel ({OLD}); the last one fails.",
     "# kfifo.model.KfifoModel; the last one fails."),
]

# "<old> 3.1", "<old>\n * 3.2" (a comment wrapped after the name), "<old> 1"
_CITE = re.compile(re.escape(OLD) + r"(?P<gap>[ \t]+|\s*\n[ \t]*\*?[ \t]*)(?P<num>\d+(?:\.\d+)?)\b")
_BARE = re.compile(re.escape(OLD))
_RULER = re.compile(r"(-{4,})([ \t]*\*/)$")


def spec_anchors() -> Dict[str, str]:
    """Section number -> GitHub's anchor of its heading in docs/spec.md."""
    anchors: Dict[str, str] = {}
    with open(os.path.join(ROOT, SPEC), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^#{2,3} (\d+(?:\.\d+)?)\.? (.*)$", line.rstrip("\n"))
            if m:
                title = f"{m.group(1)} {m.group(2)}".lower()
                slug = re.sub(r"[^\w\- ]", "", title).replace(" ", "-")
                anchors[m.group(1)] = slug
    return anchors


def _markdown_link(path: str, num: str | None, anchors: Dict[str, str]) -> str:
    target = os.path.relpath(os.path.join(ROOT, SPEC), os.path.dirname(os.path.join(ROOT, path)))
    if num is None:
        return f"[{SPEC}]({target})"
    anchor = anchors.get(num) or anchors.get(num.split(".")[0], "")
    return f"[{SPEC} {num}]({target}#{anchor})" if anchor else f"[{SPEC} {num}]({target})"


def rewrite(path: str, text: str, anchors: Dict[str, str]) -> str:
    for old, new in PRINTED:
        text = text.replace(old, new)
    markdown = path.endswith(".md")

    in_code = False  # inside a fenced code block of a Markdown file: no links

    def cite(m: "re.Match[str]") -> str:
        if markdown and not in_code:
            return _markdown_link(path, m.group("num"), anchors)
        return f"{SPEC}{m.group('gap')}{m.group('num')}"

    def bare(m: "re.Match[str]") -> str:
        return _markdown_link(path, None, anchors) if markdown and not in_code else SPEC

    lines = []
    for line in _split_keeping_wrapped_citations(text):
        if markdown and line.lstrip().startswith("```"):
            in_code = not in_code
        if OLD not in line:
            lines.append(line)
            continue
        before = len(line)
        new = _BARE.sub(bare, _CITE.sub(cite, line))
        grown = len(new) - before
        ruler = _RULER.search(new)
        if ruler and grown > 0:
            keep = max(3, len(ruler.group(1)) - grown)
            new = new[:ruler.start(1)] + "-" * keep + ruler.group(2) + new[ruler.end():]
        lines.append(new)
    return "".join(lines)


def _split_keeping_wrapped_citations(text: str) -> List[str]:
    """Lines, except that a line ending in the old name is kept with the
    next one (a comment that wraps between the name and its number)."""
    out: List[str] = []
    for line in text.splitlines(keepends=True):
        if out and out[-1].rstrip().endswith(OLD):
            out[-1] += line
        else:
            out.append(line)
    return out


def rewrite_changelog(text: str, anchors: Dict[str, str]) -> str:
    """Only the Unreleased section: the released ones are history."""
    m = re.search(r"^## \[Unreleased\].*?(?=^## \[)", text, re.M | re.S)
    if not m:
        return text
    return text[:m.start()] + rewrite("CHANGELOG.md", m.group(0), anchors) + text[m.end():]


def tracked_files() -> List[str]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True).stdout
    return [p for p in out.decode().split("\0") if p]


def main(argv: List[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a file would change")
    args = parser.parse_args(argv)
    anchors = spec_anchors()
    changed = []
    for path in tracked_files():
        full = os.path.join(ROOT, path)
        try:
            with open(full, encoding="utf-8", newline="") as f:
                text = f.read()
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue  # binary files, corpus entries, files deleted in the work tree
        if OLD not in text:
            continue
        new = rewrite_changelog(text, anchors) if path == "CHANGELOG.md" else rewrite(path, text, anchors)
        if new != text:
            changed.append(path)
            if not args.check:
                with open(full, "w", encoding="utf-8", newline="") as f:
                    f.write(new)
    verb = "would rewrite" if args.check else "rewrote"
    for path in changed:
        print(f"{verb} {path}")
    print(f"{verb} {len(changed)} files", file=sys.stderr)
    return 1 if (args.check and changed) else 0


if __name__ == "__main__":
    sys.exit(main())
