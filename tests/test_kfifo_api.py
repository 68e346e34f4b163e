# SPDX-License-Identifier: MIT
"""kfifo.Kfifo, call by call: every row of docs/spec.md 2.1, every input type.

The threaded behaviour (parallel producer/consumer, locked MPMC, misuse
from many threads) is in test_kfifo_threads.py.
"""
from __future__ import annotations

import array
import gc
import inspect
import os
import re
import subprocess
import sys
import weakref

import numpy as np
import pytest

import kfifo

from _calls import EVERY_CALL
from kfifo import Kfifo, SpinLock

U32 = 2**32

# ---- input types ------------------------------------------------------------

#: read-only or writable bytes-like inputs built from bytes; all C-contiguous
INPUTS = {
    "bytes": bytes,
    "bytearray": bytearray,
    "memoryview": lambda b: memoryview(b),
    "memoryview-bytearray": lambda b: memoryview(bytearray(b)),
    "array": lambda b: array.array("B", b),
    "numpy": lambda b: np.frombuffer(b, dtype=np.uint8).copy(),
}

#: writable buffers of n bytes, for out_into and buffer=
WRITABLE = {
    "bytearray": lambda n: bytearray(n),
    "memoryview": lambda n: memoryview(bytearray(n)),
    "array": lambda n: array.array("B", bytes(n)),
    "numpy": lambda n: np.zeros(n, dtype=np.uint8),
}

#: bytes-like but not C-contiguous: refused with TypeError
NONCONTIGUOUS = {
    "memoryview-step": lambda: memoryview(b"abcdefgh")[::2],
    "numpy-step": lambda: np.arange(16, dtype=np.uint8)[::2],
    "numpy-fortran": lambda: np.asfortranarray(np.arange(16, dtype=np.uint8).reshape(4, 4)),
}


@pytest.fixture(params=sorted(INPUTS))
def make(request):
    return INPUTS[request.param]


@pytest.fixture(params=sorted(WRITABLE))
def make_writable(request):
    return WRITABLE[request.param]


def content(f: Kfifo) -> bytes:
    """The fifo's bytes, without changing it (taken out and put back)."""
    data = f.out(f.len())
    assert f.in_(data) == len(data)
    return data


def filled(size=16, data=b"0123456789", start=0) -> Kfifo:
    f = Kfifo(size, start=start)
    assert f.in_(data) == len(data)
    return f


# ---- construction ---------------------------------------------------------------


@pytest.mark.parametrize(
    "size, expected", [(1, 1), (2, 2), (3, 4), (1000, 1024), (1024, 1024), (2**20 + 1, 2**21)]
)
def test_size_is_rounded_up_to_a_power_of_two(size, expected):
    f = Kfifo(size)
    assert (f.size(), f.len(), f.avail(), f.is_empty(), f.is_full()) == (expected, 0, expected, True, False)
    assert f.valid()


def test_size_2_pow_31_is_allowed():
    f = Kfifo(2**31)  # malloc'd lazily by the OS: nothing is touched
    assert f.size() == 2**31 and f.avail() == 2**31
    f.free()


@pytest.mark.parametrize("size", [0, -1, 2**31 + 1, 2**32, 2**100])
def test_bad_size_raises_value_error_naming_size(size):
    with pytest.raises(ValueError, match=r"\bsize\b"):
        Kfifo(size)


@pytest.mark.parametrize("size", [1.0, "8", b"8", [8]])
def test_size_of_wrong_type_raises_type_error(size):
    with pytest.raises(TypeError, match=r"\bsize\b"):
        Kfifo(size)


def test_size_accepts_integer_like_objects():
    assert Kfifo(np.int64(5)).size() == 8
    assert Kfifo(True).size() == 1


def test_size_or_buffer_exactly_one():
    with pytest.raises(TypeError):
        Kfifo()
    with pytest.raises(TypeError):
        Kfifo(8, buffer=bytearray(8))


def test_start_is_keyword_only():
    with pytest.raises(TypeError):
        Kfifo(8, 5)  # type: ignore[misc]


def test_memory_error_when_allocation_fails():
    # In a child with a 512 MiB address-space limit, 2**31 bytes cannot be
    # had.  Under ASan (scripts/test-binding-asan.sh), whose shadow memory
    # needs far more address space, ASan's own allocator limit does the same.
    env = dict(os.environ)
    limit = "resource.setrlimit(resource.RLIMIT_AS, (512 << 20, 512 << 20))\n"
    if env.get("KFIFO_EXPECT_SANITIZED"):
        env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":allocator_may_return_null=1:max_allocation_size_mb=512"
        limit = ""
    code = (
        "import resource, kfifo\n"
        + limit
        + "try:\n"
        "    kfifo.Kfifo(2**31)\n"
        "except MemoryError as e:\n"
        "    print('MemoryError', e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("MemoryError")


def test_init_twice_is_refused():
    f = Kfifo(8)
    with pytest.raises(RuntimeError):
        f.__init__(16)
    assert f.size() == 8


# ---- start: indices near 2**32 ---------------------------------------------------


@pytest.mark.parametrize("start", [U32 - 1, U32 - 3, U32 - 16, -1, U32 + 5, 2**70 - 2])
def test_start_sets_both_indices_modulo_2_pow_32_and_data_crosses_the_wrap(start, make):
    f = Kfifo(16, start=start)
    assert f.len() == 0
    assert f.in_(make(b"abcdefghij")) == 10
    assert f.out(4) == b"abcd"
    assert f.in_(make(b"KLMNOPQRST")) == 10
    assert f.len() == 16 and f.is_full()
    assert f.out(100) == b"efghijKLMNOPQRST"
    assert f.in_rec(make(b"rec"), 2) == 0
    assert f.out_rec(10, 2) == (0, b"rec", 3)
    assert f.valid() and f.is_empty()


def test_start_of_wrong_type_raises_type_error():
    with pytest.raises(TypeError, match=r"\bstart\b"):
        Kfifo(8, start=1.5)


# ---- byte stream -------------------------------------------------------------------


def test_in_and_out_move_bytes_in_order(make):
    f = Kfifo(8)
    assert f.in_(make(b"abc")) == 3
    assert f.from_user(make(b"de")) == 2
    assert f.len() == 5 and f.avail() == 3
    assert f.out(2) == b"ab"
    assert f.to_user(10) == b"cde"
    assert f.is_empty()


def test_in_stores_min_of_n_and_avail(make):
    f = Kfifo(8)
    assert f.in_(make(b"0123456789")) == 8
    assert f.is_full()
    assert f.in_(make(b"x")) == 0
    assert f.from_user(make(b"x")) == 0
    assert f.out(100) == b"01234567"


def test_empty_input_stores_nothing(make):
    f = Kfifo(8)
    assert f.in_(make(b"")) == 0
    assert f.is_empty()


def test_out_takes_min_of_n_and_len():
    f = filled()
    assert f.out(0) == b""
    assert f.out(3) == b"012"
    assert f.out(2**32 - 1) == b"3456789"
    assert f.out(5) == b""


def test_input_counts_bytes_not_items():
    f = Kfifo(64)
    ints = np.arange(4, dtype="<u4")
    assert f.in_(ints) == 16
    assert f.out(16) == ints.tobytes()
    assert f.in_(array.array("d", [1.5, 2.5])) == 16
    assert f.in_(np.ones((2, 3), dtype=np.uint8)) == 6  # C-contiguous 2-D


@pytest.mark.parametrize("kind", sorted(NONCONTIGUOUS))
def test_non_contiguous_input_raises_type_error_and_changes_nothing(kind):
    f = filled()
    with pytest.raises(TypeError, match="contiguous"):
        f.in_(NONCONTIGUOUS[kind]())
    with pytest.raises(TypeError, match="contiguous"):
        f.in_rec(NONCONTIGUOUS[kind](), 1)
    assert content(f) == b"0123456789"


@pytest.mark.parametrize("bad", ["text", 5, None, 1.5, [1, 2]])
def test_input_that_is_not_bytes_like_raises_type_error_naming_data(bad):
    f = filled()
    for call in (f.in_, f.from_user, lambda d: f.in_rec(d, 1), lambda d: f.from_user_rec(d, 0),
                 lambda d: f.in_locked(d, SpinLock())):
        with pytest.raises(TypeError, match=r"\bdata\b"):
            call(bad)
    assert content(f) == b"0123456789"


def test_out_into_fills_a_writable_buffer_like_readinto(make_writable):
    f = filled()
    buf = make_writable(4)
    assert f.out_into(buf) == 4
    assert bytes(buf) == b"0123"
    big = make_writable(32)
    assert f.out_into(big) == 6
    assert bytes(big)[:6] == b"456789" and bytes(big)[6:] == bytes(26)
    assert f.out_into(big) == 0


def test_out_into_refuses_read_only_buffers():
    f = filled()
    for ro in (b"xxxx", memoryview(b"xxxx"), np.frombuffer(b"xxxx", dtype=np.uint8)):
        with pytest.raises(TypeError, match=r"\bbuffer\b.*writable"):
            f.out_into(ro)
    with pytest.raises(TypeError, match=r"\bbuffer\b"):
        f.out_into(memoryview(bytearray(8))[::2])
    assert content(f) == b"0123456789"


def test_skip_drops_bytes_and_empties_when_n_reaches_len():
    f = filled()
    assert f.skip(3) is None
    assert content(f) == b"3456789"
    f.skip(100)
    assert f.is_empty()


def test_reset_and_reset_out_empty_the_fifo():
    f = filled(start=U32 - 4)
    f.reset_out()
    assert f.is_empty() and f.avail() == 16
    f.in_(b"abc")
    f.reset()
    assert f.is_empty()
    assert f.in_(b"xyz") == 3 and f.out(3) == b"xyz"


def test_queries_return_int_and_bool():
    f = filled(size=8, data=b"12345678")
    assert (f.len(), len(f), f.size(), f.avail()) == (8, 8, 8, 0)
    assert f.is_full() is True and f.is_empty() is False
    assert bool(f) is True and bool(Kfifo(4)) is False


def test_repr_shows_size_len_avail():
    f = filled(size=8, data=b"abc")
    assert repr(f) == "<kfifo.Kfifo size=8 len=3 avail=5>"
    f.free()
    assert repr(f) == "<kfifo.Kfifo freed>"


# ---- records --------------------------------------------------------------------


@pytest.mark.parametrize("recsize", [1, 2])
def test_records_round_trip_with_a_length_header(make, recsize):
    f = Kfifo(64)
    assert f.in_rec(make(b"hello"), recsize) == 0
    assert f.from_user_rec(make(b""), recsize) == 0
    assert f.len() == 5 + 2 * recsize
    assert f.peek_rec(recsize) == 5
    assert f.out_rec(64, recsize) == (0, b"hello", 5)
    assert f.to_user_rec(64, recsize) == (0, b"", 0)
    assert f.is_empty()


def test_record_header_is_little_endian_on_the_wire():
    f = Kfifo(512)
    assert f.in_rec(b"x" * 258, 2) == 0
    assert f.out(2) == bytes([258 & 0xFF, 258 >> 8])
    assert f.in_rec(b"abc", 1) == 0  # recsize 1: one byte
    f.skip(258)
    assert f.out(4) == b"\x03abc"


def test_recsize_0_records_are_exactly_n_bytes(make):
    f = Kfifo(16)
    assert f.in_rec(make(b"abcdef"), 0) == 0
    assert f.peek_rec(0) == 6  # len(), seed bug 3 fixed
    assert f.out_rec(4, 0) == (0, b"abcd", 4)
    assert f.out_rec(4, 0) == (4, b"", 4)  # only 2 stored: ret n, nothing removed
    assert f.out_rec(100, 0) == (100, b"", 100)  # n > size can never succeed
    assert f.out_rec(2, 0) == (0, b"ef", 2)


@pytest.mark.parametrize("recsize, limit", [(1, 255), (2, 65535)])
def test_record_length_limits_of_the_header(recsize, limit):
    f = Kfifo(2**17)
    assert f.in_rec(bytes(limit), recsize) == 0
    assert f.in_rec(bytes(limit + 1), recsize) == limit + 2  # refused, bug 4 fixed
    assert f.len() == limit + recsize
    ret, data, total = f.out_rec(2**32 - 1, recsize)
    assert (ret, len(data), total) == (0, limit, limit)
    assert f.is_empty()


@pytest.mark.parametrize("recsize", [0, 1, 2])
def test_in_rec_refuses_a_record_larger_than_avail(recsize, make):
    f = Kfifo(8)
    data = make(b"x" * (9 - recsize))
    assert f.in_rec(data, recsize) == 10 - recsize
    assert f.is_empty()
    assert f.in_rec(make(b"x" * (8 - recsize)), recsize) == 0
    assert f.is_full()


def test_out_rec_leaves_record_when_buffer_too_small():
    f = Kfifo(32)
    f.in_rec(b"0123456789", 1)
    assert f.out_rec(4, 1) == (10, b"", 10)
    assert f.len() == 11
    assert f.out_rec(10, 1) == (0, b"0123456789", 10)


def test_out_rec_on_empty_fifo_sees_no_header():
    f = Kfifo(16)
    assert f.out_rec(8, 1) == (8, b"", 0)
    assert f.out_rec(8, 2) == (8, b"", 0)
    assert f.peek_rec(1) == 0 and f.peek_rec(2) == 0


def test_out_rec_with_incomplete_record_returns_n_and_removes_nothing():
    f = Kfifo(16)
    f.in_(b"\x05ab")  # a header that promises 5 bytes, only 2 there
    assert f.out_rec(10, 1) == (10, b"", 5)
    assert f.len() == 3


def test_skip_rec_drops_one_record_or_empties():
    f = Kfifo(64)
    f.in_rec(b"one", 1)
    f.in_rec(b"two", 1)
    assert f.skip_rec(1) is None
    assert f.out_rec(10, 1) == (0, b"two", 3)
    f.in_(b"\x09ab")  # incomplete record: skip_rec empties the fifo
    f.skip_rec(1)
    assert f.is_empty()
    f.in_(b"abc")
    f.skip_rec(0)  # recsize 0 empties (seed behaviour)
    assert f.is_empty()


def test_big_record_out_with_huge_n_is_sized_safely():
    f = Kfifo(2**18)
    payload = os.urandom(2**17)
    assert f.in_rec(payload, 0) == 0
    assert f.out_rec(2**17, 0) == (0, payload, 2**17)
    assert f.in_rec(payload[:60000], 2) == 0
    assert f.out_rec(2**32 - 1, 2) == (0, payload[:60000], 60000)


# ---- locked calls ----------------------------------------------------------------


def test_locked_calls_move_bytes(make):
    f = Kfifo(8)
    lock = SpinLock()
    assert f.in_locked(make(b"abcdefghij"), lock) == 8
    assert f.out_locked(3, lock) == b"abc"
    assert f.out_locked(100, lock) == b"defgh"
    assert f.out_locked(1, lock) == b""
    assert not lock.locked()
    assert "unlocked" in repr(lock)


def test_locked_calls_need_a_spinlock():
    f = filled()
    with pytest.raises(TypeError, match=r"\block\b"):
        f.in_locked(b"x", object())
    with pytest.raises(TypeError, match=r"\block\b"):
        f.out_locked(1, None)
    assert content(f) == b"0123456789"


# ---- argument errors: the right exception, the argument named, nothing changed ---

COUNT_CALLS = {
    "out": lambda f, n: f.out(n),
    "to_user": lambda f, n: f.to_user(n),
    "skip": lambda f, n: f.skip(n),
    "out_rec": lambda f, n: f.out_rec(n, 1),
    "to_user_rec": lambda f, n: f.to_user_rec(n, 0),
    "out_locked": lambda f, n: f.out_locked(n, SpinLock()),
}

RECSIZE_CALLS = {
    "in_rec": lambda f, r: f.in_rec(b"ab", r),
    "from_user_rec": lambda f, r: f.from_user_rec(b"ab", r),
    "out_rec": lambda f, r: f.out_rec(4, r),
    "to_user_rec": lambda f, r: f.to_user_rec(4, r),
    "peek_rec": lambda f, r: f.peek_rec(r),
    "skip_rec": lambda f, r: f.skip_rec(r),
}


@pytest.mark.parametrize("call", sorted(COUNT_CALLS))
@pytest.mark.parametrize(
    "n, exc",
    [(-1, ValueError), (-(2**70), ValueError), (2**32, OverflowError), (2**64, OverflowError),
     (1.0, TypeError), ("3", TypeError), (None, TypeError)],
)
def test_bad_count_raises_and_changes_nothing(call, n, exc):
    f = filled(start=U32 - 2)
    with pytest.raises(exc, match=r"\bn\b"):
        COUNT_CALLS[call](f, n)
    assert f.len() == 10 and content(f) == b"0123456789"


@pytest.mark.parametrize("call", sorted(RECSIZE_CALLS))
@pytest.mark.parametrize("recsize, exc", [(3, ValueError), (-1, ValueError), (2**40, ValueError),
                                          (1.0, TypeError), ("1", TypeError)])
def test_bad_recsize_raises_and_changes_nothing(call, recsize, exc):
    f = filled()
    with pytest.raises(exc, match=r"\brecsize\b"):
        RECSIZE_CALLS[call](f, recsize)
    assert f.len() == 10 and content(f) == b"0123456789"


def test_counts_accept_bool_and_numpy_integers():
    f = filled()
    assert f.out(True) == b"0"
    assert f.out(np.uint32(2)) == b"12"
    assert f.out_rec(np.int8(1), np.int64(0)) == (0, b"3", 1)
    assert f.peek_rec(False) == 6


# ---- buffer= ----------------------------------------------------------------------


def test_buffer_is_shared_not_copied(make_writable):
    buf = make_writable(8)
    f = Kfifo(buffer=buf)
    assert f.size() == 8
    assert f.in_(b"abcdefghij") == 8
    assert bytes(buf) == b"abcdefgh"  # the fifo writes into the caller's memory
    assert f.out(3) == b"abc"
    memoryview(buf).cast("B")[3:6] = b"XYZ"  # and reads from it
    assert f.out(3) == b"XYZ"


def test_buffer_with_start_crosses_the_wrap():
    buf = bytearray(4)
    f = Kfifo(buffer=buf, start=U32 - 2)
    assert f.in_(b"abc") == 3
    assert buf == b"cRab".replace(b"R", b"\x00")
    assert f.out(3) == b"abc"


def test_buffer_object_is_kept_alive_and_not_resizable():
    buf = array.array("B", bytes(16))
    ref = weakref.ref(buf)
    f = Kfifo(buffer=buf)
    del buf
    gc.collect()
    assert ref() is not None  # the fifo holds it
    with pytest.raises(BufferError):
        ref().append(1)  # exported: cannot be resized under the fifo
    f.in_(b"still here")
    assert f.out(10) == b"still here"
    f.free()  # releases the export and the reference: nothing else holds it
    gc.collect()
    assert ref() is None


def test_buffer_is_released_when_the_fifo_dies():
    buf = np.zeros(8, dtype=np.uint8)
    ref = weakref.ref(buf)
    f = Kfifo(buffer=buf)
    del buf, f
    gc.collect()
    assert ref() is None


def test_bytearray_buffer_cannot_be_resized_while_in_use():
    ba = bytearray(8)
    f = Kfifo(buffer=ba)
    with pytest.raises(BufferError):
        ba.extend(b"x")
    f.free()
    ba.extend(b"x")
    assert len(ba) == 9


@pytest.mark.parametrize(
    "obj", [bytearray(3), bytearray(0), bytearray(12), b"12345678", memoryview(b"12345678"),
            memoryview(bytearray(16))[::2], np.zeros((4, 4), dtype=np.uint8)[:, :2]]
)
def test_unusable_buffer_raises_value_error(obj):
    with pytest.raises(ValueError, match=r"\bbuffer\b"):
        Kfifo(buffer=obj)


@pytest.mark.parametrize("obj", [8, "abcdefgh", [0] * 8])
def test_buffer_that_is_not_bytes_like_raises_type_error(obj):
    with pytest.raises(TypeError, match=r"\bbuffer\b"):
        Kfifo(buffer=obj)


def test_multi_byte_item_buffer_counts_bytes():
    buf = np.zeros(4, dtype=np.uint32)  # 16 bytes
    f = Kfifo(buffer=buf)
    assert f.size() == 16


# ---- free, context manager --------------------------------------------------------

# every documented call but free() (a second free() is harmless, as in C)
ALL_CALLS = {name: call for name, call in EVERY_CALL.items() if name not in ("free", "__exit__")}


@pytest.mark.parametrize("call", sorted(ALL_CALLS))
def test_every_call_after_free_raises_value_error(call):
    f = filled()
    f.free()
    with pytest.raises(ValueError, match="freed"):
        ALL_CALLS[call](f)


def test_free_twice_is_harmless():
    f = filled()
    assert f.free() is None
    assert f.free() is None
    assert f.is_freed()


def test_context_manager_frees_even_on_error():
    with pytest.raises(KeyError):
        with Kfifo(8) as f:
            assert f.in_(b"abc") == 3
            raise KeyError
    assert f.is_freed()
    with Kfifo(8) as g:
        g.free()  # freeing inside the block is fine too
    assert g.is_freed()


def test_free_releases_a_buffer_fifo_without_freeing_its_memory():
    buf = bytearray(b"abcdefgh")
    f = Kfifo(buffer=buf)
    f.free()
    assert buf == b"abcdefgh"


# ---- the package ----------------------------------------------------------------


def test_version_comes_from_the_c_header():
    header = os.path.join(os.path.dirname(__file__), "..", "c", "include", "kfifo.h")
    if not os.path.exists(header):
        pytest.skip("not run from a source tree")
    text = open(header).read()
    parts = [re.search(rf"#define KFIFO_VERSION_{p} (\d+)", text).group(1) for p in ("MAJOR", "MINOR", "PATCH")]
    assert kfifo.__version__ == ".".join(parts)


def test_installed_metadata_version_matches():
    from importlib.metadata import PackageNotFoundError, version

    try:
        assert version("kfifo") == kfifo.__version__
    except PackageNotFoundError:
        pytest.skip("kfifo is not installed as a distribution")


def test_public_methods_have_numpydoc_docstrings_and_signatures():
    for name in ("in_", "from_user", "in_rec", "from_user_rec", "in_locked", "out", "to_user",
                 "out_into", "out_rec", "to_user_rec", "out_locked", "peek_rec", "skip", "skip_rec",
                 "reset", "reset_out", "free", "len", "size", "avail", "is_empty", "is_full"):
        meth = getattr(Kfifo, name)
        assert meth.__doc__ and len(meth.__doc__) > 40, name
        assert inspect.signature(meth).parameters, name
    assert "Parameters\n----------" in Kfifo.__doc__
    assert Kfifo.__module__ == "kfifo" and SpinLock.__module__ == "kfifo"
    assert Kfifo.__text_signature__ == (
        "(size=None, *, start=0, buffer=None, shared=False, sealed=False, producers='one', consumers='one')")


def test_typing_files_are_shipped():
    here = os.path.dirname(kfifo.__file__)
    assert os.path.exists(os.path.join(here, "py.typed"))
    assert os.path.exists(os.path.join(here, "__init__.pyi"))
