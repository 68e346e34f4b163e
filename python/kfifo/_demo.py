# SPDX-License-Identifier: MIT
"""``kfifo demo``: bytes and records through a small fifo, step by step."""
from __future__ import annotations

import argparse

from kfifo.cli import int_in_range


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--size", type=int_in_range(1, 2**31), default=16, metavar="N",
        help="fifo size in bytes, 1 to 2**31 (rounded up to a power of two; default 16)",
    )


def _show(label: str, result: object, f: object) -> None:
    print(f"  {label:<34} -> {result!r:<26} {f!r}")


def run(args: argparse.Namespace) -> int:
    import kfifo

    print(f"kfifo {kfifo.__version__}: the kernel's kfifo (new API v0.3) from Python\n")

    # Start the indices just below 2**32 so that the demo crosses the wrap.
    start = 2**32 - 5
    with kfifo.Kfifo(args.size, start=start) as f:
        print(f"Bytes: a fifo of {f.size()} bytes, in = out = 2**32 - 5")
        _show("in_(b'hello, ')", f.in_(b"hello, "), f)
        _show("in_(b'world')", f.in_(b"world"), f)
        _show("out(7)", f.out(7), f)
        _show(f"in_(b'x' * {f.size()})  (only avail fits)", f.in_(b"x" * f.size()), f)
        _show("out(100)  (in, out wrapped 2**32)", f.out(100), f)

        print("\nRecords, recsize 1 (1-byte length header):")
        _show("in_rec(b'ping', 1)", f.in_rec(b"ping", 1), f)
        _show("in_rec(b'', 1)  (empty record)", f.in_rec(b"", 1), f)
        _show("peek_rec(1)", f.peek_rec(1), f)
        _show("out_rec(2, 1)  (too small: ret=L)", f.out_rec(2, 1), f)
        _show("out_rec(64, 1)", f.out_rec(64, 1), f)
        _show("out_rec(64, 1)", f.out_rec(64, 1), f)
        _show(f"in_rec(b'y' * {f.size()}, 1)  (refused)", f.in_rec(b"y" * f.size(), 1), f)

        print("\nRecords, recsize 2 (2-byte little-endian header):")
        _show("in_rec(b'pong!', 2)", f.in_rec(b"pong!", 2), f)
        _show("out(2)  (the raw header)", f.out(2), f)
        f.reset()
        _show("reset(); in_rec(b'pong!', 2)", f.in_rec(b"pong!", 2), f)
        _show("out_rec(64, 2)", f.out_rec(64, 2), f)
        _show("out_rec(64, 2)  (empty: ret=n)", f.out_rec(64, 2), f)

        print("\nLocked calls (several producers or consumers share a SpinLock):")
        lock = kfifo.SpinLock()
        _show("in_locked(b'locked', lock)", f.in_locked(b"locked", lock), f)
        _show("out_locked(6, lock)", f.out_locked(6, lock), f)
    print(f"\nwith-block left: close(), free()   -> {f!r}")

    import threading

    print("\nTwo threads, blocking calls: a producer put()s 1000 bytes through")
    print(f"a {args.size}-byte fifo and close()s it; the consumer get()s until b''.")
    with kfifo.Kfifo(args.size) as f:
        data = bytes(range(250)) * 4

        def produce() -> None:
            f.put(data, timeout=10)  # waits for room as the consumer takes
            f.close()  # end of stream

        producer = threading.Thread(target=produce)
        producer.start()
        chunks = []
        while True:
            chunk = f.get(64, timeout=10)
            if not chunk:
                break
            chunks.append(chunk)
        producer.join()
        got = b"".join(chunks)
        print(f"  got {len(got)} bytes in {len(chunks)} get() calls, in order: {got == data}")
        print(f"  f.closed -> {f.closed}; get(1) -> {f.get(1)!r} (end of stream)")
    return 0
