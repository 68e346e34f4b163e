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
by default: 100 examples of up to 50 steps, every phase but "explain";
shrinking stopped after ``kfifo.testing.SHRINK_SECONDS``, 10 s), with
``database=None`` and its own seed, and counts the runs that report a
mismatch.  Each run is timed from its start to the moment the shrunk
reproduction is ready to print (generation, shrinking and the final
replay): the time a user waits, in wall seconds and in CPU seconds (of
the worker and the children it waited for: the forked C rings).  A busy
machine inflates the wall time, not the CPU time.  ``--no-shrink`` skips
shrinking, to count detections faster while tuning the strategies.

    nice -n 10 python scripts/detection_rate.py                 # 100 runs per bug
    nice -n 10 python scripts/detection_rate.py --runs 20 --bug CopiesUpToCapacity
    nice -n 10 python scripts/detection_rate.py --runs 100 --bug CkRing --log ck.jsonl
    python scripts/detection_rate.py --summarize bench/results/detection-runs/*.jsonl --markdown
    nice -n 10 python scripts/detection_rate.py --time 10 --runs 0   # time a default run

``--log FILE`` appends one JSON line per run (class, seed, caught, examples,
wall and CPU seconds, ...); ``--summarize LOGS...`` prints the table of
those lines instead of running anything (``--markdown`` as a Markdown
table, ``--rst`` as the rows of the reST table of docs/testing-your-fifo.rst).

It takes minutes (``--jobs`` processes, 2 by default); it is not part of
the test-suite, which runs each planted bug once with a larger budget.
The reproductions the runs print go to stderr: ``2>/dev/null`` keeps the
table alone.
"""
from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
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


def _cpu() -> float:
    """CPU seconds of this process and of the children it has waited for."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def one_run(name: str, run_seed: int, max_examples: int = 0, shrink: bool = True) -> dict:
    """One seeded run of the machine on ``name``: what a line of ``--log`` holds."""
    machine = seed(run_seed)(make_state_machine(_factories()[name]))
    defaults = machine.TestCase.settings
    run_settings = settings(
        defaults, database=None,
        max_examples=max_examples or defaults.max_examples,
        phases=[p for p in defaults.phases if shrink or p != Phase.shrink],
        suppress_health_check=list(HealthCheck),
    )
    STATS.reset()
    load = os.getloadavg()[0]
    t0, c0 = time.monotonic(), _cpu()
    caught = crashed = nondeterministic = False
    try:
        run_machine(machine, settings=run_settings)
    except KfifoMismatch as exc:
        caught = True
        crashed = bool(exc.crashed)
        nondeterministic = bool(getattr(exc, "nondeterministic", False))
    wall, cpu = time.monotonic() - t0, _cpu() - c0
    first = STATS.first_failure
    return {
        "class": name, "seed": run_seed, "caught": caught, "crashed": crashed,
        "nondeterministic": nondeterministic,
        "examples": first[0] if first else STATS.examples,
        "first_mismatch_s": round(first[2], 3) if first else None,
        "wall_s": round(wall, 3), "cpu_s": round(cpu, 3),
        "shrink": shrink, "shrink_seconds": kfifo.testing.SHRINK_SECONDS if shrink else None,
        "max_examples": run_settings.max_examples, "steps": run_settings.stateful_step_count,
        "profile": PROFILE, "load_1min": round(load, 2), "cpus": os.cpu_count(),
        "at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }


def _p99(values: list) -> float:
    """The 99th percentile, nearest rank (of 100 values, the 99th smallest)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.99 * len(ordered)) - 1)]


def summarize(runs: list) -> list:
    """One row per class (and per shrink or not), in the order first seen: the
    counts and the times (of the runs that caught it; of every run for a
    class never caught).  Runs without shrinking are a row of their own,
    named "CLASS (no shrink)": their times are not a user's wait."""
    by_class: dict = {}
    for run in runs:
        by_class.setdefault((run["class"], run["shrink"]), []).append(run)
    rows = []
    for (name, shrink), group in by_class.items():
        hits = [r for r in group if r["caught"]]
        timed = hits or group
        rows.append({
            "class": name if shrink else f"{name} (no shrink)", "control": name in CONTROLS,
            "caught": len(hits), "runs": len(group), "shrink": shrink,
            "median_examples": statistics.median(r["examples"] for r in hits) if hits else None,
            "max_examples": max(r["examples"] for r in hits) if hits else None,
            "median_wall": statistics.median(r["wall_s"] for r in timed), "p99_wall": _p99([r["wall_s"] for r in timed]),
            "max_wall": max(r["wall_s"] for r in timed),
            "median_cpu": statistics.median(r["cpu_s"] for r in timed), "p99_cpu": _p99([r["cpu_s"] for r in timed]),
            "max_cpu": max(r["cpu_s"] for r in timed),
            "load": (min(r["load_1min"] for r in group), max(r["load_1min"] for r in group)),
            "seeds": (min(r["seed"] for r in group), max(r["seed"] for r in group)),
        })
    return rows


def merge_no_shrink(rows: list) -> list:
    """The count of a class's runs without shrinking joins its row with
    shrinking, when it has one (times come from the runs with shrinking)."""
    named = {r["class"]: r for r in rows}
    merged = []
    for r in rows:
        full = named.get(r["class"].replace(" (no shrink)", "")) if not r["shrink"] else None
        if full is not None and full is not r:
            full["without_shrinking"] = f"{r['caught']}/{r['runs']}"
        else:
            merged.append(r)
    return merged


def _caught(row: dict) -> str:
    text = f"{row['caught']}/{row['runs']}"
    if row.get("without_shrinking"):
        text += f" ({row['without_shrinking']} without shrinking)"
    return text + " (false alarms)" if row["control"] else text


def print_rows(rows: list, style: str, header: bool = True) -> None:
    """The table: ``text`` (aligned columns), ``markdown`` or ``rst`` (list-table rows)."""
    def num(x):
        return "-" if x is None else f"{x:g}"

    if style == "markdown":
        print("| class | caught | median ex. | max ex. | median wall s | p99 wall s | median CPU s | p99 CPU s "
              "| max wall s | seeds | load (1 min) |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            print(f"| `{r['class']}` | {_caught(r)} | {num(r['median_examples'])} | {num(r['max_examples'])} "
                  f"| {r['median_wall']:.2f} | {r['p99_wall']:.2f} | {r['median_cpu']:.2f} | {r['p99_cpu']:.2f} "
                  f"| {r['max_wall']:.2f} | {r['seeds'][0]}..{r['seeds'][1]} "
                  f"| {r['load'][0]:.1f} to {r['load'][1]:.1f} |")
    elif style == "rst":
        for r in rows:
            print(f"   * - ``{r['class']}``\n     - {_caught(r)}\n     - {num(r['median_examples'])}\n"
                  f"     - {r['median_wall']:.1f} / {r['p99_wall']:.1f}\n     - {r['median_cpu']:.1f} / {r['p99_cpu']:.1f}")
    else:
        width = max([24] + [len(r["class"]) for r in rows])
        if header:
            print(f"{'class':<{width}} {'caught':>8} {'median ex.':>10} {'max ex.':>8} {'wall med':>8} {'p99':>7} "
                  f"{'CPU med':>8} {'p99':>7} {'max wall':>8}")
        for r in rows:
            print(f"{r['class']:<{width}} {_caught(r):>8} {num(r['median_examples']):>10} "
                  f"{num(r['max_examples']):>8} {r['median_wall']:>8.2f} {r['p99_wall']:>7.2f} "
                  f"{r['median_cpu']:>8.2f} {r['p99_cpu']:>7.2f} {r['max_wall']:>8.2f}", flush=True)


def read_logs(paths: list) -> list:
    runs = []
    for path in paths:
        with open(path, encoding="utf-8") as log:
            runs.extend(json.loads(line) for line in log if line.strip())
    return runs


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
    parser.add_argument("--log", metavar="FILE", help="append one JSON line per run to FILE")
    parser.add_argument("--summarize", nargs="+", metavar="LOG",
                        help="print the table of these --log files instead of running")
    parser.add_argument("--markdown", action="store_true", help="print the table in Markdown")
    parser.add_argument("--rst", action="store_true",
                        help="print the table as reST list-table rows (docs/testing-your-fifo.rst)")
    args = parser.parse_args(argv)
    style = "markdown" if args.markdown else "rst" if args.rst else "text"

    if args.summarize:
        print_rows(merge_no_shrink(summarize(read_logs(args.summarize))), style)
        return 0

    names = args.bug or list(_factories())
    unknown = set(names) - set(_factories())
    if unknown:
        parser.error(f"unknown bug(s): {', '.join(sorted(unknown))}")
    defaults = make_state_machine(KfifoModel).TestCase.settings
    examples = args.max_examples or defaults.max_examples
    print(f"profile {PROFILE}: {examples} examples of up to "
          f"{defaults.stateful_step_count} steps; {args.runs} runs per bug, "
          f"seeds {args.first_seed}..{args.first_seed + args.runs - 1}; "
          f"SHRINK_SECONDS {kfifo.testing.SHRINK_SECONDS}", flush=True)

    if args.runs:
        print(f"load average at start: {' '.join(f'{x:.1f}' for x in os.getloadavg())} "
              f"({os.cpu_count()} CPUs); controls (a catch is a false alarm): {', '.join(CONTROLS)}")
        seeds = range(args.first_seed, args.first_seed + args.runs)
        rows = []
        # A run that does not shrink would print a long unshrunk reproduction.
        kfifo.testing.PRINT_REPRODUCTION = not args.no_shrink
        log = open(args.log, "a", encoding="utf-8") if args.log else None
        try:
            with ProcessPoolExecutor(max_workers=args.jobs, initializer=_limit_memory) as pool:
                for name in names:
                    runs = []
                    for run in pool.map(one_run, [name] * len(seeds), seeds, [args.max_examples] * len(seeds),
                                        [not args.no_shrink] * len(seeds)):
                        runs.append(run)
                        if log:
                            log.write(json.dumps(run) + "\n")
                            log.flush()
                    rows.extend(summarize(runs))
                    if style == "text":
                        print_rows(rows[-1:], style, header=len(rows) == 1)
        finally:
            if log:
                log.close()
        if style != "text":
            print()
            print_rows(rows, style)
    if args.time:
        wall, cpu = time_default_run(args.time)
        print(f"default run on kfifo.Kfifo ({len(wall)} runs): median {statistics.median(wall):.2f} s "
              f"wall (min {min(wall):.2f}, max {max(wall):.2f}), {statistics.median(cpu):.2f} s CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
