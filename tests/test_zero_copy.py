# SPDX-License-Identifier: MIT
"""Zero-copy views (docs/spec.md 3.3/3.4): in_prepare/in_finish, out_prepare/out_finish."""
import gc
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from kfifo import Kfifo

U32 = 2**32


def joined(views):
    return b"".join(bytes(v) for v in views)


def test_in_prepare_gives_writable_views_published_only_at_finish():
    f = Kfifo(16)
    a, b = f.in_prepare(5)
    assert (len(a), len(b)) == (5, 0)
    assert not a.readonly
    a[:] = b"hello"
    assert f.len() == 0  # nothing published yet
    assert f.in_finish(5) == 5
    assert f.out(16) == b"hello"


def test_views_are_clamped_to_avail_and_len():
    f = Kfifo(8)
    f.in_(b"abcdef")
    a, b = f.in_prepare(100)
    assert len(a) + len(b) == 2
    c, d = f.out_prepare(100)
    assert joined((c, d)) == b"abcdef"


@pytest.mark.parametrize("start", [0, 5, U32 - 3, U32 - 8])
def test_regions_wrap_into_two_views_in_order(start):
    f = Kfifo(8, start=start)
    f.in_(b"xxxxx")
    f.out(5)  # the write position is now 5 past start
    a, b = f.in_prepare(8)
    assert len(a) + len(b) == 8
    data = b"01234567"
    a[:] = data[: len(a)]
    b[:] = data[len(a) :]
    assert f.in_finish(8) == 8
    c, d = f.out_prepare(8)
    assert (len(c), len(d)) == (len(a), len(b))
    assert c.readonly and d.readonly
    assert joined((c, d)) == data
    assert f.out_finish(3) == 3
    assert f.out(8) == data[3:]
    assert f.valid()


def test_finish_is_clamped():
    f = Kfifo(4)
    f.in_prepare(4)
    assert f.in_finish(10) == 4
    assert f.out_finish(10) == 4
    assert f.is_empty()


def test_size_one_and_zero_requests():
    f = Kfifo(1)
    a, b = f.in_prepare(0)
    assert (len(a), len(b)) == (0, 0)
    a, b = f.in_prepare(1)
    a[0] = 7
    f.in_finish(1)
    c, _ = f.out_prepare(1)
    assert c[0] == 7
    del a, b, c, _
    assert f.out_finish(1) == 1


def test_out_prepare_removes_nothing():
    f = Kfifo(8)
    f.in_(b"abc")
    f.out_prepare(3)
    assert f.len() == 3


def test_views_work_with_numpy_frombuffer_in_place():
    f = Kfifo(64)
    a, _ = f.in_prepare(16)
    arr = np.frombuffer(a, dtype=np.int16)
    arr[:] = np.arange(8, dtype=np.int16) * -3
    del arr, a, _
    f.in_finish(16)
    c, _ = f.out_prepare(16)
    assert np.frombuffer(c, dtype=np.int16).tolist() == [0, -3, -6, -9, -12, -15, -18, -21]
    with pytest.raises(ValueError):  # read-only
        np.frombuffer(c, dtype=np.int16)[0] = 1


def test_free_raises_buffer_error_while_a_view_exists():
    f = Kfifo(8)
    a, b = f.in_prepare(4)
    with pytest.raises(BufferError, match="free"):
        f.free()
    assert not f.is_freed()
    a.release()
    b.release()
    f.free()
    assert f.is_freed()


def test_an_array_made_from_a_view_keeps_free_refused():
    f = Kfifo(8)
    f.in_(b"abcd")
    c, d = f.out_prepare(4)
    arr = np.frombuffer(c, dtype=np.uint8)
    del c, d
    gc.collect()
    with pytest.raises(BufferError):
        f.free()
    assert bytes(arr) == b"abcd"
    del arr
    f.free()


def test_context_manager_exit_with_a_live_view_raises_and_keeps_memory():
    view = None
    with pytest.raises(BufferError):
        with Kfifo(8) as f:
            view, _ = f.in_prepare(8)
    view[:] = b"12345678"  # still valid memory: the fifo was not freed
    assert not f.is_freed()


def test_views_after_free_are_refused():
    f = Kfifo(8)
    f.free()
    with pytest.raises(ValueError, match=r"Kfifo\.in_prepare\(\).*freed"):
        f.in_prepare(1)
    with pytest.raises(ValueError):
        f.out_finish(1)


@pytest.mark.parametrize("call", ["in_prepare", "in_finish", "out_prepare", "out_finish"])
@pytest.mark.parametrize("n, exc", [(-1, ValueError), (U32, OverflowError), ("1", TypeError)])
def test_bad_counts_raise_and_change_nothing(call, n, exc):
    f = Kfifo(8)
    f.in_(b"abc")
    with pytest.raises(exc, match=r"Kfifo\.%s\(\)" % call):
        getattr(f, call)(n)
    assert f.len() == 3


def test_view_outliving_every_other_reference_keeps_the_fifo_alive():
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "import gc, kfifo\n"
            "f = kfifo.Kfifo(1 << 20)\n"
            "a, b = f.in_prepare(1 << 20)\n"
            "del f, b\n"
            "gc.collect()\n"
            "a[:] = b'x' * len(a)\n"  # the ring is still there
            "print(len(a))\n",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(1 << 20)


def test_spsc_stream_through_views_arrives_in_order():
    f = Kfifo(4096, start=U32 - 1000)
    total = 300_000
    got = bytearray()

    def produce():
        sent = 0
        while sent < total:
            a, b = f.in_prepare(min(777, total - sent))
            n = len(a) + len(b)
            for v in (a, b):
                for i in range(len(v)):
                    v[i] = (sent + i) & 0xFF
                sent += len(v)
            del a, b
            f.in_finish(n)

    t = threading.Thread(target=produce)
    t.start()
    while len(got) < total:
        c, d = f.out_prepare(1000)
        n = len(c) + len(d)
        got += bytes(c) + bytes(d)
        del c, d
        f.out_finish(n)
    t.join()
    assert got == bytes(i & 0xFF for i in range(total))
    f.free()


def test_audio_example_runs():
    example = Path(__file__).resolve().parents[1] / "examples" / "audio_inplace.py"
    proc = subprocess.run([sys.executable, str(example)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "frames: 3000 peak: 4000"
