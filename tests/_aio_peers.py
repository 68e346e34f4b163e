# SPDX-License-Identifier: MIT
"""The other process of tests/test_aio_processes.py (importable, so that the
spawn start method finds it): plain blocking and asyncio producers and
consumers of sequence-numbered records and of a byte stream."""
import asyncio
import struct
import zlib

from kfifo.aio import AsyncKfifo

RECORDS = 3000
BYTES = 200_000


def record(i):
    # a sequence number, then i % 37 bytes of filler: lengths 4..40
    return struct.pack("<I", i) + bytes([i & 0xFF]) * (i % 37)


def chunk(i):
    return bytes([(i * 7 + j) & 0xFF for j in range(1 + i % 251)])


def chunks():
    sent, i = 0, 0
    while sent < BYTES:
        c = chunk(i)[: BYTES - sent]
        yield c
        sent += len(c)
        i += 1


def expected_crc():
    crc = 0
    for c in chunks():
        crc = zlib.crc32(c, crc)
    return crc


# ---- plain blocking code -------------------------------------------------------------


def produce_records_blocking(f):
    for i in range(RECORDS):
        f.put_rec(record(i), 1, timeout=60)
    f.close()


def produce_bytes_blocking(f):
    for c in chunks():
        f.put(c, timeout=60)
    f.close()


def consume_records_blocking(f, out):
    got = 0
    for i, rec in enumerate(f.records(1)):
        if rec != record(i):
            out.put(("bad", i))
            return
        got += 1
    out.put(("ok", got))


def consume_bytes_blocking(f, out):
    crc, n = 0, 0
    while True:
        c = f.get(4096, timeout=60)
        if not c:
            break
        crc = zlib.crc32(c, crc)
        n += len(c)
    out.put((crc, n))


# ---- asyncio ---------------------------------------------------------------------------


async def aproduce_records(f):
    af = AsyncKfifo(f)
    for i in range(RECORDS):
        await af.put_rec(record(i), 1, timeout=60)
    f.close()


async def aproduce_bytes(f):
    af = AsyncKfifo(f)
    for c in chunks():
        await af.put(c, timeout=60)
    f.close()


async def aconsume_records(f):
    af = AsyncKfifo(f)
    got = 0
    async for rec in af.records(1):
        if rec != record(got):
            return ("bad", got)
        got += 1
    return ("ok", got)


async def aconsume_bytes(f):
    af = AsyncKfifo(f)
    crc, n = 0, 0
    buf = bytearray(4096)
    while True:
        k = await af.get_into(buf, timeout=60)
        if k == 0:
            break
        crc = zlib.crc32(buf[:k], crc)
        n += k
    return (crc, n)


def produce_records_asyncio(f):
    asyncio.run(aproduce_records(f))


def produce_bytes_asyncio(f):
    asyncio.run(aproduce_bytes(f))


def consume_records_asyncio(f, out):
    out.put(asyncio.run(aconsume_records(f)))


def consume_bytes_asyncio(f, out):
    out.put(asyncio.run(aconsume_bytes(f)))
