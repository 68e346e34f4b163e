# SPDX-License-Identifier: MIT
"""Records: length-prefixed messages through a kfifo (docs/spec.md 1.4).

A record is a 1- or 2-byte little-endian length header followed by its
data, stored whole or not at all.  recsize 0 means fixed-size records.

    python examples/records.py
"""
import kfifo


def main() -> int:
    f = kfifo.Kfifo(64, start=2**32 - 10)  # indices cross 2**32 on the way

    print("recsize 1: records of 0..255 bytes")
    for msg in (b"hello", b"", b"kernel fifo"):
        print(f"  in_rec({msg!r}, 1) -> {f.in_rec(msg, 1)}")
    print(f"  in_rec(256 bytes, 1) -> {f.in_rec(bytes(256), 1)}  (refused: n + 1)")
    print(f"  peek_rec(1) -> {f.peek_rec(1)}")
    print(f"  out_rec(3, 1) -> {f.out_rec(3, 1)}  (too small: the record's length, nothing removed)")
    while not f.is_empty():
        print(f"  out_rec(255, 1) -> {f.out_rec(255, 1)}")
    print(f"  out_rec(255, 1) on an empty fifo -> {f.out_rec(255, 1)}")

    print("recsize 2: up to 65535 bytes, header little-endian")
    print(f"  in_rec(b'x' * 40, 2) -> {f.in_rec(b'x' * 40, 2)}; raw header: {f.out(2)!r}")
    f.skip(40)
    print("recsize 0: fixed-size records of exactly n bytes")
    for i in range(3):
        f.in_rec(i.to_bytes(4, "little"), 0)
    print(f"  three 4-byte records in; out_rec(4, 0) x3 -> "
          f"{[f.out_rec(4, 0)[1] for _ in range(3)]}")
    f.free()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
