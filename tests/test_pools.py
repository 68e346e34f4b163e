# SPDX-License-Identifier: MIT
"""Many producers and many consumers (docs/pools.md): the mode at creation,
exactly-once delivery with each producer's records in order through threads
and processes, workers killed with SIGKILL, and the one-producer /
one-consumer misuse refused.

Nothing here waits on the clock: processes are killed at points they
reached (counters in shared memory say so), and every check holds for any
interleaving.
"""
import asyncio
import multiprocessing
import os
import pickle
import signal
import struct
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kfifo
from kfifo.aio import AsyncKfifo

REC = struct.Struct("<III")  # producer, sequence, check word
FORK = multiprocessing.get_context("fork")


def check_word(p, s):
    return (p * 2654435761 ^ s * 40503 ^ 0x5A5A5A5A) & 0xFFFFFFFF


def make(p, s):
    return REC.pack(p, s, check_word(p, s))


def produce(f, p, n, batch):
    """Producer *p*'s *n* records, one put_rec() at a time or in put_recs()
    batches of *batch*."""
    if batch <= 1:
        for s in range(n):
            f.put_rec(make(p, s), 1)
    else:
        for s in range(0, n, batch):
            f.put_recs([make(p, q) for q in range(s, min(n, s + batch))], 1)


def consume(f, how):
    """Records until end of stream: records() (the worker loop), get_rec()
    or get_recs()."""
    got = []
    if how == "records":
        got.extend(f.records(1))
    elif how == "get_rec":
        while True:
            r = f.get_rec(1)
            if r is None:
                break
            got.append(r)
    else:
        while True:
            rs = f.get_recs(16, 1)
            if not rs:
                break
            got.extend(rs)
    return got


def verify(streams, producers, per):
    """*streams*: what each consumer took, in its order.  Every record
    whole, taken once, all of them, each producer's in order within every
    consumer's stream."""
    seen = set()
    for got in streams:
        last = {}
        for r in got:
            assert len(r) == REC.size, r
            p, s, c = REC.unpack(r)
            assert c == check_word(p, s), (p, s)
            assert (p, s) not in seen, ("twice", p, s)
            seen.add((p, s))
            assert s > last.get(p, -1), ("out of order", p, s, last.get(p))
            last[p] = s
    assert seen == {(p, s) for p in range(producers) for s in range(per)}


SHAPE = dict(
    producers=st.integers(1, 3),
    consumers=st.integers(1, 3),
    per=st.integers(0, 400),
    size=st.sampled_from([64, 256, 4096]),
    batch=st.sampled_from([1, 5]),
    how=st.sampled_from(["records", "get_rec", "get_recs"]),
)


def mode(producers, consumers):
    return dict(producers="many" if producers > 1 else "one",
                consumers="many" if consumers > 1 else "one")


def _send(conn, take):
    conn.send(take())
    conn.close()


def run_pool(f, produce_one, consume_one, producers, consumers, processes=False):
    """*producers* running produce_one(p) and *consumers* running
    consume_one(), threads or fork()ed processes; close() once the
    producers are done.  What each consumer took, in its order."""
    if not processes:
        streams = [None] * consumers

        def worker(i):
            streams[i] = consume_one()

        cs = [threading.Thread(target=worker, args=(i,)) for i in range(consumers)]
        ps = [threading.Thread(target=produce_one, args=(p,)) for p in range(producers)]
        for t in cs + ps:
            t.start()
        for t in ps:
            t.join()
        f.close()
        for t in cs:
            t.join()
        return streams
    pipes = [FORK.Pipe(duplex=False) for _ in range(consumers)]
    cs = [FORK.Process(target=_send, args=(w, consume_one)) for _, w in pipes]
    ps = [FORK.Process(target=produce_one, args=(p,)) for p in range(producers)]
    for pr in cs + ps:
        pr.start()
    for pr in ps:
        pr.join()
        assert pr.exitcode == 0
    f.close()
    streams = [r.recv() for r, _ in pipes]
    for pr in cs:
        pr.join()
        assert pr.exitcode == 0
    return streams


@settings(deadline=None, max_examples=25, suppress_health_check=[HealthCheck.too_slow])
@given(shared=st.booleans(), **SHAPE)
def test_threads_exactly_once(shared, producers, consumers, per, size, batch, how):
    f = kfifo.Kfifo(size, shared=shared, **mode(producers, consumers))
    streams = run_pool(f, lambda p: produce(f, p, per, batch), lambda: consume(f, how),
                       producers, consumers)
    verify(streams, producers, per)
    f.free()


@settings(deadline=None, max_examples=10, suppress_health_check=[HealthCheck.too_slow])
@given(**SHAPE)
def test_processes_exactly_once(producers, consumers, per, size, batch, how):
    f = kfifo.Kfifo(size, shared=True, **mode(producers, consumers))
    streams = run_pool(f, lambda p: produce(f, p, per, batch), lambda: consume(f, how),
                       producers, consumers, processes=True)
    verify(streams, producers, per)


# ---- chunks of 4 KiB and more: exclusive waiters ---------------------------------------------
# On a side of many consumers, a wait for 4 KiB or more before a take is
# exclusive: a publication wakes one sleeping consumer (c/src/kfifo_wake.h,
# "Exclusive waiters").  A lost wake-up would leave chunks behind sleeping
# consumers until their wait's next 100 ms slice; these check that every
# chunk is still taken exactly once, in order per producer, through both
# calls that wait so, with chunks put one at a time and several at once.


def chunk(p, s, n):
    return make(p, s) + bytes(n - REC.size)


def produce_chunks(f, p, per, n, batch):
    for s in range(0, per, batch):
        group = [chunk(p, q, n) for q in range(s, min(per, s + batch))]
        if len(group) == 1:
            f.put_rec(group[0], 0)
        else:
            f.put_recs(group, 0)  # one publication: the taker hands on


def consume_chunks(f, n, how):
    got = []
    buf = bytearray(n)
    while True:
        if how == "get_exactly":
            try:
                c = f.get_exactly(n)
            except EOFError:
                break
        else:
            if f.get_into(buf, whole=True) == 0:
                break
            c = bytes(buf)
        assert len(c) == n and not any(c[REC.size:])
        got.append(c[:REC.size])
    return got


CHUNKS = dict(
    producers=st.integers(1, 2),
    consumers=st.integers(2, 4),
    per=st.integers(0, 60),
    n=st.sampled_from([4096, 8192]),
    batch=st.sampled_from([1, 3]),
    how=st.sampled_from(["get_exactly", "get_into"]),
)


@settings(deadline=None, max_examples=15, suppress_health_check=[HealthCheck.too_slow])
@given(shared=st.booleans(), **CHUNKS)
def test_chunk_consumers_exactly_once(shared, producers, consumers, per, n, batch, how):
    f = kfifo.Kfifo(4 * n, shared=shared, **mode(producers, consumers))
    streams = run_pool(f, lambda p: produce_chunks(f, p, per, n, batch),
                       lambda: consume_chunks(f, n, how), producers, consumers)
    verify(streams, producers, per)
    f.free()


@settings(deadline=None, max_examples=6, suppress_health_check=[HealthCheck.too_slow])
@given(**CHUNKS)
def test_chunk_consumer_processes_exactly_once(producers, consumers, per, n, batch, how):
    f = kfifo.Kfifo(4 * n, shared=True, **mode(producers, consumers))
    streams = run_pool(f, lambda p: produce_chunks(f, p, per, n, batch),
                       lambda: consume_chunks(f, n, how), producers, consumers,
                       processes=True)
    verify(streams, producers, per)


# ---- workers killed with SIGKILL ------------------------------------------------------------


def _logging_consumer(f, log, counts, i):
    """Take records one at a time, marking each in the shared *log* (a
    byte per record) before taking the next: killed anywhere, it leaves
    at most the record in its hands unmarked.  No lock of multiprocessing
    here (a worker killed holding one would stop the others): its own
    count in *counts*."""
    while True:
        r = f.get_rec(1)
        if r is None:
            return
        p, s, c = REC.unpack(r)
        assert c == check_word(p, s)
        log[p * 100000 + s] += 1
        counts[i] += 1


@settings(deadline=None, max_examples=6, suppress_health_check=[HealthCheck.too_slow])
@given(kill_after=st.integers(0, 3000), size=st.sampled_from([64, 1024]))
def test_workers_killed_anywhere(kill_after, size):
    """Two producers, three consumers; once the consumers took
    *kill_after* records one consumer and one producer are killed with
    SIGKILL, wherever they are (in a call, holding a lock, or not).  The
    rest go on: no record is taken twice or torn, the surviving producer's
    are all delivered, the killed producer's are a prefix, and at most one
    record (the one in the killed consumer's hands) is missing."""
    per = 4000
    f = kfifo.Kfifo(size, shared=True, producers="many", consumers="many")
    log = FORK.RawArray("B", 2 * 100000)
    counts = FORK.RawArray("l", 3)
    cs = [FORK.Process(target=_logging_consumer, args=(f, log, counts, i)) for i in range(3)]
    ps = [FORK.Process(target=produce, args=(f, p, per, 1)) for p in range(2)]
    for pr in cs + ps:
        pr.start()
    while sum(counts) < kill_after and any(p.is_alive() for p in ps):
        os.sched_yield()
    os.kill(cs[0].pid, signal.SIGKILL)
    os.kill(ps[1].pid, signal.SIGKILL)
    ps[0].join()
    ps[1].join()
    assert ps[0].exitcode == 0
    f.close()
    for pr in cs:
        pr.join()
    assert [pr.exitcode for pr in cs[1:]] == [0, 0]
    got = [[log[p * 100000 + s] for s in range(per)] for p in range(2)]
    assert max(max(g) for g in got) <= 1  # never twice
    missing0 = got[0].count(0)
    delivered1 = per - got[1][::-1].index(1) if 1 in got[1] else 0
    missing1 = got[1][:delivered1].count(0)
    assert missing0 + missing1 <= 1
    # the fifo and both locks are usable by whoever is left
    f2 = pickle.loads(pickle.dumps(f))
    f.reset()
    f2.put_rec(b"after", 1)
    assert f.get_rec(1) == b"after"


# ---- the mode ------------------------------------------------------------------------------


def test_mode_attributes_and_pickling():
    f = kfifo.Kfifo(64)
    assert (f.producers, f.consumers) == ("one", "one")
    g = kfifo.Kfifo(64, shared=True, producers="many")
    assert (g.producers, g.consumers) == ("many", "one")
    h = pickle.loads(pickle.dumps(g))
    assert (h.producers, h.consumers) == ("many", "one")
    a = kfifo.Kfifo.attach(g.name)
    assert a.producers == "many"
    af = AsyncKfifo(kfifo.Kfifo(64, consumers="many"))
    assert (af.producers, af.consumers) == ("one", "many")
    for bad in ("two", 2, None, "MANY"):
        with pytest.raises(ValueError, match="producers must be 'one' or 'many'"):
            kfifo.Kfifo(64, producers=bad)
    with pytest.raises(ValueError, match="consumers must be"):
        kfifo.Kfifo(64, shared=True, consumers="several")
    g.free()
    with pytest.raises(ValueError):
        g.producers


def test_zero_copy_refused_on_a_many_side():
    f = kfifo.Kfifo(64, producers="many", consumers="one")
    with pytest.raises(ValueError, match=r"in_prepare\(\): zero-copy regions need a fifo of one producer"):
        f.in_prepare(4)
    f.put_rec(b"abc", 1)
    a, b = f.out_prepare(4)  # the consumer side is 'one': allowed
    assert bytes(a)[1:4] == b"abc"
    f.out_finish(0)
    g = kfifo.Kfifo(64, consumers="many")
    with pytest.raises(ValueError, match="consumers='many'"):
        g.out_prepare(4)
    assert g.len() == 0


@pytest.mark.parametrize("shared", [False, True])
def test_frames_refused_on_a_many_side_nothing_moved(shared):
    # a frame is a header and data stored (taken) by several calls, which
    # the side's other producers (consumers) would come between
    f = kfifo.Kfifo(64, shared=shared, producers="many")
    with pytest.raises(ValueError, match=r"put_frame\(\): frames need a fifo of one producer "
                                         r"\(this one has producers='many'\); use put_rec"):
        f.put_frame(b"abc")
    assert f.len() == 0
    with pytest.raises(ValueError, match="producers='many'"):
        asyncio.run(AsyncKfifo(f).put_frame(b"abc"))
    assert f.len() == 0
    f.put(b"\x03\0\0\0\0\0\0\0abc")  # a frame stored by bytes: a one-consumer side takes it
    assert f.get_frame(timeout=0) == b"abc"
    g = kfifo.Kfifo(64, shared=shared, consumers="many")
    g.put_frame(b"xyz")  # the producer side is 'one'
    before = g.len()
    for call in (lambda: g.get_frame(timeout=0), lambda: g.get_frame_into(bytearray(8), timeout=0),
                 lambda: asyncio.run(AsyncKfifo(g).get_frame(0)),
                 lambda: asyncio.run(AsyncKfifo(g).get_frame_into(bytearray(8), 0))):
        with pytest.raises(ValueError, match=r"frames need a fifo of one consumer \(this one has consumers='many'\)"):
            call()
        assert g.len() == before == 11
    f.free()
    g.free()


# ---- misuse of a fifo of one producer / one consumer --------------------------------------


def _try(f, side, conn):
    try:
        if side == "producer":
            f.put_rec(b"intruder", 1)
        else:
            f.get_rec(1, timeout=0)
        conn.send("no error")
    except RuntimeError as e:
        conn.send(str(e))


@pytest.mark.parametrize("side", ["producer", "consumer"])
@pytest.mark.parametrize("how", ["fork", "spawn"])
def test_a_second_process_on_a_side_of_one_is_refused(side, how):
    ctx = multiprocessing.get_context(how)
    f = kfifo.Kfifo(64, shared=True)
    f.put_rec(b"kept", 1)
    if side == "consumer":
        assert f.peek_rec(1) == 4
        f.get_rec(1)  # this process is the consumer now
        f.put_rec(b"kept", 1)
    r, w = ctx.Pipe(duplex=False)
    p = ctx.Process(target=_try, args=(f, side, w))
    p.start()
    msg = r.recv()
    p.join()
    word = "producers" if side == "producer" else "consumers"
    assert f"another process (pid {os.getpid()}) is the {side}" in msg
    assert f"{word}='many'" in msg
    assert f.get_rec(1) == b"kept" and f.len() == 0  # the data kept


def _hold_side(f, side, ready, go):
    if side == "producer":
        f.put_rec(b"first", 1)
    else:
        f.get_rec(1)
    ready.set()
    go.wait()


@pytest.mark.parametrize("side", ["producer", "consumer"])
def test_the_side_is_free_again_once_its_process_is_gone(side):
    f = kfifo.Kfifo(64, shared=True)
    if side == "consumer":
        f.put_rec(b"x", 1)
    ready, go = FORK.Event(), FORK.Event()
    p = FORK.Process(target=_hold_side, args=(f, side, ready, go))
    p.start()
    ready.wait()
    with pytest.raises(RuntimeError, match=f"is the {side}"):
        if side == "producer":
            f.put_rec(b"second", 1)
        else:
            f.get_rec(1, timeout=0)
    go.set()
    p.join()
    # the claimant is gone: this process takes the side over
    if side == "producer":
        f.put_rec(b"second", 1)
        assert f.get_rec(1) == b"first" and f.get_rec(1) == b"second"
    else:
        f.put_rec(b"y", 1)
        assert f.get_rec(1) == b"y"


def test_threads_of_one_process_are_serialised_in_mode_one():
    """Threads need no mode: the binding serialises a side's calls in this
    process (kfpy_threads.c), so two producer threads of a fifo of one
    producer still deliver every record once, in each one's order."""
    f = kfifo.Kfifo(128, shared=True)
    ts = [threading.Thread(target=produce, args=(f, p, 300, 1)) for p in range(2)]
    got = []
    c = threading.Thread(target=lambda: got.append(consume(f, "records")))
    for t in ts + [c]:
        t.start()
    for t in ts:
        t.join()
    f.close()
    c.join()
    verify(got, 2, 300)


# ---- asyncio ---------------------------------------------------------------------------------


def _async_consumer(f, conn):
    async def main():
        af = AsyncKfifo(f)
        got = []
        while True:
            r = await af.get_rec(1)
            if r is None:
                return got
            got.append(r)
    conn.send(asyncio.run(main()))


def test_async_consumers_in_processes_exactly_once():
    f = kfifo.Kfifo(256, shared=True, producers="many", consumers="many")
    pipes = [FORK.Pipe(duplex=False) for _ in range(2)]
    cs = [FORK.Process(target=_async_consumer, args=(f, w)) for _, w in pipes]
    ps = [FORK.Process(target=produce, args=(f, p, 500, 3)) for p in range(2)]
    for pr in cs + ps:
        pr.start()
    for pr in ps:
        pr.join()
    f.close()
    streams = [r.recv() for r, _ in pipes]
    for pr in cs:
        pr.join()
    verify(streams, 2, 500)


# ---- the examples ----------------------------------------------------------------------------


@pytest.mark.parametrize("example, args, expect", [
    ("worker_pool.py", ["20000", "3"], "20000 jobs through 3 workers, each once: True"),
    ("fan_in_logging.py", ["3", "5000"], "15000 lines from 3 processes, whole and in order: True"),
])
def test_the_pool_examples_run(example, args, expect):
    path = Path(__file__).resolve().parent.parent / "examples" / example
    r = subprocess.run([sys.executable, str(path), *args], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert expect in r.stdout and r.stderr == ""
