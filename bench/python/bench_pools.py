# SPDX-License-Identifier: MIT
"""Worker pools and fan-in: P producer processes, C consumer processes on
one queue, kfifo against its peers, paired in one run.

Shapes (producers x consumers): 1x1, 1x10, 10x1, 3x20 (faster-fifo's own)
and 2x2.  Payloads: 16-byte records and 64 KiB chunks.  Peers:

- kfifo ``Kfifo(FIFO, shared=True, producers=..., consumers=...)`` (the
  mode "many" on a side with more than one): producers ``put_rec(rec, 1)``
  per record (64 KiB: ``put_rec(chunk, 0)``, a fixed-size record, stored
  whole), consumers ``get_recs(256, 1)`` until ``[]`` (64 KiB:
  ``get_exactly(65536)`` until ``EOFError``); the parent ``close()``s after
  the producers are done.
- faster-fifo ``Queue(FIFO)``: ``put`` per item, ``get_many`` (its
  recommended consumer); one ``None`` per consumer after the producers.
- ``multiprocessing.Queue``: ``put`` / ``get`` per item, ``None`` sentinels.
- pyzmq PUSH/PULL over ``ipc://``: each consumer binds a PULL, each
  producer's PUSH connects to all of them (zmq's round-robin fan-out) and
  ends with one empty message per consumer; a consumer stops after one
  from every producer.

Every item carries (producer, sequence) in its first 16 bytes.  While the
clock runs a consumer keeps those heads (appended to a bytearray, the same
for every peer); once done it reports, and only then sums them: the run is
refused unless the count and the sum are exactly what was sent.  (Summing
each item as it came, struct.unpack_from and the arithmetic in Python,
~120-200 ns, cost six times kfifo's own calls per 16-byte item and
measured the check more than the queue.)

A producer cycles through at most 4 MiB of distinct items
($KFIFO_BENCH_CYCLE_BYTES; the 16-byte ones are all distinct, the 64 KiB
ones 64, whose sequence is then the item's index mod 64), so that what it
sends is in its cache, as data it has just made would be: hundreds of MiB
built beforehand would be read once from memory by every peer alike, and
measure the memory more than the queue.

Timing is the parent's: every process starts, builds its data and waits
on an Event; the clock runs from the set to the last consumer's report
that it is done (a producer reports when it is done, so that its exit is
not timed).  Each peer first makes one untimed run of the default count,
from which its count is raised so that a run lasts at least 0.5 s
(scaled(); $KFIFO_BENCH_MIN_SECONDS).  Peers run one after the other
within a repetition, and the ratio is kfifo's rate over the peer's in the
same repetition, median over repetitions (noise on a shared machine comes
in phases).

    python bench/python/bench_pools.py [--repeats N] [--quick] [--out]
"""
import argparse
import math
import multiprocessing as mp
import multiprocessing.queues
import os
import statistics
import struct
import sys
import tempfile
import time

import benchlib

import kfifo

FIFO = 1 << 20
HEAD = struct.Struct("<QQ")
CTX = mp.get_context("fork")
SHAPES = [(1, 1), (1, 10), (10, 1), (3, 20), (2, 2)]


#: the bytes of distinct items a producer cycles through (see items())
CYCLE_BYTES = int(os.environ.get("KFIFO_BENCH_CYCLE_BYTES", 4 << 20))
#: the shortest timed run worth a figure (see scaled())
MIN_SECONDS = float(os.environ.get("KFIFO_BENCH_MIN_SECONDS", 0.5))
#: how many times its first count a peer's item count may grow
MAX_SCALE = 64


def scaled(n, took, min_seconds=MIN_SECONDS, most=MAX_SCALE):
    """The items per producer for runs of at least @min_seconds, from a
    first run of @n that took @took seconds.  Every run pays fixed costs
    (waking each process from the Event, the reports back), a few to tens
    of milliseconds on 2 cores: 4000 chunks of 64 KiB or 200,000 records
    went through kfifo in 20-70 ms, so those costs were a third of its
    time and none of the slower peers'.  Each peer gets its own count,
    once, before the paired repetitions."""
    if took >= min_seconds:
        return n
    return n * min(most, math.ceil(min_seconds / max(took, 1e-6)))


def distinct(size):
    """How many distinct items a producer of items of @size bytes has."""
    return max(1, CYCLE_BYTES // size)


def items(p, n, size):
    """Producer p's n items: item s carries (p, s mod distinct(size)).  A
    producer cycles through at most CYCLE_BYTES of distinct items, so that
    what it sends is in its cache, as data it has just made would be,
    rather than hundreds of MiB built beforehand, read once from memory by
    every peer alike (the 16-byte items are all distinct)."""
    k = distinct(size)
    pad = bytes(size - HEAD.size)
    made = [HEAD.pack(p, s) + pad for s in range(min(n, k))]
    return [made[s % k] for s in range(n)]


def expected(producers, n, size=16):
    """The sum of p * n + (s mod distinct(size)) over every item sent."""
    k = distinct(size)
    per_producer = (n // k) * (k * (k - 1) // 2) + (n % k) * (n % k - 1) // 2
    return producers * per_producer + n * n * producers * (producers - 1) // 2


def keep(batch, heads, size):
    """What a consumer does with a batch of items it took while the clock
    runs: append their 16-byte (producer, sequence) heads to the bytearray
    @heads, for the check after the clock (report())."""
    if size <= 16:
        heads += b"".join(batch)
    else:
        for it in batch:
            heads += it[:16]


def tally(heads, n):
    """The count and the sum of p * n + s over the kept heads (the check)."""
    return len(heads) // HEAD.size, sum(p * n + s for p, s in HEAD.iter_unpack(heads))


def report(out, sums, heads, n):
    """A consumer is done: its "done" to @out (the clock stops at the last
    one), then its count and sum to @sums, computed after that.  Summing
    each item as it arrived cost ~120-200 ns an item in Python, six times
    what kfifo's put_rec and get_recs cost per 16-byte item together, the
    same for every peer: it capped kfifo near 8 M items/s and measured the
    check more than the queue."""
    out.put(None)
    sums.put(tally(heads, n))


# ---- kfifo -----------------------------------------------------------------------------------


def kf_make(producers, consumers):
    return kfifo.Kfifo(FIFO, shared=True, producers="many" if producers > 1 else "one",
                       consumers="many" if consumers > 1 else "one")


def kf_produce(q, p, n, size, go):
    data = items(p, n, size)
    go.wait()
    if size <= 16:
        for it in data:
            q.put_rec(it, 1)
    else:
        for it in data:
            q.put_rec(it, 0)


def kf_drain_recs(q, heads):
    """16-byte records in batches of 256 until the end of the stream."""
    while True:
        b = q.get_recs(256, 1)
        if not b:
            return
        heads += b"".join(b)


def kf_consume(q, n, size, go, out, sums):
    heads = bytearray()
    go.wait()
    if size <= 16:
        kf_drain_recs(q, heads)
    else:
        while True:
            try:
                heads += q.get_exactly(size)[:16]
            except EOFError:
                break
    report(out, sums, heads, n)


def kf_end(q, consumers):
    q.close()


# ---- faster-fifo and multiprocessing.Queue ---------------------------------------------------


def ff_make(producers, consumers):
    import faster_fifo
    return faster_fifo.Queue(FIFO)


def mq_make(producers, consumers):
    return CTX.Queue()


def q_produce(q, p, n, size, go):
    data = items(p, n, size)
    go.wait()
    for it in data:
        q.put(it, True, 600)  # faster-fifo's default gives up after 10 s
    if isinstance(q, mp.queues.Queue):
        # its put() hands the item to a feeder thread: done means sent
        q.close()
        q.join_thread()


def ff_consume(q, n, size, go, out, sums):
    heads = bytearray()
    go.wait()
    import queue
    while True:
        try:
            b = q.get_many(max_messages_to_get=256, timeout=600)
        except queue.Empty:  # its wait can end early when another consumer was first
            continue
        ends = b.count(None)
        keep([it for it in b if it is not None] if ends else b, heads, size)
        if ends:
            for _ in range(ends - 1):  # another consumer's end
                q.put(None)
            break
    report(out, sums, heads, n)


def mq_consume(q, n, size, go, out, sums):
    heads = bytearray()
    go.wait()
    while True:
        it = q.get()
        if it is None:
            break
        heads += it[:16]
    report(out, sums, heads, n)


def q_end(q, consumers):
    for _ in range(consumers):
        q.put(None)


# ---- pyzmq PUSH/PULL --------------------------------------------------------------------------


class ZmqSpec:
    def __init__(self, consumers):
        self.dir = tempfile.mkdtemp(prefix="kfifo-bench-zmq-")
        self.ends = [f"ipc://{self.dir}/c{i}" for i in range(consumers)]
        self.next = 0


def zq_make(producers, consumers):
    return ZmqSpec(consumers)


def zq_produce(spec, p, n, size, go):
    import zmq
    ctx = zmq.Context()
    s = ctx.socket(zmq.PUSH)
    s.setsockopt(zmq.SNDHWM, 100000)
    for e in spec.ends:
        s.connect(e)
    data = items(p, n, size)
    time.sleep(0.2)  # let every connection come up before the round-robin starts
    go.wait()
    for it in data:
        s.send(it, copy=size <= 16)
    for _ in spec.ends:
        s.send(b"")
    s.close(linger=-1)
    ctx.term()


def zq_consume(spec, n, size, go, out, sums, index, producers):
    import zmq
    ctx = zmq.Context()
    s = ctx.socket(zmq.PULL)
    s.setsockopt(zmq.RCVHWM, 100000)
    s.bind(spec.ends[index])
    heads = bytearray()
    ends = 0
    go.wait()
    while ends < producers:
        it = s.recv()
        if not it:
            ends += 1
            continue
        heads += it[:16]
    report(out, sums, heads, n)
    s.close()
    ctx.term()


PEERS = {
    "kfifo": (kf_make, kf_produce, kf_consume, kf_end),
    "faster-fifo": (ff_make, q_produce, ff_consume, q_end),
    "mp.Queue": (mq_make, q_produce, mq_consume, q_end),
    "pyzmq": (zq_make, zq_produce, zq_consume, None),
}


def produce_then_report(produce, done, *args):
    """A producer process: its peer's loop, then "done" to the parent, so
    that the clock stops at the queue's work and not at the process's exit
    (freeing its items)."""
    produce(*args)
    done.put(None)


def run(peer, producers, consumers, n, size):
    """One run: items per second (all producers' items over the wall time)."""
    make, produce, consume, end = PEERS[peer]
    q = make(producers, consumers)
    go = CTX.Event()
    out = CTX.Queue()
    sums = CTX.Queue()
    done = CTX.Queue()
    if peer == "pyzmq":
        cs = [CTX.Process(target=consume, args=(q, n, size, go, out, sums, i, producers))
              for i in range(consumers)]
    else:
        cs = [CTX.Process(target=consume, args=(q, n, size, go, out, sums))
              for _ in range(consumers)]
    ps = [CTX.Process(target=produce_then_report, args=(produce, done, q, p, n, size, go))
          for p in range(producers)]
    for pr in cs + ps:
        pr.start()
    time.sleep(0.5 if peer == "pyzmq" else 0.2)  # every process built its data and waits
    t0 = time.perf_counter()
    go.set()
    for _ in ps:
        done.get(timeout=600)
    if end is not None:
        end(q, consumers)
    for _ in cs:
        out.get(timeout=600)
    took = time.perf_counter() - t0
    got = [sums.get(timeout=600) for _ in cs]
    for pr in cs + ps:
        pr.join()
    count = sum(g[0] for g in got)
    total = sum(g[1] for g in got)
    if count != producers * n or total != expected(producers, n, size):
        raise SystemExit(f"{peer} {producers}x{consumers} {size} B: got {count} items "
                         f"(sum {total}), sent {producers * n} (sum {expected(producers, n, size)})")
    if peer == "kfifo":
        q.free()
    return producers * n / took


# ---- threads of one process ------------------------------------------------------------------


def thread_run(peer, producers, consumers, n):
    """P producer threads and C consumer threads, 16-byte records: kfifo
    (put_rec / get_recs(256), close()) or queue.SimpleQueue (put / get,
    None sentinels).  Items per second."""
    import queue
    import threading
    if peer == "kfifo":
        q = kfifo.Kfifo(FIFO, producers="many" if producers > 1 else "one",
                        consumers="many" if consumers > 1 else "one")
    else:
        q = queue.SimpleQueue()
    data = [items(p, n, 16) for p in range(producers)]
    results = []
    go = threading.Event()

    def produce(p):
        go.wait()
        if peer == "kfifo":
            for it in data[p]:
                q.put_rec(it, 1)
        else:
            for it in data[p]:
                q.put(it)

    def consume():
        heads = bytearray()
        go.wait()
        if peer == "kfifo":
            kf_drain_recs(q, heads)
        else:
            while True:
                it = q.get()
                if it is None:
                    break
                heads += it
        results.append(heads)

    ts = [threading.Thread(target=consume) for _ in range(consumers)]
    ps = [threading.Thread(target=produce, args=(p,)) for p in range(producers)]
    for t in ts + ps:
        t.start()
    t0 = time.perf_counter()
    go.set()
    for t in ps:
        t.join()
    if peer == "kfifo":
        q.close()
    else:
        for _ in ts:
            q.put(None)
    for t in ts:
        t.join()
    took = time.perf_counter() - t0
    checks = [tally(heads, n) for heads in results]
    if sum(c[0] for c in checks) != producers * n or sum(c[1] for c in checks) != expected(producers, n):
        raise SystemExit(f"threads {peer} {producers}x{consumers}: wrong items")
    return producers * n / took


def threads_main(args):
    rows = []
    peers = {"kfifo": "kfifo", "queue.SimpleQueue": "simple"}
    for producers, consumers in ((1, 4), (2, 2), (4, 1)):
        n = (20000 if args.quick else 300000) // producers
        counts = {name: n for name in peers}
        if not args.quick:
            for name, peer in peers.items():
                rate = thread_run(peer, producers, consumers, n)
                counts[name] = scaled(n, producers * n / rate)
        rates = {name: [] for name in peers}
        for _ in range(args.repeats):
            for name, peer in peers.items():
                rates[name].append(thread_run(peer, producers, consumers, counts[name]))
        ratios = benchlib.paired_median_ratios(rates, "kfifo")
        for peer in rates:
            med = statistics.median(rates[peer])
            rows.append((f"{producers}x{consumers}", peer, med, ratios[peer], producers * counts[peer]))
            print(f"threads 16 B {producers}x{consumers} {peer:<18} {med / 1e3:10.1f} k items/s   "
                  f"kfifo {ratios[peer]:.2f}x   ({producers * counts[peer]} items a run)", flush=True)
    if args.out:
        lines = ["", "## Threads of one process", "",
                 time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()) +
                 f"; medians of {args.repeats} paired runs. 16-byte records: kfifo "
                 "`Kfifo(FIFO, producers=..., consumers=...)` put_rec / get_recs(256) against "
                 "`queue.SimpleQueue` put / get.", "",
                 benchlib.load_line(), "",
                 "| threads producers x consumers | peer | rate | kfifo / peer | items a run |",
                 "|---|---|---:|---:|---:|"]
        for shape, peer, med, ratio, items_run in rows:
            lines.append(f"| {shape} | {peer} | {med / 1e6:.3f} M rec/s | {ratio:.2f}× | {items_run:,} |")
        lines += ["", f"`python bench/python/bench_pools.py --threads --repeats {args.repeats} --out`", ""]
        with open(os.path.join(benchlib.RESULTS, "pools.md"), "a") as fh:
            fh.write("\n".join(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", action="store_true",
                    help="threads of one process against queue.SimpleQueue (appends to pools.md)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="fewer items (a smoke run)")
    ap.add_argument("--out", action="store_true", help="write bench/results/pools.md")
    ap.add_argument("--shapes", default=",".join(f"{p}x{c}" for p, c in SHAPES))
    args = ap.parse_args()
    if args.threads:
        threads_main(args)
        return
    shapes = [tuple(int(x) for x in s.split("x")) for s in args.shapes.split(",")]
    total16 = 20000 if args.quick else 200000
    total64k = 200 if args.quick else 4000
    rows = []
    for size, total in ((16, total16), (65536, total64k)):
        for producers, consumers in shapes:
            n = max(1, total // producers)
            counts = {peer: n for peer in PEERS}
            if not args.quick:
                for peer in PEERS:
                    rate = run(peer, producers, consumers, n, size)
                    counts[peer] = scaled(n, producers * n / rate)
            rates = {peer: [] for peer in PEERS}
            for _ in range(args.repeats):
                for peer in PEERS:
                    rates[peer].append(run(peer, producers, consumers, counts[peer], size))
            ratios = benchlib.paired_median_ratios(rates, "kfifo")
            for peer in PEERS:
                med = statistics.median(rates[peer])
                items_run = producers * counts[peer]
                rows.append((size, f"{producers}x{consumers}", peer, med, ratios[peer], items_run))
                print(f"{size:>6} B {producers}x{consumers:<3} {peer:<12} "
                      f"{med / 1e3:10.1f} k items/s   kfifo {ratios[peer]:.2f}x   "
                      f"({items_run} items a run)", flush=True)
    if args.out:
        write(rows, args)


def write(rows, args):
    from importlib.metadata import version

    import zmq
    lines = [
        "# kfifo benchmark: worker pools and fan-in between processes",
        "",
        time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()) + f"; {benchlib.machine_line()}; "
        f"Python {sys.version.split()[0]}; start method fork; medians of {args.repeats} paired runs.",
        "",
        f"Versions: kfifo {kfifo.__version__}; faster-fifo {version('faster-fifo')}; pyzmq {zmq.__version__}.",
        "",
        benchlib.load_line(),
        "",
        "Rates are items per second, all producers together (16 B records, or 64 KiB chunks). "
        "Ratio: kfifo's rate over the peer's in the same repetition, median.",
        "",
        "| payload | producers x consumers | peer | rate | kfifo / peer | items a run |",
        "|---|---|---|---:|---:|---:|",
    ]
    for size, shape, peer, med, ratio, items_run in rows:
        unit = f"{med / 1e6:.3f} M rec/s" if size == 16 else f"{med * size / 1e9:.2f} GB/s"
        lines.append(f"| {'16 B' if size == 16 else '64 KiB'} | {shape} | {peer} | {unit} | "
                     f"{ratio:.2f}× | {items_run:,} |")
    lines += ["", f"`python bench/python/bench_pools.py --repeats {args.repeats}"
              f"{' --quick' if args.quick else ''} --out`; method in its docstring.", ""]
    with open(os.path.join(benchlib.RESULTS, "pools.md"), "w") as fh:
        fh.write("\n".join(lines))


if __name__ == "__main__":
    main()
