# SPDX-License-Identifier: MIT
"""Taking the GIL back after a copy that ran without it (swig/kfpy_threads.c,
kf_gil_take): a thread spins, for a bounded and learned time, while another
kfifo call's thread is marked as holding or taking the GIL, instead of
sleeping in CPython's take_gil().  The mark is only a hint: whoever holds the
GIL and however it is let go of (another kfifo stream, plain Python code,
time.sleep(), a thread that ends with its mark set, a fork() child), every
call finishes and every byte arrives in order.  No test here times a speed;
the time limits only catch a spin that would not end."""
import threading
import time

import kfifo
from _isolated import assert_clean, run_isolated
from kfifo import Kfifo
from test_kfifo_threads import run_threads  # joins with a time limit, re-raises

#: every copy of this size runs without the GIL
BIG = max(kfifo.GIL_THRESHOLD, 1 << 16)


def chunk(i):
    """BIG bytes that say which chunk they are, at both ends."""
    tag = i.to_bytes(4, "little")
    return tag + bytes(BIG - 8) + tag


def stream(f, count, blocking):
    """Producer and consumer of @count chunks through @f; the consumer checks
    each one arrives whole and in order."""

    def produce():
        for i in range(count):
            data = memoryview(chunk(i))
            if blocking:
                f.put(data, timeout=30)
                continue
            while data:
                k = f.in_(data)
                data = data[k:]
                if not k:
                    time.sleep(0)

    def consume():
        buf = bytearray(BIG)
        for i in range(count):
            got = 0
            while got < BIG:
                view = memoryview(buf)[got:]
                if blocking:
                    k = f.get_into(view, timeout=30)
                else:
                    k = f.out_into(view)
                    if not k:
                        time.sleep(0)
                got += k
            assert buf[:4] == buf[-4:] == i.to_bytes(4, "little"), i

    return produce, consume


def test_two_streams_at_once_share_the_mark_and_lose_nothing():
    # four threads taking the GIL back after their copies: two blocking
    # streams and one polling stream, each whole and in order
    fifos = [Kfifo(4 * BIG) for _ in range(3)]
    targets = []
    for f, blocking in zip(fifos, (True, True, False)):
        targets += stream(f, 300, blocking)
    run_threads(targets, timeout=60)
    for f in fifos:
        assert len(f) == 0
        f.free()


def test_a_thread_that_ends_with_its_mark_set_does_not_stall_others():
    # the thread's last call takes the GIL back after a big copy (marking
    # it) and the thread ends: its mark is left behind, and the next big
    # copies of other threads spin at most their bound, then learn
    f = Kfifo(4 * BIG)
    data = bytes(BIG)
    sink = bytearray(BIG)
    for _ in range(5):
        t = threading.Thread(target=lambda: f.in_(data))
        t.start()
        t.join()
        assert len(f) == BIG

        def copy_many():
            for _ in range(200):
                assert f.out_into(sink) == BIG
                assert f.in_(data) == BIG

        run_threads([copy_many], timeout=30)
        assert f.out_into(sink) == BIG
    f.free()


def test_plain_python_code_holding_the_gil_is_waited_for():
    # a thread that holds the GIL without a kfifo call (a busy Python loop,
    # a time.sleep() that lets go of it) beside a stream: all make progress
    f = Kfifo(4 * BIG)
    stop = threading.Event()
    spins = [0, 0]

    def busy():
        while not stop.is_set():
            spins[0] += 1

    def sleepy():
        while not stop.is_set():
            time.sleep(0.0001)
            spins[1] += 1

    others = [threading.Thread(target=busy, daemon=True),
              threading.Thread(target=sleepy, daemon=True)]
    for t in others:
        t.start()
    try:
        run_threads(list(stream(f, 200, True)), timeout=60)
    finally:
        stop.set()
        for t in others:
            t.join(10)
    assert spins[0] > 0 and spins[1] > 0
    f.free()


def test_a_fork_child_takes_the_gil_back_after_its_copies():
    # the parent's streaming threads leave a mark naming one of them; the
    # child, which has only the forking thread, starts with no mark
    proc = run_isolated(
        """
        import os, signal, threading, kfifo
        from kfifo import Kfifo
        big = max(kfifo.GIL_THRESHOLD, 1 << 16)
        f = Kfifo(4 * big)
        stop = threading.Event()
        def produce():
            data = bytes(big)
            while not stop.is_set():
                try:
                    f.put(data, timeout=0.05)
                except TimeoutError:
                    pass
        def consume():
            sink = bytearray(big)
            while not stop.is_set():
                try:
                    f.get_into(sink, timeout=0.05)
                except TimeoutError:
                    pass
        threads = [threading.Thread(target=produce), threading.Thread(target=consume)]
        for t in threads:
            t.start()
        for _ in range(6):
            pid = os.fork()
            if pid == 0:
                signal.alarm(20)
                g = Kfifo(4 * big)
                data, sink = bytes(big), bytearray(big)
                for _ in range(200):
                    assert g.in_(data) == big and g.out_into(sink) == big
                g.free()
                os._exit(0)
            _, status = os.waitpid(pid, 0)
            assert status == 0, status
        stop.set()
        for t in threads:
            t.join()
        f.free()
        print("ok")
        """,
        timeout=120,
    )
    assert_clean(proc)
    assert proc.stdout.strip() == "ok"

