# SPDX-License-Identifier: MIT
"""A stranger floods a notifier: a process of another uid (nobody), with no
access to the fifo, sends datagrams to the notifier's socket as fast as it
can while this process waits on the notifier as an idle event loop would.

Run as a script (as root) for the figures: ``python tests/_stranger.py [SECONDS]``.
"""
import os
import select
import socket
import sys
import time

from kfifo import Kfifo

NOBODY = 65534


def _flood(addr, seconds, report_fd):
    """In the child: become nobody, then send until the time is up; write
    "delivered refused" to report_fd."""
    os.setgroups([])
    os.setgid(NOBODY)
    os.setuid(NOBODY)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.setblocking(False)
    delivered = refused = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            s.sendto(b"x", addr)
            delivered += 1
        except BlockingIOError:
            delivered += 1  # its queue is full: it was delivered to before
        except OSError:
            refused += 1
    os.write(report_fd, b"%d %d" % (delivered, refused))


def _start(fd, seconds):
    """Fork the stranger flooding the socket *fd*; (its pid, the read end
    of the pipe its report comes on when it is done)."""
    with socket.socket(fileno=os.dup(fd)) as s:
        addr = s.getsockname()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            _flood(addr, seconds, w)
        finally:
            os._exit(0)
    os.close(w)
    return pid, r


def flood_asyncio(seconds=1.0):
    """An idle asyncio consumer (``await af.get(100, timeout)``) while the
    stranger floods its notifier; returns (delivered, refused, CPU share)."""
    import asyncio

    from kfifo.aio import AsyncKfifo

    f = Kfifo(64, shared=True)
    af = AsyncKfifo(f)
    result = {}

    async def main():
        task = asyncio.ensure_future(af.get(100, timeout=seconds + 1))
        await asyncio.sleep(0.05)  # armed now
        (waker,) = af._wakers.values()
        pid, r = _start(waker._fd, seconds)
        cpu0, t0 = time.process_time(), time.monotonic()
        while not select.select([r], [], [], 0)[0]:
            await asyncio.sleep(0.05)
        result["cpu_share"] = (time.process_time() - cpu0) / (time.monotonic() - t0)
        d, rf = os.read(r, 100).split()
        result["delivered"], result["refused"] = int(d), int(rf)
        os.close(r)
        os.waitpid(pid, 0)
        f.in_(b"real")
        result["got"] = await task

    asyncio.run(main())
    f.free()
    return result


def flood(seconds=1.0):
    """Flood an armed notifier of a shared fifo for ``seconds``; return a
    dict: datagrams the stranger got through and had refused, how often the
    idle waiter woke, the longest ``clear()``, and this process's CPU time."""
    f = Kfifo(64, shared=True)
    n = f.notifier("data")
    n.arm()
    fd = n.fileno()
    pid, r = _start(fd, seconds)
    wakes = 0
    worst_clear = 0.0
    cpu0 = time.process_time()
    t0 = time.monotonic()
    while True:
        done, _, _ = select.select([fd, r], [], [], 0.1)
        if fd in done:
            wakes += 1
            c = time.perf_counter()
            n.clear()
            worst_clear = max(worst_clear, time.perf_counter() - c)
        if r in done:
            break
    wall = time.monotonic() - t0
    cpu = time.process_time() - cpu0
    report = os.read(r, 100).split()
    os.close(r)
    os.waitpid(pid, 0)
    readable_after = bool(select.select([fd], [], [], 0)[0])
    # the fifo still works: a real publication wakes the notifier
    n.clear()
    f.in_(b"real")
    woken = bool(select.select([fd], [], [], 10)[0])
    n.close()
    f.free()
    return {
        "delivered": int(report[0]), "refused": int(report[1]), "wakes": wakes,
        "worst_clear_ms": worst_clear * 1e3, "cpu_share": cpu / wall,
        "readable_after": readable_after, "woken_by_publication": woken,
    }


if __name__ == "__main__":
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
    print("select + clear():", flood(secs))
    print("asyncio get():   ", flood_asyncio(secs))
