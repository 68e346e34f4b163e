# SPDX-License-Identifier: MIT
"""kfifo.aio under random cancellation (Hypothesis): a stream of
sequence-numbered records (get_rec/get_recs, put_rec/put_recs) or bytes
(get/get_into/get_exactly, put), from a producer thread or task, to a
consumer task whose calls are cancelled after a random number of loop
turns (so at any of their await points, or before they start, or after
they finished); a producer task is cancelled the same way and sends again
what its cancelled call did not store (all of it for put_rec, the rest
after ``progress.stored`` for put and put_recs).  Whatever the timing,
the consumer must see every record and byte once, in order."""
import asyncio
import itertools
import struct
import sys
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kfifo import Kfifo
from kfifo.aio import AsyncKfifo, Progress

# the loop waits on notifiers, which are Linux-only (docs/notifiers.md)
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="notifiers are Linux-only")

RECORDS = 150
BYTES = 3000

#: loop turns before a call is cancelled; None: not cancelled.  Each ends
#: with a None, so that a stream makes progress however often it is cancelled.
schedules = st.lists(st.one_of(st.none(), st.integers(0, 6)), max_size=12).map(lambda s: s + [None])


def record(i):
    return struct.pack("<I", i) + bytes([i & 0xFF]) * (i % 13)


def byte_stream():
    return bytes(i % 251 for i in range(BYTES))


async def cancel_after(task, turns):
    """Let *task* run *turns* loop turns, then cancel it; (finished, result)."""
    ours = False
    if turns is not None:
        for _ in range(turns):
            await asyncio.sleep(0)
        ours = task.cancel()
    try:
        return True, await task
    except asyncio.CancelledError:
        if not (ours and task.cancelled()):
            raise  # the caller was cancelled, not only the call
        return False, None


async def consume_records(af, schedule, ways):
    got = []
    for turns, way in zip(itertools.cycle(schedule), itertools.cycle(ways)):
        call = af.get_rec(1) if way == 0 else af.get_recs(way * 3, 1)
        ok, res = await cancel_after(asyncio.ensure_future(call), turns)
        if ok:
            if res is None or res == []:
                return got
            got += [res] if way == 0 else res


async def consume_bytes(af, schedule, ways):
    got = bytearray()
    size = af.fifo.size()
    ending = False
    for turns, way in zip(itertools.cycle(schedule), itertools.cycle(ways)):
        if ending:
            way = 0
        if way == 0:
            call = af.get(size // 2 + 1)
        elif way == 1:
            buf = bytearray(size)
            call = af.get_into(buf)
        else:
            call = af.get_exactly(min(size, 3))
        try:
            ok, res = await cancel_after(asyncio.ensure_future(call), turns)
        except EOFError:  # get_exactly at the end: fewer left; get() takes them
            ending = True
            continue
        if not ok:
            continue
        if way == 1:
            res = bytes(buf[:res])
        if not res:
            return bytes(got)
        got += res


async def produce_records(af, schedule, ways):
    turns = itertools.cycle(schedule)
    i = 0
    for way in itertools.cycle(ways):
        if i == RECORDS:
            break
        if way == 0:
            ok, _ = await cancel_after(asyncio.ensure_future(af.put_rec(record(i), 1)), next(turns))
            i += ok  # cancelled: it stored nothing, send it again
        else:
            batch = [record(k) for k in range(i, min(RECORDS, i + way * 4))]
            p = Progress()
            ok, _ = await cancel_after(asyncio.ensure_future(af.put_recs(batch, 1, progress=p)), next(turns))
            assert p.stored == len(batch) if ok else p.stored <= len(batch)
            i += p.stored  # cancelled: the records after progress.stored again
    af.close()


async def produce_bytes(af, schedule):
    turns = itertools.cycle(schedule)
    data = memoryview(byte_stream())
    step = 0
    while data:
        step += 1
        chunk = data[: 1 + (step * 37) % 200]
        p = Progress()
        ok, _ = await cancel_after(asyncio.ensure_future(af.put(chunk, progress=p)), next(turns))
        assert p.stored == len(chunk) if ok else p.stored <= len(chunk)
        data = data[p.stored:]
    af.close()


def produce_in_thread(f, kind):
    if kind == "records":
        for i in range(RECORDS):
            f.put_rec(record(i), 1, timeout=60)
    else:
        data = byte_stream()
        for k in range(0, len(data), 111):
            f.put(data[k:k + 111], timeout=60)
    f.close()


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kind=st.sampled_from(["records", "bytes"]),
    producer=st.sampled_from(["thread", "task"]),
    size=st.sampled_from([32, 64, 256]),
    consumer_schedule=schedules,
    producer_schedule=schedules,
    ways=st.lists(st.integers(0, 2), min_size=1, max_size=6),
)
def test_random_cancellation_loses_and_duplicates_nothing(kind, producer, size, consumer_schedule,
                                                         producer_schedule, ways):
    f = Kfifo(size)
    af = AsyncKfifo(f)

    async def main():
        thread = None
        if producer == "thread":
            thread = threading.Thread(target=produce_in_thread, args=(f, kind))
            thread.start()
            prod = asyncio.sleep(0)
        elif kind == "records":
            prod = produce_records(af, producer_schedule, ways)
        else:
            prod = produce_bytes(af, producer_schedule)
        if kind == "records":
            cons = consume_records(af, consumer_schedule, ways)
        else:
            cons = consume_bytes(af, consumer_schedule, ways)
        try:
            _, got = await asyncio.wait_for(asyncio.gather(prod, cons), 30)
        finally:
            if thread is not None:
                f.close()
                thread.join()
        return got

    got = asyncio.run(main())
    if kind == "records":
        assert got == [record(i) for i in range(RECORDS)]
    else:
        assert got == byte_stream()
    assert dict(af._wakers) == {}
    f.free()
