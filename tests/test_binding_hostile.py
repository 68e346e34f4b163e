# SPDX-License-Identifier: MIT
"""The binding against a hostile or careless user: views kept past their
memoryviews, reference cycles through views, fork() with other threads
inside calls, buffers longer than 2**32, input overlapping the ring, odd
timeouts and names.  Each test was written against a crash or hang found
by a review of the binding, and failed before its fix; what could crash or hang runs in a child
interpreter with a timeout, so that a regression fails the test instead of
killing the run."""
import gc
import mmap
import os
import threading
import time
import weakref

import pytest

from _isolated import assert_clean, run_isolated
from kfifo import Kfifo

# ---- views: a fifo's memory lives while anything can reach it ----------------


@pytest.mark.parametrize("prepare", ["in_prepare", "out_prepare"])
def test_free_refuses_while_the_exporter_of_a_released_view_is_kept(prepare):
    f = Kfifo(64)
    f.in_(b"x" * 32)
    a, b = getattr(f, prepare)(16)
    exporter = a.obj
    a.release()
    b.release()
    with pytest.raises(BufferError, match="free"):
        f.free()
    assert len(memoryview(exporter)) == 16  # still a view of the live ring
    del exporter, a, b
    f.free()
    assert f.is_freed()


def test_exporter_of_a_view_never_reads_freed_memory_crash():
    # used to: free() succeeded and memoryview(mv.obj) read the freed ring
    proc = run_isolated(
        """
        from kfifo import Kfifo
        f = Kfifo(1 << 20)
        a, b = f.in_prepare(1 << 20)
        exporter = a.obj
        a.release(); b.release()
        try:
            f.free()
        except BufferError:
            print("refused")
        m = memoryview(exporter)
        m[:] = b"\\xaa" * len(m)
        print(sum(memoryview(exporter)[:4096]))
        """
    )
    assert_clean(proc)
    assert proc.stdout.split() == ["refused", str(0xAA * 4096)]


def test_free_from_a_gc_callback_inside_out_prepare_never_leaves_a_dangling_view():
    # used to (3.11): the collector ran inside out_prepare, a gc callback
    # freed the fifo, and the caller got a 1 MiB view of freed memory
    proc = run_isolated(
        """
        import gc
        from kfifo import Kfifo
        outcomes = set()
        for _ in range(200):
            f = Kfifo(1 << 20)
            f.in_(b"\\x01" * (1 << 20))
            armed = [True]
            def cb(phase, info, f=f, armed=armed):
                if phase == "start" and armed[0]:
                    armed[0] = False
                    try:
                        f.free()
                    except BufferError:
                        outcomes.add("free refused")
            gc.callbacks.append(cb)
            gc.set_threshold(1)
            try:
                a, b = f.out_prepare(1 << 20)
            except ValueError:
                outcomes.add("prepare refused")
            else:
                assert not f.is_freed()
                assert sum(bytes(a)) + sum(bytes(b)) == 1 << 20
                outcomes.add("views valid")
                del a, b
            finally:
                gc.set_threshold(700)
                gc.callbacks.remove(cb)
            if not f.is_freed():
                f.free()
        print(sorted(outcomes))
        """
    )
    assert_clean(proc)


def _closure_over(*objects):
    return lambda: objects


def test_a_view_kept_on_its_own_fifo_is_collected_with_it():
    # used to: Kfifo -> memoryview -> region -> Kfifo leaked, 200 of 200
    class Holder(Kfifo):
        pass

    refs = []
    for _ in range(200):
        f = Holder(1 << 16)
        f.view = f.out_prepare(16)[0]
        g = Kfifo(1 << 16)
        a, _b = g.in_prepare(8)
        f.keep = _closure_over(g, a)  # a closure that reaches g and its view
        refs.append(weakref.ref(f))
        del f, g, a, _b
    gc.collect()
    assert sum(r() is not None for r in refs) == 0


def test_free_succeeds_once_the_view_objects_are_gone():
    f = Kfifo(32)
    views = f.in_prepare(8)
    with pytest.raises(BufferError):
        f.free()
    del views
    f.free()


# ---- fork: the child's per-process state is its own -----------------------------


def test_free_in_a_fork_child_while_a_parent_thread_waits_in_get_hang():
    # used to: the child counted the parent's waiter for ever; free() and
    # leaving `with f:` looped
    proc = run_isolated(
        """
        import os, signal, threading, time, multiprocessing as mp
        from kfifo import Kfifo

        def child(f):
            signal.alarm(20)
            with f:
                f.in_(b"x")

        for shared in (False, True):
            f = Kfifo(64, shared=shared)
            t = threading.Thread(target=lambda: f.get(1), daemon=True)
            t.start()
            time.sleep(0.2)
            pid = os.fork()
            if pid == 0:
                signal.alarm(20)
                f.free()
                os._exit(0)
            _, status = os.waitpid(pid, 0)
            assert status == 0, status
            if shared:
                p = mp.get_context("fork").Process(target=child, args=(f,))
                p.start(); p.join(30)
                assert p.exitcode == 0, p.exitcode
            else:
                f.in_(b"y")
            t.join(20)
            assert not t.is_alive()
            f.free()
        print("ok")
        """,
        timeout=120,
    )
    assert_clean(proc)
    assert proc.stdout.strip() == "ok"


def test_fork_during_another_threads_large_copy_hang():
    # used to: the side claimed by the copying thread stayed claimed in the
    # child, and that side's calls, reset() and free() blocked for ever
    proc = run_isolated(
        """
        import os, signal, threading
        from kfifo import Kfifo
        n = 32 << 20
        f = Kfifo(n)
        data = bytes(n)
        sink = bytearray(n)
        stop = threading.Event()
        def churn():
            while not stop.is_set():
                f.in_(data)
                f.out_into(sink)
        t = threading.Thread(target=churn)
        t.start()
        for _ in range(12):
            pid = os.fork()
            if pid == 0:
                signal.alarm(20)
                f.reset()
                assert f.in_(b"abc") == 3 and f.out(3) == b"abc"
                f.free()
                os._exit(0)
            _, status = os.waitpid(pid, 0)
            assert status == 0, status
        stop.set(); t.join()
        f.free()
        print("ok")
        """,
        timeout=180,
    )
    assert_clean(proc)


# ---- lengths: Py_ssize_t end to end ---------------------------------------------


def test_put_of_more_than_4_gib_streams_every_byte():
    # used to: the length was clamped to 2**32 - 1 in argument conversion,
    # and the last 17 bytes of a 4 GiB + 16 buffer were dropped silently
    n = (4 << 30) + 16
    try:
        big = mmap.mmap(-1, n, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    except (OSError, OverflowError) as e:  # pragma: no cover - 32-bit or no overcommit
        pytest.skip(f"cannot map 4 GiB of address space: {e}")
    big[n - 1] = 7
    f = Kfifo(1 << 24)
    got = [0, 0]
    sink = bytearray(1 << 24)

    def consume():
        while True:
            r = f.get_into(sink)
            if r == 0:
                return
            got[0] += r
            got[1] = sink[r - 1]

    t = threading.Thread(target=consume)
    t.start()
    try:
        f.put(memoryview(big), timeout=600)
    finally:
        f.close()
        t.join()
        big.close()
    assert got == [n, 7]


def test_put_timeout_reports_the_true_length():
    n = (4 << 30) + 16
    try:
        big = mmap.mmap(-1, n, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    except (OSError, OverflowError) as e:  # pragma: no cover
        pytest.skip(f"cannot map 4 GiB of address space: {e}")
    f = Kfifo(16)
    with pytest.raises(TimeoutError, match=f"16 of {n} bytes"):
        f.put(memoryview(big), timeout=0)
    big.close()


# ---- input or output that overlaps the ring -------------------------------------


# These run in a child: under AddressSanitizer an overlapping memcpy
# (memcpy-param-overlap) aborts the process, which fails the test only.
def test_input_overlapping_the_ring_is_stored_as_it_was_at_the_call():
    proc = run_isolated(
        """
        from kfifo import Kfifo
        ring = bytearray(1 << 16)
        f = Kfifo(buffer=ring)
        f.in_(bytes(range(256)) * 32)           # ring[0:8192]
        assert len(f.out(4096)) == 4096
        before = bytes(ring[4096:12288])
        # source ring[4096:12288] overlaps the destination ring[8192:16384]
        assert f.in_(memoryview(ring)[4096:12288]) == 8192
        assert f.out(4096) == before[:4096]
        assert f.out(8192) == before
        # a record from a view of the ring
        g = Kfifo(1 << 16)
        g.in_(bytes(range(256)) * 64)
        a, _ = g.out_prepare(8192)
        want = bytes(a)
        assert g.in_rec(a, 0) == 0
        del a, _
        assert g.skip(16384) is None and g.out(8192) == want
        print("ok")
        """
    )
    assert_clean(proc)


def test_output_overlapping_the_ring_gets_the_bytes_taken():
    proc = run_isolated(
        """
        from kfifo import Kfifo
        ring = bytearray(1 << 16)
        f = Kfifo(buffer=ring)
        data = bytes(range(256)) * 48
        f.in_(data)
        assert f.out_into(memoryview(ring)[4096:16384]) == 12288
        assert ring[4096:16384] == data
        print("ok")
        """
    )
    assert_clean(proc)


# ---- waits ------------------------------------------------------------------------


def test_reset_wakes_a_producer_blocked_on_a_full_fifo():
    # used to: the producer resumed only at the end of its wait slice
    # (100 ms, ~50 ms late on average).  A busy machine delays every
    # wake-up too, so the reset is compared with the machine's own delay,
    # measured in the same rounds: the same producer woken by an out(),
    # which publishes (the wake path every other test proves).  Paired
    # rounds, medians: load moves both, only the bug moves one.
    def latency(wake):
        f = Kfifo(8)
        f.in_(b"12345678")
        done = []

        def producer():
            f.put(b"x", timeout=30)
            done.append(time.monotonic())

        t = threading.Thread(target=producer)
        t.start()
        time.sleep(0.05)
        t0 = time.monotonic()
        wake(f)
        t.join(60)
        assert done, "the producer was never woken"
        assert b"x" in f.out(8)
        return done[0] - t0

    by_reset, by_out = [], []
    for _ in range(9):
        by_out.append(latency(lambda f: f.out(1)))
        by_reset.append(latency(lambda f: f.reset()))
    by_reset.sort()
    by_out.sort()
    assert by_reset[4] < by_out[4] + 0.025, (by_reset, by_out)


@pytest.mark.parametrize("timeout", [-(10**400), -1, -1e-9, float("-inf")])
def test_a_negative_timeout_of_any_size_is_a_value_error(timeout):
    f = Kfifo(8)
    with pytest.raises(ValueError, match="must not be negative"):
        f.get(1, timeout=timeout)


def test_a_huge_timeout_means_no_limit():
    f = Kfifo(8)
    f.in_(b"x")
    assert f.get(1, timeout=10**400) == b"x"
    assert f.wait_len(0, timeout=float("inf")) is True


def test_a_nan_timeout_is_named_as_such():
    f = Kfifo(8)
    with pytest.raises(ValueError, match="not nan"):
        f.get(1, timeout=float("nan"))


# ---- names that cannot be a block ------------------------------------------------


@pytest.mark.parametrize("name", ["..", ".", "x" * 256, "", "a/b"])
def test_attach_of_a_name_that_cannot_be_a_block_is_file_not_found(name):
    with pytest.raises(FileNotFoundError):
        Kfifo.attach(name)


def test_attach_of_a_directory_is_file_not_found(tmp_path):
    d = "kfifo_test_dir_%d" % os.getpid()
    path = os.path.join("/dev/shm", d)
    try:
        os.mkdir(path)
    except OSError as e:  # pragma: no cover - no /dev/shm
        pytest.skip(f"/dev/shm: {e}")
    try:
        with pytest.raises(FileNotFoundError):
            Kfifo.attach(d)
    finally:
        os.rmdir(path)


def test_binding_never_aborts_the_interpreter():
    # a failure the binding can report is an exception, never Py_FatalError
    # (it was one when a peer wrote into a new shared fifo's block)
    here = os.path.dirname(os.path.abspath(__file__))
    swig = os.path.join(os.path.dirname(here), "swig")
    if not os.path.isdir(swig):  # pragma: no cover - tests run from an sdist
        pytest.skip("no swig/ sources beside the tests")
    for name in os.listdir(swig):
        with open(os.path.join(swig, name), encoding="utf-8") as src:
            assert "Py_FatalError" not in src.read(), name


# ---- errors raised in place of others keep them (PEP 3134) -----------------------


@pytest.mark.parametrize(
    "call, cause",
    [
        (lambda f: f.in_(1.5), TypeError),
        (lambda f: f.out_into(b"read-only"), BufferError),
        (lambda f: Kfifo(buffer=b"xxxx"), TypeError),
    ],
)
def test_an_error_that_replaces_another_is_chained_to_it(call, cause):
    with pytest.raises((TypeError, ValueError)) as info:
        call(Kfifo(8))
    assert isinstance(info.value.__cause__, cause)
