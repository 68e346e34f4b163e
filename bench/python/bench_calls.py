# SPDX-License-Identifier: MIT
"""What one call costs: 16-byte round trips in one thread, side by side.

Each variant stores then takes 16 bytes, ITERATIONS times in a loop with
its bound methods preloaded into locals (no attribute look-up in the loop):

* ``in_`` + ``out``: the byte calls (the reference of the ratios);
* ``in_rec`` + ``out_rec``: one record with a 1-byte header, non-blocking;
* ``put_rec`` + ``get_rec``: the same through the blocking calls (which
  never wait here: there is always room, and always a record);
* ``put_recs`` + ``get_recs`` of a batch of BATCH records, per record
  (only when the fifo has them);
* ``queue.SimpleQueue`` ``put`` + ``get`` and ``collections.deque``
  ``append`` + ``popleft``: references only, no copy (the floor a Python
  call can reach).

Every variant runs in turn, REPEATS times, in one process; the report
gives the median ns per round trip, the spread (min-max) and the median of
the paired ratios to ``in_`` + ``out`` (round i of a variant over round i
of the reference: noise on a shared machine comes in phases).

    python bench/python/bench_calls.py [--repeats 7] [--iterations 1000000] [--quick]
"""
import argparse
import collections
import queue
import statistics
import sys
import time

import kfifo
from benchlib import load_line, machine_line  # beside this script

REC = 16
#: records per put_recs/get_recs call in the batch row
BATCH = 64


def bytes_calls(n: int) -> float:
    f = kfifo.Kfifo(4096)
    data = b"x" * REC
    in_, out = f.in_, f.out
    t0 = time.perf_counter()
    for _ in range(n):
        in_(data)
        out(REC)
    return time.perf_counter() - t0


def rec_calls(n: int) -> float:
    f = kfifo.Kfifo(4096)
    data = b"x" * REC
    in_rec, out_rec = f.in_rec, f.out_rec
    t0 = time.perf_counter()
    for _ in range(n):
        in_rec(data, 1)
        out_rec(255, 1)
    return time.perf_counter() - t0


def blocking_rec_calls(n: int) -> float:
    f = kfifo.Kfifo(4096)
    data = b"x" * REC
    put_rec, get_rec = f.put_rec, f.get_rec
    t0 = time.perf_counter()
    for _ in range(n):
        put_rec(data, 1)
        get_rec(1)
    return time.perf_counter() - t0


def batch_rec_calls(n: int) -> float:
    f = kfifo.Kfifo(4096)
    batch = [b"x" * REC] * BATCH
    put_recs, get_recs = f.put_recs, f.get_recs
    rounds = max(1, n // BATCH)
    t0 = time.perf_counter()
    for _ in range(rounds):
        put_recs(batch, 1)
        get_recs(BATCH, 1)
    # per record, so that the row compares with the one-record rows
    return (time.perf_counter() - t0) * n / (rounds * BATCH)


def simplequeue_calls(n: int) -> float:
    q: "queue.SimpleQueue[bytes]" = queue.SimpleQueue()
    data = b"x" * REC
    put, get = q.put, q.get
    t0 = time.perf_counter()
    for _ in range(n):
        put(data)
        get()
    return time.perf_counter() - t0


def deque_calls(n: int) -> float:
    d: "collections.deque[bytes]" = collections.deque()
    data = b"x" * REC
    append, popleft = d.append, d.popleft
    t0 = time.perf_counter()
    for _ in range(n):
        append(data)
        popleft()
    return time.perf_counter() - t0


def variants():
    """name -> function(iterations) -> seconds; the first is the reference."""
    v = {
        "kfifo in_ + out": bytes_calls,
        "kfifo in_rec + out_rec": rec_calls,
        "kfifo put_rec + get_rec": blocking_rec_calls,
    }
    if hasattr(kfifo.Kfifo, "put_recs"):
        v[f"kfifo put_recs + get_recs ({BATCH}/call)"] = batch_rec_calls
    v["queue.SimpleQueue put + get"] = simplequeue_calls
    v["deque append + popleft"] = deque_calls
    return v


def measure(iterations: int, repeats: int):
    """name -> list of ns per round trip, one per repetition."""
    fns = variants()
    runs = {name: [] for name in fns}
    for fn in fns.values():
        fn(min(iterations, 10_000))  # warm up: first calls, allocator
    for _ in range(repeats):
        for name, fn in fns.items():
            runs[name].append(fn(iterations) * 1e9 / iterations)
    return runs


def report(runs, iterations: int, repeats: int) -> str:
    ref = next(iter(runs))
    lines = [
        f"{machine_line()}; kfifo {kfifo.__version__}; Python {sys.version.split()[0]}",
        f"One thread, {REC}-byte round trips, {iterations} per run, median of {repeats} runs "
        f"(ratio: paired, this / {ref})",
        f"  {'variant':<38} {'ns/round trip':>13} {'spread':>15} {'ratio':>7}",
    ]
    for name, xs in runs.items():
        ratio = statistics.median(a / b for a, b in zip(xs, runs[ref]))
        spread = f"{min(xs):.0f}-{max(xs):.0f}"
        lines.append(f"  {name:<38} {statistics.median(xs):13.1f} {spread:>15} {ratio:6.2f}x")
    lines.append(load_line())
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--iterations", type=int, default=1_000_000)
    ap.add_argument("--quick", action="store_true", help="100 000 iterations, 3 repeats")
    args = ap.parse_args(argv)
    iterations, repeats = args.iterations, args.repeats
    if args.quick:
        iterations, repeats = min(iterations, 100_000), min(repeats, 3)
    print(report(measure(iterations, repeats), iterations, repeats))
    return 0


if __name__ == "__main__":
    sys.exit(main())
