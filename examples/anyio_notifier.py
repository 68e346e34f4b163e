# SPDX-License-Identifier: MIT
"""Waiting on a fifo from anyio (and so trio) with its notifier's descriptor.

:mod:`kfifo.aio` is for asyncio; any other event loop waits on the
descriptor of :meth:`kfifo.Kfifo.notifier` itself, with the recipe that
loses no wake-up: arm; then try the non-blocking call, and when it finds
nothing, wait until the descriptor is readable and clear it.  Here a
producer thread sends 1000 one-byte records and an anyio task takes them,
once on the asyncio backend and once on trio (``pip install anyio trio``).

    python examples/anyio_notifier.py
"""
import threading
import zlib

import anyio

import kfifo

RECORDS = 1000


def produce(f: kfifo.Kfifo) -> None:
    for i in range(RECORDS):
        f.put_rec(bytes([i % 200]), 1, timeout=30)
    f.close()


async def consume(f: kfifo.Kfifo) -> bytes:
    got = bytearray()
    with f.notifier("data") as n:  # armed from here on
        while True:
            try:
                rec = f.get_rec(1, timeout=0)
            except TimeoutError:  # nothing yet
                await anyio.wait_readable(n.fileno())
                n.clear()
                continue
            if rec is None:  # end of stream
                return bytes(got)
            got += rec


async def main() -> str:
    f = kfifo.Kfifo(64)
    t = threading.Thread(target=produce, args=(f,))
    t.start()
    got = await consume(f)
    t.join()
    f.free()
    return f"{len(got)} records, crc32 {zlib.crc32(got):08x}"


if __name__ == "__main__":
    for backend in ("asyncio", "trio"):
        print(f"{backend}: {anyio.run(main, backend=backend)}")
