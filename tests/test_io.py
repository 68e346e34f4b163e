# SPDX-License-Identifier: MIT
"""kfifo.io: a fifo as a binary file, with shutil.copyfileobj,
io.BufferedReader and tarfile streams (docs/frames.md)."""
import hashlib
import io
import shutil
import tarfile
import threading

import pytest

import kfifo
import kfifo.io
from kfifo import Kfifo

DATA = bytes(range(256)) * 1000 + b"end"


def in_thread(fn, *args):
    errors = []

    def run():
        try:
            fn(*args)
        except BaseException as e:  # noqa: BLE001 - reported by the test
            errors.append(e)

    t = threading.Thread(target=run)
    t.start()
    return t, errors


def test_copyfileobj_through_a_small_fifo():
    f = Kfifo(64)

    def produce():
        with kfifo.io.open(f, "wb") as w:
            shutil.copyfileobj(io.BytesIO(DATA), w)

    t, errors = in_thread(produce)
    out = io.BytesIO()
    with kfifo.io.FifoRawIO(f, "rb", closefd=True) as r:
        shutil.copyfileobj(r, out)
    t.join(60)
    assert errors == [] and out.getvalue() == DATA
    assert f.is_freed()  # the reader's close freed its handle (closefd=True)


def test_buffered_reader_reads_lines_and_peeks():
    f = Kfifo(32)
    text = b"".join(b"line %d\n" % i for i in range(500))
    t, errors = in_thread(lambda: (f.put(text, timeout=60), f.close()))
    r = io.BufferedReader(kfifo.io.FifoRawIO(f, "rb", closefd=True), 16)
    assert r.peek(1)[:1] == b"l"
    assert r.readline() == b"line 0\n"
    rest = r.read()
    t.join(60)
    assert errors == [] and rest == text[len(b"line 0\n"):]
    assert r.read() == b""  # end of stream
    r.close()
    assert f.is_freed()


def test_tar_stream_through_a_fifo():
    f = Kfifo(4096)
    members = {f"dir/file{i}.bin": bytes([i]) * (1000 * i + 7) for i in range(6)}

    def produce():
        with kfifo.io.open(f, "wb") as w, tarfile.open(fileobj=w, mode="w|") as tar:
            for name, data in members.items():
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))

    t, errors = in_thread(produce)
    got = {}
    with kfifo.io.open(f, "rb") as r, tarfile.open(fileobj=r, mode="r|") as tar:
        for m in tar:
            got[m.name] = tar.extractfile(m).read()
    t.join(60)
    assert errors == [] and got == members


def test_gzip_tar_stream_and_a_digest():
    f = Kfifo(1024)
    payload = hashlib.sha256(b"x").digest() * 5000

    def produce():
        with kfifo.io.open(f, "wb") as w, tarfile.open(fileobj=w, mode="w|gz") as tar:
            info = tarfile.TarInfo("p")
            info.size = len(payload)
            tar.addfile(info, io.BytesIO(payload))

    t, errors = in_thread(produce)
    with kfifo.io.open(f, "rb") as r, tarfile.open(fileobj=r, mode="r|gz") as tar:
        m = next(iter(tar))
        assert tar.extractfile(m).read() == payload
    t.join(60)
    assert errors == []


def test_closing_the_writer_ends_the_stream_and_closefd_frees():
    f = Kfifo(16, shared=True)
    g = Kfifo.attach(f.name)
    w = kfifo.io.open(g, "wb", closefd=True)
    w.write(b"abc")
    assert f.len() == 0  # still in the buffer
    w.close()
    assert g.is_freed() and f.closed
    assert f.get(16) == b"abc" and f.get(16) == b""
    f.free()


def test_by_default_close_keeps_the_fifo():
    f = Kfifo(16)
    raw = kfifo.io.FifoRawIO(f, "wb")
    assert raw.write(memoryview(b"abcd").cast("B")) == 4
    raw.close()
    assert raw.closed and f.closed and not f.is_freed()
    assert f.out(8) == b"abcd"


def test_one_side_per_object_and_no_seeking():
    f = Kfifo(16)
    r = kfifo.io.FifoRawIO(f, "rb")
    assert r.readable() and not r.writable() and not r.seekable()
    with pytest.raises(io.UnsupportedOperation):
        r.write(b"x")
    w = kfifo.io.FifoRawIO(f, "wb")
    with pytest.raises(io.UnsupportedOperation):
        w.readinto(bytearray(1))
    with pytest.raises(io.UnsupportedOperation):
        w.fileno()
    with pytest.raises(io.UnsupportedOperation):
        r.seek(0)


def test_bad_arguments_are_refused():
    with pytest.raises(TypeError, match="kfifo.Kfifo"):
        kfifo.io.FifoRawIO(b"abc")
    with pytest.raises(ValueError, match="mode"):
        kfifo.io.FifoRawIO(Kfifo(8), "r+b")
    with pytest.raises(TypeError, match="bool"):
        kfifo.io.FifoRawIO(Kfifo(8), timeout=True)
    g = Kfifo(8)
    g.free()
    with pytest.raises(ValueError, match="freed"):
        kfifo.io.FifoRawIO(g)


def test_timeouts_are_the_fifos():
    f = Kfifo(8)
    r = kfifo.io.FifoRawIO(f, "rb", timeout=0)
    with pytest.raises(kfifo.Empty):
        r.read(4)
    w = kfifo.io.FifoRawIO(f, "wb", timeout=0.01)
    with pytest.raises(kfifo.Full) as info:
        w.write(b"x" * 12)
    assert info.value.stored == 8
    assert r.read(16) == b"x" * 8


def test_a_closed_file_refuses_calls():
    r = kfifo.io.FifoRawIO(Kfifo(8), "rb")
    r.close()
    r.close()  # harmless twice
    with pytest.raises(ValueError, match="closed"):
        r.read(1)
    assert "closed" in repr(r)


def test_open_unbuffered_is_the_raw_file():
    f = Kfifo(8)
    files = [kfifo.io.open(f, "rb", 0), kfifo.io.open(f, "wb"),
             kfifo.io.open(f)]
    assert [type(x) for x in files] == [kfifo.io.FifoRawIO, io.BufferedWriter, io.BufferedReader]


def test_a_file_collected_without_close_ends_the_stream():
    f = Kfifo(8)
    kfifo.io.FifoRawIO(f, "wb")  # dropped at once, as a file would be
    assert f.closed and not f.is_freed()
