# SPDX-License-Identifier: MIT
"""One row of the Python A/B benchmark (scripts/bench-ab.sh --python), timed
once, with whichever kfifo the interpreter imports (bench-ab.sh sets
PYTHONPATH to the extension built at one revision, then the other).

    python bench_ab.py ROW [SCALE]   prints one figure
    python bench_ab.py --list        the rows and their units

The rows are bench_threads.py's loops (two threads, a 1 MiB fifo, the
calls a user writes); only batch16 needs calls newer than release 0.2, and
prints "nan" with a kfifo that lacks them:

  stream64k  64 KiB chunks, put / get_into (GB/s)
  stream16   16-byte chunks, put / get_into (GB/s)
  rec16      16-byte records (recsize 1), put_rec / get_rec (M records/s)
  batch16    the same, put_recs / get_recs of 256 a call (M records/s)
"""
import sys


def _bt():
    # imported only to run a row: it imports kfifo, which --list must not need
    import bench_threads  # beside this script

    return bench_threads


def batched(count):
    bt = _bt()
    if not hasattr(bt.kfifo.Kfifo, "put_recs"):
        return float("nan")
    return bt.kfifo_records_batched(count) / 1e6


ROWS = {
    "stream64k": ("GB/s", lambda s: _bt().kfifo_stream(65536, int(512e6 * s)) / 1e9),
    "stream16": ("GB/s", lambda s: _bt().kfifo_stream(16, int(4e6 * s)) / 1e9),
    "rec16": ("Mrec/s", lambda s: _bt().kfifo_records(int(2e5 * s)) / 1e6),
    "batch16": ("Mrec/s", lambda s: batched(int(2e6 * s))),
}


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: bench_ab.py ROW [SCALE] | --list")
    if sys.argv[1] == "--list":
        for name, (unit, _) in ROWS.items():
            print(name, unit)
        return
    scale = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    print("%.4f" % ROWS[sys.argv[1]][1](scale))


if __name__ == "__main__":
    main()
