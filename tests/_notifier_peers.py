# SPDX-License-Identifier: MIT
"""The sides of the streams of tests/test_notifier.py: a side that waits on
a Notifier (selectors or asyncio), importable so that a spawned child
finds it.  The plain blocking sides are tests/_shared_peers.py's."""
import asyncio
import selectors
import time
import zlib

import _shared_peers as plain

#: no single wait of these tests takes longer, however loaded the machine
WAIT = 60.0


def _wait_readable(sel, n):
    if not sel.select(timeout=WAIT):
        raise TimeoutError("the notifier was not signalled within %s s" % WAIT)
    n.clear()


class Tally:
    """What a consumer took so far: a CRC-32 and a count of bytes."""

    def __init__(self):
        self.crc, self.got = 0, 0

    def take(self, f):
        """Take what is stored.  Returns "data", "end" at end of stream
        (closed and empty), or "" when the caller must wait."""
        data = f.out(4096)
        if data:
            self.crc = zlib.crc32(data, self.crc)
            self.got += len(data)
            return "data"
        # closed first: once it reads True, everything stored before
        # close() is visible, so an empty fifo then stays empty
        return "end" if f.closed and f.is_empty() else ""


def notifier_consume(f, total=None, seed=None):
    """Consume until end of stream, waiting with selectors on a data
    notifier; returns (crc32, count)."""
    t = Tally()
    with selectors.DefaultSelector() as sel, f.notifier("data") as n:
        sel.register(n.fileno(), selectors.EVENT_READ)
        while (step := t.take(f)) != "end":
            if not step:
                _wait_readable(sel, n)
    return t.crc, t.got


def notifier_produce(f, total, seed):
    """Produce _shared_peers' byte stream, waiting with selectors on a room
    notifier; close at the end; returns the expected (crc32, count)."""
    with selectors.DefaultSelector() as sel, f.notifier("room") as n:
        sel.register(n.fileno(), selectors.EVENT_READ)
        for chunk in plain.stream_chunks(total, seed):
            view = memoryview(chunk)
            while view:
                k = f.in_(view)
                view = view[k:]
                if k == 0:
                    _wait_readable(sel, n)
    f.close()
    return plain.expected_bytes(total, seed)


async def _readable(loop, n):
    fut = loop.create_future()

    def ready():
        if not fut.done():
            fut.set_result(None)

    loop.add_reader(n.fileno(), ready)
    try:
        await asyncio.wait_for(fut, WAIT)
    finally:
        loop.remove_reader(n.fileno())
    n.clear()


async def async_consume(f):
    """notifier_consume on an asyncio loop (loop.add_reader)."""
    loop = asyncio.get_running_loop()
    t = Tally()
    with f.notifier("data") as n:
        while (step := t.take(f)) != "end":
            if not step:
                await _readable(loop, n)
    return t.crc, t.got


def async_consume_sync(f, total=None, seed=None):
    return asyncio.run(async_consume(f))


def uvloop_consume_sync(f, total=None, seed=None):
    import uvloop

    loop = uvloop.new_event_loop()
    try:
        return loop.run_until_complete(async_consume(f))
    finally:
        loop.close()


SIDES = {
    "notifier-consume": notifier_consume,
    "notifier-produce": notifier_produce,
    "asyncio-consume": async_consume_sync,
    "uvloop-consume": uvloop_consume_sync,
    "plain-consume": plain.consume_bytes,
    "plain-produce": plain.produce_bytes,
}


def run_side(f, side, total, seed, results):
    """Target of a child process: one side; the result goes back through
    the multiprocessing.Queue *results*."""
    try:
        results.put(("ok", SIDES[side](f, total, seed)))
    except BaseException as e:  # report anything to the parent
        results.put(("error", repr(e)))
        f.close()  # and do not leave the parent waiting
    finally:
        f.free()


def arm_in_child(n, results):
    """A notifier inherited through fork() is the parent's."""
    try:
        n.arm()
    except ValueError as e:
        results.put(("ValueError", str(e)))
    else:
        results.put(("armed", ""))


def arm_and_linger(f, results, seconds):
    """Arm a data notifier, say so, and stay alive (to be killed)."""
    n = f.notifier("data")
    n.arm()
    results.put("armed")
    time.sleep(seconds)


def arm_and_exit(f, results):
    """Arm a data notifier and leave normally: atexit gives the slot back."""
    n = f.notifier("data")
    n.arm()
    results.put("armed")
