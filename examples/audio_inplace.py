# SPDX-License-Identifier: MIT
"""Audio frames as numpy int16, in place in the ring: no bytes objects, no copies.

The "capture" thread synthesises each frame straight into the fifo's free
space through writable numpy views (``in_prepare``), applies a gain there,
in place, and publishes it (``in_finish``).  The "meter" thread reads each
stored frame through read-only numpy views (``out_prepare``), measures its
peak without copying, and releases the space (``out_finish``).  A region can
wrap around the end of the ring, so each side handles two parts; every
frame is a whole number of samples and the fifo size is even, so both parts
always hold whole samples.  Run: ``python examples/audio_inplace.py``.
"""
import threading
import time
from typing import List, Tuple

import numpy as np
import numpy.typing as npt

import kfifo

FRAME = 480                      # samples per frame (10 ms at 48 kHz)
FRAMES = 3000
BYTES = FRAME * 2                # int16
fifo = kfifo.Kfifo(1 << 16)      # 64 KiB ring


def int16_parts(views: Tuple[memoryview, memoryview]) -> List[npt.NDArray[np.int16]]:
    """numpy int16 arrays over the two memoryviews (the second may be empty)."""
    return [np.frombuffer(v, dtype=np.int16) for v in views if len(v)]


def capture() -> None:
    t = 0
    for _ in range(FRAMES):
        while fifo.avail() < BYTES:      # with the waiting API: fifo.wait_avail(BYTES)
            time.sleep(0.0002)
        views = fifo.in_prepare(BYTES)
        for part in int16_parts(views):
            n = part.size
            part[:] = 8000 * np.sin(np.arange(t, t + n) * (2 * np.pi * 440 / 48000))
            part //= 2                   # the gain, applied in the ring itself
            t += n
        del views                        # no view may outlive the fifo
        fifo.in_finish(BYTES)


peaks: List[int] = []


def meter() -> None:
    for _ in range(FRAMES):
        while fifo.len() < BYTES:        # with the waiting API: fifo.wait_len(BYTES)
            time.sleep(0.0002)
        views = fifo.out_prepare(BYTES)
        peaks.append(max(int(np.abs(part).max()) for part in int16_parts(views)))
        del views
        fifo.out_finish(BYTES)


threads = [threading.Thread(target=capture), threading.Thread(target=meter)]
for th in threads:
    th.start()
for th in threads:
    th.join()
print("frames:", len(peaks), "peak:", max(peaks))   # 4000: half of 8000
fifo.free()
