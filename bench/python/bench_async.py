# SPDX-License-Identifier: MIT
"""An asyncio consumer fed by a producer thread or process: kfifo.aio against
the usual ways to feed a loop.

Between a thread and the loop: 16-byte records and 64 KiB chunks through
kfifo (the producer thread's blocking put_rec/put, the consumer's
``kfifo.aio.AsyncKfifo``), through ``loop.call_soon_threadsafe`` +
``asyncio.Queue`` (one loop wake-up per item) and through janus and culsans
(queues with a sync and an async face; ``pip install janus culsans``), and,
for the chunks,
the same stream between two plain threads with kfifo's blocking calls (the
reference the async consumer is held to).  Between a process and the loop:
16-byte records through a shared kfifo, through ``multiprocessing.Queue``
read with ``loop.run_in_executor(None, q.get)`` and through aioprocessing's
``AioQueue`` (``pip install aioprocessing``).  The kfifo consumers take
everything that is there per wake-up: ``await get_recs`` (every whole
record there, up to a maximum, in one call); the table also gives ``await
get_rec`` followed by the non-blocking ``get_rec(recsize, 0)`` until it
finds none, and ``async for`` over ``records()`` (one await per record).
For the chunks, the kfifo consumer's ``get_into`` takes all that is there
into a buffer of the fifo's size (1 MiB); the row with a 64 KiB buffer
shows what taking one chunk per call costs.

Every variant runs in turn, REPEATS times, in one process; the table gives
the median rate of each and the median of the paired ratios.

    python bench/python/bench_async.py [--repeats 5] [--records 200000] [--mb 256]
"""
import argparse
import asyncio
import importlib
import multiprocessing
import statistics
import sys
import threading
import time
from typing import Awaitable, Callable, Dict, List, Optional

import kfifo
from benchlib import load_line, machine_line, paired_median_ratios  # beside this script
from bench_threads import kfifo_stream  # the two-thread reference
from kfifo.aio import AsyncKfifo

FIFO = 1 << 20
REC = b"r" * 16
CHUNK = 1 << 16


# ---- kfifo ---------------------------------------------------------------------------


async def _drain_records(f: kfifo.Kfifo) -> int:
    """Records until end of stream: one await, then get_rec without waiting."""
    af = AsyncKfifo(f)
    got = 0
    while True:
        rec = await af.get_rec(1)
        if rec is None:
            return got
        got += 1
        while True:
            try:
                rec = f.get_rec(1, 0)
            except TimeoutError:
                break
            if rec is None:
                return got
            got += 1


async def _get_recs(f: kfifo.Kfifo) -> int:
    """Records until end of stream with get_recs: every whole record there, per call."""
    af = AsyncKfifo(f)
    got = 0
    while batch := await af.get_recs(4096, 1):
        got += len(batch)
    return got


async def _iterate_records(f: kfifo.Kfifo) -> int:
    """The same with ``async for rec in view.records(1)``: one await per record."""
    got = 0
    async for _ in AsyncKfifo(f).records(1):
        got += 1
    return got


def kfifo_thread_records(count: int, consume: Callable[[kfifo.Kfifo], Awaitable[int]]) -> float:
    f = kfifo.Kfifo(FIFO)

    def produce() -> None:
        for _ in range(count):
            f.put_rec(REC, 1)
        f.close()

    async def main() -> float:
        t = threading.Thread(target=produce)
        t0 = time.perf_counter()
        t.start()
        got = await consume(f)
        dt = time.perf_counter() - t0
        t.join()
        assert got == count
        return count / dt

    try:
        return asyncio.run(main())
    finally:
        f.free()


def kfifo_thread_stream(total: int, bufsize: int) -> float:
    f = kfifo.Kfifo(FIFO)
    data = b"x" * CHUNK
    n = total // CHUNK

    def produce() -> None:
        for _ in range(n):
            f.put(data)
        f.close()

    async def main() -> float:
        af = AsyncKfifo(f)
        buf = bytearray(bufsize)
        t = threading.Thread(target=produce)
        t0 = time.perf_counter()
        t.start()
        got = 0
        while True:
            k = await af.get_into(buf)
            if k == 0:
                break
            got += k
        dt = time.perf_counter() - t0
        t.join()
        assert got == n * CHUNK
        return got / dt

    try:
        return asyncio.run(main())
    finally:
        f.free()


def _produce_records_process(f: kfifo.Kfifo, count: int, go: "multiprocessing.synchronize.Event") -> None:
    go.wait()
    for _ in range(count):
        f.put_rec(REC, 1)
    f.close()
    f.free()


def kfifo_process_records(count: int) -> float:
    ctx = multiprocessing.get_context("fork")
    f = kfifo.Kfifo(FIFO, shared=True)
    go = ctx.Event()
    p = ctx.Process(target=_produce_records_process, args=(f, count, go))
    p.start()

    async def main() -> float:
        t0 = time.perf_counter()
        go.set()
        got = await _get_recs(f)
        dt = time.perf_counter() - t0
        assert got == count
        return count / dt

    try:
        return asyncio.run(main())
    finally:
        p.join()
        f.free()


# ---- the peers ------------------------------------------------------------------------


#: the optional peers between a thread and the loop (queues with two faces)
THREAD_PEERS = ("janus", "culsans")


def _queue_thread_peer(kind: str, item: bytes, count: int, copy: bool) -> float:
    """A producer thread puts ``count`` items; an asyncio task takes them."""

    async def main() -> float:
        loop = asyncio.get_running_loop()
        buf = bytearray(len(item))
        if kind in THREAD_PEERS:
            # janus and culsans: one queue with a sync face and an async one
            tq = importlib.import_module(kind).Queue()
            put: Callable[[Optional[bytes]], None] = tq.sync_q.put
            get = tq.async_q.get
        else:
            aq: "asyncio.Queue[Optional[bytes]]" = asyncio.Queue()

            def put(x: Optional[bytes]) -> None:
                loop.call_soon_threadsafe(aq.put_nowait, x)

            get = aq.get

        def produce() -> None:
            for _ in range(count):
                put(item)
            put(None)

        t = threading.Thread(target=produce)
        t0 = time.perf_counter()
        t.start()
        got = 0
        while True:
            x = await get()
            if x is None:
                break
            if copy:
                buf[:] = x
            got += 1
        dt = time.perf_counter() - t0
        t.join()
        if kind == "janus":
            tq.close()
            await tq.wait_closed()
        assert got == count
        return count * (len(item) if copy else 1) / dt

    return asyncio.run(main())


def _produce_mp(q: "multiprocessing.Queue[Optional[bytes]]", count: int,
                go: "multiprocessing.synchronize.Event") -> None:
    go.wait()
    for _ in range(count):
        q.put(REC)
    q.put(None)


def mp_queue_records(count: int, kind: str) -> float:
    """A producer process puts ``count`` records into a multiprocessing queue;
    the loop takes them with run_in_executor(None, q.get) or, for
    aioprocessing's AioQueue, its coroutine coro_get()."""
    ctx = multiprocessing.get_context("fork")
    if kind == "aioprocessing":
        import aioprocessing

        q = aioprocessing.AioQueue()
    else:
        q = ctx.Queue()
    go = ctx.Event()
    p = ctx.Process(target=_produce_mp, args=(q, count, go))
    p.start()

    async def main() -> float:
        loop = asyncio.get_running_loop()
        get = q.coro_get if kind == "aioprocessing" else (lambda: loop.run_in_executor(None, q.get))
        t0 = time.perf_counter()
        go.set()
        got = 0
        while await get() is not None:
            got += 1
        dt = time.perf_counter() - t0
        assert got == count
        return count / dt

    try:
        return asyncio.run(main())
    finally:
        p.join()


def _installed(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


# ---- the report --------------------------------------------------------------------------


def table(title: str, unit: str, runs: Dict[str, List[float]], ref: str,
          missing: Dict[str, str]) -> List[str]:
    ratios = paired_median_ratios(runs, ref)
    lines = [f"### {title}: median of {len(runs[ref])} paired runs", "",
             f"| variant | {unit} | {ref.split(',')[0]} is x times faster |", "|---|---:|---:|"]
    for name, xs in runs.items():
        r = ratios[name]
        lines.append(f"| {name} | {statistics.median(xs):,.0f} | {'' if r is None else f'{r:.2f}'} |")
    for name, why in missing.items():
        lines.append(f"| {name} | {why} | |")
    return lines + [""]


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description="an asyncio consumer fed by a thread or a process")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--records", type=int, default=200_000, help="16-byte records per thread run")
    ap.add_argument("--proc-records", type=int, default=50_000, help="16-byte records per process run")
    ap.add_argument("--mb", type=int, default=256, help="MiB per 64 KiB-chunk run")
    args = ap.parse_args(argv)
    total = args.mb << 20

    thread_peers_here = [p for p in THREAD_PEERS if _installed(p)]
    have_aioproc = _installed("aioprocessing")
    rec_runs: Dict[str, List[float]] = {"kfifo aio get_recs": [],
                                        "kfifo aio get_rec, then get_rec(1, 0) until empty": [],
                                        "kfifo aio, async for records()": [],
                                        "call_soon_threadsafe + asyncio.Queue": []}
    chunk_runs: Dict[str, List[float]] = {"kfifo aio get_into, 1 MiB buffer": [],
                                          "kfifo aio get_into, 64 KiB buffer": [],
                                          "kfifo two threads (sync)": [],
                                          "call_soon_threadsafe + asyncio.Queue": []}
    proc_runs: Dict[str, List[float]] = {"kfifo aio get_recs, shared fifo": [],
                                         "run_in_executor(None, mp.Queue.get)": []}
    missing: Dict[str, str] = {}
    for peer in THREAD_PEERS:
        if peer in thread_peers_here:
            rec_runs[peer] = []
            chunk_runs[peer] = []
        else:
            missing[peer] = f"not installed (pip install {peer})"
    if have_aioproc:
        proc_runs["aioprocessing AioQueue"] = []
    else:
        missing["aioprocessing AioQueue"] = "not installed (pip install aioprocessing)"

    for _ in range(args.repeats):
        rec_runs["kfifo aio get_recs"].append(kfifo_thread_records(args.records, _get_recs))
        rec_runs["kfifo aio get_rec, then get_rec(1, 0) until empty"].append(
            kfifo_thread_records(args.records, _drain_records))
        rec_runs["kfifo aio, async for records()"].append(kfifo_thread_records(args.records, _iterate_records))
        rec_runs["call_soon_threadsafe + asyncio.Queue"].append(
            _queue_thread_peer("asyncio", REC, args.records, False))
        for peer in thread_peers_here:
            rec_runs[peer].append(_queue_thread_peer(peer, REC, args.records, False))
        chunk_runs["kfifo aio get_into, 1 MiB buffer"].append(kfifo_thread_stream(total, FIFO) / 2**20)
        chunk_runs["kfifo aio get_into, 64 KiB buffer"].append(kfifo_thread_stream(total, CHUNK) / 2**20)
        chunk_runs["kfifo two threads (sync)"].append(kfifo_stream(CHUNK, total) / 2**20)
        chunk_runs["call_soon_threadsafe + asyncio.Queue"].append(
            _queue_thread_peer("asyncio", b"x" * CHUNK, total // CHUNK, True) / 2**20)
        for peer in thread_peers_here:
            chunk_runs[peer].append(_queue_thread_peer(peer, b"x" * CHUNK, total // CHUNK, True) / 2**20)
        proc_runs["kfifo aio get_recs, shared fifo"].append(kfifo_process_records(args.proc_records))
        proc_runs["run_in_executor(None, mp.Queue.get)"].append(mp_queue_records(args.proc_records, "executor"))
        if have_aioproc:
            proc_runs["aioprocessing AioQueue"].append(mp_queue_records(args.proc_records, "aioprocessing"))

    out = [f"# kfifo.aio: an asyncio consumer fed by a thread or a process", "",
           f"Python {sys.version.split()[0]}, {machine_line()}", ""]
    out += table("16 B records, producer thread -> asyncio consumer", "records/s", rec_runs,
                 "kfifo aio get_recs", {k: v for k, v in missing.items() if k in THREAD_PEERS})
    out += table("64 KiB chunks, producer thread -> asyncio consumer", "MiB/s", chunk_runs,
                 "kfifo aio get_into, 1 MiB buffer", {k: v for k, v in missing.items() if k in THREAD_PEERS})
    out += table("16 B records, producer process -> asyncio consumer", "records/s", proc_runs,
                 "kfifo aio get_recs, shared fifo", {k: v for k, v in missing.items() if k not in THREAD_PEERS})

    def best_peer(runs: Dict[str, List[float]], ref: str, peers: List[str]) -> float:
        ratios = paired_median_ratios(runs, ref)
        return min(r for p, r in ratios.items() if p in peers and r is not None)

    thread_peers = ["call_soon_threadsafe + asyncio.Queue", *THREAD_PEERS]
    proc_peers = ["run_in_executor(None, mp.Queue.get)", "aioprocessing AioQueue"]
    r1 = best_peer(rec_runs, "kfifo aio get_recs", thread_peers)
    r2 = best_peer(proc_runs, "kfifo aio get_recs, shared fifo", proc_peers)
    r3 = paired_median_ratios(chunk_runs, "kfifo aio get_into, 1 MiB buffer")["kfifo two threads (sync)"] or 0.0
    out += ["### Targets", "",
            f"- records, thread: {r1:.1f}x the best peer (target >= 5x): {'met' if r1 >= 5 else 'NOT met'}",
            f"- records, process: {r2:.1f}x the best peer (target >= 20x): {'met' if r2 >= 20 else 'NOT met'}",
            f"- 64 KiB, thread: {r3:.2f}x two plain threads (target >= 0.8x): {'met' if r3 >= 0.8 else 'NOT met'}",
            "", load_line()]
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
