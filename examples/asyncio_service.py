# SPDX-License-Identifier: MIT
"""An asyncio service that meters the audio frames a producer process sends.

The producer is plain blocking code in another process (spawned): it
synthesises 10 ms frames of int16 audio (480 samples) and sends each as a
record of a shared fifo with ``put_rec``.  The service awaits them with
:class:`kfifo.aio.AsyncKfifo` - the loop waits on the fifo's notifier, no
thread is blocked - and measures each frame's peak.  It has a timeout
(no frame for ``--stall`` seconds: it looks whether the producer still
lives) and a clean shutdown: on SIGINT or SIGTERM it cancels the waiting
call (which takes nothing), closes the fifo (the producer's next
``put_rec`` raises ``BrokenPipeError`` and it leaves), joins the producer
and frees the fifo, whose block the service created and so unlinks.

Ctrl-C in a terminal signals the whole foreground process group, the
producer too: the producer ignores SIGINT (it is stopped by the closed
fifo), so the only answer to Ctrl-C is the service's "stopped by SIGINT",
never a ``KeyboardInterrupt`` traceback from the child.

    python examples/asyncio_service.py [--frames N] [--stall SECONDS]

Without ``--frames`` the producer runs until the service stops.
"""
import argparse
import asyncio
import multiprocessing
import signal
from multiprocessing.process import BaseProcess
from typing import Optional

import numpy as np

import kfifo
from kfifo.aio import AsyncKfifo

SAMPLES = 480  # 10 ms at 48 kHz


def producer(f: kfifo.Kfifo, frames: Optional[int]) -> None:
    """The other process: frames of a 440 Hz tone until done or the fifo closes."""
    # Ctrl-C reaches every process of the terminal's foreground group; the
    # service decides when this one stops (it closes the fifo)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    t = 0
    sent = 0
    try:
        while frames is None or sent < frames:
            tone = 8000 * np.sin(np.arange(t, t + SAMPLES) * (2 * np.pi * 440 / 48000))
            f.put_rec(tone.astype(np.int16), 2, timeout=30)
            t += SAMPLES
            sent += 1
        f.close()  # end of stream: the service drains what is left
    except BrokenPipeError:
        pass  # the service stopped and closed the fifo
    finally:
        f.free()  # this process's handle only


async def serve(f: kfifo.Kfifo, proc: BaseProcess, stall: float) -> str:
    """Meter frames until the stream ends; returns why it stopped."""
    af = AsyncKfifo(f)
    frames = 0
    peak = 0
    while True:
        try:
            frame = await af.get_rec(2, timeout=stall)
        except TimeoutError:
            if not proc.is_alive():
                return f"producer died ({frames} frames)"
            print(f"no frame for {stall} s, producer alive: waiting on")
            continue
        if frame is None:
            print(f"{frames} frames, peak {peak}")
            return "producer finished"
        if frames == 0:
            print("metering frames (Ctrl-C or SIGTERM stops)", flush=True)
        samples = np.frombuffer(frame, dtype=np.int16)
        peak = max(peak, int(np.abs(samples).max()))
        frames += 1


async def main(frames: Optional[int], stall: float) -> None:
    f = kfifo.Kfifo(1 << 16, shared=True)
    ctx = multiprocessing.get_context("spawn")
    proc = ctx.Process(target=producer, args=(f, frames))
    # ignored from the child's first instruction, not only once producer()
    # runs: a spawned child inherits an ignored SIGINT through exec, and
    # Python leaves it ignored while it starts
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        proc.start()
    finally:
        signal.signal(signal.SIGINT, previous)
    loop = asyncio.get_running_loop()
    service = asyncio.ensure_future(serve(f, proc, stall))
    stopped_by: list[str] = []

    def stop(signame: str) -> None:
        stopped_by.append(signame)
        service.cancel()  # the waiting get_rec takes nothing

    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop, sig.name)
    try:
        print(await service)
    except asyncio.CancelledError:
        if not stopped_by:
            raise
        print(f"stopped by {stopped_by[0]}")
    finally:
        f.close()  # the producer's next put_rec raises BrokenPipeError
        await loop.run_in_executor(None, proc.join, 30)
        f.free()  # unlinks the block: this process created it


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="meter the audio frames of a producer process")
    parser.add_argument("--frames", type=int, default=None, help="frames to send (default: until stopped)")
    parser.add_argument("--stall", type=float, default=2.0, help="seconds without a frame before checking the producer")
    args = parser.parse_args()
    asyncio.run(main(args.frames, args.stall))
