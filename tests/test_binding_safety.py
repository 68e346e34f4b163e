# SPDX-License-Identifier: MIT
"""The binding as a hostile user meets it: crashes, hangs, leaks, SWIG's insides.

Each test here reproduces a way the 0.1 binding could be crashed, hung or
made to leak from pure Python, found by a review of it.  Whatever can kill or hang the
interpreter runs in a subprocess with a timeout, so that a regression fails
the test instead of the test run.
"""
from __future__ import annotations

import ast
import copy
import gc
import inspect
import operator
import os
import pickle
import re
import signal
import subprocess
import sys
import textwrap
import weakref
from pathlib import Path

import numpy as np
import pytest

import kfifo
from kfifo import Kfifo, SpinLock

from _calls import EVERY_CALL

TIMEOUT = 60


def run_python(code: str, timeout: float = TIMEOUT) -> subprocess.CompletedProcess:
    """Run @code in a fresh interpreter; a hang fails the test.

    The child runs in a session of its own, and the whole session is killed
    on a timeout: nothing it forked may outlive the test.
    """
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail("the interpreter hung (killed after %s s): %s" % (timeout, err[-3000:]))
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # whatever it forked
        except ProcessLookupError:
            pass
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def assert_clean_exit(proc: subprocess.CompletedProcess, expect: str = "ok") -> None:
    assert proc.returncode == 0, "exit status %d\n--- stderr ---\n%s" % (
        proc.returncode,
        proc.stderr[-3000:],
    )
    assert proc.stdout.strip().endswith(expect), proc.stdout


# ---- out_rec sizes its copy from the header it really copies ---------------------


def test_out_rec_survives_a_header_rewritten_by_another_fifo_over_the_same_buffer():
    # f2 rewrites f1's whole buffer with 0x01 / 0xff bytes without the GIL
    # (a 128 KiB copy), so f1's record header flips between 257 and 65535
    # while out_rec runs.  0.1 sized its bytes from one read of the header
    # and let the C core copy after a second one: heap overflow, SIGSEGV.
    proc = run_python(
        """
        import threading, time
        from kfifo import Kfifo
        SIZE = 1 << 17
        ba = bytearray(SIZE)
        f1, f2 = Kfifo(buffer=ba), Kfifo(buffer=ba)
        fills = [b"\\x01" * SIZE, b"\\xff" * SIZE]
        stop = False
        def scribble():
            i = 0
            while not stop:
                f2.reset()
                f2.in_(fills[i & 1])
                i += 1
        t = threading.Thread(target=scribble)
        t.start()
        deadline = time.monotonic() + 2.0
        got = 0
        while time.monotonic() < deadline:
            f1.reset()
            f1.in_(fills[0])
            ret, data, total = f1.out_rec(65535, 2)
            assert ret in (0, 65535) or ret > 65535, ret
            if ret == 0:
                assert len(data) == total <= 65535
                got += 1
            assert f1.valid()
        stop = True
        t.join()
        print("records", got)
        print("ok")
        """
    )
    assert_clean_exit(proc)


def test_out_rec_survives_a_header_rewritten_by_another_process():
    # The same race as above with a faster writer: a forked child flips the
    # record header in a shared mapping between 257 and 65535 as fast as it
    # can, with no GIL to wait for.
    proc = run_python(
        """
        import mmap, os, signal, time
        from kfifo import Kfifo
        SIZE = 1 << 17
        m = mmap.mmap(-1, SIZE)
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:
            w = memoryview(m).cast("H")
            while os.getppid() == parent:  # never outlive the parent
                for _ in range(4096):
                    w[0] = 0x0101
                    w[0] = 0xFFFF
            os._exit(0)
        try:
            f = Kfifo(buffer=m)
            deadline = time.monotonic() + 2.0
            while time.monotonic() < deadline:
                f.reset()
                f.in_(b"\\x01" * SIZE)
                ret, data, total = f.out_rec(65535, 2)
                if ret == 0:
                    assert len(data) == total
                assert f.valid()
        finally:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        print("ok")
        """
    )
    assert_clean_exit(proc)


@pytest.mark.parametrize("recsize, length", [(1, 0), (1, 255), (2, 0), (2, 255), (2, 256), (2, 257), (2, 4000), (2, 65535)])
@pytest.mark.parametrize("slack", [-1, 0, 1, 2**16, 2**32 - 1])
def test_out_rec_answers_as_the_c_core_for_every_capacity(recsize, length, slack):
    # the binding fetches long records in steps (a stack buffer, then the
    # record's length); what the caller sees must not show it
    n = length + slack
    if n < 0 or n >= 2**32:
        return
    f = Kfifo(1 << 17)
    record = bytes(range(256)) * (length // 256) + bytes(range(length % 256))
    assert f.in_rec(record, recsize) == 0
    ret, data, total = f.out_rec(n, recsize)
    if n >= length:
        assert (ret, data, total) == (0, record, length)
        assert f.is_empty()
    else:
        assert (ret, data, total) == (length, b"", length)
        assert f.len() == recsize + length


@pytest.mark.parametrize("recsize", [1, 2])
@pytest.mark.parametrize("n", [3, 300, 65535, 2**32 - 1])
def test_out_rec_of_an_incomplete_record_returns_n_for_any_capacity(recsize, n):
    f = Kfifo(64)
    f.in_(bytes([200, 0][:recsize]) + b"abc")  # header says 200, 3 bytes follow
    ret, data, total = f.out_rec(n, recsize)
    assert data == b""
    assert total == 200
    assert ret == (200 if n < 200 else n)
    assert f.len() == recsize + 3


@pytest.mark.parametrize("n, stored, expected", [(4, 8, 0), (8, 8, 0), (9, 8, 9), (2**31, 8, 2**31), (0, 0, 0)])
def test_out_rec_recsize_0_takes_exactly_n_bytes_or_answers_n(n, stored, expected):
    f = Kfifo(8)
    f.in_(b"abcdefgh"[:stored])
    ret, data, total = f.out_rec(n, 0)
    assert ret == expected
    assert total == n
    assert data == (b"abcdefgh"[:n] if ret == 0 else b"")
    assert f.len() == stored - (n if ret == 0 else 0)


# ---- SpinLock is usable however it was made ---------------------------------------


def test_spinlock_made_by_new_alone_is_an_unlocked_lock():
    proc = run_python(
        """
        import kfifo
        lock = kfifo.SpinLock.__new__(kfifo.SpinLock)
        assert lock.locked() is False
        f = kfifo.Kfifo(8)
        assert f.in_locked(b"a", lock) == 1
        assert f.out_locked(1, kfifo.SpinLock.__new__(kfifo.SpinLock)) == b"a"
        print("ok")
        """
    )
    assert_clean_exit(proc)


def test_spinlock_subclass_that_skips_init_works():
    proc = run_python(
        """
        import kfifo
        class Lazy(kfifo.SpinLock):
            def __init__(self):  # forgets super().__init__()
                self.tag = "lazy"
        lock = Lazy()
        f = kfifo.Kfifo(8)
        assert f.in_locked(b"xy", lock) == 2
        assert f.out_locked(8, lock) == b"xy"
        assert not lock.locked()
        assert "unlocked" in repr(lock)
        print("ok")
        """
    )
    assert_clean_exit(proc)


def test_spinlock_takes_no_arguments():
    with pytest.raises(TypeError):
        SpinLock(1)


# ---- interpreter exit never hangs -----------------------------------------------------

# The object whose __del__ frees the fifo hangs off another module: __main__'s
# globals are not cleared at exit while daemon threads' frames hold them,
# but other modules' are, during finalisation (when daemon threads stop).
EXIT_WITH_DAEMONS = """
import collections, os, threading, time
import kfifo
f = kfifo.Kfifo(1 << 20)
big = b"x" * (1 << 17)
def produce():
    while True:
        f.in_(big)
def consume():
    while True:
        f.out(1 << 17)
for target in {targets}:
    threading.Thread(target=target, daemon=True).start()
class Closer:
    def __init__(self, fifo):
        self.fifo = fifo
    def __del__(self, write=os.write):
        self.fifo.free()
        write(1, b"freed at exit\\n")
collections.closer = Closer(f)
time.sleep(0.2)
print("ok", flush=True)
"""


@pytest.mark.parametrize("run", range(4))
@pytest.mark.parametrize(
    "targets", ["(produce, produce, consume, consume)", "(produce, consume)"], ids=["misuse", "spsc"]
)
def test_exit_with_daemon_threads_inside_calls_and_a_del_that_frees(targets, run):
    proc = run_python(EXIT_WITH_DAEMONS.format(targets=targets), timeout=30)
    assert_clean_exit(proc, expect="freed at exit")


def test_exit_with_a_daemon_thread_waiting_for_a_side_and_main_calling_from_del():
    proc = run_python(
        """
        import collections, os, threading, time
        import kfifo
        f = kfifo.Kfifo(1 << 20)
        big = b"x" * (1 << 17)
        def produce():
            while True:
                f.in_(big)
                f.reset_out()
        for _ in range(3):
            threading.Thread(target=produce, daemon=True).start()
        class User:
            def __init__(self, fifo):
                self.fifo = fifo
            def __del__(self, write=os.write):
                try:
                    self.fifo.in_(b"y" * (1 << 17))
                except RuntimeError as e:
                    assert "exiting" in str(e)
                self.fifo.free()
                write(1, b"freed at exit\\n")
        collections.user = User(f)
        time.sleep(0.2)
        print("ok", flush=True)
        """,
        timeout=30,
    )
    assert_clean_exit(proc, expect="freed at exit")


# ---- cyclic garbage collection ---------------------------------------------------------


def test_kfifo_is_tracked_by_the_garbage_collector():
    assert gc.is_tracked(Kfifo(8))


def test_base_kfifo_has_no_attribute_dict_to_make_a_cycle_with():
    f = Kfifo(8)
    with pytest.raises(AttributeError):
        f.me = f


def collected(make) -> bool:
    """Build a cycle with make(); True when gc frees it."""
    ref = make()
    gc.collect()
    return ref() is None


def test_subclass_instance_referring_to_itself_is_collected():
    class Mine(Kfifo):
        pass

    def make():
        f = Mine(64)
        f.me = f
        return weakref.ref(f)

    assert collected(make)


def test_subclass_holding_its_own_bound_method_is_collected():
    class Mine(Kfifo):
        pass

    def make():
        f = Mine(64)
        f.callback = f.out
        return weakref.ref(f)

    assert collected(make)


def test_buffer_object_that_holds_its_fifo_is_collected_and_released():
    class Holder(bytearray):
        pass

    def make():
        b = Holder(64)
        b.fifo = Kfifo(buffer=b)
        b.fifo.in_(b"abc")
        return weakref.ref(b)

    assert collected(make)


def test_a_collected_fifo_releases_its_buffer_for_resizing():
    class Mine(Kfifo):
        pass

    b = bytearray(64)
    f = Mine(buffer=b)
    f.me = f
    with pytest.raises(BufferError):
        b.append(0)
    del f
    gc.collect()
    b.append(0)  # no longer exported
    assert len(b) == 65


def test_cycles_do_not_grow_memory():
    proc = run_python(
        """
        import gc, resource
        from kfifo import Kfifo
        class Mine(Kfifo):
            pass
        def churn(n):
            for _ in range(n):
                f = Mine(4096)
                f.me = f
            gc.collect()
        churn(2000)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        churn(20000)
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        grown_mb = (after - before) / 1024
        assert grown_mb < 20, grown_mb   # a leak would be about 80 MB
        print("ok")
        """
    )
    assert_clean_exit(proc)


# ---- the public surface: exactly what the docs list -------------------------------------


def documented_methods(cls_name: str) -> set[str]:
    """The methods the shipped stub kfifo/__init__.pyi declares for a class."""
    stub = Path(kfifo.__file__).with_name("__init__.pyi")
    tree = ast.parse(stub.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == cls_name:
            return {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
    raise AssertionError("no class %s in %s" % (cls_name, stub))


@pytest.mark.parametrize("cls", [Kfifo, SpinLock, kfifo.Notifier], ids=lambda c: c.__name__)
def test_dir_adds_exactly_the_documented_api_to_object(cls):
    added = set(dir(cls)) - set(dir(object))
    assert added == documented_methods(cls.__name__) - set(dir(object))


def test_private_module_exports_the_types_two_constants_and_the_shm_plumbing_only():
    names = {n for n in dir(kfifo._kfifo) if not n.startswith("__")}
    assert names == {"Kfifo", "Notifier", "SpinLock", "Empty", "Full", "VERSION", "GIL_THRESHOLD",
                     "_Block", "_set_shm_hooks"}


@pytest.mark.parametrize("name", ["disown", "own", "acquire", "append", "next", "this", "thisown"])
def test_no_swig_proxy_internals(name):
    assert not hasattr(Kfifo(8), name)
    assert not hasattr(SpinLock(), name)


def test_kfifo_is_not_a_number():
    f = Kfifo(8)
    for convert in (int, float, complex, bool):
        if convert is bool:
            assert bool(f) is False  # __len__: an empty fifo is falsy, like a list
            f.in_(b"x")
            assert bool(f) is True
            continue
        with pytest.raises(TypeError):
            convert(f)
    with pytest.raises(TypeError):
        operator.index(f)


def test_equality_is_identity_and_there_is_no_order():
    f, g = Kfifo(8), Kfifo(8)
    assert f == f and f != g
    assert hash(f) == hash(f)
    with pytest.raises(TypeError):
        f < g  # noqa: B015
    with pytest.raises(TypeError):
        f >= g  # noqa: B015


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_pickling_is_refused_at_every_protocol(protocol):
    # (a shared fifo pickles to its name: tests/test_shared.py)
    f = Kfifo(8)
    f.in_(b"data")
    with pytest.raises(TypeError, match="pickle"):
        pickle.dumps(f, protocol)
    assert f.out(8) == b"data"


def test_copying_is_refused():
    for how in (copy.copy, copy.deepcopy):
        with pytest.raises(TypeError):
            how(Kfifo(8))




def test_uninit_calls_cover_every_documented_method():
    # attach is a classmethod: it needs no fifo (tests/test_shared.py)
    assert set(EVERY_CALL) | {"is_freed"} == documented_methods("Kfifo") - {"__init__", "attach"}


@pytest.mark.parametrize("name", sorted(EVERY_CALL))
def test_object_made_by_new_alone_raises_a_clear_error(name):
    f = Kfifo.__new__(Kfifo)
    with pytest.raises(ValueError, match="not initialised"):
        EVERY_CALL[name](f)
    assert repr(f) == "<kfifo.Kfifo uninitialised>"


def test_is_freed_on_an_uninitialised_object_says_it_is_not_initialised():
    # it used to answer False, as if the object were a usable fifo
    with pytest.raises(ValueError, match=r"Kfifo\.is_freed\(\).*not initialised"):
        Kfifo.__new__(Kfifo).is_freed()


def test_subclass_that_skips_init_raises_a_clear_error():
    class Lazy(Kfifo):
        def __init__(self, size):
            self.size_wanted = size

    f = Lazy(8)
    with pytest.raises(ValueError, match=r"Kfifo\.in_\(\).*not initialised"):
        f.in_(b"x")


BAD_CALLS = [
    ("in_", lambda f: f.in_(3), TypeError),
    ("in_rec", lambda f: f.in_rec(b"x", 3), ValueError),
    ("from_user_rec", lambda f: f.from_user_rec(b"x", "1"), TypeError),
    ("in_locked", lambda f: f.in_locked(b"x", object()), TypeError),
    ("out", lambda f: f.out(-1), ValueError),
    ("to_user", lambda f: f.to_user(2**32), OverflowError),
    ("out_into", lambda f: f.out_into(b"read-only"), TypeError),
    ("out_rec", lambda f: f.out_rec(1.0, 1), TypeError),
    ("to_user_rec", lambda f: f.to_user_rec(1, -1), ValueError),
    ("out_locked", lambda f: f.out_locked(1, None), TypeError),
    ("peek_rec", lambda f: f.peek_rec(5), ValueError),
    ("skip", lambda f: f.skip(-5), ValueError),
    ("skip_rec", lambda f: f.skip_rec(2**40), ValueError),
]


@pytest.mark.parametrize("name, call, exc", BAD_CALLS, ids=[c[0] for c in BAD_CALLS])
def test_argument_errors_name_the_python_method(name, call, exc):
    f = Kfifo(8)
    f.in_(b"abc")
    with pytest.raises(exc) as info:
        call(f)
    assert "Kfifo.%s()" % name in str(info.value)
    assert f.len() == 3 and f.valid()


@pytest.mark.parametrize(
    "call", [lambda f: f.__exit__(), lambda f: f.out_rec(1), lambda f: f.in_rec(b"x")], ids=["__exit__", "out_rec", "in_rec"]
)
def test_wrong_argument_counts_name_the_method_not_a_swig_symbol(call):
    with pytest.raises(TypeError) as info:
        call(Kfifo(8))
    message = str(info.value)
    assert "Kfifo_" not in message and "_wrap" not in message
    assert any(m in message for m in ("__exit__", "out_rec", "in_rec"))


def test_freed_fifo_errors_name_the_method():
    f = Kfifo(8)
    f.free()
    with pytest.raises(ValueError, match=r"Kfifo\.out_rec\(\).*freed"):
        f.out_rec(1, 1)


# every documented call but free() (a second free() is harmless, as in C)
# and __exit__ (it frees)
FREED_CALLS = sorted(name for name in EVERY_CALL if name not in ("free", "__exit__"))


@pytest.mark.parametrize("name", FREED_CALLS)
def test_every_call_on_a_freed_fifo_names_its_method(name):
    f = Kfifo(8)
    f.in_(b"ab")
    f.free()
    with pytest.raises(ValueError, match=r"Kfifo\.%s\(\): operation on a freed Kfifo" % re.escape(name)):
        EVERY_CALL[name](f)


@pytest.mark.parametrize(
    "call",
    [lambda f, n: f.out(n), lambda f, n: f.in_prepare(n), lambda f, n: f.get(n, timeout=0),
     lambda f, n: f.get_recs(n, 1, timeout=0), lambda f, n: f.out_rec(n, 1)],
    ids=["out", "in_prepare", "get", "get_recs", "out_rec"],
)
def test_an_argument_that_frees_the_fifo_while_converted_is_refused(call):
    # self is checked after the other arguments: their conversion runs
    # Python code
    f = Kfifo(8)
    f.in_(b"ab")

    class Freeing:
        def __index__(self):
            f.free()
            return 1

    with pytest.raises(ValueError, match="freed"):
        call(f, Freeing())


def test_methods_called_on_a_foreign_object_raise_type_error():
    with pytest.raises(TypeError):
        Kfifo.in_(SpinLock(), b"x")
    with pytest.raises(TypeError):
        SpinLock.locked(Kfifo(8))


def test_numpy_buffer_fifo_is_collected_with_its_array():
    def make():
        class Arr(np.ndarray):
            pass

        a = np.zeros(64, dtype=np.uint8).view(Arr)
        a.fifo = Kfifo(buffer=a)
        return weakref.ref(a)

    assert collected(make)


def test_extension_is_sanitized_exactly_when_the_asan_run_says_so():
    # scripts/test-binding-asan.sh sets KFIFO_EXPECT_SANITIZED=1 and imports
    # an extension whose C (core, binding, wrapper) is built with ASan+UBSan
    image = Path(kfifo._kfifo.__file__).read_bytes()
    sanitized = b"__asan_report_" in image and b"__ubsan_handle_" in image
    assert sanitized == bool(os.environ.get("KFIFO_EXPECT_SANITIZED"))


# ---- the one method table (swig/kfpy_methods.h) -----------------------------------


def method_table():
    """(type, name, kw) of every entry of swig/kfpy_methods.h (FAST_KW is KW,
    FAST_POS is POS: the same arguments through a METH_FASTCALL wrapper)."""
    src = Path(__file__).resolve().parent.parent / "swig" / "kfpy_methods.h"
    if not src.exists():  # pragma: no cover - tests run from an sdist
        pytest.skip("no swig/ sources beside the tests")
    return re.findall(r"^KFPY_METHOD\((\w+), (\w+), \w+, (?:FAST_)?(KW|POS),", src.read_text(encoding="utf-8"), re.M)


# not in the table: the constructor and the classmethod (kfpy_type.c,
# kfpy_shm.c), the two properties and len() (type slots)
NOT_IN_TABLE = {"__init__", "attach", "closed", "name", "producers", "consumers", "sealed",
                "__len__"}


@pytest.mark.parametrize("cls", [Kfifo, SpinLock], ids=lambda c: c.__name__)
def test_method_table_is_the_stub_s_list_of_methods(cls):
    table = {name for typ, name, _ in method_table() if typ == cls.__name__}
    assert table - set(dir(object)) == documented_methods(cls.__name__) - NOT_IN_TABLE - set(dir(object))


def test_method_table_is_the_tests_list_of_calls():
    table = {name for typ, name, _ in method_table() if typ == "Kfifo"}
    assert set(EVERY_CALL) | {"is_freed", "__reduce_ex__"} == table | (NOT_IN_TABLE - {"__init__", "attach"})


@pytest.mark.parametrize("typ, name, kw", method_table(), ids=lambda v: str(v))
def test_each_method_has_the_table_s_docstring_and_signature(typ, name, kw):
    cls = Kfifo if typ == "Kfifo" else SpinLock
    method = getattr(cls, name)
    sig = inspect.signature(method)
    assert list(sig.parameters)[0] == "self"
    assert method.__doc__ and not method.__doc__.startswith(name + "(")
    if kw == "KW":
        assert "timeout" in sig.parameters
        assert sig.parameters["timeout"].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD


# The argument kinds of swig/kfifo_py.h: kfifo.i picks each conversion by
# type, so a parameter of a raw C type would get SWIG's default conversion
# (or none) instead of the binding's.
BINDING_KINDS = {"kfpy_live *", "kfpy_any_kfifo *", "kfpy_pyself *", "kfpy_count", "kfpy_recsize",
                 "kfpy_inbuf", "kfpy_buflen", "kfpy_streamlen", "kfpy_outbuf", "kfpy_timeout",
                 "kfpy_flag", "kfpy_object", "kfpy_spinlock *", "kfpy_method"}


def method_parameters():
    """(name, [(type, parameter name)]) of every entry of swig/kfpy_methods.h."""
    src = Path(__file__).resolve().parent.parent / "swig" / "kfpy_methods.h"
    if not src.exists():  # pragma: no cover - tests run from an sdist
        pytest.skip("no swig/ sources beside the tests")
    entries = re.findall(r"^KFPY_METHOD\(\w+, (\w+), \w+, \w+,\s*\(([^)]*)\)", src.read_text(encoding="utf-8"), re.M)
    assert len(entries) == len(method_table())
    out = []
    for name, params in entries:
        parsed = []
        for p in params.split(","):
            m = re.fullmatch(r"\s*(.*?)\s*(\**)\s*(\w+)\s*", p)
            parsed.append(((m.group(1) + (" " + m.group(2) if m.group(2) else "")), m.group(3)))
        out.append((name, parsed))
    return out


@pytest.mark.parametrize("name, params", method_parameters(), ids=lambda v: v if isinstance(v, str) else "")
def test_every_parameter_of_a_wrapped_method_has_a_binding_kind(name, params):
    raw = [f"{t} {p}" for t, p in params if t not in BINDING_KINDS]
    assert not raw, f"{name}: raw C types, give each a kind of kfifo_py.h: {raw}"
    assert params[0][1] == "self"
    # the method's name comes from SWIG, right after self, as `method`
    assert all(p == "method" and i == 1 for i, (t, p) in enumerate(params) if t == "kfpy_method"), name
    for (t, p), nxt in zip(params, params[1:] + [("", "")]):
        if t == "kfpy_inbuf":
            assert p == "data" and nxt[0] in ("kfpy_buflen", "kfpy_streamlen"), name
        if t == "kfpy_outbuf":
            assert p == "buffer" and nxt[0] == "kfpy_buflen", name


def test_every_binding_kind_has_its_typemap_and_typedef():
    root = Path(__file__).resolve().parent.parent / "swig"
    if not root.exists():  # pragma: no cover - tests run from an sdist
        pytest.skip("no swig/ sources beside the tests")
    typemaps = "\n".join(re.findall(r"^%typemap\((?:in|check)[^)]*\)\s*([^{\"]*)", (root / "kfifo.i").read_text(encoding="utf-8"), re.M))
    header = (root / "kfifo_py.h").read_text(encoding="utf-8")
    for kind in BINDING_KINDS:
        base = kind.rstrip(" *")
        assert re.search(r"\b%s\b" % base, typemaps), kind
        if base != "kfpy_spinlock":
            assert re.search(r"^typedef [^;]*\b%s;" % base, header, re.M), kind
    # no typemap chooses by a parameter's name alone on a raw type
    assert not re.search(r"^%typemap\((?:in|check|default)[^)]*\)\s*(unsigned int|PyObject \*|const void \*|void \*)", (root / "kfifo.i").read_text(encoding="utf-8"), re.M)
