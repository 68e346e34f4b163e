# SPDX-License-Identifier: MIT
"""A producer process and a consumer process sharing one kfifo.

``Kfifo(size, shared=True)`` puts the fifo in a new
``multiprocessing.shared_memory`` block; passed to a ``Process`` (or
through a ``multiprocessing.Queue``) it pickles to the block's name and the
child attaches to it.  Both sides block: ``put_rec`` waits for room,
``get_rec`` for a record, across processes (a shared futex), and
``close()`` is the end of the stream.  The consumer checks that every
record arrives whole and in order.  The process that created the fifo
unlinks its block at ``free()`` (or at exit); the child's handle never
does.

    python examples/processes.py [records] [fork|spawn]
"""
import multiprocessing
import struct
import sys
import time
from typing import Literal

import kfifo


def producer(f: kfifo.Kfifo, count: int) -> None:
    for seq in range(count):
        f.put_rec(struct.pack("<Q", seq) * (1 + seq % 4), 1)  # 8 to 32 bytes
    f.close()
    f.free()  # this process's handle only


def main(count: int = 200_000, method: Literal["fork", "spawn"] = "spawn") -> int:
    # one literal per call: the type checkers then know the context's Process
    ctx = multiprocessing.get_context("fork") if method == "fork" else multiprocessing.get_context("spawn")
    f = kfifo.Kfifo(1 << 16, shared=True)
    p = ctx.Process(target=producer, args=(f, count))
    start = time.perf_counter()
    p.start()
    expected = 0
    while (rec := f.get_rec(1, timeout=30)) is not None:
        seq = struct.unpack_from("<Q", rec)[0]
        if seq != expected or rec != struct.pack("<Q", seq) * (1 + seq % 4):
            print(f"record {expected}: got {rec!r}")
            return 1
        expected += 1
    took = time.perf_counter() - start
    p.join()
    f.free()  # unlinks the block: this process created it
    if expected != count or p.exitcode != 0:
        print(f"got {expected} of {count} records, producer exit code {p.exitcode}")
        return 1
    print(f"{count} records from process {p.pid} in order ({method}), "
          f"{count / took / 1e6:.2f} M records/s including start-up")
    return 0


if __name__ == "__main__":
    records = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    start_method = sys.argv[2] if len(sys.argv) > 2 else "spawn"
    if start_method not in ("fork", "spawn"):
        sys.exit(f"usage: {sys.argv[0]} [records] [fork|spawn]")
    sys.exit(main(records, "fork" if start_method == "fork" else "spawn"))
