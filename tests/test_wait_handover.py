# SPDX-License-Identifier: MIT
"""The first part of every blocking wait: the waiter yields the CPU and checks
again for up to ~0.2 ms (swig/kfpy_wait.c, kf_wait_yielding) before the C
core's wait, which spins, counts it as a waiter and sleeps.  Whatever the
wait's length, and whenever the other side acts (at once, inside that first
part, or after it), the calls keep their guarantees: whole records, end of
stream, timeouts that never end a wait early and store or take nothing,
free() from another thread.  No test here times a speed."""
import threading
import time

import pytest

from kfifo import Kfifo

# inside the yielding part, around its end, well past it
DELAYS = (0.0, 0.00005, 0.0002, 0.001, 0.02)
# timeouts shorter than the yielding part, about as long, and longer
TIMEOUTS = (0.00002, 0.0001, 0.0002, 0.0005, 0.003)


def after(delay, fn, *args):
    """Run fn(*args) in another thread after @delay seconds (busy-waiting
    the last stretch, so that sub-millisecond delays are kept)."""

    def run():
        end = time.perf_counter() + delay
        if delay > 0.002:
            time.sleep(delay - 0.002)
        while time.perf_counter() < end:
            pass
        fn(*args)

    t = threading.Thread(target=run)
    t.start()
    return t


# ---- timeouts: never early, nothing taken or stored ----------------------------------


@pytest.mark.parametrize("timeout", TIMEOUTS)
def test_get_rec_on_an_empty_fifo_times_out_no_sooner_than_asked_and_takes_nothing(timeout):
    f = Kfifo(64)
    t0 = time.monotonic()
    with pytest.raises(TimeoutError, match="get_rec"):
        f.get_rec(1, timeout=timeout)
    assert time.monotonic() - t0 >= timeout
    assert len(f) == 0 and not f.closed
    f.put_rec(b"after", 1)
    assert f.get_rec(1) == b"after"


@pytest.mark.parametrize("timeout", TIMEOUTS)
def test_get_rec_with_half_a_record_stored_times_out_and_leaves_it(timeout):
    f = Kfifo(64)
    f.in_(bytes([5]) + b"abc")  # a header for 5 bytes, 3 of them there
    with pytest.raises(TimeoutError):
        f.get_rec(1, timeout=timeout)
    assert f.out(64) == bytes([5]) + b"abc"


@pytest.mark.parametrize("timeout", TIMEOUTS)
def test_put_rec_on_a_full_fifo_times_out_no_sooner_than_asked_and_stores_nothing(timeout):
    f = Kfifo(16)
    f.put_rec(b"x" * 10, 1)
    t0 = time.monotonic()
    with pytest.raises(TimeoutError, match="nothing stored") as e:
        f.put_rec(b"y" * 10, 1, timeout=timeout)
    assert time.monotonic() - t0 >= timeout
    assert e.value.stored == 0
    assert f.get_recs(10, 1) == [b"x" * 10]


@pytest.mark.parametrize("timeout", TIMEOUTS)
def test_the_byte_waits_time_out_no_sooner_than_asked(timeout):
    f = Kfifo(8)
    for call in (lambda: f.get(4, timeout=timeout),
                 lambda: f.get_into(bytearray(4), timeout=timeout),
                 lambda: f.get_exactly(4, timeout=timeout)):
        t0 = time.monotonic()
        with pytest.raises(TimeoutError):
            call()
        assert time.monotonic() - t0 >= timeout
    f.in_(b"12345678")
    t0 = time.monotonic()
    with pytest.raises(TimeoutError, match="0 of 3 bytes") as e:
        f.put(b"abc", timeout=timeout)
    assert time.monotonic() - t0 >= timeout
    assert e.value.stored == 0
    assert f.out(8) == b"12345678"
    assert f.wait_len(1, timeout=timeout) is False
    assert f.wait_avail(9 - 1, timeout=timeout) is True


# ---- the other side acts during the wait -----------------------------------------------


@pytest.mark.parametrize("delay", DELAYS)
def test_a_record_put_during_get_rec_is_taken_whole(delay):
    f = Kfifo(64)
    t = after(delay, f.put_rec, b"0123456789abcdef", 1)
    assert f.get_rec(1, timeout=30) == b"0123456789abcdef"
    t.join()
    assert len(f) == 0


@pytest.mark.parametrize("delay", DELAYS)
def test_a_record_stored_in_two_steps_is_taken_only_when_whole(delay):
    f = Kfifo(64)
    f.in_(bytes([6]) + b"abc")

    def rest():
        f.in_(b"def")

    t = after(delay, rest)
    assert f.get_rec(1, timeout=30) == b"abcdef"
    t.join()


@pytest.mark.parametrize("delay", DELAYS)
def test_close_during_get_rec_ends_the_stream(delay):
    f = Kfifo(64)
    t = after(delay, f.close)
    assert f.get_rec(1, timeout=30) is None
    t.join()
    assert list(f.records(1)) == []


@pytest.mark.parametrize("delay", DELAYS)
def test_room_made_during_put_rec_lets_the_whole_record_in(delay):
    f = Kfifo(16)
    f.put_rec(b"x" * 10, 1)
    t = after(delay, f.get_rec, 1)
    f.put_rec(b"y" * 10, 1, timeout=30)
    t.join()
    assert f.get_recs(10, 1) == [b"y" * 10]


@pytest.mark.parametrize("delay", DELAYS)
def test_close_during_put_rec_raises_broken_pipe_and_stores_nothing(delay):
    f = Kfifo(16)
    f.put_rec(b"x" * 10, 1)
    t = after(delay, f.close)
    with pytest.raises(BrokenPipeError) as e:
        f.put_rec(b"y" * 10, 1, timeout=30)
    t.join()
    assert e.value.stored == 0
    assert f.get_recs(10, 1) == [b"x" * 10]


@pytest.mark.parametrize("delay", DELAYS)
def test_bytes_put_during_get_and_get_exactly_arrive(delay):
    f = Kfifo(16)
    t = after(delay, f.in_, b"abc")
    assert f.get(8, timeout=30) == b"abc"
    t.join()
    t = after(delay, f.in_, b"wxyz")
    assert f.get_exactly(4, timeout=30) == b"wxyz"
    t.join()


@pytest.mark.parametrize("delay", (0.0, 0.0001, 0.001))
def test_free_during_the_first_part_of_a_wait_raises_value_error(delay):
    f = Kfifo(8)
    errors = []
    started = threading.Event()

    def call():
        started.set()
        try:
            f.get_rec(1)
        except ValueError as e:
            errors.append(e)

    t = threading.Thread(target=call)
    t.start()
    started.wait()
    end = time.perf_counter() + delay
    while time.perf_counter() < end:
        pass
    f.free()
    t.join(10)
    assert not t.is_alive()
    if errors:  # else the call had not begun when free() ran: it raised too
        assert "freed" in str(errors[0])
    assert f.is_freed()


# ---- many hand-overs ---------------------------------------------------------------------


def test_ping_pong_waits_at_every_record_and_keeps_each_whole_and_in_order():
    """Every record is answered before the next is sent, so each side waits
    at every step: thousands of waits that end inside the yielding part or
    after it, none lost."""
    ping, pong = Kfifo(64), Kfifo(64)
    n = 3000

    def echo():
        for rec in ping.records(1):
            pong.put_rec(rec[::-1], 1, timeout=60)
        pong.close()

    t = threading.Thread(target=echo)
    t.start()
    for i in range(n):
        msg = b"%d-" % i + bytes([i & 0xFF]) * (i % 20)
        ping.put_rec(msg, 1, timeout=60)
        assert pong.get_rec(1, timeout=60) == msg[::-1]
    ping.close()
    assert pong.get_rec(1, timeout=60) is None
    t.join()


@pytest.mark.parametrize("size", (32, 1 << 12, 1 << 20))
def test_a_record_stream_through_both_blocking_sides_arrives_whole(size):
    f = Kfifo(size)
    records = [bytes([i & 0xFF]) * (i % 30) for i in range(50_000)]

    def produce():
        put_rec = f.put_rec
        for r in records:
            put_rec(r, 1)
        f.close()

    t = threading.Thread(target=produce)
    t.start()
    got = []
    while (r := f.get_rec(1)) is not None:
        got.append(r)
    t.join()
    assert got == records


# ---- the learned length of the yielding part ---------------------------------------------


def _paced(items, pace):
    """items, with a pause of pace(i) seconds before item i."""
    for i, item in enumerate(items):
        d = pace(i)
        if d:
            time.sleep(d)
        yield item


def _pace(i):
    # slow (waits that shorten the yielding part), fast (that restore it),
    # slow again, then fast to the end
    return 0.002 if i < 20 or 5000 <= i < 5020 else 0.0


def test_a_record_stream_that_slows_down_and_speeds_up_arrives_whole():
    f = Kfifo(256)
    records = [b"%05d" % i + bytes([i & 0xFF]) * (i % 11) for i in range(10_000)]

    def produce():
        for r in _paced(records, _pace):
            f.put_rec(r, 1, timeout=60)
        f.close()

    t = threading.Thread(target=produce)
    t.start()
    assert list(f.records(1)) == records
    t.join()


def test_a_producer_that_waits_for_a_slow_then_fast_consumer_stores_every_record():
    f = Kfifo(64)
    records = [b"%05d" % i for i in range(10_000)]
    got = []

    def consume():
        for i in range(len(records)):
            d = _pace(i)
            if d:
                time.sleep(d)
            got.append(f.get_rec(1, timeout=60))

    t = threading.Thread(target=consume)
    t.start()
    for r in records:
        f.put_rec(r, 1, timeout=60)
    t.join()
    assert got == records and len(f) == 0


def test_short_timeouts_after_long_waits_still_wait_their_whole_timeout():
    f = Kfifo(64)
    for timeout in (0.003, 0.003, 0.003, 0.00005, 0.0002, 0.003, 0.0001):
        t0 = time.monotonic()
        with pytest.raises(TimeoutError):
            f.get_rec(1, timeout=timeout)
        assert time.monotonic() - t0 >= timeout
    t = after(0.0001, f.put_rec, b"late", 1)
    assert f.get_rec(1, timeout=30) == b"late"
    t.join()
