# SPDX-License-Identifier: MIT
"""One producer thread, one consumer thread, one kfifo, no lock.

The producer streams chunks of 1 MiB, each starting with its 64-bit
sequence number; the consumer reads the stream back through ``out_into``
(whatever amount is there) and checks that every chunk arrives whole and
in order.  Copies this big run without the GIL, so the two threads copy in
parallel, as in C.

    python examples/producer_consumer.py [MiB]
"""
import struct
import sys
import threading
import time
from typing import List

import kfifo

CHUNK = 1 << 20
FILLER = bytes(range(256)) * ((CHUNK - 8) // 256) + bytes((CHUNK - 8) % 256)


def main(total_mib: int = 256) -> int:
    f = kfifo.Kfifo(4 * CHUNK)
    errors: List[str] = []

    def producer() -> None:
        for seq in range(total_mib):
            chunk = memoryview(struct.pack("<Q", seq) + FILLER)
            pos = 0
            while pos < CHUNK:
                n = f.in_(chunk[pos:])  # producer side: no lock needed
                pos += n
                if n == 0:
                    time.sleep(0)  # full: let the consumer run

    def consumer() -> None:
        buf = bytearray(CHUNK)
        view = memoryview(buf)
        for seq in range(total_mib):
            pos = 0
            while pos < CHUNK:
                n = f.out_into(view[pos:])  # consumer side: no lock needed
                pos += n
                if n == 0:
                    time.sleep(0)  # empty: let the producer run
            got = struct.unpack_from("<Q", buf)[0]
            if got != seq or not buf.endswith(FILLER):  # buf[8:] == FILLER, without a copy
                errors.append(f"chunk {seq}: got sequence number {got}")
                return

    start = time.perf_counter()
    threads = [threading.Thread(target=producer), threading.Thread(target=consumer)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seconds = time.perf_counter() - start
    if errors:
        print("FAILED:", errors[0])
        return 1
    total = total_mib * CHUNK
    print(f"{total_mib} chunks of 1 MiB, in order, through a {f.size() >> 20} MiB kfifo "
          f"in {seconds:.2f} s: {total / seconds / 1e9:.2f} GB/s "
          f"(the GIL is released for copies of {kfifo.GIL_THRESHOLD} bytes or more)")
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 256))
