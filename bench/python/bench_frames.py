# SPDX-License-Identifier: MIT
"""1 MiB frames from one process to another: kfifo frames against peers.

Each variant: a producer process (fork) sends FRAMES frames of FRAME bytes
to the consumer (this process), which receives each one whole into one
preallocated buffer of its own and checks its first and last byte (the
producer cycles through SOURCES distinct frames, frame k filled with byte k).

- kfifo 4 MiB: ``Kfifo(4 MiB, shared=True)``, ``put_frame(frame)`` /
  ``get_frame_into(buf)`` until None; a frame fits the fifo, so each is
  stored and taken whole (the consumer copies one frame while the producer
  writes the next).
- kfifo 256 KiB: the same through a fifo smaller than a frame: every
  frame streams through (``put_frame`` waits for room as it goes,
  ``get_frame_into`` fills the buffer as bytes arrive).
- Pipe: ``multiprocessing.Pipe(duplex=False)``, ``Connection.send_bytes`` /
  ``recv_bytes_into(buf)``, an empty message ends it.
- shared_memory + index queue: a ``multiprocessing.shared_memory`` block
  of SLOTS slots of FRAME bytes; the producer copies a frame into a free
  slot and puts its index on a ``multiprocessing.Queue``, the consumer
  copies the slot into its buffer and hands the index back on a second
  queue (the usual way to move large frames between Python processes with
  the standard library; -1 ends it).

Timing is the consumer's: the producer builds its frames, says it is
ready and waits; the consumer reads the clock, says go, and stops it when
the end of the stream arrives.  Every variant runs in turn, REPEATS times,
in one process; the table shows the median rate of each and the median of
the PAIRED ratios (kfifo 4 MiB run i / peer run i): the noise of a shared
machine comes in phases that slow everyone at once.

    python bench/python/bench_frames.py [--repeats 7] [--frames 256] [--out [DIR]]
"""
import argparse
import datetime
import multiprocessing
import os
import platform
import statistics
import sys
import time
from multiprocessing import shared_memory

import kfifo
from benchlib import RESULTS, load_average, machine_line, paired_median_ratios

FRAME = 1 << 20
SOURCES = 8
SLOTS = 4
TIMEOUT = 120.0


def _sources():
    return [bytes([k]) * FRAME for k in range(SOURCES)]


def _check(buf, i, n):
    if n != FRAME or buf[0] != i % SOURCES or buf[FRAME - 1] != i % SOURCES:
        raise AssertionError(f"frame {i}: {n} bytes, first {buf[0]}, last {buf[FRAME - 1]}")


# ---- producers (child processes) -------------------------------------------------------------


def _kfifo_producer(f, frames, ready, go):
    src = _sources()
    ready.set()
    go.wait()
    for i in range(frames):
        f.put_frame(src[i % SOURCES], timeout=TIMEOUT)
    f.close()


def _pipe_producer(conn, frames, ready, go):
    src = _sources()
    ready.set()
    go.wait()
    for i in range(frames):
        conn.send_bytes(src[i % SOURCES])
    conn.send_bytes(b"")
    conn.close()


def _shm_producer(name, full, free, frames, ready, go):
    shm = shared_memory.SharedMemory(name=name)
    src = _sources()
    ready.set()
    go.wait()
    buf = shm.buf
    for i in range(frames):
        slot = free.get(timeout=TIMEOUT)
        buf[slot * FRAME:(slot + 1) * FRAME] = src[i % SOURCES]
        full.put(slot)
    full.put(-1)
    del buf
    shm.close()


# ---- consumers (this process), each returning seconds -----------------------------------------


def _start(ctx, target, args):
    ready, go = ctx.Event(), ctx.Event()
    p = ctx.Process(target=target, args=args + (ready, go))
    p.start()
    if not ready.wait(TIMEOUT):
        raise RuntimeError("producer not ready")
    return p, go


def run_kfifo(ctx, frames, size):
    f = kfifo.Kfifo(size, shared=True)
    buf = bytearray(FRAME)
    p, go = _start(ctx, _kfifo_producer, (f, frames))
    t0 = time.perf_counter()
    go.set()
    i = 0
    while (n := f.get_frame_into(buf, timeout=TIMEOUT)) is not None:
        _check(buf, i, n)
        i += 1
    dt = time.perf_counter() - t0
    p.join(TIMEOUT)
    f.free()
    assert i == frames and p.exitcode == 0
    return dt


def run_pipe(ctx, frames):
    r, w = ctx.Pipe(duplex=False)
    buf = bytearray(FRAME)
    p, go = _start(ctx, _pipe_producer, (w, frames))
    w.close()
    t0 = time.perf_counter()
    go.set()
    i = 0
    while (n := r.recv_bytes_into(buf)) != 0:
        _check(buf, i, n)
        i += 1
    dt = time.perf_counter() - t0
    p.join(TIMEOUT)
    r.close()
    assert i == frames and p.exitcode == 0
    return dt


def run_shm(ctx, frames):
    shm = shared_memory.SharedMemory(create=True, size=SLOTS * FRAME)
    full, free = ctx.Queue(), ctx.Queue()
    for s in range(SLOTS):
        free.put(s)
    buf = bytearray(FRAME)
    p, go = _start(ctx, _shm_producer, (shm.name, full, free, frames))
    mem = shm.buf
    t0 = time.perf_counter()
    go.set()
    i = 0
    while (slot := full.get(timeout=TIMEOUT)) >= 0:
        buf[:] = mem[slot * FRAME:(slot + 1) * FRAME]
        free.put(slot)
        _check(buf, i, FRAME)
        i += 1
    dt = time.perf_counter() - t0
    p.join(TIMEOUT)
    del mem
    shm.close()
    shm.unlink()
    assert i == frames and p.exitcode == 0
    return dt


VARIANTS = {
    "kfifo put_frame/get_frame_into, 4 MiB fifo": lambda ctx, n: run_kfifo(ctx, n, 4 * FRAME),
    "kfifo put_frame/get_frame_into, 256 KiB fifo (frames stream through)":
        lambda ctx, n: run_kfifo(ctx, n, FRAME // 4),
    "multiprocessing Pipe send_bytes/recv_bytes_into": run_pipe,
    f"shared_memory ({SLOTS} slots) + index Queue, consumer copies out": run_shm,
}
REF = next(iter(VARIANTS))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--frames", type=int, default=256, help="frames per run (default 256: 256 MiB)")
    ap.add_argument("--out", nargs="?", const=RESULTS, default=None,
                    help="write frames.md into this directory (default bench/results)")
    args = ap.parse_args(argv)
    ctx = multiprocessing.get_context("fork")
    load_before = load_average()
    runs = {name: [] for name in VARIANTS}
    for rep in range(args.repeats):
        for name, fn in VARIANTS.items():
            runs[name].append(args.frames * FRAME / fn(ctx, args.frames) / 1e9)  # GB/s
        print(f"repeat {rep + 1}/{args.repeats}: " +
              ", ".join(f"{runs[n][-1]:.2f}" for n in VARIANTS), file=sys.stderr)
    load_after = load_average()
    ratios = paired_median_ratios(runs, REF)
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# kfifo benchmark: 1 MiB frames between processes",
        "",
        f"{when}; {machine_line()}; Python {platform.python_version()} "
        f"({platform.python_implementation()}); start method fork; medians of "
        f"{args.repeats} paired runs of {args.frames} frames of {FRAME} bytes "
        f"({args.frames * FRAME >> 20} MiB) each.",
        "",
        f"Load average (1 min): {load_before:.2f} before, {load_after:.2f} after "
        f"({os.cpu_count()} cores, shared with other work: the rates move with it; "
        "the paired ratios much less).",
        "",
        f"Ratio: `{REF}`'s rate over the variant's, run by run, median.",
        "",
        "| variant | median rate | kfifo 4 MiB / variant (paired median) | runs (GB/s) |",
        "|---|---:|---:|---|",
    ]
    for name in VARIANTS:
        xs = runs[name]
        lines.append(f"| {name} | {statistics.median(xs):.2f} GB/s | {ratios[name]:.2f}× | "
                     + " ".join(f"{x:.2f}" for x in xs) + " |")
    lines += ["", f"`python bench/python/bench_frames.py --repeats {args.repeats} --frames "
              f"{args.frames} --out`; method in bench/python/bench_frames.py's docstring.", ""]
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(os.path.join(args.out, "frames.md"), "w", encoding="utf-8") as fh:
            fh.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
