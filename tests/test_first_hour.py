# SPDX-License-Identifier: MIT
"""What a user of queue, sockets and pipes expects on the first day:
leaving ``with f:`` ends the stream for the peer (then frees the handle),
``kfifo.freeing`` only frees, and a timeout is both the ``queue`` module's
exception and a ``TimeoutError`` (docs/conventions.md)."""
import asyncio
import multiprocessing as mp
import queue

import pytest

import kfifo
from kfifo import Empty, Full, Kfifo
from kfifo.aio import AsyncKfifo
from kfifo.model import KfifoModel

# ---- with: close, then free --------------------------------------------------------------


def test_leaving_with_closes_then_frees():
    f = Kfifo(16, shared=True)
    g = Kfifo.attach(f.name)
    with f:
        f.put(b"abc")
        assert not g.closed
    assert f.is_freed() and g.closed
    g.free()


def test_leaving_with_ends_the_stream_for_a_thread_consumer():
    import threading

    f = Kfifo(16, shared=True)
    g = Kfifo.attach(f.name)  # a second handle: the consumer's
    got = []
    t = threading.Thread(target=lambda: got.extend(iter(lambda: g.get(16), b"")))
    t.start()
    with f:
        f.put(b"hello")
    t.join(60)
    assert not t.is_alive()
    assert b"".join(got) == b"hello"
    assert g.closed  # end of stream, not a timeout
    g.free()


def _producer_leaves_with(f):
    with f:
        f.put(b"from the child")


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_a_producer_process_that_leaves_with_ends_the_stream(method):
    f = Kfifo(64, shared=True)
    p = mp.get_context(method).Process(target=_producer_leaves_with, args=(f,))
    p.start()
    data = b""
    while True:
        piece = f.get(64, timeout=120)  # the end arrives as b"", never as a timeout
        if not piece:
            break
        data += piece
    p.join(60)
    assert p.exitcode == 0
    assert data == b"from the child"
    f.free()


def test_leaving_with_on_an_exception_still_closes_and_frees():
    f = Kfifo(16, shared=True)
    g = Kfifo.attach(f.name)
    with pytest.raises(KeyError):
        with f:
            f.in_(b"ab")
            raise KeyError
    assert f.is_freed() and g.closed
    assert g.get(16, timeout=0) == b"ab" and g.get(16, timeout=0) == b""
    g.free()


def test_freeing_frees_without_closing():
    f = Kfifo(16, shared=True)
    g = Kfifo.attach(f.name)
    with kfifo.freeing(g) as h:
        assert h is g
        h.in_(b"x")
    assert g.is_freed()
    assert not f.closed
    assert f.out(1) == b"x"
    f.free()


def test_freeing_refuses_what_is_not_a_fifo_and_a_freed_fifo():
    with pytest.raises(TypeError, match="kfifo.Kfifo"):
        kfifo.freeing(b"abc")
    f = Kfifo(8)
    f.free()
    with pytest.raises(ValueError, match="freed"):
        with kfifo.freeing(f):
            pass


def test_leaving_with_while_a_view_is_alive_neither_closes_nor_frees():
    view = None
    with pytest.raises(BufferError):
        with Kfifo(8) as f:
            view, _ = f.in_prepare(8)
    assert not f.is_freed() and not f.closed  # a failed call changes nothing
    del view, _
    f.free()


def test_freeing_inside_the_block_is_harmless():
    with Kfifo(8) as f:
        f.free()
    assert f.is_freed()


def test_the_model_closes_on_with_too():
    with KfifoModel(8) as m:
        m.in_(b"a")
        assert not m.closed
    assert m._closed and m._freed


def test_async_with_closes_and_frees():
    f = Kfifo(16, shared=True)
    g = Kfifo.attach(f.name)

    async def main():
        async with AsyncKfifo(f) as af:
            await af.put(b"abc")
        consumer = AsyncKfifo(g)
        got = [await consumer.get(16), await consumer.get(16)]
        return got

    assert asyncio.run(main()) == [b"abc", b""]
    assert f.is_freed()
    g.free()


def test_sync_with_on_the_async_view_closes_and_frees():
    f = Kfifo(16)
    with AsyncKfifo(f) as af:
        assert af.fifo is f
        assert not f.closed
    assert f.is_freed()
    with pytest.raises(ValueError, match="freed"):
        with AsyncKfifo(f):
            pass


# ---- timeouts: queue.Empty / queue.Full and TimeoutError ------------------------------------

GETS = [
    lambda f: f.get(4, timeout=0),
    lambda f: f.get_into(bytearray(4), timeout=0.01),
    lambda f: f.get_exactly(2, timeout=0),
    lambda f: f.get_rec(1, timeout=0),
    lambda f: f.get_recs(4, 1, timeout=0),
]
PUTS = [
    lambda f: f.put(b"abcdefghij", timeout=0),
    lambda f: f.put_rec(b"abcdefg", 1, timeout=0.01),
    lambda f: f.put_recs([b"ab", b"abcdef"], 1, timeout=0),
]


def test_the_exceptions_are_exported_and_both_kinds():
    assert issubclass(Empty, TimeoutError) and issubclass(Empty, queue.Empty)
    assert issubclass(Full, TimeoutError) and issubclass(Full, queue.Full)
    assert not issubclass(Empty, queue.Full) and not issubclass(Full, queue.Empty)
    assert Empty.__module__ == Full.__module__ == "kfifo"
    assert {"Empty", "Full", "freeing"} <= set(kfifo.__all__)


@pytest.mark.parametrize("call", GETS)
def test_a_get_timeout_is_queue_empty_and_timeout_error(call):
    f = Kfifo(8)
    for kind in (queue.Empty, TimeoutError, Empty):
        with pytest.raises(kind, match=r"Kfifo\.get\w*\(\): timed out"):
            call(f)
    f.in_(b"x")  # one byte: not a whole record of recsize 1, nor 2 bytes
    if call is not GETS[0] and call is not GETS[1]:
        with pytest.raises(Empty):
            call(f)
        assert len(f) == 1


@pytest.mark.parametrize("call", PUTS)
def test_a_put_timeout_is_queue_full_and_timeout_error_with_stored(call):
    for kind in (queue.Full, TimeoutError, Full):
        f = Kfifo(8)
        f.in_(b"12345")  # 3 free bytes
        with pytest.raises(kind) as info:
            call(f)
        stored = info.value.stored
        assert isinstance(stored, int)
        assert len(f) == 5 + {3: 3, 0: 0, 1: 3}[stored]  # bytes, or a record of 3


def test_closed_is_still_broken_pipe_and_end_of_stream_a_value():
    f = Kfifo(8)
    f.close()
    with pytest.raises(BrokenPipeError) as info:
        f.put(b"x", timeout=0)
    assert not isinstance(info.value, queue.Full) and info.value.stored == 0
    assert f.get(1, timeout=0) == b""


def test_async_timeouts_are_the_same_exceptions():
    async def main():
        af = AsyncKfifo(Kfifo(8))
        with pytest.raises(queue.Empty):
            await af.get(1, timeout=0.01)
        with pytest.raises(Empty):
            await af.get_exactly(2, timeout=0)
        with pytest.raises(Empty):
            await af.get_rec(1, timeout=0.01)
        af.fifo.in_(b"1234567")
        with pytest.raises(queue.Full) as info:
            await af.put(b"abc", timeout=0.01)
        assert info.value.stored == 1 and isinstance(info.value, TimeoutError)
        with pytest.raises(Full) as info:
            await af.put_rec(b"abc", 1, timeout=0.01)
        assert info.value.stored == 0
        with pytest.raises(Full) as info:
            await af.put_recs([b"a"], 1, timeout=0.01)
        assert info.value.stored == 0

    asyncio.run(main())


def test_async_put_timeout_after_waiting_carries_stored():
    async def main():
        af = AsyncKfifo(Kfifo(8))
        with pytest.raises(queue.Full) as info:
            await af.put(b"a" * 20, timeout=0.05)  # 8 fit at once; then it waits
        assert info.value.stored == 8

    asyncio.run(main())


# ---- a terminal's Ctrl-C: SIGINT to the whole process group ---------------------------------


def test_asyncio_service_example_stops_quietly_on_ctrl_c_to_its_process_group():
    import os
    import signal
    import subprocess
    import sys
    from pathlib import Path

    pytest.importorskip("numpy")  # the example's frames are numpy arrays
    example = Path(__file__).resolve().parent.parent / "examples" / "asyncio_service.py"
    # its own session and process group, as a shell gives a job; Ctrl-C is
    # SIGINT to every process of the group, the spawned producer included
    proc = subprocess.Popen([sys.executable, str(example)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        # printed at the first frame: the producer is inside its loop, where a
        # KeyboardInterrupt would end it with a traceback
        first = proc.stdout.readline()
        assert first == "metering frames (Ctrl-C or SIGTERM stops)\n", (first, proc.stderr.read())
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 0, err
    assert "stopped by SIGINT" in out, out
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert err == "", err
