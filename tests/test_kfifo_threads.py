# SPDX-License-Identifier: MIT
"""kfifo.Kfifo from several threads.

- one producer and one consumer, lock-free, big chunks (the GIL released):
  a sequence-numbered stream and a record stream arrive whole and in order;
- several producers and consumers with the locked calls: every item
  arrives exactly once, whole, each producer's items in order;
- misuse: many threads calling unlocked calls, reset() and free() at once
  on one fifo must end without a crash and leave a valid fifo;
- a bytearray that out_into() fills cannot be resized meanwhile.

Every thread is bounded in time; the whole file runs in well under a minute.
"""
from __future__ import annotations

import random
import struct
import threading
import time

import numpy as np
import pytest

import kfifo
from kfifo import Kfifo, SpinLock

#: big enough that every copy runs without the GIL
BIG = max(kfifo.GIL_THRESHOLD, 1 << 16) * 2


def run_threads(targets, timeout=30.0):
    """Start one thread per target, join them all, re-raise the first error."""
    errors = []

    def wrap(target):
        def body():
            try:
                target()
            except BaseException as e:  # noqa: BLE001 - reported below
                errors.append(e)

        return body

    threads = [threading.Thread(target=wrap(t), daemon=True) for t in targets]
    for t in threads:
        t.start()
    deadline = time.monotonic() + timeout
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    assert not any(t.is_alive() for t in threads), "threads hung"
    if errors:
        raise errors[0]


def test_spsc_stream_of_big_chunks_arrives_in_order():
    # The stream is consecutive little-endian uint64 sequence numbers,
    # written in chunks of BIG bytes and read in chunks of another size.
    words = 1 << 22  # 32 MiB
    stream = np.arange(words, dtype="<u8")
    raw = memoryview(stream).cast("B")
    f = Kfifo(4 * BIG)
    received = np.empty(words, dtype="<u8")
    into = memoryview(received).cast("B")

    def producer():
        pos = 0
        while pos < len(raw):
            n = f.in_(raw[pos:pos + BIG])
            pos += n
            if n == 0:
                time.sleep(0)

    def consumer():
        pos = 0
        step = 3 * BIG // 2
        while pos < len(into):
            n = f.out_into(into[pos:pos + step])
            pos += n
            if n == 0:
                time.sleep(0)

    run_threads([producer, consumer])
    assert np.array_equal(received, stream)
    assert f.is_empty() and f.valid()


def test_spsc_out_bytes_of_sequence_numbered_chunks():
    chunk = BIG + 8
    count = 96
    f = Kfifo(8 * chunk)
    got = []

    def producer():
        for seq in range(count):
            data = struct.pack("<Q", seq) + bytes([seq & 0xFF]) * (chunk - 8)
            pos = 0
            while pos < chunk:
                n = f.in_(memoryview(data)[pos:])
                pos += n
                if n == 0:
                    time.sleep(0)

    def consumer():
        buf = bytearray()
        while len(got) < count:
            data = f.out(chunk)
            if not data:
                time.sleep(0)
                continue
            buf += data
            while len(buf) >= chunk:
                got.append(bytes(buf[:chunk]))
                del buf[:chunk]

    run_threads([producer, consumer])
    for seq, data in enumerate(got):
        assert struct.unpack_from("<Q", data)[0] == seq
        assert data[8:] == bytes([seq & 0xFF]) * (chunk - 8)


@pytest.mark.parametrize("recsize", [0, 2])
def test_spsc_records_arrive_whole_and_in_order(recsize):
    count = 4000
    size = 2048 if recsize else 64
    f = Kfifo(1 << 16, start=2**32 - 1000)
    got = []

    def record(seq):
        n = 64 if recsize == 0 else 8 + seq % 700
        return struct.pack("<Q", seq) + bytes([seq & 0xFF]) * (n - 8)

    def producer():
        for seq in range(count):
            rec = record(seq)
            while f.in_rec(rec, recsize) != 0:
                time.sleep(0)

    def consumer():
        while len(got) < count:
            ret, data, total = f.out_rec(size, recsize)
            if ret == 0:
                got.append(data)
            else:
                time.sleep(0)

    run_threads([producer, consumer])
    assert got == [record(s) for s in range(count)]


def test_locked_mpmc_delivers_every_item_once_and_whole():
    # Items of 16 bytes: producer id, sequence number, filler.  The fifo
    # size and every transfer are multiples of 16, so items never split.
    producers, consumers, per_producer = 3, 3, 6000
    item = 16
    f = Kfifo(4096)
    plock, clock = SpinLock(), SpinLock()
    received = [[] for _ in range(consumers)]
    done = threading.Event()

    def producer(pid):
        def body():
            seq = 0
            while seq < per_producer:
                batch = min(1 + seq % 7, per_producer - seq)
                data = b"".join(struct.pack("<IQI", pid, seq + i, 0xC0FFEE) for i in range(batch))
                pos = 0
                while pos < len(data):
                    n = f.in_locked(data[pos:], plock)
                    assert n % item == 0
                    pos += n
                    if n == 0:
                        time.sleep(0)
                seq += batch

        return body

    def consumer(cid):
        def body():
            while True:
                data = f.out_locked(item * (1 + cid * 3), clock)
                assert len(data) % item == 0
                for off in range(0, len(data), item):
                    received[cid].append(struct.unpack_from("<IQI", data, off))
                if not data:
                    if done.is_set() and f.is_empty():
                        return
                    time.sleep(0)

        return body

    def all_producers():
        run_threads([producer(p) for p in range(producers)])
        done.set()

    run_threads([all_producers] + [consumer(c) for c in range(consumers)])
    everything = [r for part in received for r in part]
    assert len(everything) == producers * per_producer
    assert all(filler == 0xC0FFEE for _, _, filler in everything)
    for pid in range(producers):
        seqs = [s for p, s, _ in everything if p == pid]
        assert sorted(seqs) == list(range(per_producer))
        for part in received:  # each consumer sees a producer's items in order
            mine = [s for p, s, _ in part if p == pid]
            assert mine == sorted(mine)
    assert not plock.locked() and not clock.locked()


def _storm(f, seconds, allow_free, seed):
    """Random unlocked calls from one thread; errors only after free()."""
    rnd = random.Random(seed)
    big = bytes(BIG)
    small = bytes(range(256)) * 4
    out_buf = bytearray(BIG)
    lock = SpinLock()
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        op = rnd.randrange(14 if allow_free else 13)
        try:
            if op == 0:
                f.in_(big if rnd.random() < 0.3 else small[: rnd.randrange(1024)])
            elif op == 1:
                f.out(rnd.choice((1, 100, BIG, 2**32 - 1)))
            elif op == 2:
                f.out_rec(rnd.choice((0, 10, 300, BIG)), rnd.randrange(3))
            elif op == 3:
                f.in_rec(small[: rnd.randrange(300)], rnd.randrange(3))
            elif op == 4:
                f.out_into(out_buf)
            elif op == 5:
                f.skip(rnd.randrange(2000))
            elif op == 6:
                f.skip_rec(rnd.randrange(3))
            elif op == 7:
                f.peek_rec(rnd.randrange(3))
            elif op == 8:
                f.reset_out()
            elif op == 9:
                if rnd.random() < 0.2:
                    f.reset()
            elif op == 10:
                assert 0 <= f.len() <= f.size()
                assert 0 <= len(f) <= f.size()
            elif op == 11:
                f.in_locked(big if rnd.random() < 0.2 else small, lock)
            elif op == 12:
                f.out_locked(rnd.choice((16, BIG)), lock)
            elif op == 13 and rnd.random() < 0.002:
                f.free()
        except ValueError as e:
            assert allow_free and "freed" in str(e)


def test_misuse_storm_of_unlocked_calls_keeps_the_fifo_valid():
    f = Kfifo(4 * BIG, start=2**32 - 3 * BIG)
    run_threads([lambda s=s: _storm(f, 1.5, False, s) for s in range(8)])
    assert f.valid()
    assert 0 <= f.len() <= f.size()
    f.reset()
    assert f.in_(b"ok") == 2 and f.out(2) == b"ok"


def test_misuse_storm_with_free_ends_without_a_crash():
    for round_ in range(3):
        f = Kfifo(2 * BIG)
        run_threads([lambda s=s: _storm(f, 0.7, True, 100 * round_ + s) for s in range(6)])
        if not f.is_freed():
            assert f.valid() and 0 <= f.len() <= f.size()
        f.free()
        with pytest.raises(ValueError, match="freed"):
            f.out(1)


def test_free_waits_for_a_big_copy_in_flight():
    f = Kfifo(1 << 24)
    data = bytes(1 << 24)
    results = []

    def copier():
        try:
            for _ in range(40):
                results.append(f.in_(data))
                results.append(len(f.out(1 << 24)))
        except ValueError as e:
            results.append(str(e))

    def freer():
        time.sleep(0.02)
        f.free()

    run_threads([copier, freer])
    assert f.is_freed()
    assert results and "freed" in results[-1]
    assert all(r in (0, 1 << 24) for r in results[:-1])


def test_out_into_a_bytearray_that_another_thread_resizes():
    f = Kfifo(4 * BIG)
    target = bytearray(BIG)
    payload = bytes(range(256)) * (BIG // 256)
    stop = threading.Event()
    moved = [0, 0]
    refused = [0]

    def producer():
        while not stop.is_set():
            moved[0] += f.in_(payload)
            time.sleep(0)

    def consumer():
        end = time.monotonic() + 1.5
        while time.monotonic() < end:
            moved[1] += f.out_into(target)
        stop.set()

    def resizer():
        while not stop.is_set():
            try:
                target.extend(b"x" * 4096)  # would move the memory out_into writes to
                del target[-4096:]
            except BufferError:
                refused[0] += 1
            time.sleep(0)

    run_threads([producer, consumer, resizer])
    assert moved[0] - moved[1] == f.len()
    assert f.valid()


def test_spinlock_holder_never_needs_the_gil():
    # Two fifos share one SpinLock; big copies hold it without the GIL while
    # small calls on the other fifo wait for it: no deadlock, no lost bytes.
    lock = SpinLock()
    a, b = Kfifo(4 * BIG), Kfifo(1024)
    counts = [0, 0, 0]
    end = time.monotonic() + 1.0

    def big_side():
        data = bytes(BIG)
        while time.monotonic() < end:
            counts[0] += a.in_locked(data, lock)
            counts[0] -= len(a.out_locked(BIG, lock))

    def small_side(i):
        def body():
            while time.monotonic() < end:
                counts[i] += b.in_locked(b"0123456789abcdef", lock)
                counts[i] -= len(b.out_locked(16, lock))

        return body

    run_threads([big_side, small_side(1), small_side(2)])
    assert [counts[0], counts[1] + counts[2]] == [a.len(), b.len()]
    assert not lock.locked()
