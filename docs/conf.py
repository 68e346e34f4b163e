# SPDX-License-Identifier: MIT
"""Sphinx configuration of the kfifo documentation.

The references are generated from the sources: the Python API by autodoc
from the installed package's docstrings (``pip install .[docs]`` first:
Kfifo and SpinLock are C types, only an installed extension has them), the
C API by Hawkmoth from the kernel-doc comments of ``c/include/kfifo.h``
(libclang parses the header; ``_ext/kerneldoc.py`` turns kernel-doc into
reST).  ``scripts/build-docs.sh`` builds with ``-W -n --keep-going``.
"""
from __future__ import annotations

import builtins
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "_ext"))

import kfifo  # noqa: E402  the installed package, never the source tree

project = "kfifo"
author = "the kfifo authors"
copyright = "the kfifo authors, MIT licence"
version = release = kfifo.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "myst_parser",
    "hawkmoth",
    "kerneldoc",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3

html_theme = "furo"
html_title = f"kfifo {release}"

# ---- Python: autodoc + napoleon (the docstrings are numpydoc) ---------------
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
napoleon_google_docstring = False
napoleon_numpy_docstring = True
# Parameters as a plain field list: their types ("bytes-like", "float or
# None") are prose, not names to cross-reference.
napoleon_use_param = False
napoleon_use_rtype = False

# ---- C: Hawkmoth ------------------------------------------------------------
hawkmoth_root = os.path.join(ROOT, "c", "include")
hawkmoth_clang = ["-std=c11", f"-I{hawkmoth_root}"]
# The system headers kfifo.h includes (errno.h, stddef.h ...) are found by
# asking a C compiler for its include path: clang if there is one, else gcc.
hawkmoth_compiler = shutil.which("clang") or shutil.which("gcc") or shutil.which("cc")
hawkmoth_transform_default = "kerneldoc"
kerneldoc_header = os.path.join(hawkmoth_root, "kfifo.h")

# ---- nitpicky: every cross-reference must resolve ---------------------------
# No intersphinx (the build runs offline): names from Python's own
# documentation and the C standard library cannot resolve, and are the only
# ones let through.
nitpick_ignore = [
    (role, name)
    for name in dir(builtins)
    for role in ("py:class", "py:exc", "py:obj", "py:func", "py:data")
]
nitpick_ignore += [
    ("py:class", name)
    for name in (
        "Buffer", "typing_extensions.Buffer", "collections.abc.Buffer", "Self",
        "typing_extensions.Self", "types.TracebackType", "TracebackType",
        "argparse.ArgumentParser", "argparse.Namespace", "unittest.TestCase",
        "hypothesis.stateful.RuleBasedStateMachine", "RuleBasedStateMachine",
        "collections.abc.Callable", "collections.abc.Iterator", "collections.abc.Sequence",
        "typing.Any", "Any", "Optional", "Callable", "Iterator", "Sequence", "Literal",
        "multiprocessing.shared_memory.SharedMemory",
    )
]
nitpick_ignore += [
    ("py:func", "hypothesis.stateful.run_state_machine_as_test"),
    ("py:class", "hypothesis.strategies.SearchStrategy"),
    ("py:class", "SearchStrategy"),
]
# the standard library's modules (ctypes, multiprocessing, ...)
nitpick_ignore += [("py:mod", name) for name in getattr(sys, "stdlib_module_names", ())]
# napoleon reads a data comment "#: What it is: ..." as "type: description";
# a name with a space in it is such prose, never a class to link to
nitpick_ignore_regex = [("py:class", r".*\s.*")]
# kfifo.model's module docstring names KfifoModel's five helpers as
# :meth:`_len` ...; they are documented under KfifoModel (api/python.rst).
nitpick_ignore += [("py:meth", n) for n in ("_len", "_avail", "_put", "_get", "_header")]
nitpick_ignore += [
    ("c:identifier", name)
    for name in ("size_t", "uint32_t", "uint64_t", "int64_t", "bool", "FILE")
]
# kfifo.h's kernel-compatible typedef (gfp_t's prefixed name) has no
# kernel-doc comment of its own: the kfifo_alloc() text says what it is.
nitpick_ignore += [("c:identifier", "kfifo_gfp_t")]
# kfifo.aio annotates buffers with the stub's private alias (any C-contiguous
# bytes-like object; kfifo/__init__.pyi), and returns an async iterator
nitpick_ignore += [("py:class", n) for n in ("_Buffer", "AsyncIterator", "collections.abc.AsyncIterator")]
# the stubs' private aliases of the recsize literals and of writable
# buffers (kfifo/__init__.pyi), which kfifo.aio and kfifo.io annotate with
nitpick_ignore += [("py:class", n) for n in ("_WritableBuffer", "_RecSize", "_WaitRecSize")]
# the standard library's io classes kfifo.io builds on (no intersphinx)
nitpick_ignore += [("py:class", n) for n in ("io.RawIOBase", "io.BufferedReader", "io.BufferedWriter")]
