# SPDX-License-Identifier: MIT
"""kfifo against the queues a Python programmer would pick.

    python bench/python/bench_peers.py [--quick] [--build-c] [--no-c] [--out DIR]


Measured side by side in one run, each figure the median of several
repetitions that take the implementations in turn:

* ``collections.deque``, ``queue.Queue`` and ``queue.SimpleQueue``
  (standard library; they move references to objects, they copy nothing;
  SimpleQueue is CPython's fastest channel between threads);
* the PyPI ring buffers ``ringbuf`` (Boost spsc_queue, Cython),
  ``pa-ringbuffer`` (PortAudio's ring buffer through CFFI; the package ships
  only the Python half, the compiled ring comes from ``rtmixer``'s wheel) and
  ``faster-fifo`` (a multiprocessing queue that pickles what it carries).

Workloads: ``in_`` + ``out`` of 16 bytes in one thread (per call), the same
in one thread for chunks up to 1 MiB (the plot), two threads producer and
consumer with 1 MiB chunks and with 64-byte records, and numpy arrays in.
When the C benchmark is built (``bench/run-c-bench.sh``) its tables join
the report.

The benchmark's dependencies are optional (``pip install -r
bench/requirements.txt``): a peer that is missing is reported as "not
installed", a missing matplotlib only skips the plot.  Results go to
bench/results/ unless --out says otherwise.
"""
from __future__ import annotations

import argparse
import collections
import datetime
import json
import os
import platform
import queue
import statistics
import subprocess
import sys
import threading
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from benchlib import BENCH, RESULTS, load_line, machine_line  # beside this script

KIB = 1024
MIB = 1024 * 1024

#: Implementations in the order of the tables.
IMPLS = ["kfifo", "deque", "queue.Queue", "queue.SimpleQueue", "ringbuf", "pa-ringbuffer",
         "faster-fifo"]

#: Chunk sizes of the one-thread sweep (the plot).
CHUNKS = [16, 256, 4 * KIB, 64 * KIB, MIB]

#: Where the C benchmark is looked for when --c-binary does not say.
C_BINARY_CANDIDATES = [
    os.path.join(BENCH, "build", "bench", "kfifo-bench"),   # bench/run-c-bench.sh
    os.path.join(os.path.dirname(BENCH), "build", "bench", "kfifo-bench"),  # cmake -B build -DKFIFO_BUILD_BENCH=ON
]


# ---- command line ----------------------------------------------------------


def _positive_int(text: str) -> int:
    try:
        value = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _writable_dir(text: str) -> str:
    """A directory that exists or can be made, and can be written: checked while
    the command line is parsed, not after minutes of measuring."""
    try:
        os.makedirs(text, exist_ok=True)
    except OSError as e:
        raise argparse.ArgumentTypeError(f"cannot create directory {text!r}: {e.strerror}") from None
    if not os.access(text, os.W_OK):
        raise argparse.ArgumentTypeError(f"directory {text!r} is not writable")
    return text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--quick", action="store_true",
                        help="fewer repetitions and bytes: under a minute")
    parser.add_argument("--reps", type=_positive_int, default=None,
                        help="repetitions per figure, the median is reported "
                             "(default 5, 3 with --quick)")
    parser.add_argument("--out", type=_writable_dir, default=None, metavar="DIR",
                        help="where to write the table, JSON and plots "
                             "(default bench/results)")
    parser.add_argument("--c-binary", default=None, metavar="PATH",
                        help="the C benchmark to run as well (default: "
                             "$KFIFO_BENCH_BINARY, then "
                             + ", ".join(C_BINARY_CANDIDATES) + ")")
    parser.add_argument("--build-c", action="store_true",
                        help="build the C benchmark first with "
                             "bench/run-c-bench.sh (apt-get installs its peers)")
    parser.add_argument("--no-c", action="store_true",
                        help="skip the C benchmark even when it is built")
    parser.add_argument("--no-plot", action="store_true", help="write no PNG")
    # Tiny sizes for the test suite: checks that the command runs, measures
    # nothing worth reading.
    parser.add_argument("--smoke", action="store_true", help=argparse.SUPPRESS)


# ---- the implementations -----------------------------------------------------


def _dist_version(name: str) -> str:
    try:
        from importlib.metadata import version
        return version(name)
    except Exception:  # noqa: BLE001 - metadata missing is not an error here
        return "?"


def load_impls() -> Dict[str, Any]:
    """Import every implementation: name -> factory namespace, or the reason
    it cannot run here (a string)."""
    found: Dict[str, Any] = {}
    try:
        import kfifo
        found["kfifo"] = kfifo
    except Exception as e:  # noqa: BLE001
        found["kfifo"] = f"not importable: {e}"
    found["deque"] = collections
    found["queue.Queue"] = queue
    found["queue.SimpleQueue"] = queue
    try:
        import ringbuf
        found["ringbuf"] = ringbuf
    except ImportError:
        found["ringbuf"] = ("not installed (pip install ringbuf; its build "
                            "links -lboost_system: apt-get install libboost-system-dev)")
    except Exception as e:  # noqa: BLE001
        found["ringbuf"] = f"does not import: {e}"
    try:
        import pa_ringbuffer
    except ImportError:
        found["pa-ringbuffer"] = "not installed (pip install pa-ringbuffer)"
    else:
        try:
            # pa-ringbuffer is only the Python half: the ring itself is
            # PortAudio's C code, which each user compiles into their own
            # CFFI module.  rtmixer's wheel carries one.
            import _rtmixer
            found["pa-ringbuffer"] = pa_ringbuffer.init(_rtmixer.ffi, _rtmixer.lib)
        except ImportError:
            found["pa-ringbuffer"] = ("installed, but it ships no compiled "
                                      "ring: pip install rtmixer provides one")
    try:
        import faster_fifo
        found["faster-fifo"] = faster_fifo
    except ImportError:
        found["faster-fifo"] = "not installed (pip install faster-fifo)"
    except Exception as e:  # noqa: BLE001
        found["faster-fifo"] = f"does not import: {e}"
    return found


def impl_versions(impls: Dict[str, Any]) -> Dict[str, str]:
    dist = {"kfifo": "kfifo", "ringbuf": "ringbuf", "pa-ringbuffer": "pa-ringbuffer",
            "faster-fifo": "faster-fifo"}
    out = {}
    for name in IMPLS:
        if isinstance(impls[name], str):
            out[name] = impls[name]
        elif name in ("deque", "queue.Queue", "queue.SimpleQueue"):
            out[name] = "Python " + platform.python_version()
        elif name == "pa-ringbuffer":
            out[name] = f"{_dist_version('pa-ringbuffer')} (ring from rtmixer {_dist_version('rtmixer')})"
        else:
            out[name] = _dist_version(dist[name])
    return out


def _pow2(n: int) -> int:
    p = 1
    while p < n:
        p <<= 1
    return p


# ---- one thread: in + out ----------------------------------------------------
#
# One function per implementation, each the loop its user would write with
# the methods bound to locals, so that no adapter layer adds a call that
# the real code would not make.


def _nbytes(data: Any) -> int:
    return memoryview(data).nbytes


def _check(name: str, got: Any, want: int) -> None:
    """The last round trip must have carried the whole chunk: a ring too
    small or a short write would otherwise look fast."""
    n = got if isinstance(got, int) else 0 if got is None else memoryview(got).nbytes
    if n != want:
        raise RuntimeError(f"{name}: a round trip returned {n} of {want} bytes")


def _inout_kfifo(m: Any, data: Any, iters: int, into: bool = False) -> float:
    """kfifo in_ then out(n); with ``into``, out_into(buf), the copy-free way out."""
    n = _nbytes(data)
    f = m.Kfifo(_pow2(4 * n))
    fin = f.in_
    fout, arg = (f.out_into, bytearray(n)) if into else (f.out, n)
    got = None
    t0 = time.perf_counter()
    for _ in range(iters):
        fin(data)
        got = fout(arg)
    t1 = time.perf_counter()
    f.free()
    _check("kfifo out_into" if into else "kfifo", got, n)
    return t1 - t0


def _inout_kfifo_into(m: Any, data: Any, iters: int) -> float:
    return _inout_kfifo(m, data, iters, into=True)


def _put_get(put: Callable[[Any], Any], get: Callable[[], Any], data: Any, iters: int) -> float:
    """Seconds for iters rounds of put(data) then get(), bound methods preloaded."""
    t0 = time.perf_counter()
    for _ in range(iters):
        put(data)
        get()
    return time.perf_counter() - t0


def _inout_deque(m: Any, data: Any, iters: int) -> float:
    d = m.deque()
    return _put_get(d.append, d.popleft, data, iters)


def _inout_queue(m: Any, data: Any, iters: int) -> float:
    q = m.Queue()
    return _put_get(q.put, q.get, data, iters)


def _inout_simple_queue(m: Any, data: Any, iters: int) -> float:
    q = m.SimpleQueue()
    return _put_get(q.put, q.get, data, iters)


def _inout_ringbuf(m: Any, data: Any, iters: int) -> float:
    view = memoryview(data)
    r = m.RingBuffer(format=view.format, capacity=4 * len(view))
    put, get = r.push, r.pop
    n = len(view)
    got = None
    t0 = time.perf_counter()
    for _ in range(iters):
        put(data)
        got = get(n)
    t1 = time.perf_counter()
    _check("ringbuf", got, view.nbytes)
    return t1 - t0


def _inout_pa(m: Any, data: Any, iters: int) -> float:
    n = _nbytes(data)
    r = m(1, _pow2(4 * n))
    put, get = r.write, r.read
    got = None
    t0 = time.perf_counter()
    for _ in range(iters):
        put(data)
        got = get(n)
    t1 = time.perf_counter()
    _check("pa-ringbuffer", got, n)
    return t1 - t0


def _inout_faster_fifo(m: Any, data: Any, iters: int) -> float:
    q = m.Queue(max_size_bytes=max(1 * MIB, 4 * _nbytes(data) + 4096))
    try:
        return _put_get(q.put_nowait, q.get_nowait, data, iters)
    finally:
        q.close()


INOUT: Dict[str, Callable[[Any, Any, int], float]] = {
    "kfifo": _inout_kfifo,
    "deque": _inout_deque,
    "queue.Queue": _inout_queue,
    "queue.SimpleQueue": _inout_simple_queue,
    "ringbuf": _inout_ringbuf,
    "pa-ringbuffer": _inout_pa,
    "faster-fifo": _inout_faster_fifo,
}


# ---- two threads: producer and consumer ---------------------------------------
#
# Each returns the seconds from the start until the consumer has it all.  A
# side that finds the ring full or empty calls time.sleep(0), which lets the
# other thread have the GIL at once (a bare spin would hold it for the whole
# switch interval); on CPython 3.11 and later it also sleeps ~50-70 us
# (clock_nanosleep within the timer slack; 0.2 us on 3.9), alike for every
# peer.  Every run has a deadline, so a peer that stalls is reported, not
# waited for.


class _Stalled(Exception):
    pass


#: CPU time over wall time of the last two-thread run (see _two_threads).
LAST_CPU_SHARE = [0.0]


def _two_threads(produce: Callable[[], None], consume: Callable[[], None],
                 timeout: float) -> float:
    errors: List[BaseException] = []

    def guard(fn: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            try:
                fn()
            except BaseException as e:  # noqa: BLE001 - reported by the caller
                errors.append(e)
        return run

    threads = [threading.Thread(target=guard(consume), daemon=True),
               threading.Thread(target=guard(produce), daemon=True)]
    c0 = time.process_time()
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
    t1 = time.perf_counter()
    # CPUs this process had on average: 2.0 means both threads ran all the
    # time; near 1.0 means they took turns (the GIL, or no free core).
    LAST_CPU_SHARE[0] = (time.process_time() - c0) / max(t1 - t0, 1e-9)
    if any(t.is_alive() for t in threads):
        raise _Stalled(f"no progress within {timeout:.0f} s")
    if errors:
        raise errors[0]
    return t1 - t0


def cpu_share_control(nbytes: int, count: int) -> float:
    """CPUs that two threads get here when both really run without the GIL:
    hashlib hashes big buffers with the GIL released.  Near 2.0 on an idle
    2-core machine; near 1.0 when other work leaves one core."""
    import hashlib
    data = bytes(nbytes)

    def work() -> None:
        for _ in range(count):
            hashlib.sha256(data).digest()
    _two_threads(work, work, 60.0)
    return LAST_CPU_SHARE[0]


def _deadline(timeout: float) -> Callable[[], None]:
    end = time.perf_counter() + timeout

    def check() -> None:
        if time.perf_counter() > end:
            raise _Stalled("deadline")
    return check


def _stream_pair(write: Callable[[Any], int], readinto: Callable[[Any], int], data: bytes,
                 chunk: int, count: int, late: Callable[[], None]) -> Tuple[Callable[[], None], Callable[[], None]]:
    """Producer and consumer for a byte ring with ``write(v) -> n`` and ``readinto(buf) -> n``."""
    sleep = time.sleep
    total = chunk * count

    def produce() -> None:
        whole = memoryview(data)
        for _ in range(count):
            v = whole
            while True:
                k = write(v)
                if k == len(v):
                    break
                if k:
                    v = v[k:]
                else:
                    late()
                    sleep(0)

    def consume() -> None:
        buf, got = bytearray(chunk), 0
        while got < total:
            k = readinto(buf)
            if k:
                got += k
            else:
                late()
                sleep(0)
    return produce, consume


def _spsc_bytes(name: str, m: Any, chunk: int, count: int, timeout: float) -> float:
    """Move count chunks of chunk bytes from a producer to a consumer."""
    data = bytes(chunk)
    total = chunk * count
    cap = _pow2(4 * chunk)
    sleep = time.sleep
    late = _deadline(timeout)

    if name == "kfifo":
        f = m.Kfifo(cap)
        try:
            return _two_threads(*_stream_pair(f.in_, f.out_into, data, chunk, count, late), timeout)
        finally:
            f.free()

    if name == "ringbuf":
        r = m.RingBuffer(format="B", capacity=cap)

        def produce() -> None:
            push = r.push
            for _ in range(count):
                rest = push(data)
                while rest is not None:
                    late()
                    sleep(0)
                    rest = push(rest)

        def consume() -> None:
            pop, got = r.pop, 0
            while got < total:
                v = pop(chunk)
                if v is not None:
                    got += len(v)
                else:
                    late()
                    sleep(0)
        return _two_threads(produce, consume, timeout)

    if name == "pa-ringbuffer":
        r = m(1, cap)
        return _two_threads(*_stream_pair(r.write, r.readinto, data, chunk, count, late), timeout)

    return _spsc_objects(name, m, data, count, timeout)


def _pinned(produce: Callable[[], None], consume: Callable[[], None]
            ) -> Tuple[Callable[[], None], Callable[[], None]]:
    """The producer on the first CPU this process may use, the consumer on
    the second, as the C benchmark pins its threads (bench_pin(0) and (1));
    unchanged where there are fewer than two or no affinity calls."""
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    if len(cpus) < 2:
        return produce, consume

    def on(cpu: int, fn: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            os.sched_setaffinity(0, {cpu})  # 0: the calling thread
            fn()
        return run
    return on(cpus[0], produce), on(cpus[1], consume)


def _kfifo_stream_like_c(m: Any, chunk: int, count: int, timeout: float,
                         blocking: bool = True, pin: bool = True) -> float:
    """kfifo's two-thread stream as the C benchmark runs it: a 1 MiB fifo,
    the threads pinned to two CPUs (``pin``).  ``blocking``: ``put`` /
    ``get_into``, which wait in C without the GIL, as a Python user writes
    the loop (C's threads spin on ``kfifo_in`` / ``kfifo_out``); else
    ``in_`` / ``out_into`` polling with ``time.sleep(0)``, which on CPython
    3.11 and later sleeps ~50-70 us each time (the kernel's timer slack)."""
    f = m.Kfifo(MIB)
    data = bytes(chunk)
    total = chunk * count
    if blocking:
        def produce() -> None:
            put = f.put
            for _ in range(count):
                put(data)

        def consume() -> None:
            get_into, buf, got = f.get_into, bytearray(chunk), 0
            while got < total:
                got += get_into(buf)
    else:
        produce, consume = _stream_pair(f.in_, f.out_into, data, chunk, count,
                                        _deadline(timeout))
    if pin:
        produce, consume = _pinned(produce, consume)
    try:
        return _two_threads(produce, consume, timeout)
    finally:
        f.free()


def _spsc_objects(name: str, m: Any, data: Any, count: int, timeout: float) -> float:
    """The object queues: one object per chunk or record (deque,
    queue.Queue and queue.SimpleQueue pass a reference; faster-fifo pickles
    a copy)."""
    sleep = time.sleep
    late = _deadline(timeout)
    if name == "deque":
        d = m.deque()

        def produce() -> None:
            put = d.append
            for _ in range(count):
                put(data)

        def consume() -> None:
            get, got = d.popleft, 0
            while got < count:
                try:
                    get()
                    got += 1
                except IndexError:
                    late()
                    sleep(0)
        return _two_threads(produce, consume, timeout)

    if name == "queue.Queue":
        q = m.Queue(maxsize=64)

        def produce() -> None:
            put = q.put
            for _ in range(count):
                put(data, timeout=timeout)

        def consume() -> None:
            get = q.get
            for _ in range(count):
                get(timeout=timeout)
        return _two_threads(produce, consume, timeout)

    if name == "queue.SimpleQueue":
        # unbounded: its producer never waits, so a slow consumer lets it
        # run ahead (which only helps its figure)
        sq = m.SimpleQueue()

        def produce() -> None:
            put = sq.put
            for _ in range(count):
                put(data)

        def consume() -> None:
            get = sq.get
            for _ in range(count):
                get(timeout=timeout)
        return _two_threads(produce, consume, timeout)

    if name == "faster-fifo":
        size = max(MIB, 8 * (memoryview(data).nbytes + 64))
        q = m.Queue(max_size_bytes=size)

        def produce() -> None:
            put = q.put
            for _ in range(count):
                put(data, timeout=timeout)

        def consume() -> None:
            get = q.get
            for _ in range(count):
                get(timeout=timeout)
        try:
            return _two_threads(produce, consume, timeout)
        finally:
            q.close()
    raise KeyError(name)


def _spsc_records(name: str, m: Any, size: int, count: int, timeout: float,
                  fifo: int = 64 * KIB) -> float:
    """count records of size bytes; byte streams without framing are n/a."""
    data = bytes(size)
    sleep = time.sleep
    late = _deadline(timeout)
    if name == "kfifo":
        f = m.Kfifo(fifo)
        recsize = 1 if size <= 255 else 2

        def produce() -> None:
            fin = f.in_rec
            for _ in range(count):
                while fin(data, recsize):
                    late()
                    sleep(0)

        def consume() -> None:
            fout, got = f.out_rec, 0
            while got < count:
                if fout(size, recsize)[0] == 0:
                    got += 1
                else:
                    late()
                    sleep(0)
        try:
            return _two_threads(produce, consume, timeout)
        finally:
            f.free()
    if name == "pa-ringbuffer":
        # elementsize = record size: PortAudio's ring as a fixed-size record queue
        r = m(size, _pow2(64 * KIB // size))

        def produce() -> None:
            write = r.write
            for _ in range(count):
                while not write(data):
                    late()
                    sleep(0)

        def consume() -> None:
            readinto, buf, got = r.readinto, bytearray(size), 0
            while got < count:
                if readinto(buf):
                    got += 1
                else:
                    late()
                    sleep(0)
        return _two_threads(produce, consume, timeout)
    if name == "ringbuf":
        raise NotImplementedError("a byte stream without record framing")
    return _spsc_objects(name, m, data, count, timeout)


# ---- the runs -------------------------------------------------------------------


class Plan:
    def __init__(self, quick: bool, smoke: bool, reps: Optional[int]) -> None:
        self.quick, self.smoke = quick, smoke
        self.reps = reps or (1 if smoke else 3 if quick else 5)
        scale = 0.002 if smoke else 0.25 if quick else 1.0
        self.call_iters = max(200, int(200_000 * scale))
        self.sweep_bytes = max(64 * KIB, int(128 * MIB * scale))
        self.spsc_bytes = max(2 * MIB, int(512 * MIB * scale))
        self.rec_count = max(200, int(200_000 * scale))
        self.np_bytes = max(64 * KIB, int(64 * MIB * scale))
        self.timeout = 5.0 if smoke else 60.0


def _median(xs: List[float]) -> Optional[float]:
    return statistics.median(xs) if xs else None


def _measure(results: Dict[str, Any], key: str, impl: str,
             fn: Callable[[], float]) -> None:
    """Run one measurement; keep its value, or why it could not run."""
    slot = results.setdefault(key, {}).setdefault(impl, {"all": []})
    if "error" in slot:
        return
    try:
        slot["all"].append(fn())
    except NotImplementedError as e:
        slot["error"] = f"n/a: {e}"
    except _Stalled as e:
        slot["error"] = f"failed: {e}"
    except Exception as e:  # noqa: BLE001 - a broken peer is reported
        slot["error"] = f"failed: {type(e).__name__}: {e}"


def run_python(plan: Plan, impls: Dict[str, Any], log: Callable[[str], None]) -> Dict[str, Any]:
    ok = [n for n in IMPLS if not isinstance(impls[n], str)]
    res: Dict[str, Any] = {}
    small = bytes(16)
    try:
        import numpy as np
    except ImportError:
        np = None
    # an unrecorded round first: the first calls of a process (lazy symbol
    # binding, the interpreter specialising the loop, a cold cache) would
    # otherwise fall on kfifo, measured first in every repetition
    for n in ok:
        _measure({}, "warm-up", n, lambda n=n: INOUT[n](impls[n], small, 2000))
    for rep in range(plan.reps):
        log(f"python: repetition {rep + 1}/{plan.reps}")
        # per call: 16 bytes in + out
        for n in ok:
            _measure(res, "call16", n,
                     lambda n=n: INOUT[n](impls[n], small, plan.call_iters) / plan.call_iters)
        # one-thread sweep over chunk sizes
        for chunk in CHUNKS:
            data = bytes(chunk)
            iters = max(20, plan.sweep_bytes // chunk) if chunk > 16 else plan.call_iters
            for n in ok:
                _measure(res, f"sweep{chunk}", n,
                         lambda n=n, data=data, iters=iters:
                         iters * len(data) / INOUT[n](impls[n], data, iters))
            if "kfifo" in ok:
                _measure(res, f"sweep{chunk}", "kfifo out_into",
                         lambda data=data, iters=iters:
                         iters * len(data) / _inout_kfifo_into(impls["kfifo"], data, iters))
        # two threads, 1 MiB chunks, and the single-thread rate of the same
        count = max(2, plan.spsc_bytes // MIB)
        for n in ok:
            _measure(res, "spsc1M", n,
                     lambda n=n: count * MIB / _spsc_bytes(n, impls[n], MIB, count, plan.timeout))
            if n == "kfifo":
                res.setdefault("spsc1M_cpus", {}).setdefault(
                    "kfifo", {"all": []})["all"].append(LAST_CPU_SHARE[0])
        _measure(res, "spsc1M_cpus", "control",
                 lambda: cpu_share_control(MIB, max(2, count // 8)))
        # two threads, 64-byte records
        for n in ok:
            _measure(res, "rec64", n,
                     lambda n=n: plan.rec_count / _spsc_records(n, impls[n], 64, plan.rec_count,
                                                                plan.timeout))
        # the workloads of the C benchmark, for the table of Python against C
        if "kfifo" in ok:
            n64 = max(2, plan.spsc_bytes // (64 * KIB))
            for key, blocking, pin in (("like_c_stream64K", True, True),
                                       ("like_c_stream64K_poll", False, True),
                                       ("like_c_stream64K_unpinned", True, False)):
                _measure(res, key, "kfifo",
                         lambda blocking=blocking, pin=pin:
                         n64 * 64 * KIB / _kfifo_stream_like_c(impls["kfifo"], 64 * KIB, n64,
                                                               plan.timeout, blocking, pin))
                res.setdefault(key + "_cpus", {}).setdefault(
                    "kfifo", {"all": []})["all"].append(LAST_CPU_SHARE[0])
            _measure(res, "like_c_rec16", "kfifo",
                     lambda: plan.rec_count / _spsc_records("kfifo", impls["kfifo"], 16,
                                                            plan.rec_count, plan.timeout, MIB))
        # numpy arrays in (and out into an array where the API allows it)
        if np is not None:
            for nbytes in (128, MIB):
                arr = np.arange(nbytes // 8, dtype=np.float64)
                iters = max(20, plan.np_bytes // nbytes) if nbytes >= 4 * KIB else plan.call_iters
                for n in ok:
                    fn = _inout_kfifo_into if n == "kfifo" else INOUT[n]
                    _measure(res, f"numpy{nbytes}", n,
                             lambda n=n, fn=fn, arr=arr, iters=iters:
                             iters * arr.nbytes / fn(impls[n], arr, iters))
    for per_impl in res.values():
        for slot in per_impl.values():
            slot["median"] = _median(slot["all"])
    return res


# ---- the C benchmark ------------------------------------------------------------


def find_c_binary(args: argparse.Namespace) -> Optional[str]:
    for cand in (args.c_binary, os.environ.get("KFIFO_BENCH_BINARY"), *C_BINARY_CANDIDATES):
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    return None


def run_c(args: argparse.Namespace, out_dir: str, log: Callable[[str], None]) -> Optional[Dict[str, Any]]:
    """Run the C benchmark when it is built; its JSON, or None."""
    if args.build_c:
        log("c: building with bench/run-c-bench.sh --build-only")
        subprocess.run(["bash", os.path.join(BENCH, "run-c-bench.sh"), "--build-only"], check=False)
    binary = find_c_binary(args)
    if binary is None:
        log("c: benchmark not built (bench/run-c-bench.sh, or --build-c); skipped")
        return None
    json_path = os.path.join(out_dir, "c.json")
    md_path = os.path.join(out_dir, "c.md")
    cmd = [binary, "--json", json_path, "--md", md_path]
    if args.smoke:
        cmd += ["--reps", "1", "--scale", "0.002"]
    elif args.quick:
        cmd += ["--quick"]
    if args.reps:
        cmd += ["--reps", str(args.reps)]
    log("c: " + " ".join(cmd))
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, check=False)
    if proc.returncode != 0:
        log(f"c: benchmark failed with status {proc.returncode}")
        return None
    with open(json_path) as fh:
        data = json.load(fh)
    with open(md_path) as fh:
        data["markdown"] = fh.read()
    return data


# ---- the report ---------------------------------------------------------------------


def _fmt(v: Optional[float], unit: str) -> str:
    if v is None:
        return "—"
    if unit == "ns":
        return f"{v * 1e9:.0f} ns"
    if unit == "GB/s":
        return f"{v / 1e9:.3f}"
    if unit == "M/s":
        return f"{v / 1e6:.3f}"
    return f"{v:.3g}"


def _cell(res: Dict[str, Any], key: str, impl: str, unit: str, versions: Dict[str, str]) -> str:
    slot = res.get(key, {}).get(impl)
    if slot is None:
        v = versions.get(impl, "")
        return "not installed" if "not" in v or "ships no" in v else "—"
    if "error" in slot:
        return slot["error"]
    return _fmt(slot.get("median"), unit)


def _get(res: Dict[str, Any], key: str, impl: str) -> Optional[float]:
    slot = res.get(key, {}).get(impl)
    return None if slot is None or "error" in slot else slot.get("median")


def _paired(res: Dict[str, Any], key: str, a: str, b: str) -> Optional[float]:
    """The median over repetitions of a's figure over b's in the same
    repetition: a load phase that slows one repetition slows both."""
    sa, sb = res.get(key, {}).get(a), res.get(key, {}).get(b)
    if not sa or not sb or "error" in sa or "error" in sb:
        return None
    ratios = [x / y for x, y in zip(sa["all"], sb["all"]) if x and y]
    return statistics.median(ratios) if ratios else None


def python_targets(res: Dict[str, Any], single_rate: Optional[float]) -> List[List[str]]:
    """Rows of (goal, measured, met) for the Python binding's goals; the
    one-thread ratios are medians of paired repetitions."""
    rows = []

    def row(target: str, value: Optional[float], ok: Optional[bool], shown: str) -> None:
        rows.append([target, shown if value is not None else "—",
                     "n/a" if ok is None else ("met" if ok else "NOT met")])

    r = _paired(res, "call16", "kfifo", "deque")
    row("16 B in_+out time ≤ 2× deque append+popleft", r, (r <= 2.0) if r else None,
        f"{r:.2f}× deque's time" if r else "")
    r = _paired(res, "call16", "queue.Queue", "kfifo")
    row("16 B in_+out ≥ 5× faster than queue.Queue", r, (r >= 5.0) if r else None,
        f"{r:.2f}× faster" if r else "")
    for peer in ("ringbuf", "pa-ringbuffer", "faster-fifo"):
        r = _paired(res, "call16", peer, "kfifo")
        row(f"16 B in_+out faster than {peer}", r, (r > 1.0) if r else None,
            f"{r:.2f}× faster" if r else "")
    two = _get(res, "spsc1M", "kfifo")
    row("two threads, 1 MiB chunks ≥ 1.5× one thread", two and single_rate and two / single_rate,
        (two / single_rate >= 1.5) if two and single_rate else None,
        f"{two / single_rate:.2f}× ({two / 1e9:.2f} vs {single_rate / 1e9:.2f} GB/s)"
        if two and single_rate else "")
    return rows


def python_vs_c(res: Dict[str, Any], c: Dict[str, Any]) -> List[List[str]]:
    """Rows of (workload, Python, C, Python/C): kfifo's two-thread stream of
    64 KiB chunks (GB/s; blocking calls with the threads pinned as C's, the
    goal's row, then polling calls, then blocking calls unpinned) and of
    16-byte records, recsize 1 (M/s, polling calls), all through a 1 MiB
    fifo, and the 16-byte in + out round trip in one thread (ns; the ratio
    is C's time over Python's, so that every ratio reads "Python does this
    fraction of C's work"), from this run's medians."""
    c_stream = {(e["impl"], e["chunk"]): e["median"] for e in c.get("stream_gbps", [])}
    c_rec = {e["name"]: e["median"] for e in c.get("records_mops", [])}
    c_ping = {e["impl"]: e["median"] for e in c.get("pingpong16_ns", [])}
    c64 = c_stream.get(("kfifo", 65536))
    rows = []
    for label, key, cval, scale, unit in (
            ("two threads, 64 KiB chunks, `put`/`get_into` (blocking) vs "
             "`kfifo_in`/`kfifo_out` (spinning), threads pinned to two CPUs in both",
             "like_c_stream64K", c64, 1e-9, "GB/s"),
            ("the same, `in_`/`out_into` polling with `time.sleep(0)`",
             "like_c_stream64K_poll", c64, 1e-9, "GB/s"),
            ("the same, `put`/`get_into`, Python's threads not pinned",
             "like_c_stream64K_unpinned", c64, 1e-9, "GB/s"),
            ("two threads, 16 B records, `in_rec`/`out_rec` vs `kfifo_in_rec`/`kfifo_out_rec`",
             "like_c_rec16", c_rec.get("kfifo records 16 B (recsize 1)"), 1e-6, "M/s")):
        py = _get(res, key, "kfifo")
        py_shown = f"{py * scale:.3f} {unit}" if py else "—"
        cpus = _get(res, key + "_cpus", "kfifo")
        if py and cpus:
            py_shown += f" ({cpus:.2f} CPUs)"
        c_shown = f"{cval:.3f} {unit}" if cval else "—"
        rows.append([label, py_shown, c_shown, f"{py * scale / cval:.2f}×" if py and cval else "—"])
    py_ns = _get(res, "call16", "kfifo")
    c_ns = c_ping.get("kfifo")
    rows.append(["one thread, 16 B `in_` + `out` vs `kfifo_in` + `kfifo_out` (time per round trip)",
                 f"{py_ns * 1e9:.1f} ns" if py_ns else "—",
                 f"{c_ns:.1f} ns" if c_ns else "—",
                 f"{c_ns / (py_ns * 1e9):.2f}×" if py_ns and c_ns else "—"])
    return rows


def c_targets(c: Dict[str, Any]) -> List[List[str]]:
    """Rows of (goal, measured, met) for the C core's goals."""
    med: Dict[tuple, float] = {(e["impl"], e["chunk"]): e["median"] for e in c["stream_gbps"]}
    paired: Dict[tuple, float] = {(e["impl"], e["chunk"]): e.get("kfifo_ratio")
                                  for e in c["stream_gbps"]}
    rows = []

    def ratio(peer: str, chunk: int) -> Optional[float]:
        """kfifo over the peer: the median of paired runs' ratios."""
        r = paired.get((peer, chunk))
        if r:
            return r
        k, p = med.get(("kfifo", chunk)), med.get((peer, chunk))
        return k / p if k and p else None

    r = ratio("memcpy", 65536)
    rows.append(["bulk SPSC 64 KiB ≥ 0.5× one-thread memcpy",
                 f"{r:.2f}×" if r else "—", "n/a" if r is None else "met" if r >= 0.5 else "NOT met"])
    chunks = sorted({ch for (_, ch) in med})
    for peer, label in (("jack", "JACK"), ("boost_bytes", "Boost (byte API)")):
        rs = [(ch, ratio(peer, ch)) for ch in chunks if ch != 16]
        rs = [(ch, x) for ch, x in rs if x is not None]
        if not rs:
            rows.append([f"≥ 1.0× {label} at every chunk size", "not installed", "n/a"])
            continue
        shown = ", ".join(f"{ch}: {x:.2f}×" for ch, x in rs)
        rows.append([f"≥ 1.0× {label} at every chunk size", shown,
                     "met" if all(x >= 1.0 for _, x in rs) else "NOT met"])
    for peer, need, label in (("jack", 1.2, "JACK"), ("boost_elem", 1.0, "Boost spsc_queue<16 B>"),
                              ("boost_bytes", 1.0, "Boost (byte API)")):
        x = ratio(peer, 16)
        rows.append([f"16 B messages, two threads ≥ {need}× {label}",
                     f"{x:.2f}×" if x else "not installed",
                     "n/a" if x is None else "met" if x >= need else "NOT met"])
    return rows


def _table(header: List[str], rows: List[List[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def report(plan: Plan, res: Dict[str, Any], versions: Dict[str, str],
           c: Optional[Dict[str, Any]]) -> str:
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    mode = "smoke (sizes too small to mean anything)" if plan.smoke else \
        "quick" if plan.quick else "full"
    out = [f"# kfifo benchmark ({mode})", "",
           f"{now}; {machine_line()}; Python {platform.python_version()} "
           f"({platform.python_implementation()}); medians of {plan.reps} repetitions.", "",
           "Versions: " + "; ".join(f"{n} {versions[n]}" for n in IMPLS) + ".", "",
           load_line(), ""]
    single = _get(res, f"sweep{MIB}", "kfifo out_into")

    out += ["## Goals", ""]
    rows = python_targets(res, single)
    if c:
        rows += c_targets(c)
        c64 = next((e["median"] for e in c.get("stream_gbps", [])
                    if e["impl"] == "kfifo" and e["chunk"] == 65536), None)
        py64 = _get(res, "like_c_stream64K", "kfifo")
        r = py64 / 1e9 / c64 if py64 and c64 else None
        rows.append(["Python 64 KiB two-thread stream ≥ 0.8× the same in C (blocking calls, pinned)",
                     f"{r:.2f}×" if r else "—", "n/a" if r is None else "met" if r >= 0.8 else "NOT met"])
    out += [_table(["goal", "measured (median)", ""], rows), ""]

    cols = IMPLS + ["kfifo out_into"]
    out += ["## Python: one thread, 16 bytes in then out", "",
            "Time per in+out pair (lower is better); the ratio is the peer's time over kfifo's, "
            "the median of the repetitions' ratios.",
            ""]
    rows = []
    for n in IMPLS:
        v = _paired(res, "call16", n, "kfifo")
        rows.append([n, _cell(res, "call16", n, "ns", versions),
                     f"{v:.2f}" if v else "—"])
    out += [_table(["impl", "per in+out", "peer/kfifo time"], rows), ""]

    out += ["## Python: one thread, in then out, by chunk size (GB/s)", "",
            "deque, queue.Queue and queue.SimpleQueue move a reference (no copy); "
            "faster-fifo pickles;"
            " kfifo `out` returns new bytes, `out_into` fills a buffer.", ""]
    rows = [[f"{ch:,}"] + [_cell(res, f"sweep{ch}", n, "GB/s", versions) for n in cols]
            for ch in CHUNKS]
    out += [_table(["chunk (B)"] + cols, rows), ""]

    out += ["## Python: two threads, producer and consumer", "",
            "1 MiB chunks in GB/s (kfifo: `in_` / `out_into`, the GIL released around the "
            "copies); 64-byte records in million records/s (kfifo: `in_rec` / `out_rec`, "
            "recsize 1; pa-ringbuffer with 64-byte elements).", ""]
    rows = [[n, _cell(res, "spsc1M", n, "GB/s", versions), _cell(res, "rec64", n, "M/s", versions)]
            for n in IMPLS]
    out += [_table(["impl", "1 MiB chunks GB/s", "64 B records M/s"], rows), ""]
    two = _get(res, "spsc1M", "kfifo")
    if two and single:
        cpus = _get(res, "spsc1M_cpus", "kfifo")
        control = _get(res, "spsc1M_cpus", "control")
        line = (f"kfifo two threads vs one thread (1 MiB, in_ + out_into): "
                f"{two / 1e9:.3f} / {single / 1e9:.3f} GB/s = {two / single:.2f}×.")
        if cpus and control:
            line += (f"  CPUs the process had during the two-thread run: {cpus:.2f}; "
                     f"two threads hashing without the GIL (the control) got {control:.2f} "
                     "(2.00 = both threads running all the time: below that, the "
                     "machine had no second core to give).")
        out += [line, ""]

    if any(key.startswith("numpy") for key in res):
        out += ["## Python: numpy float64 arrays in (and out)", "",
                "GB/s of in+out in one thread; kfifo takes the array through the buffer "
                "protocol and `out_into`s another array.", ""]
        rows = [[n] + [_cell(res, f"numpy{nb}", n, "GB/s", versions) for nb in (128, MIB)]
                for n in IMPLS]
        out += [_table(["impl", "128 B arrays", "1 MiB arrays"], rows), ""]
    else:
        out += ["numpy arrays: numpy not installed.", ""]

    if c:
        out += ["## Python against C: the binding's cost", "",
                "kfifo alone, two threads, a 1 MiB fifo; C from the C benchmark of this "
                "run (its medians; its threads spin, pinned to CPUs 0 and 1), Python from "
                "this process's, with the CPUs the Python process had on average "
                "(2.00: both threads running all the time).  Unpinned, the scheduler may "
                "put both Python threads on one CPU, where the copies stay in its cache.",
                ""]
        out += [_table(["workload", "Python", "C", "Python / C"], python_vs_c(res, c)), ""]
        out += [c["markdown"]]
    else:
        out += ["## C", "", "Not run: build it with `bash bench/run-c-bench.sh` "
                "(or `--build-c`).", ""]
    return "\n".join(out).rstrip() + "\n"


# ---- plots ---------------------------------------------------------------------------


def plot_python(res: Dict[str, Any], path: str, title: str) -> bool:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, ax = plt.subplots(figsize=(8, 5))
    for n in IMPLS + ["kfifo out_into"]:
        xs, ys = [], []
        for ch in CHUNKS:
            v = _get(res, f"sweep{ch}", n)
            if v:
                xs.append(ch)
                ys.append(v / 1e9)
        if xs:
            ref = n in ("deque", "queue.Queue", "queue.SimpleQueue")
            ax.plot(xs, ys, marker="o", label=n + (" (moves a reference, no copy)" if ref else ""),
                    linestyle=":" if ref else "-",
                    linewidth=2.5 if n.startswith("kfifo") else 1.2)
    _finish(ax, title, "one thread, in then out: GB/s (median)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def plot_c(c: Dict[str, Any], path: str, title: str) -> bool:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, ax = plt.subplots(figsize=(8, 5))
    by: Dict[str, List[tuple]] = {}
    for e in c["stream_gbps"]:
        by.setdefault(e["impl"], []).append((e["chunk"], e["median"]))
    for impl, pts in by.items():
        pts.sort()
        label = impl + (" (one thread)" if impl == "memcpy" else "")
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label,
                linestyle="--" if impl == "memcpy" else "-",
                linewidth=2.5 if impl == "kfifo" else 1.2)
    _finish(ax, title, "two threads streaming: GB/s (median)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def _finish(ax: Any, title: str, ylabel: str) -> None:
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("chunk size (bytes)")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)


# ---- main ------------------------------------------------------------------------------


def run(args: argparse.Namespace) -> int:
    t_start = time.perf_counter()

    def log(msg: str) -> None:
        print(f"[{time.perf_counter() - t_start:5.1f} s] {msg}", file=sys.stderr, flush=True)

    plan = Plan(args.quick, args.smoke, args.reps)
    out_dir = args.out or RESULTS
    os.makedirs(out_dir, exist_ok=True)
    impls = load_impls()
    if isinstance(impls["kfifo"], str):
        print(f"bench_peers: kfifo is {impls['kfifo']}", file=sys.stderr)
        return 1
    versions = impl_versions(impls)
    for n in IMPLS:
        if isinstance(impls[n], str):
            log(f"{n}: {impls[n]}")

    res = run_python(plan, impls, log)
    c = None if args.no_c else run_c(args, out_dir, log)

    text = report(plan, res, versions, c)
    print(text)
    with open(os.path.join(out_dir, "bench.md"), "w") as fh:
        fh.write(text)
    with open(os.path.join(out_dir, "python.json"), "w") as fh:
        json.dump({"machine": machine_line(), "python": platform.python_version(),
                   "versions": versions, "reps": plan.reps, "quick": plan.quick,
                   "smoke": plan.smoke, "results": res}, fh, indent=1)
    if not args.no_plot:
        title = f"kfifo {versions['kfifo']} — {machine_line()}"
        made = plot_python(res, os.path.join(out_dir, "python-throughput.png"), title)
        if c:
            made = plot_c(c, os.path.join(out_dir, "c-throughput.png"), title) and made
        if not made:
            log("plot skipped: matplotlib not installed (pip install -r bench/requirements.txt)")
    log(f"wrote {out_dir}/bench.md")
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
