# SPDX-License-Identifier: MIT
"""How often does ``kfifo.testing`` at its default settings catch each planted bug?

For every planted bug of ``tests/test_planted_bugs.py``, the crashing and
the garbage-returning C ring of ``examples/crash_ring`` (``WrapRingCrash``,
``WrapRingGarbage``) and, as controls that must never be "caught", the
correct model, a correct size - 1 ring (``RingModelPow2Minus1``) and the
three third-party rings of ``examples/third_party`` (JACK, Boost
``spsc_queue``, ck_ring: a catch there is a false alarm), this runs the
state machine ``--runs`` times, each run a
fresh Hypothesis test at the settings a user gets from
``make_state_machine(factory).TestCase`` (the loaded profile, ``kfifo-dev``
by default: 100 examples of up to 50 steps, every phase but "explain"),
with ``database=None`` and its own seed, and counts the runs that report a
mismatch.  Each run is timed from its start to the moment the shrunk
reproduction is ready to print (generation, shrinking and the final
replay): the time a user waits.  ``--no-shrink`` skips shrinking, to
count detections faster while tuning the strategies.

    nice -n 10 python scripts/detection_rate.py                 # 100 runs per bug
    nice -n 10 python scripts/detection_rate.py --runs 20 --bug CopiesUpToCapacity
    nice -n 10 python scripts/detection_rate.py --time 10 --runs 0   # time a default run
    nice -n 10 python scripts/detection_rate.py --markdown     # the table of docs/testing-your-fifo.rst

It takes minutes (``--jobs`` processes, 2 by default); it is not part of
the test-suite, which runs each planted bug once with a larger budget.
The reproductions the runs print go to stderr: ``2>/dev/null`` keeps the
table alone.
"""
from __future__ import annotations

import argparse
import importlib.util
import math
import os
import pathlib
import resource
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "examples" / "crash_ring"))

from hypothesis import HealthCheck, Phase, seed, settings  # noqa: E402

import test_planted_bugs  # noqa: E402
from kfifo.model import KfifoModel, RingModel  # noqa: E402
import kfifo.testing  # noqa: E402
from kfifo.testing import STATS, KfifoMismatch, load_profile, make_state_machine, run_machine  # noqa: E402

PROFILE = load_profile()
kfifo.testing.PROGRESS = False  # no progress lines from the worker processes


class RingModelPow2Minus1(RingModel):
    """A correct ring that keeps one byte free: a control."""

    capacity = "pow2-1"

    def __init__(self, size, *, start=0):
        super().__init__(size, start=start, capacity="pow2-1")


#: The controls: a catch is a false alarm.
CONTROLS = ("KfifoModel", "RingModelPow2Minus1", "JackRing", "BoostSpscRing", "CkRing")


def _load(path: pathlib.Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


_FOUND: dict = {}


def _factories() -> dict:
    if _FOUND:
        return _FOUND
    found = {cls.__name__: cls for cls in test_planted_bugs.PLANTED}
    wrapring = _load(ROOT / "examples" / "crash_ring" / "test_wrapring.py", "test_wrapring")
    found["WrapRingCrash"] = wrapring.WrapRing
    found["WrapRingGarbage"] = type("WrapRingGarbage", (wrapring.WrapRing,), {"library": wrapring.build(garbage=True)})
    found["KfifoModel"] = KfifoModel
    found["RingModelPow2Minus1"] = RingModelPow2Minus1
    third = _load(ROOT / "examples" / "third_party" / "rings.py", "third_party_rings")
    for name, ring in third.RINGS.items():
        if name not in third.MISSING:
            found[name] = ring
    _FOUND.update(found)
    return found


def _limit_memory() -> None:
    """A runaway example fails with MemoryError instead of starving a shared machine."""
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))


def one_run(name: str, run_seed: int, max_examples: int = 0, shrink: bool = True):
    """``(caught, examples until the mismatch or run, seconds)`` for one seeded run."""
    machine = seed(run_seed)(make_state_machine(_factories()[name]))
    defaults = machine.TestCase.settings
    run_settings = settings(
        defaults, database=None,
        max_examples=max_examples or defaults.max_examples,
        phases=[p for p in defaults.phases if shrink or p != Phase.shrink],
        suppress_health_check=list(HealthCheck),
    )
    STATS.reset()
    t0 = time.monotonic()
    caught = False
    try:
        run_machine(machine, settings=run_settings)
    except KfifoMismatch:
        caught = True
    examples = STATS.first_failure[0] if STATS.first_failure else STATS.examples
    return caught, examples, time.monotonic() - t0


def time_default_run(repeat: int) -> tuple:
    """Wall and CPU seconds of ``repeat`` full default runs of the machine on
    kfifo.Kfifo (all phases; CPU time is the fairer number on a busy machine)."""
    wall, cpu = [], []
    for i in range(repeat):
        machine = seed(10_000 + i)(make_state_machine())
        t0, c0 = time.monotonic(), time.process_time()
        run_machine(machine, settings=settings(machine.TestCase.settings, database=None))
        wall.append(time.monotonic() - t0)
        cpu.append(time.process_time() - c0)
    return wall, cpu


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=100, help="runs per bug (default 100)")
    parser.add_argument("--first-seed", type=int, default=0, help="seed of the first run (default 0)")
    parser.add_argument("--bug", action="append", help="only this bug (repeatable); KfifoModel is the control")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--max-examples", type=int, default=0, metavar="N",
                        help="N examples per run instead of the default (to see the margin)")
    parser.add_argument("--time", type=int, default=0, metavar="N",
                        help="also time N default runs on kfifo.Kfifo")
    parser.add_argument("--no-shrink", action="store_true",
                        help="count detections only (no shrinking, no time to reproduction)")
    parser.add_argument("--markdown", action="store_true",
                        help="print the table as reST grid rows for docs/testing-your-fifo.rst")
    args = parser.parse_args(argv)

    names = args.bug or list(_factories())
    unknown = set(names) - set(_factories())
    if unknown:
        parser.error(f"unknown bug(s): {', '.join(sorted(unknown))}")
    defaults = make_state_machine(KfifoModel).TestCase.settings
    examples = args.max_examples or defaults.max_examples
    print(f"profile {PROFILE}: {examples} examples of up to "
          f"{defaults.stateful_step_count} steps; {args.runs} runs per bug, "
          f"seeds {args.first_seed}..{args.first_seed + args.runs - 1}", flush=True)

    if args.runs:
        what = "s/run" if args.no_shrink else "median s"
        print(f"load average at start: {' '.join(f'{x:.1f}' for x in os.getloadavg())} "
              f"({os.cpu_count()} CPUs); controls (a catch is a false alarm): {', '.join(CONTROLS)}")
        print(f"{'bug':<24} {'caught':>8} {'median ex.':>10} {'max ex.':>8} {what:>9} {'p99 s':>7} {'max s':>7}")
        seeds = range(args.first_seed, args.first_seed + args.runs)
        rows = []
        # A run that does not shrink would print a long unshrunk reproduction.
        kfifo.testing.PRINT_REPRODUCTION = not args.no_shrink
        with ProcessPoolExecutor(max_workers=args.jobs, initializer=_limit_memory) as pool:
            for name in names:
                results = list(pool.map(one_run, [name] * len(seeds), seeds, [args.max_examples] * len(seeds),
                                        [not args.no_shrink] * len(seeds)))
                hits = [ex for caught, ex, _ in results if caught]
                med = f"{statistics.median(hits):g}" if hits else "-"
                top = f"{max(hits)}" if hits else "-"
                times = [s for caught, _, s in results if caught] or [s for _, _, s in results]
                secs = statistics.mean(times) if args.no_shrink else statistics.median(times)
                p99 = sorted(times)[max(0, math.ceil(0.99 * len(times)) - 1)]
                print(f"{name:<24} {len(hits):>4}/{len(results):<3} {med:>10} {top:>8} {secs:>9.2f} "
                      f"{p99:>7.2f} {max(times):>7.2f}", flush=True)
                rows.append((name, len(hits), len(results), med, secs, max(times)))
        if args.markdown:
            print()
            for name, hit, runs, med, secs, top in rows:
                print(f"   * - ``{name}``\n     - {hit}/{runs}\n     - {med}\n     - {secs:.1f}\n     - {top:.1f}")
    if args.time:
        wall, cpu = time_default_run(args.time)
        print(f"default run on kfifo.Kfifo ({len(wall)} runs): median {statistics.median(wall):.2f} s "
              f"wall (min {min(wall):.2f}, max {max(wall):.2f}), {statistics.median(cpu):.2f} s CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
