# SPDX-License-Identifier: MIT
"""Whole buffers and frames (docs/frames.md): get_into(whole=True) fills all
of a buffer (all or nothing when it fits the fifo, streaming when it does
not), and put_frame/get_frame move messages of any length, sync and async,
between threads and processes."""
import asyncio
import multiprocessing as mp
import threading

import pytest

from kfifo import Empty, Full, Kfifo
from kfifo.aio import AsyncKfifo

BIG = bytes(range(256)) * 4096 + b"tail"  # 1 MiB + 4: far more than the fifos below


def in_thread(fn):
    t = threading.Thread(target=fn)
    t.start()
    return t


# ---- get_into(whole=True) ----------------------------------------------------------------


def test_whole_get_into_that_fits_is_all_or_nothing():
    f = Kfifo(16)
    f.in_(b"abc")
    buf = bytearray(4)
    with pytest.raises(Empty) as info:
        f.get_into(buf, timeout=0.01, whole=True)
    assert info.value.taken == 0 and len(f) == 3 and buf == bytearray(4)
    f.in_(b"defg")
    assert f.get_into(buf, timeout=0, whole=True) == 4 and buf == b"abcd"
    assert f.out(8) == b"efg"


def test_plain_get_into_returns_what_is_there():
    f = Kfifo(16)
    f.in_(b"abc")
    buf = bytearray(8)
    assert f.get_into(buf, 0) == 3  # whole=False: the old answer
    f.in_(b"de")
    assert f.get_into(buf, 0, False) == 2 and buf[:2] == b"de"


def test_whole_get_into_streams_a_buffer_longer_than_the_fifo():
    f = Kfifo(64)
    t = in_thread(lambda: f.put(BIG, timeout=120))
    buf = bytearray(len(BIG))
    assert f.get_into(buf, timeout=120, whole=True) == len(BIG)
    t.join(60)
    assert buf == BIG


def test_whole_get_into_at_end_of_stream():
    f = Kfifo(16)
    f.close()
    assert f.get_into(bytearray(4), whole=True) == 0  # clean end: nothing left
    g = Kfifo(16)
    g.in_(b"ab")
    g.close()
    with pytest.raises(EOFError) as info:  # fits: nothing removed, as get_exactly
        g.get_into(bytearray(4), whole=True)
    assert info.value.taken == 0 and len(g) == 2
    h = Kfifo(4)
    h.in_(b"abc")
    h.close()
    buf = bytearray(8)  # longer than the fifo: streams, stops part way
    with pytest.raises(EOFError) as info:
        h.get_into(buf, whole=True)
    assert info.value.taken == 3 and buf[:3] == b"abc" and len(h) == 0


def test_whole_get_into_timeout_part_way_says_what_it_took():
    f = Kfifo(4)
    f.in_(b"abcd")
    buf = bytearray(10)
    with pytest.raises(Empty) as info:
        f.get_into(buf, timeout=0.01, whole=True)
    assert isinstance(info.value, TimeoutError)
    assert info.value.taken == 4 and buf[:4] == b"abcd"


def test_whole_must_be_a_bool():
    f = Kfifo(8)
    f.in_(b"abcd")
    with pytest.raises(TypeError, match="whole must be True or False"):
        f.get_into(bytearray(2), 0, 1)
    assert len(f) == 4


def test_whole_get_into_of_an_empty_buffer_returns_at_once():
    assert Kfifo(8).get_into(bytearray(), None, True) == 0


# ---- frames ----------------------------------------------------------------------------------


@pytest.mark.parametrize("frame", [b"", b"x", b"hello" * 3, bytes(40)])
def test_a_frame_that_fits_round_trips(frame):
    f = Kfifo(64)
    f.put_frame(frame, timeout=0)
    assert len(f) == 8 + len(frame)
    assert f.out(8)[:8] == len(frame).to_bytes(8, "little")  # the documented header
    f.reset()
    f.put_frame(frame)
    assert f.get_frame(timeout=0) == frame
    f.put_frame(frame)
    buf = bytearray(64)
    assert f.get_frame_into(buf, timeout=0) == len(frame) and buf[: len(frame)] == frame


def test_a_frame_that_fits_is_stored_whole_or_not_at_all():
    f = Kfifo(16)
    f.in_(b"123")
    with pytest.raises(Full) as info:
        f.put_frame(b"x" * 6, timeout=0.01)
    assert info.value.stored == 0 and len(f) == 3
    f.out(3)
    f.in_(b"\x05" + bytes(7) + b"ab")  # a header for 5 bytes, then 2 of them
    with pytest.raises(Empty) as info:
        f.get_frame(timeout=0.01)
    assert info.value.taken == 0 and len(f) == 10  # nothing taken


def test_frames_longer_than_the_fifo_stream_through_between_threads():
    f = Kfifo(1024)
    frames = [BIG, b"", b"small", BIG[::-1]]

    def produce():
        for fr in frames:
            f.put_frame(fr, timeout=120)
        f.close()

    t = in_thread(produce)
    got = [f.get_frame(timeout=120) for _ in frames]
    assert f.get_frame(timeout=120) is None
    t.join(60)
    assert got == frames


def test_get_frame_into_refuses_a_short_buffer_and_takes_nothing():
    f = Kfifo(64)
    f.put_frame(b"abcdef")
    with pytest.raises(ValueError, match="6 bytes"):
        f.get_frame_into(bytearray(5), timeout=0)
    assert len(f) == 14
    assert f.get_frame(0) == b"abcdef"


def test_end_of_stream_inside_a_frame_is_eof():
    f = Kfifo(64)
    f.in_(b"\x05\x00\x00")
    f.close()
    with pytest.raises(EOFError, match="header"):
        f.get_frame()
    g = Kfifo(64)
    g.in_((5).to_bytes(8, "little") + b"ab")
    g.close()
    with pytest.raises(EOFError):
        g.get_frame()
    assert len(g) == 10  # fits: nothing taken
    h = Kfifo(64)
    h.close()
    assert h.get_frame() is None and h.get_frame_into(bytearray(4)) is None


def test_a_header_too_long_for_this_process_is_refused_without_taking():
    f = Kfifo(64)
    f.in_(b"\xff" * 8)
    with pytest.raises((ValueError, MemoryError)):
        f.get_frame(timeout=0)
    assert len(f) == 8


def test_put_frame_on_a_closed_fifo():
    f = Kfifo(64)
    f.close()
    with pytest.raises(BrokenPipeError) as info:
        f.put_frame(b"abc")
    assert info.value.stored == 0


def test_a_long_put_frame_that_times_out_says_what_it_stored():
    f = Kfifo(16)
    with pytest.raises(Full) as info:
        f.put_frame(b"x" * 40, timeout=0.01)
    assert info.value.stored == 16 and len(f) == 16


def _frames_child(f, n):
    for i in range(n):
        f.put_frame(bytes([i]) * (300_000 + i), timeout=120)
    f.close()


def test_frames_between_processes():
    f = Kfifo(64 * 1024, shared=True)
    p = mp.get_context("spawn").Process(target=_frames_child, args=(f, 5))
    p.start()
    got = []
    buf = bytearray(400_000)
    while (n := f.get_frame_into(buf, timeout=120)) is not None:
        got.append(bytes(buf[:n]))
    p.join(60)
    assert p.exitcode == 0
    assert got == [bytes([i]) * (300_000 + i) for i in range(5)]
    f.free()


# ---- async ------------------------------------------------------------------------------------


def test_async_whole_get_into_and_frames():
    async def main():
        f = Kfifo(256)
        af = AsyncKfifo(f)
        buf = bytearray(len(BIG))
        got = asyncio.ensure_future(af.get_into(buf, timeout=120, whole=True))
        await af.put(BIG, timeout=120)
        assert await got == len(BIG) and buf == BIG
        small = bytearray(4)
        f.in_(b"ab")
        with pytest.raises(Empty):
            await af.get_into(small, timeout=0.02, whole=True)
        assert len(f) == 2  # fits: nothing taken
        f.in_(b"cd")
        assert await af.get_into(small, whole=True) == 4 and small == b"abcd"

        frames = [BIG, b"", b"abc", BIG[:1000]]

        async def produce():
            for fr in frames:
                await af.put_frame(fr, timeout=120)
            af.close()

        task = asyncio.ensure_future(produce())
        out = [await af.get_frame(timeout=120) for _ in range(2)]
        into = bytearray(len(BIG))
        n = await af.get_frame_into(into, timeout=120)
        out.append(bytes(into[:n]))
        out.append(await af.get_frame(timeout=120))
        assert await af.get_frame(timeout=120) is None
        await task
        assert out == frames

    asyncio.run(main())


def test_async_frame_timeouts():
    async def main():
        af = AsyncKfifo(Kfifo(16))
        with pytest.raises(Empty):
            await af.get_frame(timeout=0.02)
        with pytest.raises(Full) as info:
            await af.put_frame(b"x" * 40, timeout=0.02)
        assert info.value.stored == 16
        g = AsyncKfifo(Kfifo(16))
        g.fifo.in_(b"12345")
        with pytest.raises(Full) as info:
            await g.put_frame(b"abcdef", timeout=0.02)  # fits: whole or nothing
        assert info.value.stored == 0 and len(g.fifo) == 5

    asyncio.run(main())
