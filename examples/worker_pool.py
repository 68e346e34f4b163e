# SPDX-License-Identifier: MIT
"""A pool of worker processes taking jobs from one shared kfifo.

``Kfifo(size, shared=True, consumers="many")``: any number of worker
processes take records from the same fifo, each job exactly once; the
consumers' side takes a lock that survives a worker killed mid-call.
Results come back through a second fifo with ``producers="many"``: every
worker writes into it, the parent alone reads.  ``close()`` ends the
stream for every worker: ``records()`` is the worker loop.

    python examples/worker_pool.py [jobs] [workers]
"""
import multiprocessing
import struct
import sys

import kfifo

JOB = struct.Struct("<Q")
RESULT = struct.Struct("<QQ")  # job, its square


def worker(jobs: kfifo.Kfifo, results: kfifo.Kfifo) -> None:
    for rec in jobs.records(1):  # until jobs.close() and the fifo is empty
        (n,) = JOB.unpack(rec)
        results.put_rec(RESULT.pack(n, n * n), 1)


def main(count: int = 100_000, workers: int = 4) -> int:
    jobs = kfifo.Kfifo(1 << 16, shared=True, consumers="many")
    results = kfifo.Kfifo(1 << 16, shared=True, producers="many")
    pool = [multiprocessing.Process(target=worker, args=(jobs, results)) for _ in range(workers)]
    for p in pool:
        p.start()
    done: dict[int, int] = {}
    sent = 0
    while len(done) < count:
        while sent < count and jobs.in_rec(JOB.pack(sent), 1) == 0:  # 0: stored
            sent += 1
        for rec in results.get_recs(1024, 1, timeout=30):
            n, square = RESULT.unpack(rec)
            assert n not in done and square == n * n
            done[n] = square
    jobs.close()  # the end of the stream, for every worker
    for p in pool:
        p.join()
    ok = sorted(done) == list(range(count)) and all(p.exitcode == 0 for p in pool)
    print(f"{count} jobs through {workers} workers, each once: {ok}")
    jobs.free()
    results.free()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*(int(a) for a in sys.argv[1:3])))
