# SPDX-License-Identifier: MIT
"""Kernel-doc comments, as Hawkmoth extracts them from ``kfifo.h``, to reST.

Hawkmoth (libclang) finds each ``/** ... */`` comment and the declaration
it documents, and emits the C-domain directive with the real signature;
this transform only rewrites the comment text, in the kernel-doc format
the Linux kernel uses (``Documentation/doc-guide/kernel-doc.rst``)::

    name - one-line summary            -> the summary
    @arg: description                  -> :param arg: (functions, macros)
                                          a "Members" list (struct, typedef)
    Return: ...                        -> :returns:
    Concurrency: ...                   -> a bold lead-in
    @arg, %CONST, &struct s, func()    -> literals and cross-references

A ``func()`` becomes a cross-reference only when the header documents
``func`` (the build is nitpicky: a reference that does not resolve is an
error); any other call stays a literal.  Characters reST treats as markup
(``*``, ``|``, backquotes, a trailing ``_``) are escaped in the prose.
"""
from __future__ import annotations

import re
from typing import Any, Dict, Iterable, List, Set

_TITLE = re.compile(r"^(?:(struct|union|enum|typedef)\s+)?([A-Za-z_]\w*)\s+-\s+(.*)$")
_ARG = re.compile(r"^@([A-Za-z_]\w*|\.\.\.):\s*(.*)$")
_SECTION = re.compile(r"^(Return|Returns|Concurrency|Context|Note|Errors):\s*(.*)$")
_DOCUMENTED = re.compile(r"^/\*\*\s*\n\s*\*\s*(?:(?:struct|union|enum|typedef)\s+)?([A-Za-z_]\w*)\s+-\s", re.M)

#: names the header documents, filled when the configuration is read
KNOWN: Set[str] = set()
#: macro name -> signature, for kernel-doc comments inside ``#ifdef
#: __cplusplus``: parsed as C, Hawkmoth sees no declaration after them and
#: hands the comment over alone, so the transform writes the directive
ORPHAN_MACROS: Dict[str, str] = {}
_CXX_BLOCK = re.compile(r"^#ifdef __cplusplus\n(.*?)^#(?:else|endif)", re.M | re.S)
_COMMENTED_DEFINE = re.compile(r"^/\*\*\s*\n\s*\*\s*(\w+)\s+-\s.*?\*/\n#define (\1\([^)]*\))", re.M | re.S)


_SPEC_CITE = re.compile(r"(?<!`)\bdocs/spec\.md(?: (\d+)(?:\.(\d+))?)?(?!`)")


def spec_links(text: str) -> str:
    """``docs/spec.md 3.1`` (how the sources cite the spec) as a link to it."""

    def link(m: "re.Match[str]") -> str:
        if m.group(1) is None:
            return ":doc:`docs/spec.md </spec>`"
        label = "spec-" + m.group(1) + ("-" + m.group(2) if m.group(2) else "")
        return f":ref:`{m.group(0)} <{label}>`"

    return _SPEC_CITE.sub(link, text)


def _escape(text: str) -> str:
    text = text.replace("\\", "\\\\")
    text = re.sub(r"([*`|])", r"\\\1", text)
    return re.sub(r"(?<=\w)_(?!\w)", r"\\_", text)


def _call(m: "re.Match[str]") -> str:
    name = m.group(1).replace("\\_", "_")
    return f":any:`{name}() <{name}>`" if name in KNOWN else f"``{name}()``"


def _unescaped(m: "re.Match[str]") -> str:
    return m.group(1).replace("\\_", "_").replace("\\*", "*")


def inline(text: str) -> str:
    """One line of kernel-doc prose as reST."""
    text = spec_links(_escape(text))
    text = re.sub(r"&struct\s+(\w+)", lambda m: f":c:struct:`{m.group(1)}`", text)
    text = re.sub(r"\b([A-Za-z_][\w\\]*?)\(\)", _call, text)
    text = re.sub(r"@([A-Za-z_][\w\\]*(?:\[\d+\])?(?:\.\w+)?)", lambda m: f"``{_unescaped(m)}``", text)
    return re.sub(r"%([A-Za-z_][\w\\]*)", lambda m: f"``{_unescaped(m)}``", text)


def _paragraphs(lines: Iterable[str]) -> List[List[str]]:
    paras: List[List[str]] = [[]]
    for line in lines:
        if line.strip():
            paras[-1].append(line)
        elif paras[-1]:
            paras.append([])
    return [p for p in paras if p]


def _join_continuations(para: List[str]) -> List[str]:
    """Lines of an argument block, each continuation joined to its line."""
    out: List[str] = []
    for line in para:
        if out and (line[:1].isspace() or not _ARG.match(line)):
            out[-1] += " " + line.strip()
        else:
            out.append(line.strip())
    return out


def convert(lines: List[str]) -> List[str]:
    """A kernel-doc comment's lines (without the comment markers) as reST."""
    title = next((line.strip() for line in lines if line.strip()), "")
    m = _TITLE.match(title)
    if m and m.group(2) in ORPHAN_MACROS:
        body = _convert(lines)
        return [f".. c:macro:: {ORPHAN_MACROS[m.group(2)]}", ""] + ["   " + b if b else "" for b in body]
    return _convert(lines)


def _convert(lines: List[str]) -> List[str]:
    paras = _paragraphs(lines)
    if not paras:
        return []
    out: List[str] = []
    kind = None
    first = paras[0]
    m = _TITLE.match(first[0].strip())
    if m:
        kind = m.group(1) or "function"
        summary = [m.group(3)]
        rest = first[1:]
        # the summary may go on until the argument lines start
        while rest and not _ARG.match(rest[0].strip()):
            summary.append(rest.pop(0).strip())
        out += [inline(" ".join(summary)), ""]
        paras[0] = rest
    args = [a for a in _join_continuations(paras[0])] if paras and paras[0] else []
    if args:
        if kind in ("struct", "union", "typedef", "enum"):
            out += ["**Members**", ""]
            for a in args:
                am = _ARG.match(a)
                assert am is not None
                out += [f"``{am.group(1)}``", f"   {inline(am.group(2))}", ""]
        else:
            for a in args:
                am = _ARG.match(a)
                assert am is not None
                out.append(f":param {am.group(1)}: {inline(am.group(2))}")
            out.append("")
    for para in paras[1:]:
        text = " ".join(line.strip() for line in para)
        sm = _SECTION.match(text)
        if sm and sm.group(1) in ("Return", "Returns"):
            out += [f":returns: {inline(sm.group(2))}", ""]
        elif sm:
            out += [f"**{sm.group(1)}:** {inline(sm.group(2))}", ""]
        else:
            out += [inline(text), ""]
    return out


def _collect(app: Any, config: Any) -> None:
    with open(config.kerneldoc_header, encoding="utf-8") as f:
        header = f.read()
    KNOWN.update(_DOCUMENTED.findall(header))
    for block in _CXX_BLOCK.findall(header):
        ORPHAN_MACROS.update(_COMMENTED_DEFINE.findall(block))


def _process(app: Any, lines: List[str], transform: Any, options: Any) -> None:
    if transform == app.config.kerneldoc_transform:
        lines[:] = convert(lines)


def _process_python(app: Any, what: str, name: str, obj: Any, options: Any, lines: List[str]) -> None:
    lines[:] = [spec_links(line) for line in lines]


def setup(app: Any) -> dict:
    app.setup_extension("hawkmoth")
    app.add_config_value("kerneldoc_header", "", "env", [str])
    app.add_config_value("kerneldoc_transform", "kerneldoc", "env", [str])
    app.connect("config-inited", _collect)
    app.connect("hawkmoth-process-docstring", _process)
    app.connect("autodoc-process-docstring", _process_python)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
