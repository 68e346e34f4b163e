# SPDX-License-Identifier: MIT
# TEMPORARY stand-in for Kfifo.notifier() until the C one lands; deleted then.
import os
import threading
import time

import kfifo
import kfifo.aio


class StandInNotifier:
    def __init__(self, fifo, direction):
        assert direction in ("data", "room")
        self._fifo = fifo
        self._dir = direction
        self._fd = os.eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)
        self.armed = False
        self.closed = False
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._poll, daemon=True)
        self._t.start()

    def _snap(self):
        f = self._fifo
        if f.is_freed():
            return "freed"
        return (f.len(), f.closed)

    def _poll(self):
        last = None
        tick = 0
        while not self._stop.is_set():
            try:
                s = self._snap()
            except ValueError:
                s = "freed"
            tick += 1
            if self.armed and (s != last or tick % 50 == 0 or s == "freed"):
                try:
                    os.eventfd_write(self._fd, 1)
                except OSError:
                    return
            last = s
            if s == "freed":
                return
            time.sleep(0.0005)

    def fileno(self):
        if self.closed:
            raise ValueError("closed notifier")
        return self._fd

    def arm(self):
        self.armed = True

    def disarm(self):
        self.armed = False

    def clear(self):
        try:
            os.eventfd_read(self._fd)
        except BlockingIOError:
            pass

    def close(self):
        if not self.closed:
            self.closed = True
            self.armed = False
            self._stop.set()
            os.close(self._fd)


if not hasattr(kfifo.Kfifo, "notifier"):
    kfifo.aio._new_notifier = StandInNotifier
