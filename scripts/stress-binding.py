#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""stress-binding.py - abuse the Python binding for a while and report.

Rounds of these, chosen at random, until the time is up:

  fork     a shared fifo (named or sealed) fed by a fork child, records
           checked in order; the child also frees its handle and leaves
           through ``with f:``; sometimes a parent thread is blocked in
           get() when the fork happens
  views    in_prepare/out_prepare views kept and dropped in random order,
           their exporters kept past the memoryviews, free() tried in
           between (it must refuse while anything reaches the ring)
  race     threads blocked in put/get/get_rec/get_exactly/wait_len while
           the main thread calls reset(), close() or free()
  bigfork  fork() while another thread copies 16 MiB without the GIL; the
           child must be able to reset, use and free the fifo
  cycle    fifos holding their own views, shared handles in cycles,
           collected by gc

A finding is anything but the documented outcome: an unexpected exception,
wrong data, a child that hangs (killed after a timeout) or fails, a block
left in /dev/shm.  The process crashing is a finding too (the exit status
says so).  Exit status 0 when there is none.

Usage: stress-binding.py [--seconds N] [--seed S]
Under AddressSanitizer: scripts/test-binding-asan.sh --stress N
"""
import argparse
import collections
import gc
import os
import random
import signal
import sys
import threading
import time
import warnings

if __name__ == "__main__" and {"-h", "--help"} & set(sys.argv[1:]):
    print(__doc__)  # without importing kfifo, which may not be built yet
    sys.exit(0)

from kfifo import Kfifo  # noqa: E402

ops = collections.Counter()
findings = []


def finding(what):
    findings.append(what)
    print("FINDING:", what, file=sys.stderr, flush=True)


def wait_child(pid, timeout=30.0):
    """The child's exit status, or a finding if it hangs (then killed)."""
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return None
        time.sleep(0.005)


def round_fork(rng):
    sealed = rng.random() < 0.5
    f = Made(rng.choice([64, 256, 4096]), shared=True, sealed=sealed)
    blocker = None
    if rng.random() < 0.5:
        # a thread of ours waits in get() on another fifo when we fork
        other = Kfifo(16)
        blocker = threading.Thread(target=lambda: other.get(1, timeout=5), daemon=True)
        blocker.start()
        time.sleep(0.001)
    n = rng.randrange(1, 200)
    pid = os.fork()
    if pid == 0:
        status = 0
        try:
            signal.alarm(20)
            with f:
                for i in range(n):
                    f.put_rec(i.to_bytes(4, "little") * (i % 8), 1, timeout=10)
                f.close()
            if blocker is not None:
                other.free()  # the parent's waiter is not here
        except BaseException as e:  # noqa: BLE001 - reported by the status
            print("child:", repr(e), file=sys.stderr, flush=True)
            status = 1
        os._exit(status)
    got = 0
    for rec in f.records(1):
        want = got.to_bytes(4, "little") * (got % 8)
        if rec != want:
            finding(f"fork: record {got} is {rec!r}, not {want!r}")
            break
        got += 1
    status = wait_child(pid)
    if status is None:
        finding("fork: the child hung")
    elif status != 0:
        finding(f"fork: the child failed, status {status}")
    if got != n and status == 0:
        finding(f"fork: {got} of {n} records")
    f.free()
    if blocker is not None:
        other.close()
        blocker.join(10)
        other.free()
    ops["fork"] += 1
    ops["records"] += got


def round_views(rng):
    f = Kfifo(rng.choice([16, 1024, 1 << 16]))
    f.in_(os.urandom(f.size() // 2))
    kept = []
    for _ in range(rng.randrange(1, 20)):
        op = rng.random()
        if op < 0.3:
            kept.extend(f.in_prepare(rng.randrange(0, f.size() + 1)))
        elif op < 0.6:
            kept.extend(f.out_prepare(rng.randrange(0, f.size() + 1)))
        elif op < 0.75 and kept:
            mv = kept.pop(rng.randrange(len(kept)))
            if isinstance(mv, memoryview):
                exporter = mv.obj
                mv.release()
                mv = exporter  # keep the exporter, not the view
                del exporter
            kept.append(mv)
            del mv
        elif op < 0.9 and kept:
            kept.pop(rng.randrange(len(kept)))
        else:
            try:
                f.free()
            except BufferError:
                if not kept:
                    finding("views: free() refused with nothing kept")
            else:
                if kept:
                    finding("views: free() succeeded while views were kept")
                return
        v = m = None
        for v in kept:
            # every kept view or exporter still reads (and writes) the ring
            m = memoryview(v)
            if len(m) and not m.readonly:
                m[0] = m[0]
            bytes(m[:16])
            m.release()
        del v, m
        ops["views"] += 1
    kept.clear()
    gc.collect()
    f.free()


EXPECTED = (ValueError, BrokenPipeError, TimeoutError, EOFError)


def round_race(rng):
    f = Kfifo(rng.choice([8, 64, 4096]))
    if rng.random() < 0.5:
        f.in_(b"x" * f.size())
    errors = []

    def call(fn):
        try:
            fn()
        except EXPECTED:
            pass
        except BaseException as e:  # noqa: BLE001
            errors.append(repr(e))

    calls = [
        lambda: f.put(b"y" * 100, timeout=0.5),
        lambda: f.get(10, timeout=0.5),
        lambda: f.get_rec(1, timeout=0.5),
        lambda: f.get_exactly(f.size(), timeout=0.5),
        lambda: f.wait_len(1, timeout=0.5),
        lambda: f.wait_avail(f.size(), timeout=0.5),
        lambda: f.put_rec(b"z" * 3, 1, timeout=0.5),
    ]
    threads = [threading.Thread(target=call, args=(rng.choice(calls),)) for _ in range(rng.randrange(1, 5))]
    for t in threads:
        t.start()
    time.sleep(rng.random() * 0.01)
    for _ in range(rng.randrange(1, 4)):
        what = rng.choice(["reset", "close", "free", "reset_out"])
        call(getattr(f, what))
        ops["race." + what] += 1
    for t in threads:
        t.join(10)
        if t.is_alive():
            finding("race: a blocked call did not return")
    if errors:
        finding(f"race: unexpected {errors}")
    if not f.is_freed():
        if not f.valid() or not 0 <= len(f) <= f.size():
            finding("race: the fifo is not valid afterwards")
        f.free()
    ops["race"] += 1


def round_bigfork(rng):
    n = 16 << 20
    f = Kfifo(n)
    data = bytes(n)
    sink = bytearray(n)
    stop = threading.Event()

    def churn():
        while not stop.is_set():
            f.in_(data)
            f.out_into(sink)

    t = threading.Thread(target=churn)
    t.start()
    for _ in range(rng.randrange(1, 4)):
        time.sleep(rng.random() * 0.01)
        pid = os.fork()
        if pid == 0:
            signal.alarm(20)
            f.reset()
            ok = f.in_(b"abc") == 3 and f.out(3) == b"abc"
            f.free()
            os._exit(0 if ok else 1)
        status = wait_child(pid)
        if status != 0:
            finding(f"bigfork: child status {status}")
        ops["bigfork.fork"] += 1
    stop.set()
    t.join()
    f.free()
    ops["bigfork"] += 1


class Holder(Kfifo):
    pass


def round_cycle(rng):
    for _ in range(rng.randrange(1, 10)):
        h = Holder(rng.choice([16, 4096]), shared=rng.random() < 0.3)
        if h.name is not None:
            made.add(h.name)
        h.me = h
        h.view = h.out_prepare(8)[0]
        if h.name is not None:
            g = Kfifo.attach(h.name)
            loop = [h, g]
            loop.append(loop)
            h.other = loop
            del g, loop
        del h
    gc.collect()
    ops["cycle"] += 1


ROUNDS = [
    (round_fork, 3),
    (round_views, 4),
    (round_race, 4),
    (round_bigfork, 1),
    (round_cycle, 2),
]


#: names of the named blocks this run created (other processes may be
#: creating blocks of their own meanwhile)
made = set()


class Made:
    """Kfifo(..., shared=True) that records the name of its block."""

    def __new__(cls, *args, **kwargs):
        f = Kfifo(*args, **kwargs)
        if f.name is not None:
            made.add(f.name)
        return f


def left_behind():
    return sorted(n for n in made if os.path.exists("/dev/shm/" + n))


def main():
    # forking with threads is the point here (Python 3.12+ warns about it)
    warnings.filterwarnings("ignore", "This process", DeprecationWarning)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--seed", type=int, default=None)
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 32)
    rng = random.Random(seed)
    fns = [fn for fn, w in ROUNDS for _ in range(w)]
    start = time.monotonic()
    rounds = 0
    while time.monotonic() - start < args.seconds:
        fn = rng.choice(fns)
        try:
            fn(rng)
        except BaseException as e:  # noqa: BLE001
            finding(f"{fn.__name__}: {e!r}")
        rounds += 1
    gc.collect()
    left = left_behind()
    if left:
        finding(f"blocks left in /dev/shm: {left}")
    elapsed = time.monotonic() - start
    print(f"stress-binding: seed {seed}, {rounds} rounds in {elapsed:.0f} s")
    for name, count in sorted(ops.items()):
        print(f"  {name:16} {count}")
    print(f"  findings         {len(findings)}")
    for what in findings:
        print("   ", what)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
