# SPDX-License-Identifier: MIT
"""Blocking calls and end of stream (docs/spec.md 3.4), over the C waits of 3.1."""
import os
import subprocess
import sys
import textwrap
import threading
import time
import zlib

import pytest

from kfifo import Kfifo

U32 = 2**32


def later(seconds, fn, *args):
    t = threading.Timer(seconds, fn, args)
    t.start()
    return t


# ---- put ------------------------------------------------------------------------


def test_put_stores_everything_when_there_is_room():
    f = Kfifo(8)
    assert f.put(b"abc") is None
    assert f.out(8) == b"abc"


def test_put_with_timeout_0_stores_what_fits_then_raises_with_the_count():
    f = Kfifo(8)
    f.in_(b"12345")
    with pytest.raises(TimeoutError, match="3 of 10 bytes"):
        f.put(b"abcdefghij", timeout=0)
    assert f.out(8) == b"12345abc"


def test_put_times_out_no_sooner_than_its_timeout_and_keeps_what_it_stored():
    f = Kfifo(4)
    t0 = time.monotonic()
    with pytest.raises(TimeoutError, match="4 of 6 bytes"):
        f.put(b"abcdef", timeout=0.2)
    assert time.monotonic() - t0 >= 0.2
    assert f.out(8) == b"abcd"


def test_put_longer_than_the_fifo_streams_through_a_consumer():
    f = Kfifo(16, start=U32 - 7)
    data = os.urandom(100_000)
    got = bytearray()

    def consume():
        while len(got) < len(data):
            got.extend(f.get(7))

    t = threading.Thread(target=consume)
    t.start()
    f.put(data)
    t.join()
    assert bytes(got) == data


def test_put_on_a_closed_fifo_raises_broken_pipe_and_stores_nothing():
    f = Kfifo(8)
    f.close()
    with pytest.raises(BrokenPipeError, match="0 of 1 bytes"):
        f.put(b"x")
    assert f.len() == 0


def test_a_waiting_put_wakes_with_broken_pipe_when_the_consumer_closes():
    f = Kfifo(4)
    f.in_(b"full")
    later(0.1, f.close)
    with pytest.raises(BrokenPipeError, match="0 of 2 bytes"):
        f.put(b"xy")


def test_timeout_counts_from_the_call_not_from_the_last_wake_up():
    # a trickle of single bytes wakes get_exactly(8) many times; it must
    # still give up when its own timeout is over
    f = Kfifo(8)
    stop = threading.Event()

    def trickle():
        while not stop.is_set() and f.len() < 7:
            f.in_(b"x")
            time.sleep(0.03)

    t = threading.Thread(target=trickle)
    t.start()
    t0 = time.monotonic()
    with pytest.raises(TimeoutError):
        f.get_exactly(8, timeout=0.3)
    elapsed = time.monotonic() - t0
    stop.set()
    t.join()
    assert elapsed >= 0.3  # no sooner than asked (no upper bound: busy machines)
    assert f.len() <= 7  # nothing removed


# ---- get, get_into, get_exactly ---------------------------------------------------


def test_get_returns_what_is_there_up_to_n():
    f = Kfifo(8)
    f.in_(b"abcdef")
    assert f.get(4) == b"abcd"
    assert f.get(100) == b"ef"


def test_get_waits_for_the_first_byte():
    f = Kfifo(8)
    later(0.1, f.in_, b"late")
    assert f.get(8, timeout=10) == b"late"


def test_get_0_and_get_into_an_empty_buffer_return_at_once():
    f = Kfifo(8)
    # at once: with no timeout given, a wait would never return
    assert f.get(0) == b""
    assert f.get_into(bytearray()) == 0


def test_get_times_out_and_returns_empty_bytes_only_at_end_of_stream():
    f = Kfifo(8)
    with pytest.raises(TimeoutError, match=r"Kfifo\.get\(\)"):
        f.get(1, timeout=0)
    f.in_(b"ab")
    f.close()
    assert f.get(1) == b"a"  # the consumer drains after close
    assert f.get(8) == b"b"
    assert f.get(8) == b""
    assert f.get(8, timeout=0) == b""


def test_get_into_fills_a_buffer_and_returns_0_at_end_of_stream():
    f = Kfifo(8)
    f.in_(b"xyz")
    buf = bytearray(2)
    assert f.get_into(buf, timeout=0) == 2 and buf == b"xy"
    f.close()
    assert f.get_into(buf) == 1 and buf[:1] == b"z"
    assert f.get_into(buf) == 0


def test_get_exactly_takes_n_bytes_or_nothing():
    f = Kfifo(8)
    f.in_(b"abc")
    with pytest.raises(TimeoutError):
        f.get_exactly(4, timeout=0.05)
    assert f.len() == 3
    later(0.05, f.in_, b"d")
    assert f.get_exactly(4, timeout=10) == b"abcd"


def test_get_exactly_more_than_the_size_is_a_value_error():
    with pytest.raises(ValueError, match="size"):
        Kfifo(8).get_exactly(9)


def test_get_exactly_raises_eof_when_the_stream_ends_short_and_removes_nothing():
    f = Kfifo(8)
    f.in_(b"ab")
    later(0.05, f.close)
    with pytest.raises(EOFError):
        f.get_exactly(3)
    assert f.out(8) == b"ab"


# ---- records ------------------------------------------------------------------------


@pytest.mark.parametrize("recsize, length", [(1, 0), (1, 255), (2, 0), (2, 256), (2, 65535)])
def test_put_rec_and_get_rec_round_trip(recsize, length):
    f = Kfifo(1 << 17)
    rec = bytes(i & 0xFF for i in range(length))
    f.put_rec(rec, recsize, timeout=0)
    assert f.get_rec(recsize, timeout=0) == rec


@pytest.mark.parametrize(
    "size, recsize, length",
    [(1024, 1, 256), (1 << 17, 2, 65536), (8, 1, 8), (8, 2, 7), (8, 0, 9)],
)
def test_put_rec_of_a_record_that_can_never_fit_is_a_value_error(size, recsize, length):
    f = Kfifo(size)
    with pytest.raises(ValueError, match="never fit"):
        f.put_rec(b"x" * length, recsize, timeout=0)
    assert f.len() == 0


def test_put_rec_waits_for_room_for_the_whole_record():
    f = Kfifo(8)
    f.in_(b"12345")
    with pytest.raises(TimeoutError):
        f.put_rec(b"abc", 1, timeout=0.05)  # needs 4, has 3
    assert f.len() == 5
    later(0.05, f.out, 1)
    f.put_rec(b"abc", 1, timeout=10)
    assert f.out(8) == b"2345\x03abc"


def test_get_rec_needs_a_header_to_wait_for():
    with pytest.raises(ValueError, match="recsize must be 1 or 2"):
        Kfifo(8).get_rec(0)
    with pytest.raises(ValueError):
        Kfifo(8).records(3)


def test_get_rec_waits_for_the_whole_record_and_returns_none_at_end_of_stream():
    f = Kfifo(16)
    f.in_(b"\x05abc")  # a header announcing 5 bytes, 3 there
    with pytest.raises(TimeoutError):
        f.get_rec(1, timeout=0.05)
    later(0.05, f.in_, b"de")
    assert f.get_rec(1, timeout=10) == b"abcde"
    f.close()
    assert f.get_rec(1) is None


def test_records_iterates_until_end_of_stream():
    f = Kfifo(64)
    for r in (b"one", b"", b"three"):
        f.put_rec(r, 2)
    f.close()
    assert list(f.records(2)) == [b"one", b"", b"three"]


# ---- wait_avail, wait_len, close ------------------------------------------------------


def test_wait_avail_and_wait_len_answer_true_false_or_value_error():
    f = Kfifo(8)
    assert f.wait_avail(8, timeout=0) is True
    assert f.wait_len(1, timeout=0) is False
    f.in_(b"abc")
    assert f.wait_len(3, timeout=0) is True
    assert f.wait_avail(6, timeout=0.01) is False
    with pytest.raises(ValueError):
        f.wait_len(9)
    with pytest.raises(ValueError):
        f.wait_avail(9, timeout=0)
    f.close()
    assert f.wait_avail(1, timeout=0) is False  # closed: nobody will read
    assert f.wait_len(3) is True  # still there


def test_close_is_seen_from_both_sides_and_reset_reopens():
    f = Kfifo(8)
    assert f.closed is False
    f.close()
    f.close()
    assert f.closed is True
    f.in_(b"a")  # the section 1 calls go on working
    f.reset()
    assert f.closed is False
    f.put(b"b")


@pytest.mark.parametrize("bad", [-1, -0.5, float("nan")])
def test_a_negative_timeout_is_a_value_error(bad):
    with pytest.raises(ValueError, match="timeout"):
        Kfifo(8).get(1, timeout=bad)


def test_a_timeout_of_the_wrong_type_is_a_type_error():
    with pytest.raises(TypeError, match="timeout"):
        Kfifo(8).put(b"x", timeout="1")


def test_timeout_is_accepted_by_keyword_and_position():
    f = Kfifo(8)
    f.put(b"ab", 1.0)
    f.put(b"cd", timeout=1)
    assert f.get(4, timeout=0) == b"abcd"


# ---- free() and signals -------------------------------------------------------------------

BLOCKING = {
    "get": lambda f: f.get(1),
    "get_into": lambda f: f.get_into(bytearray(1)),
    "get_exactly": lambda f: f.get_exactly(4),
    "get_rec": lambda f: f.get_rec(1),
    "put": lambda f: (f.in_(b"x" * 8), f.put(b"y")),
    "put_rec": lambda f: (f.in_(b"x" * 8), f.put_rec(b"y", 1)),
    "put_recs": lambda f: (f.in_(b"x" * 8), f.put_recs([b"a", b"b"], 1)),
    "get_recs": lambda f: f.get_recs(4, 1),
    "records": lambda f: list(f.records(1)),
    "wait_len": lambda f: f.wait_len(8),
    "wait_avail": lambda f: (f.in_(b"x" * 8), f.wait_avail(1)),
}


@pytest.mark.parametrize("name", sorted(BLOCKING))
def test_free_from_another_thread_makes_a_waiting_call_raise_value_error(name):
    f = Kfifo(8)
    errors = []

    def call():
        try:
            BLOCKING[name](f)
        except ValueError as e:
            errors.append(e)

    t = threading.Thread(target=call)
    t.start()
    time.sleep(0.1)
    f.free()
    t.join(10)
    assert not t.is_alive()
    assert len(errors) == 1 and "freed" in str(errors[0])
    assert f.is_freed()


def test_ctrl_c_interrupts_a_wait_without_limit_promptly():
    code = textwrap.dedent(
        """
        import os, signal, threading, time
        from kfifo import Kfifo
        f = Kfifo(8)
        threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
        t0 = time.monotonic()
        try:
            f.get(1)
        except KeyboardInterrupt:
            print("interrupted after %.2f s" % (time.monotonic() - t0))
        """
    )
    # (a wait without limit: the interrupt is what ends it, however late
    # a busy machine runs the timer; the subprocess timeout ends a hang)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("interrupted after ")


def test_a_signal_handler_that_does_not_raise_lets_the_wait_go_on():
    code = textwrap.dedent(
        """
        import os, signal, threading, time
        from kfifo import Kfifo
        seen = []
        signal.signal(signal.SIGUSR1, lambda *a: seen.append(1))
        f = Kfifo(8)
        threading.Timer(0.1, os.kill, (os.getpid(), signal.SIGUSR1)).start()
        threading.Timer(0.4, f.in_, (b"data",)).start()
        print(f.get(8, timeout=30), len(seen))
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "b'data' 1"


def test_exit_with_daemon_threads_asleep_in_blocking_calls_and_a_del_that_frees():
    code = textwrap.dedent(
        """
        import collections, os, threading
        from kfifo import Kfifo
        f = Kfifo(8)
        for _ in range(2):
            threading.Thread(target=f.get, args=(1,), daemon=True).start()
        class Closer:
            def __init__(self, fifo):
                self.fifo = fifo
            def __del__(self, write=os.write):
                self.fifo.free()
                write(1, b"freed at exit")
        collections.closer = Closer(f)
        threading.Event().wait(0.2)
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "freed at exit"


# ---- both sides blocking, checked end to end -------------------------------------------------


@pytest.mark.parametrize("size", [1, 16, 4096])
def test_stream_with_both_sides_blocking_arrives_whole_and_in_order(size):
    f = Kfifo(size, start=U32 - 3)
    # a 1-byte fifo wakes a side for every byte: a shorter stream there
    lengths = (1, 7, 100, 3000, 1, 5) if size == 1 else (1, 7, 100, 3000, 1, 65536, 5)
    chunks = [os.urandom(n) for n in lengths] * (3 if size == 1 else 20)
    want = zlib.crc32(b"".join(chunks))
    got = []

    def produce():
        for c in chunks:
            f.put(c, timeout=60)
        f.close()

    t = threading.Thread(target=produce)
    t.start()
    while True:
        c = f.get(997, timeout=60)
        if not c:
            break
        got.append(c)
    t.join()
    assert zlib.crc32(b"".join(got)) == want


def test_record_stream_with_both_sides_blocking_keeps_every_record_whole():
    f = Kfifo(64)
    records = [bytes([i & 0xFF]) * (i % 50) for i in range(5000)]

    def produce():
        for r in records:
            f.put_rec(r, 1, timeout=60)
        f.close()

    t = threading.Thread(target=produce)
    t.start()
    got = list(f.records(1))
    t.join()
    assert got == records
