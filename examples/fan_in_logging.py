# SPDX-License-Identifier: MIT
"""Fan-in: several processes log into one shared kfifo, one process writes
the log.

``Kfifo(size, shared=True, producers="many")``: every producer process
stores whole records (one log line each) into the same fifo; a line is
never split or mixed with another, and each process's lines stay in its
order.  A ``logging.Handler`` puts the lines; the writer drains them with
``records()`` until ``close()``.

    python examples/fan_in_logging.py [processes] [lines]
"""
import logging
import multiprocessing
import sys

import kfifo


class KfifoHandler(logging.Handler):
    """Each formatted record as one kfifo record (recsize 2: up to 64 KiB)."""

    def __init__(self, fifo: kfifo.Kfifo) -> None:
        super().__init__()
        self.fifo = fifo

    def emit(self, record: logging.LogRecord) -> None:
        line = self.format(record).encode()[:65535]
        self.fifo.put_rec(line, 2)  # blocks while the fifo is full


def app(fifo: kfifo.Kfifo, name: str, lines: int) -> None:
    log = logging.getLogger(name)
    log.addHandler(KfifoHandler(fifo))
    log.setLevel(logging.INFO)
    for i in range(lines):
        log.info("%s line %d", name, i)


def main(processes: int = 4, lines: int = 20_000) -> int:
    fifo = kfifo.Kfifo(1 << 16, shared=True, producers="many")
    apps = [multiprocessing.Process(target=app, args=(fifo, f"app{i}", lines)) for i in range(processes)]
    for p in apps:
        p.start()
    last: dict[str, int] = {}
    count = 0
    while count < processes * lines:
        for rec in fifo.get_recs(1024, 2, timeout=30):
            name, _, i = rec.decode().split()
            assert int(i) == last.get(name, -1) + 1, rec  # each app's lines in order
            last[name] = int(i)
            count += 1
    for p in apps:
        p.join()
    fifo.close()
    assert fifo.get_rec(2) is None  # end of stream
    ok = count == processes * lines and all(p.exitcode == 0 for p in apps)
    print(f"{count} lines from {processes} processes, whole and in order: {ok}")
    fifo.free()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*(int(a) for a in sys.argv[1:3])))
