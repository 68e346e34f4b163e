# SPDX-License-Identifier: MIT
"""The ``kfifo`` command line: ``demo``, ``fuzz`` and ``bench``.

Each verb lives in its own module and is imported only when it runs, so
``kfifo demo`` never needs Hypothesis and ``kfifo fuzz`` never needs
matplotlib.
"""
from __future__ import annotations

import argparse
import importlib
from typing import Sequence

#: verb -> (module, one-line help).  Each module provides
#: ``add_arguments(parser)`` and ``run(args) -> int``.
VERBS = {
    "demo": ("kfifo._demo", "push bytes and records through a fifo and show what happens"),
    "fuzz": ("kfifo._fuzz", "run the property-based state machine against the C core"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kfifo",
        description="The Linux kernel kfifo (new API v0.3) in userspace: demo, fuzz, bench.",
    )
    sub = parser.add_subparsers(dest="verb", metavar="{" + ",".join(VERBS) + "}")
    sub.required = True
    for verb, (module, help_text) in VERBS.items():
        p = sub.add_parser(verb, help=help_text, description=help_text)
        p.set_defaults(_module=module)
        importlib.import_module(module).add_arguments(p)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(importlib.import_module(args._module).run(args) or 0)
