# SPDX-License-Identifier: MIT
"""One row of the Python A/B benchmark (scripts/bench-ab.sh --python), timed
once, with whichever kfifo the interpreter imports (bench-ab.sh sets
PYTHONPATH to the extension built at one revision, then the other).

    python bench_ab.py ROW     prints one figure
    python bench_ab.py --list  the rows and their units

Only calls that release 0.2 already had are used (a row whose calls the
imported kfifo lacks prints "nan"), so any revision since runs it.  Two
threads, a 1 MiB fifo, the calls a user writes (blocking put / get_into,
put_rec / get_rec):

  stream64k  64 KiB chunks, put / get_into (GB/s)
  stream16   16-byte chunks, put / get_into (GB/s)
  rec16      16-byte records (recsize 1), put_rec / get_rec (M records/s)
  batch16    16-byte records, put_recs / get_recs, 64 a call (M records/s;
             newer than 0.2)
"""
import sys
import threading
import time

FIFO = 1 << 20


def stream(chunk, total):
    import kfifo

    f = kfifo.Kfifo(FIFO)
    data = b"x" * chunk
    n = total // chunk

    def produce():
        for _ in range(n):
            f.put(data)
        f.close()

    buf = bytearray(chunk)
    t = threading.Thread(target=produce)
    t0 = time.perf_counter()
    t.start()
    got = 0
    while True:
        k = f.get_into(buf)
        if k == 0:
            break
        got += k
    t.join()
    dt = time.perf_counter() - t0
    assert got == n * chunk
    return got / dt / 1e9


def records(n):
    import kfifo

    f = kfifo.Kfifo(FIFO)
    rec = b"r" * 16

    def produce():
        put = f.put_rec
        for _ in range(n):
            put(rec, 1)
        f.close()

    t = threading.Thread(target=produce)
    t0 = time.perf_counter()
    t.start()
    get = f.get_rec
    got = 0
    while get(1) is not None:
        got += 1
    t.join()
    dt = time.perf_counter() - t0
    assert got == n
    return n / dt / 1e6


def batches(n, per=64):
    import kfifo

    f = kfifo.Kfifo(FIFO)
    if not hasattr(f, "put_recs") or not hasattr(f, "get_recs"):
        return float("nan")
    batch = [b"r" * 16] * per

    def produce():
        put = f.put_recs
        for _ in range(n // per):
            put(batch, 1)
        f.close()

    t = threading.Thread(target=produce)
    t0 = time.perf_counter()
    t.start()
    get = f.get_recs
    got = 0
    while True:
        recs = get(per, 1)
        if not recs:
            break
        got += len(recs)
    t.join()
    dt = time.perf_counter() - t0
    assert got == n // per * per
    return got / dt / 1e6


ROWS = {
    "stream64k": ("GB/s", lambda s: stream(65536, int(512e6 * s))),
    "stream16": ("GB/s", lambda s: stream(16, int(4e6 * s))),
    "rec16": ("Mrec/s", lambda s: records(int(2e5 * s))),
    "batch16": ("Mrec/s", lambda s: batches(int(2e6 * s))),
}


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: bench_ab.py ROW [SCALE] | --list")
    if sys.argv[1] == "--list":
        for name, (unit, _) in ROWS.items():
            print(name, unit)
        return
    scale = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    unit, fn = ROWS[sys.argv[1]]
    print("%.4f" % fn(scale))


if __name__ == "__main__":
    main()
