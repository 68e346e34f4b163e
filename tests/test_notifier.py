# SPDX-License-Identifier: MIT
"""kfifo.Notifier (Kfifo.notifier()): a file descriptor that, while armed,
becomes readable when the fifo moves in its direction, is closed, or is
freed; what asyncio, selectors, trio and anyio wait on.

One process: the readiness rules step by step, for both directions and for
ordinary and shared fifos; bad input; close() and free() waking an armed
notifier, also while another thread waits on it; selectors-based producer
and consumer threads with a checked stream; several armed notifiers each
woken.  Across processes (a shared fifo), under fork and spawn: a notifier
consumer (selectors, and asyncio) fed by a plain blocking producer, and a
notifier producer feeding a plain blocking consumer; a notifier inherited
through fork(); the 16-slot limit; slots given back by a process that
exits or is killed.  The other process runs tests/_notifier_peers.py."""
import asyncio
import errno
import gc
import multiprocessing
import os
import selectors
import signal
import struct
import sys
import threading
import time
from multiprocessing import shared_memory

import pytest

import _notifier_peers as peers
import _shared_peers as plain
from kfifo import Kfifo, Notifier

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="notifiers are Linux-only")

SLOTS = 16
#: byte offset of the notifier slots in the shared header (kfifo.h)
OFF_NOTIFY = 192


def readable(n, timeout=0.0):
    """Whether the notifier (or file descriptor) *n* is readable."""
    with selectors.DefaultSelector() as sel:
        sel.register(n if isinstance(n, int) else n.fileno(), selectors.EVENT_READ)
        return bool(sel.select(timeout))


def slot_words(f):
    """The 16 notifier slot words of a shared fifo's header."""
    shm = shared_memory.SharedMemory(f.name)
    try:
        return struct.unpack_from("16I", shm.buf, OFF_NOTIFY)
    finally:
        shm.close()


def ctx(method):
    return multiprocessing.get_context(method)


@pytest.fixture(params=["ordinary", "shared"])
def fifo(request):
    f = Kfifo(64, shared=request.param == "shared")
    yield f
    f.free()


# ---- one process: the rules ---------------------------------------------------------


def publish(f, direction):
    """Move the index the notifiers of *direction* watch."""
    if direction == "data":
        assert f.in_(b"x") == 1
    else:
        assert len(f.out(1)) == 1


@pytest.mark.parametrize("direction", ["data", "room"])
def test_readiness_follows_arm_publish_clear_disarm(fifo, direction):
    f = fifo
    f.in_(b"abcdefgh")
    n = f.notifier(direction)
    assert isinstance(n, Notifier)
    assert n.direction == direction and not n.armed and not n.closed
    publish(f, direction)
    assert not readable(n), "a disarmed notifier is never signalled"
    n.arm()
    n.arm()  # idempotent
    assert n.armed and not readable(n)
    publish(f, direction)
    assert readable(n) and readable(n), "readable until cleared"
    n.clear()
    assert not readable(n)
    publish(f, direction)
    assert readable(n), "signalled again after clear()"
    n.clear()
    publish(f, "room" if direction == "data" else "data")
    assert not readable(n), "the other direction does not signal it"
    n.disarm()
    n.disarm()
    assert not n.armed
    publish(f, direction)
    assert not readable(n)
    n.close()
    n.close()
    assert n.closed and not n.armed


def test_every_armed_notifier_is_signalled(fifo):
    ns = [fifo.notifier("data") for _ in range(5)]
    for n in ns[:4]:
        n.arm()
    fifo.in_(b"x")
    assert [readable(n) for n in ns] == [True, True, True, True, False]
    assert len({n.fileno() for n in ns}) == 5
    for n in ns:
        n.close()


def test_context_manager_arms_and_closes(fifo):
    with fifo.notifier("data") as n:
        assert n.armed
        fifo.in_(b"x")
        assert readable(n)
    assert n.closed and not n.armed
    with pytest.raises(ValueError, match="closed"):
        n.fileno()
    with pytest.raises(ValueError, match="closed"):
        n.arm()
    with pytest.raises(ValueError, match="closed"):
        n.clear()
    n.disarm()  # never raises


def test_close_of_the_fifo_signals_both_directions(fifo):
    d, r = fifo.notifier("data"), fifo.notifier("room")
    d.arm()
    r.arm()
    fifo.close()
    assert readable(d) and readable(r)
    d.close()
    r.close()


def test_free_signals_and_then_the_calls_raise(fifo):
    n, idle = fifo.notifier("data"), fifo.notifier("room")
    n.arm()
    fd = n.fileno()  # as an event loop holds it
    fifo.free()
    assert readable(fd), "free() wakes whoever waits on an armed notifier"
    assert not n.armed
    for call in (n.arm, n.fileno):
        with pytest.raises(ValueError, match="freed"):
            call()
    n.clear()  # drains, never raises
    n.disarm()
    assert "fifo freed" in repr(n)
    n.close()
    idle.close()
    with pytest.raises(ValueError, match="freed"):
        fifo.notifier("data")


def test_thread_freeing_the_fifo_wakes_a_thread_waiting_on_the_fd(fifo):
    outcome = []

    def waiter():
        with selectors.DefaultSelector() as sel, fifo.notifier("data") as n:
            sel.register(n.fileno(), selectors.EVENT_READ)
            while True:
                try:
                    fifo.get(1, timeout=0)
                except TimeoutError:
                    pass
                except ValueError as e:  # the sync API's error for a freed fifo
                    outcome.append(e)
                    return
                if not sel.select(timeout=30):
                    outcome.append("not woken")
                    return
                n.clear()

    t = threading.Thread(target=waiter)
    t.start()
    time.sleep(0.2)
    fifo.free()
    t.join(30)
    assert not t.is_alive()
    assert len(outcome) == 1 and isinstance(outcome[0], ValueError), outcome


@pytest.mark.parametrize(
    "direction, exc, match",
    [
        ("datas", ValueError, "'data'"),
        ("", ValueError, "'room'"),
        ("DATA", ValueError, "direction"),
        (b"data", TypeError, "bytes"),
        (0, TypeError, "int"),
        (None, TypeError, "NoneType"),
    ],
)
def test_bad_direction_is_refused(direction, exc, match):
    f = Kfifo(8)
    with pytest.raises(exc, match=match):
        f.notifier(direction)
    f.free()


def test_notifier_cannot_be_made_directly():
    with pytest.raises(TypeError, match="Kfifo.notifier"):
        Notifier()


def test_repr_says_direction_state_and_fd(fifo):
    n = fifo.notifier("room")
    assert repr(n) == "<kfifo.Notifier room disarmed fd=%d>" % n.fileno()
    n.arm()
    assert repr(n) == "<kfifo.Notifier room armed fd=%d>" % n.fileno()
    n.close()
    assert repr(n) == "<kfifo.Notifier room closed>"


def test_dropping_a_notifier_closes_its_fd_and_keeps_the_fifo(fifo):
    n = fifo.notifier("data")
    n.arm()
    fd = n.fileno()
    del n
    gc.collect()
    with pytest.raises(OSError):
        os.fstat(fd)
    assert fifo.in_(b"x") == 1  # still usable, nobody counted as waiting


def test_a_notifier_keeps_its_fifo_alive():
    f = Kfifo(8)
    n = f.notifier("data")
    del f
    gc.collect()
    n.arm()  # the fifo is still there
    n.close()


# ---- threads ------------------------------------------------------------------------


def test_selectors_producer_and_consumer_threads_stream_in_order():
    """Both sides wait only on notifiers: 300 kB through a 64-byte fifo,
    checksummed, in random-length chunks."""
    f = Kfifo(64)
    total, seed = 300_000, 21
    result = {}

    def consumer():
        result["got"] = peers.notifier_consume(f)

    t = threading.Thread(target=consumer)
    t.start()
    expected = peers.notifier_produce(f, total, seed)
    t.join(120)
    assert result["got"] == expected
    f.free()


def test_several_notifiers_in_several_threads_are_each_woken():
    """A consumer on a data notifier and three observers, each with its own
    armed data notifier in its own thread: every one is woken."""
    f = Kfifo(16)
    stop = threading.Event()
    woken = [0, 0, 0]

    def observer(i):
        with selectors.DefaultSelector() as sel, f.notifier("data") as n:
            sel.register(n.fileno(), selectors.EVENT_READ)
            while not stop.is_set():
                if sel.select(timeout=0.05):
                    n.clear()
                    woken[i] += 1

    threads = [threading.Thread(target=observer, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    time.sleep(0.1)
    result = {}
    consumer = threading.Thread(target=lambda: result.update(got=peers.notifier_consume(f)))
    consumer.start()
    expected = plain.produce_bytes(f, 50_000, 3)
    consumer.join(60)
    stop.set()
    for t in threads:
        t.join(60)
    assert result["got"] == expected
    assert all(w > 0 for w in woken), woken
    f.free()


# ---- processes ----------------------------------------------------------------------

STREAMS = [
    (method, parent, child)
    for method in ("fork", "spawn")
    for parent, child in (
        ("notifier-consume", "plain-produce"),
        ("asyncio-consume", "plain-produce"),
        ("notifier-produce", "plain-consume"),
        ("plain-consume", "notifier-produce"),
        ("plain-produce", "asyncio-consume"),
    )
]


@pytest.mark.parametrize("method, parent, child", STREAMS, ids=["-".join(s) for s in STREAMS])
def test_stream_between_a_notifier_side_and_a_blocking_side_across_processes(method, parent, child):
    run_stream(method, parent, child)


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_uvloop_consumer_fed_by_a_blocking_producer_process(method):
    pytest.importorskip("uvloop")
    run_stream(method, "uvloop-consume", "plain-produce")


def run_stream(method, parent, child):
    total, seed = 200_000, 7
    c = ctx(method)
    f = Kfifo(64, shared=True)
    results = c.Queue()
    p = c.Process(target=peers.run_side, args=(f, child, total, seed, results))
    p.start()
    mine = peers.SIDES[parent](f, total, seed)
    status, theirs = results.get(timeout=120)
    p.join(60)
    assert status == "ok", theirs
    assert p.exitcode == 0
    assert mine == theirs == plain.expected_bytes(total, seed)
    assert slot_words(f) == (0,) * SLOTS
    f.free()


def test_close_in_another_process_wakes_an_armed_notifier():
    f = Kfifo(64, shared=True)
    with f.notifier("data") as n:
        p = ctx("fork").Process(target=plain.unblock_later, args=(f, "close", 0.2))
        p.start()
        with selectors.DefaultSelector() as sel:
            sel.register(n.fileno(), selectors.EVENT_READ)
            assert sel.select(timeout=30)
        p.join(30)
        assert f.closed
    f.free()


def test_notifier_inherited_through_fork_is_the_parents():
    f = Kfifo(64, shared=True)
    n = f.notifier("data")
    n.arm()
    c = ctx("fork")
    results = c.Queue()
    p = c.Process(target=peers.arm_in_child, args=(n, results))
    p.start()
    kind, msg = results.get(timeout=60)
    p.join(60)
    assert kind == "ValueError" and "fork()" in msg
    f.in_(b"x")
    assert readable(n), "the parent's registration is untouched"
    n.close()
    assert slot_words(f) == (0,) * SLOTS
    f.free()


def test_at_most_16_armed_notifiers_per_shared_fifo():
    f = Kfifo(64, shared=True)
    ns = [f.notifier("data") for _ in range(SLOTS + 1)]
    for n in ns[:SLOTS]:
        n.arm()
    with pytest.raises(OSError) as e:
        ns[SLOTS].arm()
    assert e.value.errno == errno.EBUSY and "16" in str(e.value)
    assert not ns[SLOTS].armed
    ns[0].disarm()
    ns[SLOTS].arm()
    for n in ns:
        n.close()
    assert slot_words(f) == (0,) * SLOTS
    f.free()


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_a_process_killed_while_armed_leaves_no_slot_behind(method):
    f = Kfifo(64, shared=True)
    c = ctx(method)
    results = c.Queue()
    p = c.Process(target=peers.arm_and_linger, args=(f, results, 60))
    p.start()
    assert results.get(timeout=60) == "armed"
    assert sum(w != 0 for w in slot_words(f)) == 1
    os.kill(p.pid, signal.SIGKILL)
    p.join(30)
    f.in_(b"x")  # the signal finds nobody: the slot is freed
    assert slot_words(f) == (0,) * SLOTS
    f.free()


def test_a_spawned_process_that_exits_gives_its_slot_back():
    f = Kfifo(64, shared=True)
    c = ctx("spawn")
    results = c.Queue()
    p = c.Process(target=peers.arm_and_exit, args=(f, results))
    p.start()
    assert results.get(timeout=60) == "armed"
    p.join(60)
    assert p.exitcode == 0
    assert slot_words(f) == (0,) * SLOTS  # atexit closed it
    f.free()


def test_asyncio_consumer_and_producer_thread_in_one_process():
    """The asyncio side as aiopy's layer will use it: loop.add_reader."""
    f = Kfifo(128)
    total, seed = 100_000, 5
    t = threading.Thread(target=plain.produce_bytes, args=(f, total, seed))
    t.start()
    got = asyncio.run(peers.async_consume(f))
    t.join(60)
    assert got == plain.expected_bytes(total, seed)
    f.free()


def test_a_notifier_does_not_pickle():
    import pickle

    f = Kfifo(8, shared=True)
    n = f.notifier("data")
    with pytest.raises(TypeError, match="pickle"):
        pickle.dumps(n)
    n.close()
    f.free()


@pytest.mark.parametrize("shared", [False, True], ids=["ordinary", "shared"])
def test_threads_churning_notifiers_while_the_fifo_streams_and_is_freed(shared):
    """Threads make, arm, wait on, clear and close notifiers in a loop while
    a producer and a consumer stream, then the fifo is freed under them:
    every thread ends with the freed fifo's ValueError, none hangs, nothing
    crashes, and no notifier stays counted (the fifo streamed to the end)."""
    f = Kfifo(64, shared=shared)
    errors, stop = [], threading.Event()

    def churn(direction):
        while not stop.is_set():
            try:
                with f.notifier(direction) as n:
                    for _ in range(20):
                        readable(n, 0.001)
                        n.clear()
            except ValueError:  # freed
                return
            except OSError as e:  # the 16 slots of a shared fifo: try again
                if e.errno != errno.EBUSY:
                    errors.append(e)
                    return
        errors.append("stopped before the fifo was freed")

    threads = [threading.Thread(target=churn, args=(d,)) for d in ("data", "room") * 3]
    for t in threads:
        t.start()
    result = {}
    consumer = threading.Thread(target=lambda: result.update(got=peers.notifier_consume(f)))
    consumer.start()
    expected = peers.notifier_produce(f, 100_000, 9)
    consumer.join(60)
    assert result["got"] == expected
    f.free()
    for t in threads:
        t.join(30)
    stop.set()
    assert not any(t.is_alive() for t in threads)
    assert errors == []


# ---- strangers ---------------------------------------------------------------------------


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root: the stranger is a child that setuid()s to nobody")
def test_a_stranger_cannot_signal_a_notifier():
    """A process of another uid, with no access to the fifo, floods an armed
    notifier's socket: the kernel refuses every datagram, the notifier never
    becomes readable, and a real publication still wakes it.  (The figures:
    ``python tests/_stranger.py``; before the socket files of mode 0600 the
    stranger's datagrams got through, an idle asyncio consumer went to
    41-45 % CPU and one clear() took up to 194 ms.)"""
    import _stranger

    r = _stranger.flood(0.5)
    assert r["delivered"] == 0 and r["refused"] > 0, r
    assert r["wakes"] == 0 and not r["readable_after"], r
    assert r["woken_by_publication"], r


def test_a_notifier_socket_is_a_private_file_removed_at_close():
    # mode 0600 in /dev/shm; a same-user sender (entitled: it could write
    # the fifo as well) fills its queue, one clear() empties what it holds
    # (at most 64 datagrams: the rest would stay readable)
    f = Kfifo(64, shared=True)
    n = f.notifier("data")
    n.arm()
    import socket

    with socket.socket(fileno=os.dup(n.fileno())) as s:
        addr = s.getsockname()
        rcvbuf = s.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
    assert addr.startswith("/dev/shm/.kfifo-notify-")
    assert os.stat(addr).st_mode & 0o777 == 0o600
    sender = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sender.setblocking(False)
    sent = 0
    try:
        while True:
            sender.sendto(b"x", addr)
            sent += 1
    except BlockingIOError:
        pass
    sender.close()
    assert sent > 0 and rcvbuf > 0
    n.clear()
    sel = selectors.DefaultSelector()
    sel.register(n.fileno(), selectors.EVENT_READ)
    assert bool(sel.select(0)) == (sent > 64)
    sel.close()
    n.close()
    assert not os.path.exists(addr)  # close() removed the socket file
    f.free()
