# SPDX-License-Identifier: MIT
"""Driver of scripts/callgrind-budget.sh --check: N round trips of 16 bytes through
the Python calls, the way a user's loop makes them (bound methods loaded
once, then called through the interpreter).

    python scripts/callgrind-python.py WHAT N

WHAT is ``bytes`` (``in_(b)`` + ``out(16)``), ``put_get`` (``put_rec(b, 1)``
+ ``get_rec(1)``), ``in_out_rec`` (``in_rec(b, 1)`` + ``out_rec(16, 1)``) or
``empty`` (the same loop with no calls, the interpreter's share that the
check subtracts).  The loop runs 2000 times first (CPython 3.11+ specialises
the loop's instructions while it runs), then N times; callgrind counts the
whole process, and the check takes the difference between two values of N,
so that start-up, imports and the warm-up cancel out.
"""
import sys

if len(sys.argv) != 3 or sys.argv[1] in ("-h", "--help"):
    print(__doc__)
    sys.exit(0 if sys.argv[1:2] in (["-h"], ["--help"]) else 2)

import kfifo  # noqa: E402

WHAT, N = sys.argv[1], int(sys.argv[2])
FIFO = kfifo.Kfifo(4096)
DATA = bytes(16)


def loop_bytes(n: int) -> None:
    fin, fout = FIFO.in_, FIFO.out
    for _ in range(n):
        fin(DATA)
        fout(16)


def loop_put_get(n: int) -> None:
    put, get = FIFO.put_rec, FIFO.get_rec
    for _ in range(n):
        put(DATA, 1)
        get(1)


def loop_in_out_rec(n: int) -> None:
    fin, fout = FIFO.in_rec, FIFO.out_rec
    for _ in range(n):
        fin(DATA, 1)
        fout(16, 1)


def loop_empty(n: int) -> None:
    fin, fout = FIFO.in_, FIFO.out  # noqa: F841 - the same set-up as loop_bytes
    for _ in range(n):
        pass


LOOP = {"bytes": loop_bytes, "put_get": loop_put_get,
        "in_out_rec": loop_in_out_rec, "empty": loop_empty}[WHAT]
LOOP(2000)
LOOP(N)
assert len(FIFO) == 0
