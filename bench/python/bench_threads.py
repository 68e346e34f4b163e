# SPDX-License-Identifier: MIT
"""Two Python threads through one kfifo with the blocking calls, against peers.

Streams chunks from a producer thread to a consumer thread (which copies
each chunk into its own buffer) with Kfifo.put / Kfifo.get_into, and 16-byte
records with put_rec / get_rec, next to the same work through the standard
library's queue.Queue and queue.SimpleQueue (the fastest channel between
threads in CPython; unbounded, so its producer never waits) and the
synchronous faces of janus and culsans (``pip install janus culsans``;
reported as not installed when missing), and next to one thread doing both sides of kfifo (in_ then
out_into).
Also one thread filling and checking chunks in place through the
zero-copy views against the same work through in_/out and bytes.
Runs every variant in turn, REPEATS times, in one process, and prints the
median rate of each and the median of the paired ratios.

The 16-byte records also run with the batch calls (put_recs / get_recs,
BATCH records per call) and with records() on the consumer side, and each
records row says its rate over queue.SimpleQueue's (paired, median).

    python bench/python/bench_threads.py [--repeats 5] [--mb 256] [--only records]
"""
import argparse
import queue
import statistics
import sys
import threading
import time

import kfifo
from benchlib import load_line, machine_line, paired_median_ratios  # beside this script

FIFO = 1 << 20


def kfifo_stream(chunk: int, total: int) -> float:
    f = kfifo.Kfifo(FIFO)
    data = b"x" * chunk
    n = total // chunk

    def produce():
        for _ in range(n):
            f.put(data)
        f.close()

    buf = bytearray(chunk)
    t = threading.Thread(target=produce)
    t0 = time.perf_counter()
    t.start()
    got = 0
    while True:
        k = f.get_into(buf)
        if k == 0:
            break
        got += k
    t.join()
    dt = time.perf_counter() - t0
    assert got == n * chunk
    return got / dt


def _queue_pair(make):
    """(stream, records) runs for a queue-like peer built by make(maxsize):
    references move, the consumer copies each chunk into its own buffer."""

    def stream(chunk: int, total: int) -> float:
        q = make(max(1, FIFO // chunk))
        data = b"x" * chunk
        n = total // chunk

        def produce():
            put = q.put
            for _ in range(n):
                put(data)
            put(None)

        buf = bytearray(chunk)
        t = threading.Thread(target=produce)
        t0 = time.perf_counter()
        t.start()
        got = 0
        get = q.get
        while True:
            item = get()
            if item is None:
                break
            buf[: len(item)] = item
            got += len(item)
        t.join()
        assert got == n * chunk
        return got / (time.perf_counter() - t0)

    def records(count: int) -> float:
        q = make(FIFO // 17)
        rec = b"r" * 16

        def produce():
            put = q.put
            for _ in range(count):
                put(rec)
            put(None)

        t = threading.Thread(target=produce)
        t0 = time.perf_counter()
        t.start()
        got = 0
        get = q.get
        while get() is not None:
            got += 1
        t.join()
        assert got == count
        return got / (time.perf_counter() - t0)

    return stream, records


def _janus_queue(maxsize: int):
    import janus

    return janus.Queue(maxsize).sync_q


def _culsans_queue(maxsize: int):
    import culsans

    return culsans.Queue(maxsize).sync_q


#: name -> (stream, records), or the reason the peer cannot run here
PEERS = {
    "queue.Queue": _queue_pair(lambda maxsize: queue.Queue(maxsize)),
    "queue.SimpleQueue": _queue_pair(lambda maxsize: queue.SimpleQueue()),
}
try:
    import janus  # noqa: F401

    PEERS["janus sync_q"] = _queue_pair(_janus_queue)
except ImportError:
    PEERS["janus sync_q"] = "not installed (pip install janus)"
try:
    import culsans  # noqa: F401

    PEERS["culsans sync_q"] = _queue_pair(_culsans_queue)
except ImportError:
    PEERS["culsans sync_q"] = "not installed (pip install culsans)"


def one_thread(chunk: int, total: int) -> float:
    f = kfifo.Kfifo(FIFO)
    data = b"x" * chunk
    buf = bytearray(chunk)
    n = total // chunk
    t0 = time.perf_counter()
    for _ in range(n):
        f.in_(data)
        f.out_into(buf)
    return n * chunk / (time.perf_counter() - t0)


def kfifo_records(count: int) -> float:
    # the bound methods loaded once, as the queues' loop (_queue_pair) and
    # the other kfifo rows do: the same loop for every channel
    f = kfifo.Kfifo(FIFO)
    rec = b"r" * 16

    def produce():
        put_rec = f.put_rec
        for _ in range(count):
            put_rec(rec, 1)
        f.close()

    t = threading.Thread(target=produce)
    t0 = time.perf_counter()
    t.start()
    got = 0
    get_rec = f.get_rec
    while get_rec(1) is not None:
        got += 1
    t.join()
    assert got == count
    return got / (time.perf_counter() - t0)


#: untimed calls of each records variant before the timed runs, and the
#: records each moves (see main(): CPython 3.11 specializes after 8 calls)
WARMUP_CALLS = 10
WARMUP_RECORDS = 1000

#: records per put_recs/get_recs call in the batched rows
BATCH = 256


def kfifo_records_batched(count: int) -> float:
    """The same 16-byte records, many per call: the producer hands put_recs
    lists of BATCH records (built before the clock starts), the consumer
    takes them with get_recs(BATCH) until end of stream."""
    f = kfifo.Kfifo(FIFO)
    rec = b"r" * 16
    batches = [[rec] * BATCH] * (count // BATCH) + ([[rec] * (count % BATCH)] if count % BATCH else [])

    def produce():
        put_recs = f.put_recs
        for b in batches:
            put_recs(b, 1)
        f.close()

    t = threading.Thread(target=produce)
    t0 = time.perf_counter()
    t.start()
    got = 0
    get_recs = f.get_recs
    while True:
        recs = get_recs(BATCH, 1)
        if not recs:
            break
        got += len(recs)
    t.join()
    assert got == count
    return got / (time.perf_counter() - t0)


def kfifo_records_iter(count: int) -> float:
    """put_rec per record; the consumer iterates records() (which takes
    them in batches without being asked)."""
    f = kfifo.Kfifo(FIFO)
    rec = b"r" * 16

    def produce():
        put_rec = f.put_rec
        for _ in range(count):
            put_rec(rec, 1)
        f.close()

    t = threading.Thread(target=produce)
    t0 = time.perf_counter()
    t.start()
    got = 0
    for _ in f.records(1):
        got += 1
    t.join()
    assert got == count
    return got / (time.perf_counter() - t0)


def zero_copy(chunk: int, total: int) -> float:
    """One thread: fill in place (numpy), check in place, no bytes objects."""
    import numpy as np

    f = kfifo.Kfifo(FIFO)
    n = total // chunk
    t0 = time.perf_counter()
    for i in range(n):
        for v in f.in_prepare(chunk):
            np.frombuffer(v, dtype=np.uint8)[:] = i & 0xFF
        f.in_finish(chunk)
        views = f.out_prepare(chunk)
        ok = all(not len(v) or np.frombuffer(v, dtype=np.uint8).max() == (i & 0xFF) for v in views)
        del views
        assert ok
        f.out_finish(chunk)
    return n * chunk / (time.perf_counter() - t0)


def copying(chunk: int, total: int) -> float:
    """One thread, the same work through in_/out: a bytes object each way."""
    import numpy as np

    f = kfifo.Kfifo(FIFO)
    src = np.empty(chunk, dtype=np.uint8)
    n = total // chunk
    t0 = time.perf_counter()
    for i in range(n):
        src[:] = i & 0xFF
        f.in_(src)
        assert np.frombuffer(f.out(chunk), dtype=np.uint8).max() == (i & 0xFF)
    return n * chunk / (time.perf_counter() - t0)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--mb", type=int, default=256, help="MiB per stream run")
    ap.add_argument("--records", type=int, default=200_000)
    ap.add_argument("--only", choices=("stream", "records", "zero-copy"), action="append",
                    help="run only these workloads (repeatable; default all)")
    args = ap.parse_args(argv)
    only = set(args.only or ("stream", "records", "zero-copy"))
    print(f"{machine_line()}; kfifo {kfifo.__version__}")
    total = args.mb << 20
    rows = []
    for chunk in (65536, 4096) if "stream" in only else ():
        variants = {"kfifo put/get_into, 2 threads": lambda chunk=chunk: kfifo_stream(chunk, total)}
        for name, peer in PEERS.items():
            variants[name + ", 2 threads"] = peer if isinstance(peer, str) else \
                (lambda chunk=chunk, fn=peer[0]: fn(chunk, total))
        variants["kfifo in_/out_into, 1 thread"] = lambda chunk=chunk: one_thread(chunk, total)
        rows.append((f"{chunk} B chunks", "GB/s", 1e-9, variants))
    if "records" in only:
        records = {"kfifo put_rec/get_rec, 2 threads": lambda: kfifo_records(args.records),
                   f"kfifo put_recs/get_recs ({BATCH}/call), 2 threads":
                       lambda: kfifo_records_batched(args.records),
                   "kfifo put_rec/records(), 2 threads": lambda: kfifo_records_iter(args.records)}
        records.update({name + ", 2 threads": peer if isinstance(peer, str) else
                        (lambda fn=peer[1]: fn(args.records)) for name, peer in PEERS.items()})
        warm = {name: fn for name, fn in
                (("kfifo put_rec/get_rec, 2 threads", kfifo_records),
                 (f"kfifo put_recs/get_recs ({BATCH}/call), 2 threads", kfifo_records_batched),
                 ("kfifo put_rec/records(), 2 threads", kfifo_records_iter))}
        warm.update({name + ", 2 threads": peer[1] for name, peer in PEERS.items()
                     if not isinstance(peer, str)})
        rows.append(("16 B records", "M/s", 1e-6, records, warm))
    for chunk in (65536, 4096) if "zero-copy" in only else ():
        rows.append(
            (
                f"zero-copy, {chunk} B chunks, 1 thread, numpy fill + check",
                "GB/s",
                1e-9,
                {
                    "in_prepare/out_prepare views": lambda chunk=chunk: zero_copy(chunk, total),
                    "in_/out with bytes": lambda chunk=chunk: copying(chunk, total),
                },
            )
        )
    for title, unit, scale, variants, *warm in rows:
        warmups = warm[0] if warm else {}
        runnable = {name: fn for name, fn in variants.items() if callable(fn)}
        runs: dict = {name: [] for name in runnable}
        # Warm up: CPython 3.11 specializes a function's bytecode only
        # after its 8th call or once a loop jumps back through JUMP_BACKWARD,
        # and a `while get() is not None:` loop compiles to a conditional
        # backward jump that does not count: with fewer repeats than that
        # every timed run of a records row would run the generic
        # instructions, except where rows share the code of one function
        # (queue.Queue's, SimpleQueue's and janus's share _queue_pair's
        # records()), which warm each other up mid-way.  A few short runs
        # of each first put every row in the interpreter's steady state.
        for fn in warmups.values():
            for _ in range(WARMUP_CALLS):
                fn(WARMUP_RECORDS)
        for _ in range(args.repeats):
            for name, fn in runnable.items():
                runs[name].append(fn())
        base = next(iter(variants))
        ratios = paired_median_ratios(runs, base)
        # the records: each row also against queue.SimpleQueue, the standard
        # library's fastest channel between threads (this / SimpleQueue)
        sq = "queue.SimpleQueue, 2 threads"
        vs_sq = paired_median_ratios(runs, sq) if sq in runs and title == "16 B records" else None
        print(f"{title}: median of {args.repeats} paired runs (spread min-max)")
        for name, fn in variants.items():
            if not callable(fn):
                print(f"  {name:<44} {fn}")
                continue
            rate = statistics.median(runs[name]) * scale
            spread = f"{min(runs[name]) * scale:.2f}-{max(runs[name]) * scale:.2f}"
            line = f"  {name:<44} {rate:8.2f} {unit} ({spread})   first row / this: {ratios[name]:5.2f}x"
            if vs_sq is not None:
                line += f"   this / SimpleQueue: {1 / vs_sq[name]:5.2f}x"
            print(line)
    print(load_line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
