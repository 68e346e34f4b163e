# SPDX-License-Identifier: MIT
"""The other process of tests/test_shared.py: functions a child process
runs (importable, so that the spawn start method can find them)."""
import os
import random
import time
import zlib


#: records of these lengths cycle through a record stream: 0, the header
#: maximum of recsize 1, and lengths in between
RECORD_LENGTHS = (0, 1, 16, 255, 7, 100, 254)


def stream_chunks(total, seed):
    """The producer's chunks: random lengths 1..300, random bytes."""
    rnd = random.Random(seed)
    sent = 0
    while sent < total:
        n = min(total - sent, rnd.randint(1, 300))
        yield rnd.randbytes(n)
        sent += n


def records(count, seed):
    rnd = random.Random(seed)
    for i in range(count):
        yield rnd.randbytes(RECORD_LENGTHS[i % len(RECORD_LENGTHS)])


def expected_bytes(total, seed):
    crc = 0
    for chunk in stream_chunks(total, seed):
        crc = zlib.crc32(chunk, crc)
    return crc, total


def expected_records(count, seed):
    crc = 0
    for rec in records(count, seed):
        crc = zlib.crc32(len(rec).to_bytes(2, "little") + rec, crc)
    return crc, count


# ---- the two sides of a stream; each returns (crc32, count) -------------------


def produce_bytes(f, total, seed):
    for chunk in stream_chunks(total, seed):
        f.put(chunk, timeout=60)
    f.close()
    return expected_bytes(total, seed)


def consume_bytes(f, total, seed):
    crc, got = 0, 0
    buf = bytearray(97)
    while True:
        n = f.get_into(buf, timeout=60)
        if n == 0:
            break
        crc = zlib.crc32(buf[:n], crc)
        got += n
    return crc, got


def produce_records(f, count, seed):
    for rec in records(count, seed):
        f.put_rec(rec, 1, timeout=60)
    f.close()
    return expected_records(count, seed)


def consume_records(f, count, seed):
    crc, got = 0, 0
    while (rec := f.get_rec(1, timeout=60)) is not None:
        crc = zlib.crc32(len(rec).to_bytes(2, "little") + rec, crc)
        got += 1
    return crc, got


SIDES = {
    ("bytes", "produce"): produce_bytes,
    ("bytes", "consume"): consume_bytes,
    ("records", "produce"): produce_records,
    ("records", "consume"): consume_records,
}


def run_side(f, kind, side, amount, seed, results):
    """Target of a child process: one side of a stream; the result goes
    back through the multiprocessing.Queue *results*."""
    try:
        results.put(("ok", SIDES[kind, side](f, amount, seed)))
    except BaseException as e:  # report anything to the parent
        results.put(("error", repr(e)))
        f.close()  # and do not leave it waiting
    finally:
        f.free()


def run_side_from_queue(fifos, kind, side, amount, seed, results):
    """As run_side, with the fifo received through a multiprocessing.Queue."""
    run_side(fifos.get(timeout=60), kind, side, amount, seed, results)


def attach_and_report(f, results):
    """Use a fifo received as a Process argument, then exit normally."""
    results.put((f.name, f.out(5), os.getpid()))


def attach_from_queue_and_report(fifos, results):
    attach_and_report(fifos.get(timeout=60), results)


def unblock_later(f, action, delay):
    """Sleep, then do what lets the parent's blocking call return."""
    time.sleep(delay)
    if action == "in":
        f.in_(b"abcdefgh")
    elif action == "in_rec":
        f.in_rec(b"record", 1)
    elif action == "out":
        f.out(f.size())
    elif action == "close":
        f.close()
    f.free()


def produce_forever(f):
    """Store a counting byte stream until killed."""
    i = 0
    while True:
        chunk = bytes((i + k) % 251 for k in range(64))
        f.put(chunk)
        i += 64


def scribble(name, seconds, seed):
    """A hostile peer: write random words over the header and the data of
    the fifo in the shared memory block *name*, as fast as it can."""
    from kfifo._kfifo import _Block

    block = _Block(name)  # as Kfifo.attach maps it: no resource tracker
    rnd = random.Random(seed)
    buf = block.buf
    offsets = (16, 20, 24, 64, 68, 128, 132)  # waiters, closed, in, seq, out, seq (layout 2)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for _ in range(100):
            if rnd.random() < 0.8:
                off = rnd.choice(offsets)
            else:
                off = rnd.randrange(0, len(buf) - 4) & ~3
            buf[off:off + 4] = rnd.getrandbits(32).to_bytes(4, "little")
    del buf
    block.close()
