# SPDX-License-Identifier: MIT
"""The ``kfifo`` command line: ``demo`` and ``fuzz``.

Each verb lives in its own module and is imported only when it runs, so
``kfifo demo`` never needs Hypothesis and ``kfifo fuzz`` never needs
matplotlib.

Every argument is checked while the command line is parsed (the argument
types below): a bad value is a usage error, exit status 2 with argparse's
message, never a traceback from deep inside a verb.
"""
from __future__ import annotations

import argparse
import importlib
import math
from typing import Callable, Sequence

#: verb -> (module, one-line help).  Each module provides
#: ``add_arguments(parser)`` and ``run(args) -> int``.
VERBS = {
    "demo": ("kfifo._demo", "push bytes and records through a fifo and show what happens"),
    "fuzz": ("kfifo._fuzz", "run the property-based state machine against the C core"),
}


def int_in_range(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse ``type``: an integer ``low <= n`` (``<= high`` if given)."""

    def parse(text: str) -> int:
        try:
            value = int(text, 10)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        if value < low or (high is not None and value > high):
            bounds = f"at least {low}" if high is None else f"between {low} and {high}"
            raise argparse.ArgumentTypeError(f"must be {bounds}, got {value}")
        return value

    parse.__name__ = "integer"  # argparse names the type in some messages
    return parse


def positive_seconds(text: str) -> float:
    """An argparse ``type``: a finite number of seconds greater than 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a number of seconds greater than 0, got {text}")
    return value


def _version() -> str:
    from kfifo import __version__

    return __version__


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``kfifo [--version] {demo,fuzz} ...``."""
    parser = argparse.ArgumentParser(
        prog="kfifo",
        description="The Linux kernel kfifo (new API v0.3) in userspace: demo, fuzz.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="verb", metavar="{" + ",".join(VERBS) + "}")
    sub.required = True
    for verb, (module, help_text) in VERBS.items():
        p = sub.add_parser(verb, help=help_text, description=help_text)
        p.set_defaults(_module=module)
        importlib.import_module(module).add_arguments(p)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv`` (default: ``sys.argv[1:]``); return the exit status.

    Bad usage exits with status 2 (argparse's ``SystemExit``) before any
    verb runs.
    """
    args = build_parser().parse_args(argv)
    return int(importlib.import_module(args._module).run(args) or 0)
