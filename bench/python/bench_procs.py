# SPDX-License-Identifier: MIT
"""One process to another through a shared kfifo, against peers.

Workloads, each a producer process sending to the consumer (this process):

1. 16-byte records (and the same batched: kfifo ``put_recs`` /
   ``get_recs`` of BATCH records per call against pyzmq's one message per
   record and against pyzmq batched two ways:
   BATCH records joined into one message that the consumer cuts into
   16-byte records, its strongest form here, and a multipart message of
   BATCH one-record frames, ``send_multipart`` / ``recv_multipart``):
   kfifo ``Kfifo(FIFO, shared=True)``, the producer
   ``put_rec(rec, 1)`` per record then ``close()``, the consumer
   ``get_rec(1)`` until None; against ``multiprocessing.Queue`` (``put`` /
   ``get`` per item, a None sentinel) and ``faster_fifo.Queue`` (consumer
   ``get_many``; producer ``put`` per item, and ``put_many`` in batches as
   faster-fifo's README recommends), and pyzmq PUSH/PULL over ``ipc://``
   (``send`` per record, ``recv`` until an empty message; the strongest
   peer for messages between Python processes).  Records are distinct (a sequence
   number); the consumer keeps each one (``list.append``, or ``extend`` for
   a get_many batch) and, once the clock has stopped, checks the count and
   a CRC-32 of them all against what the producer was told to send.  The
   batched consumers do not keep the records (keeping millions of small
   objects alive costs Python ~100 ns each, more than either channel):
   each batch, a list of 16-byte bytes objects, is counted and folded into
   a running CRC-32 (``zlib.crc32(b"".join(batch), crc)``), checked at the end.
2. 64 KiB chunks: kfifo shared, ``put(chunk)`` / ``get_into(64 KiB
   bytearray)``, against ``multiprocessing.Pipe`` (``send_bytes`` /
   ``recv_bytes_into`` a preallocated buffer, an empty message ends it),
   against pyzmq PUSH/PULL over ``ipc://`` (``send(copy=False)`` /
   ``recv_into``) and against the same kfifo stream between two threads of one process (as in
   bench_threads.py).  The producer cycles through --source-chunks distinct
   chunks (default 16: 1 MiB, the fifo's size), chunk k filled with byte k;
   for each read the consumer checks the first and last byte against the
   stream offset.  (With 251 chunks, 16 MiB, the producer reads its source
   from DRAM and kfifo's stream halves while the Pipe's barely moves.)

Timing is the consumer's view: the producer process starts, builds its
data, says it is ready and waits; the consumer reads the clock, says go,
and stops the clock when it has everything (end of stream).  Process start
and teardown are not timed.  Every variant runs in turn, REPEATS times, in
one process; the table shows the median rate of each and the median of the
PAIRED ratios (kfifo run i / peer run i), because noise on a shared machine
comes in phases that slow everyone at once.  The peers are slower, so they
move fewer records per run (1/20 and 1/10 of kfifo's); rates are per second.

The main numbers use the fork start method; ``--start spawn`` runs the same
under spawn (the shared kfifo then reaches the child pickled to its name,
faster-fifo's queue through its faster_fifo_reduction module).  Unpinned,
the scheduler often runs producer and consumer on one core (a futex wake
pulls the wakee to the waker's CPU): ``--pin`` puts the consumer on CPU 0
and the producer on CPU 1 (the two-thread variant's threads likewise).

    python bench/python/bench_procs.py [--repeats 5] [--quick] [--start fork|spawn] [--pin] [--out [DIR]]
"""
import argparse
import datetime
import multiprocessing
import os
import platform
import statistics
import sys
import threading
import time
import zlib

import kfifo
from benchlib import RESULTS, machine_line  # bench/python/benchlib.py, beside this script

FIFO = 1 << 20
REC = 16
CHUNK = 64 << 10
#: records per put_many call of the faster-fifo batched producer
FF_BATCH = 1000
#: records per batch call: kfifo put_recs/get_recs, pyzmq multipart messages
BATCH = 256
#: a producer that is not heard from for this long is stuck
TIMEOUT = 120.0


# ---- data ------------------------------------------------------------------------------------


def make_records(count):
    """Distinct 16-byte records: the sequence number, little-endian."""
    return [i.to_bytes(REC, "little") for i in range(count)]


_expected = {}


def expected_records(count):
    if count not in _expected:
        _expected[count] = zlib.crc32(b"".join(make_records(count)))
    return _expected[count]


def check_records(name, got, count):
    if len(got) != count:
        raise AssertionError(f"{name}: {len(got)} records, expected {count}")
    if zlib.crc32(b"".join(got)) != expected_records(count):
        raise AssertionError(f"{name}: the records' CRC-32 differs")


#: distinct chunks the producer cycles through (the stream's chunk n is chunk
#: n % NCHUNKS): 16 of 64 KiB are 1 MiB, as big as the fifo (--source-chunks)
NCHUNKS = 16


def make_chunks(chunk, nch):
    """nch chunks, chunk k filled with the byte k."""
    return [bytes([k]) * chunk for k in range(nch)]


def check_read(buf, k, offset, chunk, nch):
    """The first and last byte of a read of k bytes at stream offset."""
    return buf[0] == (offset // chunk) % nch and buf[k - 1] == ((offset + k - 1) // chunk) % nch


# ---- producers (module level: the spawn start method imports them) --------------------------


def _ready_go(ready, go):
    ready.set()
    if not go.wait(TIMEOUT):
        raise SystemExit("producer: no go")


def prod_kfifo_records(f, count, ready, go):
    recs = make_records(count)
    put_rec = f.put_rec
    _ready_go(ready, go)
    for r in recs:
        put_rec(r, 1)
    f.close()


def _batches(items, size):
    return [items[i:i + size] for i in range(0, len(items), size)]


def prod_kfifo_records_batched(f, count, ready, go):
    batches = _batches(make_records(count), BATCH)
    put_recs = f.put_recs
    _ready_go(ready, go)
    for b in batches:
        put_recs(b, 1)
    f.close()


def prod_mpq_records(q, count, ready, go):
    recs = make_records(count)
    put = q.put
    _ready_go(ready, go)
    for r in recs:
        put(r)
    put(None)
    # the feeder thread flushes at exit (Queue.join_thread)


def prod_ff_records(q, count, ready, go):
    recs = make_records(count)
    put = q.put
    _ready_go(ready, go)
    for r in recs:
        put(r, True, TIMEOUT)
    put(None, True, TIMEOUT)


def prod_ff_many_records(q, count, ready, go):
    recs = make_records(count)
    batches = [recs[i:i + FF_BATCH] for i in range(0, count, FF_BATCH)]
    batches[-1] = batches[-1] + [None]
    put_many = q.put_many
    _ready_go(ready, go)
    for b in batches:
        put_many(b, True, TIMEOUT)


def _zmq_send_all(addr, items, ready, go, copy=True):
    """Bind a PUSH socket to addr, send every item once go is set, then an
    empty message (the end: no item is empty); close lingers until all is
    sent.  The producer binds and the consumer connects once the producer is
    ready, so that no zmq context is alive in the consumer when it forks."""
    import zmq

    ctx = zmq.Context()
    sock = ctx.socket(zmq.PUSH)
    sock.bind(addr)
    send = sock.send if copy else (lambda item: sock.send(item, copy=False))
    _ready_go(ready, go)
    for item in items:
        send(item)
    send(b"")
    sock.close()
    ctx.term()


def prod_zmq_records(addr, count, ready, go):
    _zmq_send_all(addr, make_records(count), ready, go)


def prod_zmq_records_batched(addr, count, ready, go, joined=False):
    """BATCH records per message: a multipart message of one frame per
    record (pyzmq's own form of many messages per call), or, joined, one
    frame of the BATCH records end to end (the consumer cuts it in 16-byte
    records: fixed-size records need no framing).  An empty frame ends."""
    import zmq

    batches = _batches(make_records(count), BATCH)
    ctx = zmq.Context()
    sock = ctx.socket(zmq.PUSH)
    sock.bind(addr)
    send_multipart, send, join = sock.send_multipart, sock.send, b"".join
    _ready_go(ready, go)
    if joined:
        for b in batches:
            send(join(b))
    else:
        for b in batches:
            send_multipart(b)
    sock.send(b"")
    sock.close()
    ctx.term()


def prod_zmq_stream(addr, chunk, n, nch, ready, go):
    chunks = make_chunks(chunk, nch)
    # copy=False: pyzmq's advice for large messages
    _zmq_send_all(addr, (chunks[i % nch] for i in range(n)), ready, go, copy=False)


def prod_kfifo_stream(f, chunk, n, nch, ready, go):
    chunks = make_chunks(chunk, nch)
    put = f.put
    _ready_go(ready, go)
    for i in range(n):
        put(chunks[i % nch])
    f.close()


def prod_pipe_stream(conn, chunk, n, nch, ready, go):
    chunks = make_chunks(chunk, nch)
    send = conn.send_bytes
    _ready_go(ready, go)
    for i in range(n):
        send(chunks[i % nch])
    send(b"")
    conn.close()


# ---- one run of each variant: items/s or bytes/s, consumer's view ----------------------------


#: with --pin: (consumer's CPU, producer's CPU)
PIN = None


def _producer(pin, target, *args, **kwargs):
    if pin is not None:
        os.sched_setaffinity(0, {pin})
    target(*args, **kwargs)


def _run(ctx, target, args, consume, before_go=None, **kwargs):
    """Start the producer, wait until it is ready, call before_go(), time consume()."""
    ready, go = ctx.Event(), ctx.Event()
    p = ctx.Process(target=_producer, args=(PIN and PIN[1], target) + args + (ready, go), kwargs=kwargs,
                    daemon=True)
    p.start()
    try:
        if not ready.wait(TIMEOUT):
            raise RuntimeError(f"{target.__name__}: the producer did not start")
        if before_go is not None:
            before_go()
        t0 = time.perf_counter()
        go.set()
        result = consume()
        dt = time.perf_counter() - t0
    finally:
        p.join(TIMEOUT)
        if p.is_alive():
            p.kill()
    if p.exitcode != 0:
        raise RuntimeError(f"{target.__name__}: producer exit code {p.exitcode}")
    return result, dt


def kfifo_records(ctx, count):
    f = kfifo.Kfifo(FIFO, shared=True)
    try:
        def consume():
            got = []
            append = got.append
            get_rec = f.get_rec
            while (r := get_rec(1)) is not None:
                append(r)
            return got

        got, dt = _run(ctx, prod_kfifo_records, (f, count), consume)
    finally:
        f.free()
    check_records("kfifo", got, count)
    return count / dt


def check_batched(name, got, count):
    """(records, CRC-32) of a batched consumer against what was sent."""
    if got != (count, expected_records(count)):
        raise AssertionError(f"{name}: {got[0]} records (expected {count}) or their CRC-32 differs")


def kfifo_records_batched(ctx, count):
    f = kfifo.Kfifo(FIFO, shared=True)
    try:
        def consume():
            n, crc = 0, 0
            get_recs, crc32, join = f.get_recs, zlib.crc32, b"".join
            while recs := get_recs(BATCH, 1):
                n += len(recs)
                crc = crc32(join(recs), crc)
            return n, crc

        got, dt = _run(ctx, prod_kfifo_records_batched, (f, count), consume)
    finally:
        f.free()
    check_batched("kfifo batched", got, count)
    return count / dt


def mpq_records(ctx, count):
    q = ctx.Queue()

    def consume():
        got = []
        append = got.append
        get = q.get
        while (r := get()) is not None:
            append(r)
        return got

    got, dt = _run(ctx, prod_mpq_records, (q, count), consume)
    q.close()
    check_records("multiprocessing.Queue", got, count)
    return count / dt


def _ff_consume(q):
    def consume():
        got = []
        extend = got.extend
        get_many = q.get_many
        while True:
            batch = get_many(True, TIMEOUT)
            if batch[-1] is None:
                extend(batch[:-1])
                return got
            extend(batch)

    return consume


def ff_records(ctx, count, many=False):
    import faster_fifo

    q = faster_fifo.Queue(max_size_bytes=FIFO)
    target = prod_ff_many_records if many else prod_ff_records
    got, dt = _run(ctx, target, (q, count), _ff_consume(q))
    check_records("faster-fifo", got, count)
    return count / dt


class _ZmqPull:
    """A PULL socket that connects to a fresh ipc:// address in a temporary
    folder (connect() once the producer has bound it); a receive that waits
    longer than TIMEOUT raises instead of hanging the benchmark."""

    def __init__(self):
        import tempfile

        self.dir = tempfile.mkdtemp(prefix="kfifo-bench-")
        self.addr = f"ipc://{self.dir}/push"
        self.ctx = self.sock = None

    def connect(self):
        import zmq

        self.ctx = zmq.Context()
        self.sock = self.ctx.socket(zmq.PULL)
        self.sock.setsockopt(zmq.RCVTIMEO, int(TIMEOUT * 1000))
        self.sock.connect(self.addr)

    def close(self):
        import shutil

        if self.sock is not None:
            self.sock.close(linger=0)
            self.ctx.term()
        shutil.rmtree(self.dir, ignore_errors=True)


def zmq_records(ctx, count):
    pull = _ZmqPull()
    try:
        def consume():
            got = []
            append = got.append
            recv = pull.sock.recv
            while (r := recv()) != b"":
                append(r)
            return got

        got, dt = _run(ctx, prod_zmq_records, (pull.addr, count), consume, pull.connect)
    finally:
        pull.close()
    check_records("pyzmq", got, count)
    return count / dt


def zmq_records_batched(ctx, count, joined=False):
    pull = _ZmqPull()
    try:
        def consume():
            n, crc = 0, 0
            recv_multipart, recv, crc32, join = pull.sock.recv_multipart, pull.sock.recv, zlib.crc32, b"".join
            if joined:
                while m := recv():
                    recs = [m[i:i + REC] for i in range(0, len(m), REC)]
                    n += len(recs)
                    crc = crc32(join(recs), crc)
            else:
                while (frames := recv_multipart()) != [b""]:
                    n += len(frames)
                    crc = crc32(join(frames), crc)
            return n, crc

        got, dt = _run(ctx, prod_zmq_records_batched, (pull.addr, count), consume, pull.connect,
                       joined=joined)
    finally:
        pull.close()
    check_batched("pyzmq batched", got, count)
    return count / dt


def zmq_stream(ctx, chunk, total):
    pull = _ZmqPull()
    try:
        (got, ok), dt = _run(ctx, prod_zmq_stream, (pull.addr, chunk, total // chunk, NCHUNKS),
                             _stream_consume(lambda buf: pull.sock.recv_into(buf), chunk, total),
                             pull.connect)
    finally:
        pull.close()
    _check_stream("pyzmq", got, ok, total)
    return got / dt


def _stream_consume(readinto, chunk, total):
    def consume():
        buf = bytearray(chunk)
        got = 0
        ok = True
        while True:
            k = readinto(buf)
            if k == 0:
                break
            ok = ok and check_read(buf, k, got, chunk, NCHUNKS)
            got += k
        return got, ok

    return consume


def _check_stream(name, got, ok, total):
    if got != total or not ok:
        raise AssertionError(f"{name}: {got} of {total} bytes, content {'ok' if ok else 'WRONG'}")


def kfifo_stream(ctx, chunk, total):
    f = kfifo.Kfifo(FIFO, shared=True)
    try:
        (got, ok), dt = _run(ctx, prod_kfifo_stream, (f, chunk, total // chunk, NCHUNKS),
                             _stream_consume(f.get_into, chunk, total))
    finally:
        f.free()
    _check_stream("kfifo", got, ok, total)
    return got / dt


def pipe_stream(ctx, chunk, total):
    r, w = ctx.Pipe(duplex=False)
    try:
        (got, ok), dt = _run(ctx, prod_pipe_stream, (w, chunk, total // chunk, NCHUNKS),
                             _stream_consume(r.recv_bytes_into, chunk, total))
    finally:
        r.close()
        w.close()
    _check_stream("Pipe", got, ok, total)
    return got / dt


def kfifo_stream_threads(ctx, chunk, total):
    """The same stream between two threads of this process (ctx unused)."""
    f = kfifo.Kfifo(FIFO)
    chunks = make_chunks(chunk, NCHUNKS)
    n = total // chunk

    def produce():
        if PIN:
            os.sched_setaffinity(0, {PIN[1]})  # this thread only
        put = f.put
        for i in range(n):
            put(chunks[i % NCHUNKS])
        f.close()

    t = threading.Thread(target=produce)
    consume = _stream_consume(f.get_into, chunk, total)
    t0 = time.perf_counter()
    t.start()
    got, ok = consume()
    dt = time.perf_counter() - t0
    t.join()
    _check_stream("kfifo threads", got, ok, total)
    return got / dt


# ---- report ----------------------------------------------------------------------------------


def peer_status(name):
    """None when the peer imports, else why it cannot run here."""
    module = {"faster-fifo": "faster_fifo", "pyzmq": "zmq"}[name]
    try:
        __import__(module)
    except ImportError:
        return f"not installed (pip install {name})"
    except Exception as e:  # noqa: BLE001
        return f"does not import: {e}"
    return None


def dist_version(name):
    try:
        from importlib.metadata import version

        return version(name)
    except Exception:  # noqa: BLE001
        return "?"


def main(argv=None):
    global FIFO, NCHUNKS, PIN
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=5, help="paired runs per workload (default 5)")
    ap.add_argument("--quick", action="store_true", help="smaller runs (~1/4 of the items and bytes)")
    ap.add_argument("--smoke", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--start", choices=("fork", "spawn", "forkserver"), default="fork",
                    help="multiprocessing start method (default fork)")
    ap.add_argument("--records", type=int, default=1_000_000, help="16 B records per kfifo run")
    ap.add_argument("--mb", type=int, default=2048, help="MiB per stream run")
    ap.add_argument("--fifo", type=int, default=FIFO, help="kfifo and faster-fifo size in bytes (default 1 MiB)")
    ap.add_argument("--source-chunks", type=int, default=NCHUNKS,
                    help=f"distinct 64 KiB chunks the stream producers cycle through (default {NCHUNKS})")
    ap.add_argument("--pin", action="store_true",
                    help="pin the consumer to CPU 0 and the producer (process or thread) to CPU 1")
    ap.add_argument("--only", action="append", choices=("records", "batched", "chunks"),
                    help="run only these workloads (repeatable; default all)")
    ap.add_argument("--out", nargs="?", const=RESULTS, default=None, metavar="DIR",
                    help="also write DIR/procs.md (default DIR: bench/results)")
    args = ap.parse_args(argv)
    FIFO, NCHUNKS = args.fifo, args.source_chunks
    if args.pin:
        PIN = (0, 1)
        os.sched_setaffinity(0, {PIN[0]})
    records, mib, repeats = args.records, args.mb, args.repeats
    if args.quick:
        records, mib = records // 4, mib // 4
    if args.smoke:
        records, mib, repeats = 2000, 4, 1
    total = (mib << 20) // CHUNK * CHUNK
    # the peers are 10-50x slower: fewer items keep their runs short (rates are per second)
    mpq_count = max(1000, records // 20)
    ff_count = max(1000, records // 10)
    zmq_count = max(1000, records // 4)
    ctx = multiprocessing.get_context(args.start)
    t_start = time.perf_counter()

    def log(msg):
        print(f"[{time.perf_counter() - t_start:6.1f} s] {msg}", file=sys.stderr, flush=True)

    ff = peer_status("faster-fifo")
    zq = peer_status("pyzmq")
    if ff is None and args.start != "fork":
        import faster_fifo_reduction  # noqa: F401  (makes faster_fifo.Queue picklable for spawn)

    # (workload, unit, scale, kfifo variant, peer name, peer variant or status, target)
    kf_rec = lambda: kfifo_records(ctx, records)  # noqa: E731
    kf_stream = lambda: kfifo_stream(ctx, CHUNK, total)  # noqa: E731
    kf_batched = lambda: kfifo_records_batched(ctx, records)  # noqa: E731
    rows = [
        ("16 B records", "M rec/s", 1e-6, "kfifo put_rec/get_rec", kf_rec,
         "multiprocessing.Queue put/get", lambda: mpq_records(ctx, mpq_count), 20.0),
        ("16 B records", "M rec/s", 1e-6, "kfifo put_rec/get_rec", kf_rec,
         "faster-fifo put/get_many", ff or (lambda: ff_records(ctx, ff_count)), 5.0),
        ("16 B records", "M rec/s", 1e-6, "kfifo put_rec/get_rec", kf_rec,
         f"faster-fifo put_many({FF_BATCH})/get_many", ff or (lambda: ff_records(ctx, ff_count, many=True)), 5.0),
        ("16 B records", "M rec/s", 1e-6, "kfifo put_rec/get_rec", kf_rec,
         "pyzmq PUSH/PULL ipc:// send/recv", zq or (lambda: zmq_records(ctx, zmq_count)), 1.0),
        # kfifo's batch calls against pyzmq's one message per record, then
        # against pyzmq batched too, in its two forms
        ("16 B records, batched", "M rec/s", 1e-6, f"kfifo put_recs/get_recs ({BATCH}/call)", kf_batched,
         "pyzmq PUSH/PULL ipc:// send/recv, a message per record",
         zq or (lambda: zmq_records(ctx, zmq_count)), 10.0),
        ("16 B records, batched", "M rec/s", 1e-6, f"kfifo put_recs/get_recs ({BATCH}/call)", kf_batched,
         f"pyzmq PUSH/PULL ipc:// {BATCH} records joined per message, cut by the consumer",
         zq or (lambda: zmq_records_batched(ctx, zmq_count, joined=True)), 10.0),
        ("16 B records, batched", "M rec/s", 1e-6, f"kfifo put_recs/get_recs ({BATCH}/call)", kf_batched,
         f"pyzmq PUSH/PULL ipc:// send_multipart/recv_multipart ({BATCH} frames)",
         zq or (lambda: zmq_records_batched(ctx, zmq_count)), 10.0),
        ("64 KiB chunks", "GB/s", 1e-9, "kfifo put/get_into", kf_stream,
         "multiprocessing.Pipe send_bytes/recv_bytes_into", lambda: pipe_stream(ctx, CHUNK, total), 3.0),
        ("64 KiB chunks", "GB/s", 1e-9, "kfifo put/get_into", kf_stream,
         "pyzmq PUSH/PULL ipc:// send/recv_into", zq or (lambda: zmq_stream(ctx, CHUNK, total)), 1.0),
        ("64 KiB chunks", "GB/s", 1e-9, "kfifo put/get_into", kf_stream,
         "kfifo put/get_into, 2 threads of 1 process", lambda: kfifo_stream_threads(ctx, CHUNK, total), 0.8),
    ]
    if args.only:
        keep = {"records": "16 B records", "batched": "16 B records, batched", "chunks": "64 KiB chunks"}
        rows = [r for r in rows if r[0] in {keep[o] for o in args.only}]
    # Run each workload's variants in turn, repeats times; a kfifo variant shared
    # by several rows of one workload runs once per round and pairs with each peer.
    workloads = {}
    for row in rows:
        workloads.setdefault(row[0], []).append(row)
    runs = {}
    failed = {}  # peer variant -> why it was left out (pyzmq runs have been seen to stall)
    for wl, wrows in workloads.items():
        kname, kfn = wrows[0][3], wrows[0][4]
        variants = {kname: kfn}
        for r in wrows:
            if callable(r[6]):
                variants[r[5]] = r[6]
        res = {name: [] for name in variants}
        for rep in range(repeats):
            for name, fn in variants.items():
                if name in failed:
                    continue
                try:
                    res[name].append(fn())
                except Exception as e:  # a peer that stalls or breaks is reported, not fatal
                    if name == kname:
                        raise
                    failed[name] = f"failed: {type(e).__name__}: {e}"[:160]
                    log(f"{wl}: {name}: {failed[name]}; left out from here on")
            log(f"{wl}: round {rep + 1}/{repeats}: "
                + ", ".join(f"{n} {res[n][-1] * wrows[0][2]:.3g}" for n in variants if n not in failed))
        runs[wl] = res

    table = ["| workload | kfifo | rate | peer | rate | median paired ratio | target | |",
             "|---|---|---:|---|---:|---:|---:|---|"]
    for wl, unit, scale, kname, _, pname, peer, target in rows:
        kr = runs[wl][kname]
        krate = f"{statistics.median(kr) * scale:.3f} {unit}"
        if not callable(peer) or pname in failed:
            why = failed.get(pname, peer)
            table.append(f"| {wl} | {kname} | {krate} | {pname} | {why} | n/a | ≥ {target:g}× | n/a |")
            continue
        pr = runs[wl][pname]
        ratio = statistics.median(a / b for a, b in zip(kr, pr))
        met = "met" if ratio >= target else "NOT met"
        table.append(f"| {wl} | {kname} | {krate} | {pname} | {statistics.median(pr) * scale:.3f} {unit} "
                     f"| {ratio:.2f}× | ≥ {target:g}× | {met} |")
    try:
        load = "load average %.2f %.2f %.2f" % os.getloadavg()
    except OSError:
        load = "load average unknown"
    mode = "smoke (sizes too small to mean anything)" if args.smoke else "quick" if args.quick else "full"
    ffv = ff or dist_version("faster-fifo")
    zmqv = zq or f"{dist_version('pyzmq')} (libzmq {__import__('zmq').zmq_version()})"
    head = [
        f"# kfifo benchmark: process to process ({mode})",
        "",
        f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; {machine_line()}; "
        f"Python {platform.python_version()} ({platform.python_implementation()}); "
        f"start method {args.start}; medians of {repeats} paired runs.",
        "",
        f"Versions: kfifo {kfifo.__version__}; faster-fifo {ffv}; pyzmq {zmqv}; "
        f"multiprocessing Python {platform.python_version()}.",
        "",
        f"Sizes: {records} records per run ({mpq_count} for multiprocessing.Queue, {ff_count} for "
        f"faster-fifo); {total >> 20} MiB per stream run, the producer cycling through {NCHUNKS} "
        f"distinct 64 KiB chunks; kfifo and faster-fifo {FIFO} bytes, the Pipe the OS's. "
        + ("Consumer pinned to CPU 0, producer to CPU 1." if PIN else "Not pinned to CPUs."),
        "",
        f"At the end: {load} (2 cores: above 0 means other work shared them).",
        "",
        "Ratio: kfifo's rate over the peer's, run by run, median.",
        "",
    ]
    text = "\n".join(head + table) + "\n"
    print(text)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        path = os.path.join(args.out, "procs.md")
        with open(path, "w") as fh:
            fh.write(text)
            fh.write("\n`" + " ".join(["python", "bench/python/bench_procs.py"] + (argv if argv is not None else sys.argv[1:]))
                     + "`; method in bench/python/bench_procs.py's docstring.\n")
        log(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
