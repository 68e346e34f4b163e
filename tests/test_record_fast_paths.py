# SPDX-License-Identifier: MIT
"""The record calls' common-case paths (put_rec, get_rec, in_rec, out_rec
of a bytes object with recsize 1 or 2 and no timeout) give the same
answers and raise the same errors as the general path they skip.

The fast paths take a record only when it lies in one run of the ring and
store only when there is room and the fifo is open; these tests put
records across the end of the ring at every offset, and make each
condition fail with a call that would otherwise take the fast path.
"""
import pytest

import kfifo


def payload(i: int, n: int) -> bytes:
    return bytes((i * 7 + j) & 0xFF for j in range(n))


@pytest.mark.parametrize("recsize", [1, 2])
def test_records_across_the_end_of_the_ring(recsize: int) -> None:
    # 32 bytes: records of 0..20 bytes wrap the header, the data or
    # neither, at every offset, as the lengths cycle
    f = kfifo.Kfifo(32)
    for i in range(600):
        n = i % 21
        data = payload(i, n)
        if i % 2:
            f.put_rec(data, recsize)
            assert f.get_rec(recsize) == data
        else:
            assert f.in_rec(data, recsize) == 0
            assert f.out_rec(255, recsize) == (0, data, n)
        assert len(f) == 0


@pytest.mark.parametrize("recsize", [1, 2])
def test_short_record_copies_at_every_length_and_offset(recsize: int) -> None:
    # put_rec copies records of up to 32 bytes inline (overlapping loads
    # and stores of 1, 4, 8 or 2 x 8 bytes) and get_rec refills a dropped
    # bytes object the same way: every length across those bounds (and
    # past them), at every offset of a 64-byte ring, comes out as it went
    # in, whether the record was dropped (refilled) or held
    f = kfifo.Kfifo(64)
    held = []
    for i in range(41 * 5):
        n = i % 41
        data = payload(i, n)
        f.put_rec(data, recsize)
        got = f.get_rec(recsize)
        assert got == data
        if i % 5 == 0:
            held.append((got, data))
        assert len(f) == 0
    assert all(g == d for g, d in held)


def test_get_rec_refill_picks_the_kept_bytes_of_the_right_length() -> None:
    # get_rec takes a record straight into a dropped bytes of the last two
    # only when the lengths match: alternating lengths use both, a third
    # length or a held one makes a new object, and every record is right
    f = kfifo.Kfifo(256)
    held = []
    for i in range(300):
        n = (5, 16, 16, 5, 9, 16)[i % 6]
        data = payload(i, n)
        f.put_rec(data, 1)
        got = f.get_rec(1)
        assert got == data and hash(got) == hash(bytes(data))
        if i % 11 == 0:
            held.append((got, data))
    assert all(g == d for g, d in held)
    # a partial record (header only) is left for the general path
    assert f.in_(bytes([16]) + b"abc") == 4
    with pytest.raises(TimeoutError):
        f.get_rec(1, 0)
    assert len(f) == 4


def test_put_rec_refused_by_a_full_ring_then_closed() -> None:
    # the fast path stores nothing when the cached room is short, when the
    # record would cross the end of the ring and when the fifo is closed:
    # the general path then gives the usual answers
    f = kfifo.Kfifo(32)
    f.put_rec(b"a" * 20, 1)
    with pytest.raises(TimeoutError):
        f.put_rec(b"b" * 20, 1, 0)
    assert f.get_rec(1) == b"a" * 20
    f.put_rec(b"c" * 20, 1)  # from offset 21: crosses the end
    assert f.get_rec(1) == b"c" * 20
    f.close()
    with pytest.raises(BrokenPipeError):
        f.put_rec(b"d", 2)
    assert len(f) == 0
    f.reset()
    f.put_rec(b"e" * 5, 2)
    assert f.get_rec(2) == b"e" * 5


@pytest.mark.parametrize("recsize", [1, 2])
def test_two_records_queued_across_the_end(recsize: int) -> None:
    f = kfifo.Kfifo(64)
    for i in range(300):
        a, b = payload(i, i % 17), payload(i + 1, (i * 5) % 23)
        f.put_rec(a, recsize)
        assert f.in_rec(b, recsize) == 0
        assert f.get_rec(recsize) == a
        assert f.out_rec(100, recsize) == (0, b, len(b))
        assert len(f) == 0


def test_out_rec_shorter_than_the_record_keeps_it() -> None:
    f = kfifo.Kfifo(64)
    f.put_rec(b"abcdefgh", 1)
    ret, data, total = f.out_rec(3, 1)
    assert (ret, data, total) == (8, b"", 8)
    assert len(f) == 9
    assert f.out_rec(8, 1) == (0, b"abcdefgh", 8)


def test_out_rec_result_ints_follow_the_records() -> None:
    # the result tuple is reused; its numbers must change with the record
    f = kfifo.Kfifo(64)
    for n in (5, 5, 0, 7, 7, 3):
        f.in_rec(bytes(n), 1)
        ret, data, total = f.out_rec(16, 1)
        assert (ret, len(data), total) == (0, n, n)
    assert f.out_rec(16, 1) == (16, b"", 0)


def test_put_rec_to_a_closed_fifo_with_room_raises() -> None:
    f = kfifo.Kfifo(64)
    f.close()
    with pytest.raises(BrokenPipeError):
        f.put_rec(b"x" * 16, 1)
    assert len(f) == 0


def test_put_rec_bad_timeout_with_room_raises_and_stores_nothing() -> None:
    f = kfifo.Kfifo(64)
    with pytest.raises(TypeError):
        f.put_rec(b"x" * 16, 1, "soon")
    with pytest.raises(ValueError):
        f.put_rec(b"x" * 16, 1, -1)
    assert len(f) == 0
    f.put_rec(b"x" * 16, 1, None)
    assert f.get_rec(1, None) == b"x" * 16


def test_put_rec_too_long_for_the_header_raises() -> None:
    f = kfifo.Kfifo(1024)
    with pytest.raises(ValueError):
        f.put_rec(b"x" * 256, 1)
    assert len(f) == 0
    assert f.in_rec(b"x" * 256, 1) == 257
    assert len(f) == 0


def test_bad_recsize_raises_with_data_stored() -> None:
    f = kfifo.Kfifo(64)
    f.put_rec(b"abc", 1)
    with pytest.raises(ValueError):
        f.get_rec(0)
    with pytest.raises(ValueError):
        f.get_rec(3)
    with pytest.raises(ValueError):
        f.put_rec(b"abc", 3)
    with pytest.raises(ValueError):
        f.out_rec(16, 3)
    assert f.get_rec(1) == b"abc"


def test_freed_fifo_raises_on_every_record_call() -> None:
    f = kfifo.Kfifo(64)
    f.put_rec(b"abc", 1)
    f.free()
    for call in (lambda: f.put_rec(b"abc", 1), lambda: f.get_rec(1),
                 lambda: f.in_rec(b"abc", 1), lambda: f.out_rec(16, 1)):
        with pytest.raises(ValueError):
            call()


def test_bytes_like_input_takes_the_general_path() -> None:
    f = kfifo.Kfifo(64)
    f.put_rec(bytearray(b"abc"), 1)
    f.put_rec(memoryview(b"defg"), 2)
    assert f.in_rec(bytearray(b"hi"), 1) == 0
    assert f.get_rec(1) == b"abc"
    assert f.get_rec(2) == b"defg"
    assert f.out_rec(8, 1) == (0, b"hi", 2)


def test_get_rec_reused_bytes_never_changes_a_held_record() -> None:
    # get_rec refills the last short record's bytes only when nobody else
    # holds it: a record kept (in a list, as a dict key, in a memoryview)
    # keeps its contents, and a dropped one that was hashed hashes anew
    f = kfifo.Kfifo(1024)
    kept = []
    keys = {}
    for i in range(200):
        data = payload(i, 16)
        f.put_rec(data, 1)
        got = f.get_rec(1)
        assert got == data and hash(got) == hash(bytes(data))
        if i % 3 == 0:
            kept.append((got, data))
        elif i % 3 == 1:
            keys[got] = data
        else:
            view = memoryview(got)
            f.put_rec(payload(i + 1, 16), 1)
            other = f.get_rec(1)
            assert bytes(view) == data and other == payload(i + 1, 16)
            view.release()
    for got, data in kept:
        assert got == data
    for got, data in keys.items():
        assert got == data and keys[bytes(data)] == data


@pytest.mark.parametrize("n", [0, 1, 2, 256, 257])
def test_get_rec_lengths_at_the_reuse_bounds(n: int) -> None:
    # 0 and 1 byte are CPython's shared singletons, above 256 not kept:
    # each still comes out right, dropped or held
    f = kfifo.Kfifo(2048)
    held = []
    for i in range(6):
        data = payload(i, n)
        f.put_rec(data, 2)
        got = f.get_rec(2)
        assert got == data and type(got) is bytes
        if i % 2:
            held.append((got, data))
    assert all(g == d for g, d in held)


def test_records_loop_keeps_the_previous_record_intact() -> None:
    # the loop variable still holds the last record during the next take,
    # and the one before is refilled: every record seen stays what it was
    # while it is held, through records() and get_rec alike
    f = kfifo.Kfifo(4096)
    for i in range(100):
        f.put_rec(payload(i, 16), 1)
    f.close()
    prev = None
    for i, rec in enumerate(f.records(1)):
        assert rec == payload(i, 16)
        if prev is not None:
            assert prev == payload(i - 1, 16)
        prev = rec
    g = kfifo.Kfifo(4096)
    for i in range(50):
        g.put_rec(payload(i, 16), 1)
    a = g.get_rec(1)
    b = g.get_rec(1)
    for i in range(2, 50):
        c = g.get_rec(1)
        assert (a, b, c) == (payload(i - 2, 16), payload(i - 1, 16), payload(i, 16))
        a, b = b, c
