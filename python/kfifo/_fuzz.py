# SPDX-License-Identifier: MIT
"""``kfifo fuzz``: run the property-based state machine against the C core.

Runs :func:`kfifo.testing.make_state_machine` (the C fifo and the
reference model side by side) for about ``--seconds`` seconds, printing a
progress line (examples, steps, operations covered), then a summary of the
operations and edge cases it exercised, and exits 0.  On a mismatch it lets
Hypothesis shrink the failing sequence, prints it as a runnable Python
snippet, and exits 1.  The failure is saved in Hypothesis's example
database (``.hypothesis/examples`` under the current directory), so a
pytest run from the same directory of ``make_state_machine(factory).TestCase``
replays it first.

Testing the fuzzer itself
-------------------------
The environment variable ``KFIFO_FUZZ_FACTORY=module:callable`` (or the
option ``--factory module:callable``, which wins) replaces
``kfifo.Kfifo`` with another factory, called as ``factory(size,
start=start)``.  The test-suite points it at deliberately broken fifos to
check that a bug is reported; you can point it at your own implementation.
``callable`` may be a dotted path inside the module (``pkg.mod:Class.make``).

Hypothesis is imported only when the verb runs, so ``kfifo demo`` and
``kfifo --help`` work without it; without it, ``kfifo fuzz`` says which
extra to install, in one line, and exits with :data:`EXIT_MISSING_EXTRA`.

Like ``python -m``, the verb imports factories from the current directory
(the ``kfifo`` console script does not put it on ``sys.path`` by itself).
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from typing import Any, Callable, Optional, Tuple

#: Environment variable naming a replacement factory, ``module:callable``.
FACTORY_ENV = "KFIFO_FUZZ_FACTORY"
#: Exit status when an optional dependency (Hypothesis) is not installed.
EXIT_MISSING_EXTRA = 3

_EPILOG = f"""\
A long campaign:   kfifo fuzz --seconds 600 --steps 100

Testing your own fifo: --factory module:callable (or the environment
variable {FACTORY_ENV}=module:callable) fuzzes `callable(size, start=start)`
instead of kfifo.Kfifo, against the same reference model.
Exit status: 0 no mismatch, 1 mismatch or crash (reproduction printed),
2 bad usage, {EXIT_MISSING_EXTRA} Hypothesis not installed (pip install 'kfifo[testing]').
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``kfifo fuzz``."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = _EPILOG
    from kfifo.cli import int_in_range, positive_seconds

    parser.add_argument("--seconds", type=positive_seconds, default=10.0, metavar="N",
                        help="run for about N seconds, N > 0 (default: 10)")
    parser.add_argument("--steps", type=int_in_range(1), default=50, metavar="K",
                        help="at most K calls per example, K >= 1 (default: 50)")
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    parser.add_argument("--factory", default=None, metavar="MODULE:CALLABLE",
                        help="fuzz CALLABLE(size, start=start) from MODULE instead of "
                             f"kfifo.Kfifo (default: ${FACTORY_ENV}, then kfifo.Kfifo)")


def load_factory(spec: Optional[str]) -> Tuple[Callable[..., Any], Optional[Callable[[], Any]], str]:
    """``(factory, lock_factory, label)`` for ``module:callable``, or kfifo.Kfifo if ``spec`` is empty."""
    if not spec:
        import kfifo

        return kfifo.Kfifo, getattr(kfifo, "SpinLock", None), "kfifo.Kfifo"
    module_name, sep, attr_path = spec.partition(":")
    if not sep or not module_name or not attr_path:
        raise ValueError(f"factory must look like module:callable, got {spec!r}")
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # as python -m does; the console script does not
    obj: Any = importlib.import_module(module_name)
    for attr in attr_path.split("."):
        obj = getattr(obj, attr)
    if not callable(obj):
        raise ValueError(f"{spec} is not callable")
    return obj, None, spec


def run(args: argparse.Namespace) -> int:
    """Fuzz for ``args.seconds``; return the exit status."""
    try:
        import hypothesis  # noqa: F401
    except ImportError:
        print("kfifo fuzz: needs Hypothesis, which is not installed: pip install 'kfifo[testing]'",
              file=sys.stderr)
        return EXIT_MISSING_EXTRA
    from hypothesis import HealthCheck, Phase, Verbosity, settings
    from hypothesis.database import DirectoryBasedExampleDatabase

    import kfifo.testing
    from kfifo.testing import OPERATIONS, STATS, KfifoMismatch, make_state_machine, run_machine
    from kfifo.testing.catalogue import EDGES, reachable_edges

    try:
        factory, lock_factory, label = load_factory(args.factory or os.environ.get(FACTORY_ENV))
    except (ImportError, AttributeError, ValueError) as exc:
        print(f"kfifo fuzz: cannot load the factory: {exc}", file=sys.stderr)
        return 2
    machine = make_state_machine(factory, lock_factory=lock_factory)
    # Only what this fifo can do counts in the coverage, and only the edges
    # it can reach get a "run longer" hint.
    operations = tuple(op for op in OPERATIONS if op in machine.operations)
    edges = {e: EDGES[e] for e in reachable_edges(machine.operations, machine.with_start, machine.checks_arguments)}
    kfifo.testing.PRINT_REPRODUCTION = False  # printed below, with the coverage
    out = sys.stdout
    live = out.isatty() and not args.quiet
    print(f"fuzzing {label} against kfifo.model.KfifoModel for {args.seconds:g} s "
          f"(up to {args.steps} calls per example)", flush=True)

    STATS.reset()
    start = time.monotonic()
    end = start + args.seconds
    batch = 20  # examples per Hypothesis run; grown to about 1 s of work
    failure: Optional[BaseException] = None
    next_line = start
    while time.monotonic() < end and failure is None:
        t0 = time.monotonic()
        run_settings = settings(
            max_examples=batch, stateful_step_count=args.steps, deadline=None,
            suppress_health_check=list(HealthCheck),
            phases=[Phase.generate, Phase.shrink], report_multiple_bugs=False,
            verbosity=Verbosity.quiet,
            # always kept, also where Hypothesis' own "ci" profile (loaded
            # when CI is set) would turn the database off: a failure found
            # here must replay under pytest from the same directory
            database=DirectoryBasedExampleDatabase(os.path.join(".hypothesis", "examples")),
        )
        try:
            run_machine(machine, settings=run_settings)
        except Exception as exc:  # a mismatch, or the fifo raised where the model did not
            failure = exc
        took = max(time.monotonic() - t0, 1e-3)
        batch = max(10, min(2000, int(batch * min(1.0, end - time.monotonic()) / took) or 10))
        # Live on a terminal; in a log, about 20 lines for the whole run.
        if not args.quiet and failure is None and (live or time.monotonic() >= next_line):
            _progress(out, live, start, args.seconds, STATS, operations, edges)
            next_line = time.monotonic() + args.seconds / 20
    if live:
        out.write("\n")

    if failure is not None:
        return _report_failure(failure, STATS, KfifoMismatch)
    _summary(out, time.monotonic() - start, STATS, operations, edges)
    return 0


def _covered(stats: Any, operations: tuple, edges: dict) -> Tuple[int, int]:
    ops = sum(1 for op in operations if stats.ops[op])
    return ops, sum(1 for e in edges if stats.edges[e])


def _progress(out: Any, live: bool, start: float, seconds: float, stats: Any,
              operations: tuple, edges: dict) -> None:
    ops, hit = _covered(stats, operations, edges)
    line = (f"[{time.monotonic() - start:6.1f}/{seconds:g} s] examples {stats.examples:>7}  "
            f"steps {stats.steps:>9}  operations {ops}/{len(operations)}  edge cases {hit}/{len(edges)}")
    out.write(("\r" + line) if live else (line + "\n"))
    out.flush()


def _summary(out: Any, elapsed: float, stats: Any, operations: tuple, edges: dict) -> None:
    ops, hit = _covered(stats, operations, edges)
    rate = stats.steps / elapsed if elapsed > 0 else 0.0
    print(f"\nno mismatch: {stats.examples} examples, {stats.steps} steps in {elapsed:.1f} s "
          f"({rate:,.0f} steps/s)", file=out)
    print(f"\noperations ({ops}/{len(operations)} covered):", file=out)
    for op in operations:
        print(f"  {op:<15} {stats.ops[op]:>10}", file=out)
    print(f"\nedge cases ({hit}/{len(edges)} hit):", file=out)
    for edge, what in edges.items():
        mark = " " if stats.edges[edge] else "!"
        print(f" {mark}{edge:<26} {stats.edges[edge]:>9}  {what}", file=out)
    missing = [e for e in edges if not stats.edges[e]]
    if missing:
        print(f"\nnot hit (marked !): {', '.join(missing)}; run longer to reach them", file=out)
    out.flush()


def _report_failure(failure: BaseException, stats: Any, mismatch: type) -> int:
    first = stats.first_failure
    crashed = getattr(failure, "crashed", None)
    if crashed:
        print(f"\nCRASH: the fifo killed the process it ran in ({crashed})", end="")
    elif getattr(failure, "nondeterministic", False):
        print("\nMISMATCH between the fifo and the model; the fifo is nondeterministic", end="")
    else:
        print("\nMISMATCH between the fifo and the model", end="")
    if first:
        print(f", first seen after {first[0]} examples, {first[1]} steps, {first[2]:.1f} s", end="")
    print(".\nShrunk failing sequence (saved in the example database .hypothesis/examples: a pytest run\n"
          "of make_state_machine(factory).TestCase from this directory replays it first):\n")
    if isinstance(failure, mismatch):
        print(failure.trace.snippet() if failure.trace else "")
        print(f"# {failure.message}")
    else:
        # The fifo raised an exception where the model returned: the trace
        # of the shrunk example ends just before that call.
        print(stats.trace.snippet() if stats.trace else "")
        print(f"# the next call raised {type(failure).__name__}: {failure}")
    sys.stdout.flush()
    return 1
