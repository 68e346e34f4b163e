# SPDX-License-Identifier: MIT
"""Notifiers (``Kfifo.notifier``): cross-process wake-up latency, and what
an armed notifier costs a publisher.

1. Wake-up latency across processes.  This process publishes into a shared
   fifo; the other process (the consumer, started with --start fork or
   spawn) sleeps until it sees the publication.  Each sample: the
   publisher reads CLOCK_MONOTONIC (``time.perf_counter_ns``, system-wide
   on Linux), stores those 8 bytes with ``in_``, then waits --gap seconds
   so that the consumer is asleep again before the next one; the consumer
   wakes, takes the 8 bytes and reads the clock: the difference is one
   wake-up, publication to the consumer's Python code running.  Consumers:

   - ``selectors`` (epoll) on a data notifier: select, clear, out(8);
   - ``asyncio`` (the default loop; uvloop too if installed): a future set
     by ``loop.add_reader`` on the notifier, then out(8);
   - the sync futex wait, for comparison: ``wait_len(8)`` then out(8).

   Every round runs each consumer for --samples samples, the consumers in
   an order that alternates between rounds; the table gives the median and
   the 99th percentile over all samples of a consumer.

2. The publisher's cost.  16-byte ``in_`` + ``out`` round trips in one
   thread (ns per round trip, median of --repeats paired runs): no
   notifier; a data notifier armed and signalled, not cleared (every
   publication goes through the out-of-line wake path and finds nothing to
   signal: what a producer pays while an async consumer is busy); for an
   ordinary and a shared fifo.  With no notifier armed the fast path is
   that of kfifo without notifiers (bench/run-wait-cost.sh and
   scripts/callgrind-budget.sh measure it in C).

    python bench/python/bench_notify.py [--samples 2000] [--rounds 3] [--start fork|spawn] [--quick] [--out [DIR]]
"""
import argparse
import asyncio
import multiprocessing
import os
import selectors
import statistics
import struct
import sys
import time

import kfifo
from benchlib import RESULTS, load_line, machine_line  # bench/python/benchlib.py, beside this script

STAMP = struct.Struct("<q")


def _loops():
    loops = {"asyncio": asyncio.new_event_loop}
    try:
        import uvloop  # noqa: F401
    except ImportError:
        return loops
    loops["uvloop"] = uvloop.new_event_loop
    return loops


def consumer_names():
    return ["selectors"] + list(_loops()) + ["futex wait_len"]


# ---- the consumer process ---------------------------------------------------------------


def _take(f, lat):
    data = f.out(8)
    lat.append(time.perf_counter_ns() - STAMP.unpack(data)[0])


def consume_selectors(f, count, ready):
    lat = []
    with selectors.DefaultSelector() as sel, f.notifier("data") as n:
        sel.register(n.fileno(), selectors.EVENT_READ)
        ready.put("ready")
        while len(lat) < count:
            if len(f) < 8:
                if not sel.select(timeout=30):
                    raise TimeoutError("no publication within 30 s")
                n.clear()
                continue
            _take(f, lat)
    return lat


async def _consume_loop(f, count, ready):
    loop = asyncio.get_running_loop()
    lat = []
    with f.notifier("data") as n:
        ready.put("ready")
        while len(lat) < count:
            if len(f) < 8:
                fut = loop.create_future()
                loop.add_reader(n.fileno(), lambda: fut.done() or fut.set_result(None))
                try:
                    await asyncio.wait_for(fut, 30)
                finally:
                    loop.remove_reader(n.fileno())
                n.clear()
                continue
            _take(f, lat)
    return lat


def consume_futex(f, count, ready):
    lat = []
    ready.put("ready")
    while len(lat) < count:
        if not f.wait_len(8, timeout=30):
            raise TimeoutError("no publication within 30 s")
        _take(f, lat)
    return lat


def consumer_main(f, name, count, ready, results):
    try:
        if name == "selectors":
            lat = consume_selectors(f, count, ready)
        elif name == "futex wait_len":
            lat = consume_futex(f, count, ready)
        else:
            loop = _loops()[name]()
            try:
                lat = loop.run_until_complete(_consume_loop(f, count, ready))
            finally:
                loop.close()
        results.put(("ok", lat))
    except BaseException as e:  # report anything
        results.put(("error", repr(e)))
    finally:
        f.free()


def latency_round(ctx, name, count, gap):
    """One consumer process, *count* samples; returns its latencies (ns)."""
    f = kfifo.Kfifo(4096, shared=True)
    ready, results = ctx.Queue(), ctx.Queue()
    p = ctx.Process(target=consumer_main, args=(f, name, count, ready, results))
    p.start()
    ready.get(timeout=120)
    time.sleep(0.05)  # let it fall asleep
    for _ in range(count):
        time.sleep(gap)
        f.in_(STAMP.pack(time.perf_counter_ns()))
    status, lat = results.get(timeout=120)
    p.join(60)
    f.free()
    if status != "ok":
        raise RuntimeError(f"{name} consumer failed: {lat}")
    return lat


def percentile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


# ---- the publisher's cost ---------------------------------------------------------------


def roundtrip_ns(f, rounds):
    data = b"x" * 16
    fin, fout = f.in_, f.out
    t0 = time.perf_counter_ns()
    for _ in range(rounds):
        fin(data)
        fout(16)
    return (time.perf_counter_ns() - t0) / rounds


def publish_cost(repeats, rounds):
    """{(fifo kind, notifier state): [ns per round trip, one per repeat]}"""
    out = {}
    for _ in range(repeats):
        for kind in ("ordinary", "shared"):
            f = kfifo.Kfifo(4096, shared=kind == "shared")
            out.setdefault((kind, "no notifier"), []).append(roundtrip_ns(f, rounds))
            n = f.notifier("data")
            n.arm()
            out.setdefault((kind, "data notifier armed"), []).append(roundtrip_ns(f, rounds))
            n.close()
            f.free()
    return out


# ---- main ------------------------------------------------------------------------------


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--samples", type=int, default=2000, help="wake-ups per consumer and round (default 2000)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of every consumer (default 3)")
    ap.add_argument("--gap", type=float, default=0.0005, help="seconds between publications (default 0.0005)")
    ap.add_argument("--repeats", type=int, default=7, help="paired runs of the publisher's cost (default 7)")
    ap.add_argument("--start", choices=("fork", "spawn", "forkserver"), default="fork",
                    help="multiprocessing start method of the consumer (default fork)")
    ap.add_argument("--quick", action="store_true", help="1/4 of the samples")
    ap.add_argument("--smoke", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--out", nargs="?", const=RESULTS, default=None, metavar="DIR",
                    help="also write DIR/notify.md (default DIR: bench/results)")
    args = ap.parse_args(argv)
    samples, rounds, repeats, trips = args.samples, args.rounds, args.repeats, 200_000
    if args.quick:
        samples = max(50, samples // 4)
    if args.smoke:
        samples, rounds, repeats, trips = 20, 1, 1, 2000
    ctx = multiprocessing.get_context(args.start)
    names = consumer_names()
    lat = {name: [] for name in names}
    for r in range(rounds):
        order = names if r % 2 == 0 else names[::-1]
        for name in order:
            lat[name] += latency_round(ctx, name, samples, args.gap)
            print(f"round {r + 1}/{rounds}: {name} done", file=sys.stderr, flush=True)
    cost = publish_cost(repeats, trips)

    lines = [
        "# Notifiers: cross-process wake-up latency and the publisher's cost",
        "",
        f"{machine_line()}; Python {sys.version.split()[0]}; kfifo {kfifo.__version__}; "
        f"consumer started with {args.start}.",
        "",
        f"Wake-up latency, publication in one process to the consumer's Python code in the other "
        f"({rounds} round(s) x {samples} samples per consumer, {args.gap * 1e6:.0f} us apart):",
        "",
        "| consumer | median us | p99 us | samples |",
        "|---|---:|---:|---:|",
    ]
    for name in names:
        xs = lat[name]
        lines.append(f"| {name} | {statistics.median(xs) / 1e3:.1f} | {percentile(xs, 0.99) / 1e3:.1f} | {len(xs)} |")
    lines += [
        "",
        f"Publisher's cost, 16-byte in_ + out round trips in one thread (median of {repeats} runs "
        f"of {trips} round trips, ns per round trip):",
        "",
        "| fifo | notifier | ns | vs no notifier |",
        "|---|---|---:|---:|",
    ]
    for kind in ("ordinary", "shared"):
        base = statistics.median(cost[kind, "no notifier"])
        for state in ("no notifier", "data notifier armed"):
            m = statistics.median(cost[kind, state])
            lines.append(f"| {kind} | {state} | {m:.0f} | {m / base:.2f}x |")
    lines += ["", load_line()]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "notify.md"), "w") as fh:
            fh.write(text)


if __name__ == "__main__":
    main()
