# SPDX-License-Identifier: MIT
"""What the Python benchmarks share: where results go and the lines that say
on what machine, under what load, a figure was taken.

The scripts beside this file import it by name (a script's own folder is
first on ``sys.path``); nothing here is part of the installed package.
"""
import os
import platform
import statistics
from typing import Dict, List, Optional

#: bench/ in the source checkout (this file is bench/python/benchlib.py).
BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: Where the committed results live.
RESULTS = os.path.join(BENCH, "results")


def machine_line() -> str:
    """CPU model, core count and kernel, for the head of every report."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}"


def load_average() -> Optional[float]:
    """The 1-minute load average, or None where the system has none."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


def load_line() -> str:
    one = load_average()
    if one is None:
        return ""
    return (f"Load average (1 min) at the end: {one:.2f}; above 0 means other work "
            "shared the cores, and the two-thread figures suffer most.")


def paired_median_ratios(runs: Dict[str, List[float]], ref: str) -> Dict[str, Optional[float]]:
    """Rates by name, repetition by repetition -> for each name, the median over
    repetitions i of runs[ref][i] / runs[name][i] (how many times faster ref
    was).  Paired, because noise on a shared machine comes in phases that slow
    every implementation of one repetition at once."""
    out: Dict[str, Optional[float]] = {}
    for name, xs in runs.items():
        pairs = [r / x for x, r in zip(xs, runs[ref]) if x and r]
        out[name] = statistics.median(pairs) if pairs else None
    return out
