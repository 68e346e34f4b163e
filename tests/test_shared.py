# SPDX-License-Identifier: MIT
"""A fifo shared between processes (docs/spec.md 3.2 and the shared rows of 3.4):
Kfifo(size, shared=True), Kfifo.attach(name), f.name, pickling to the
name, the free() and unlink rules, streams between processes under the
fork and spawn start methods, close across processes, a peer killed with
SIGKILL, a hostile peer scribbling over the mapping.

The other process runs functions of tests/_shared_peers.py."""
import copy
import multiprocessing
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
from multiprocessing import shared_memory
from pathlib import Path

import pytest

import _shared_peers as peers
from _isolated import run_isolated
from kfifo import Kfifo
from kfifo._kfifo import _Block

SHM = Path("/dev/shm")
ROOT = Path(__file__).resolve().parent


def block_exists(name):
    return (SHM / name).exists()


@pytest.fixture
def shared():
    """Make shared fifos; after the test, free them and check that their
    blocks are gone (the creator unlinks at free())."""
    made = []

    def make(size=64, **kw):
        f = Kfifo(size, shared=True, **kw)
        made.append((f, f.name))
        return f

    yield make
    for f, name in made:
        f.free()
        assert not block_exists(name)


def ctx(method):
    return multiprocessing.get_context(method)


def run_script(code, timeout=120):
    """Run *code* in a new interpreter (with tests/ on sys.path); return it."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    return run_isolated(code, timeout=timeout, env=env)


# ---- the handle: name, attach, errors ------------------------------------------------------


def test_a_shared_fifo_has_a_name_and_an_unshared_one_has_none(shared):
    f = shared(100)
    assert isinstance(f.name, str) and block_exists(f.name)
    assert f.size() == 128
    assert Kfifo(8).name is None


def test_attach_gives_a_second_handle_to_the_same_fifo(shared):
    f = shared(64)
    g = Kfifo.attach(f.name)
    try:
        assert g.name == f.name and g.size() == 64
        assert f.in_(b"hello") == 5
        assert len(g) == 5 and g.out(5) == b"hello"
        assert g.in_rec(b"rec", 2) == 0
        assert f.out_rec(16, 2) == (0, b"rec", 3)
        g.close()
        assert f.closed
        f.reset()
        assert not g.closed
    finally:
        g.free()
    assert block_exists(f.name)  # an attached handle never unlinks


def test_start_sets_the_shared_indices_near_the_wrap(shared):
    f = shared(8, start=2**32 - 3)
    g = Kfifo.attach(f.name)
    assert f.in_(b"abcdefgh") == 8
    assert g.out(8) == b"abcdefgh"
    assert g.valid() and f.valid()
    g.free()


def test_attach_errors():
    with pytest.raises(FileNotFoundError):
        Kfifo.attach("kfifo-test-no-such-block")
    with pytest.raises(FileNotFoundError):
        Kfifo.attach("")
    with pytest.raises(TypeError, match="str"):
        Kfifo.attach(b"name")
    with pytest.raises(TypeError):
        Kfifo(8, shared=True, buffer=bytearray(8))
    with pytest.raises(TypeError):
        Kfifo(shared=True)
    with pytest.raises(ValueError):
        Kfifo(0, shared=True)
    with pytest.raises(ValueError):
        Kfifo(2**31 + 1, shared=True)


@pytest.mark.parametrize("contents", ["zeros", "garbage", "other_version", "short"])
def test_attach_refuses_a_block_without_a_valid_fifo(contents):
    f = Kfifo(64, shared=True)
    block = shared_memory.SharedMemory(create=True, size=4096 if contents != "short" else 64)
    try:
        if contents == "garbage":
            block.buf[:] = os.urandom(len(block.buf))
        elif contents in ("other_version", "short"):
            n = min(len(block.buf), 320)
            block.buf[:n] = _shm_bytes(f)[:n]
            if contents == "other_version":
                block.buf[4] = 99
        with pytest.raises(ValueError, match="no kfifo"):
            Kfifo.attach(block.name)
    finally:
        block.close()
        block.unlink()
        f.free()


def _shm_bytes(f):
    """The first bytes of the mapping of shared fifo *f* (a second view)."""
    b = _Block(f.name)
    try:
        return bytes(b.buf[:320])
    finally:
        b.close()


def test_the_header_holds_the_documented_layout(shared):
    f = shared(64)
    f.in_(b"abc")
    head = _shm_bytes(f)
    word = lambda off: int.from_bytes(head[off:off + 4], sys.byteorder)  # noqa: E731
    assert head[0:4] == b"kfif" if sys.byteorder == "little" else True
    assert word(4) == 3  # layout version
    assert word(28) == os.getpid() and word(32) == 0  # the producer claim: ours
    assert word(8) == 64  # size
    assert word(64) == 3 and word(128) == 0  # in, out
    assert head[256:259] == b"abc"  # the data


def test_a_handle_checks_what_the_other_side_writes(shared):
    """Indices written by another process are clamped: len() <= size(),
    out(n) returns at most n bytes from inside the buffer."""
    f = shared(64)
    b = _Block(f.name)
    try:
        b.buf[64:68] = (1000).to_bytes(4, sys.byteorder)  # in - out = 1000 > 64
        assert f.len() == 64 and f.avail() == 0 and not f.valid()
        assert len(f.out(1000)) == 64
        b.buf[64:68] = (0).to_bytes(4, sys.byteorder)
        b.buf[128:132] = (0).to_bytes(4, sys.byteorder)
        b.buf[8:12] = (1 << 31).to_bytes(4, sys.byteorder)  # the size: read once, at attach
        assert f.size() == 64 and f.in_(bytes(100)) == 64
    finally:
        b.close()


# ---- pickling ---------------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_a_shared_fifo_pickles_to_its_name(shared, protocol):
    f = shared(64)
    data = pickle.dumps(f, protocol)
    assert f.name.encode() in data and len(data) < 200
    g = pickle.loads(data)
    f.in_(b"through")
    assert g.out(7) == b"through"
    g.free()
    assert block_exists(f.name)


def test_copy_of_a_shared_fifo_is_another_handle(shared):
    f = shared(64)
    for how in (copy.copy, copy.deepcopy):
        g = how(f)
        assert g is not f and g.name == f.name
        f.in_(b"x")
        assert g.out(1) == b"x"
        g.free()


def test_a_freed_shared_fifo_does_not_pickle(shared):
    f = shared(64)
    f.free()
    with pytest.raises(ValueError, match="freed"):
        pickle.dumps(f)


# ---- free() and unlink ------------------------------------------------------------------------


def test_the_creator_unlinks_at_free_and_attached_handles_keep_working():
    f = Kfifo(64, shared=True)
    name = f.name
    g = Kfifo.attach(name)
    f.free()
    assert not block_exists(name)
    with pytest.raises(FileNotFoundError):
        Kfifo.attach(name)
    assert g.in_(b"still mapped") == 12 and g.out(12) == b"still mapped"
    g.free()


def test_the_creator_unlinks_when_collected():
    f = Kfifo(64, shared=True)
    name = f.name
    del f
    assert not block_exists(name)


def test_free_while_a_thread_waits_does_not_close_the_shared_fifo():
    f = Kfifo(64, shared=True)
    g = Kfifo.attach(f.name)
    caught = []

    def consumer():
        try:
            g.get(1, timeout=30)
        except BaseException as e:
            caught.append(e)

    t = threading.Thread(target=consumer)
    t.start()
    time.sleep(0.2)
    g.free()
    t.join(60)  # returned at all: a hang, not a busy machine's delay
    assert not t.is_alive()
    assert isinstance(caught[0], ValueError) and "freed" in str(caught[0])
    assert not f.closed  # the other processes' stream goes on
    f.free()


EXIT_SCRIPT = """
    import multiprocessing, os, sys, warnings
    import _shared_peers as peers
    from kfifo import Kfifo

    if __name__ == "__main__":
        names = []
        for method in ("fork", "spawn"):
            ctx = multiprocessing.get_context(method)
            f = Kfifo(64, shared=True)
            names.append(f.name)
            f.in_(b"hello" * 4)
            results = ctx.Queue()
            # as a Process argument
            p = ctx.Process(target=peers.attach_and_report, args=(f, results))
            p.start()
            got = results.get(timeout=60)
            p.join(60)
            assert p.exitcode == 0, p.exitcode
            assert got[0] == f.name and got[1] == b"hello", got
            # through a multiprocessing.Queue
            fifos = ctx.Queue()
            p = ctx.Process(target=peers.attach_from_queue_and_report, args=(fifos, results))
            p.start()
            fifos.put(f)
            got = results.get(timeout=60)
            p.join(60)
            assert p.exitcode == 0 and got[1] == b"hello", (p.exitcode, got)
            # the children exited normally: the block is still there
            assert os.path.exists("/dev/shm/" + f.name)
            Kfifo.attach(f.name).free()
        # a fork()ed child that frees the creator's handle and exits
        # normally (atexit hooks run) unlinks nothing
        # the queues' feeder threads may still be ending, and 3.12+ warns
        # about fork() in a threaded process; this child only frees and exits
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:
            f.free()
            sys.exit(0)
        assert os.waitpid(pid, 0)[1] == 0
        assert os.path.exists("/dev/shm/" + f.name)
        print(" ".join(names))
        # exit without free(): the creator unlinks at exit
"""


def test_normal_exit_leaves_no_block_and_no_warning():
    r = run_script(EXIT_SCRIPT)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""  # no resource tracker warning, no traceback
    names = r.stdout.split()
    assert len(names) == 2
    for name in names:
        assert not block_exists(name)


def test_a_killed_creator_leaves_no_block_behind():
    """SIGKILL: no atexit hook runs; multiprocessing's resource tracker,
    with which the creator registered the block, unlinks it."""
    r = run_script(
        """
        import os, signal, sys
        from kfifo import Kfifo
        f = Kfifo(64, shared=True)
        print(f.name, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    assert r.returncode == -signal.SIGKILL
    name = r.stdout.split()[0]
    deadline = time.monotonic() + 60  # gone at all (a busy machine is slow)
    while block_exists(name) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not block_exists(name)


# ---- streams between processes --------------------------------------------------------------


STREAMS = [
    (method, kind, side)
    for method in ("fork", "spawn")
    for kind in ("bytes", "records")
    for side in ("produce", "consume")
]


@pytest.mark.parametrize("method,kind,child_side", STREAMS, ids=["-".join(t) for t in STREAMS])
def test_checksummed_stream_between_processes(method, kind, child_side):
    """Both sides block (a 64-byte fifo for bytes, 512 for records up to
    255 bytes): the producer in put()/put_rec(), the consumer in
    get_into()/get_rec(); close() ends the stream."""
    amount, seed = (200_000, 11) if kind == "bytes" else (3000, 12)
    parent_side = "consume" if child_side == "produce" else "produce"
    c = ctx(method)
    f = Kfifo(64 if kind == "bytes" else 512, shared=True)
    results = c.Queue()
    p = c.Process(target=peers.run_side, args=(f, kind, child_side, amount, seed, results))
    p.start()
    mine = peers.SIDES[kind, parent_side](f, amount, seed)
    status, theirs = results.get(timeout=120)
    p.join(60)
    assert status == "ok", theirs
    assert p.exitcode == 0
    expected = (
        peers.expected_bytes(amount, seed) if kind == "bytes" else peers.expected_records(amount, seed)
    )
    assert mine == theirs == expected
    assert f.closed and f.is_empty()
    f.free()


def test_stream_with_the_fifo_sent_through_a_queue_under_spawn():
    c = ctx("spawn")
    f = Kfifo(256, shared=True)
    fifos, results = c.Queue(), c.Queue()
    p = c.Process(target=peers.run_side_from_queue, args=(fifos, "bytes", "produce", 100_000, 5, results))
    p.start()
    fifos.put(f)
    mine = peers.consume_bytes(f, 100_000, 5)
    status, theirs = results.get(timeout=120)
    p.join(60)
    assert status == "ok" and mine == theirs == peers.expected_bytes(100_000, 5)
    f.free()


def test_a_consumer_closing_ends_the_producers_stream():
    f = Kfifo(64, shared=True)
    p = ctx("fork").Process(target=peers.unblock_later, args=(f, "close", 0.2))
    p.start()
    with pytest.raises(BrokenPipeError):
        while True:
            f.put(b"x" * 32, timeout=30)
    p.join(30)
    f.free()


# every blocking call of the waiting issue, woken by the other process
BLOCKING = {
    "put": ("out", lambda f: f.put(b"y", timeout=30), None),
    "put_rec": ("out", lambda f: f.put_rec(b"r", 1, timeout=30), None),
    "wait_avail": ("out", lambda f: f.wait_avail(1, timeout=30), True),
    "get": ("in", lambda f: f.get(8, timeout=30), b"abcdefgh"),
    "get_into": ("in", lambda f: f.get_into(bytearray(8), timeout=30), 8),
    "get_exactly": ("in", lambda f: f.get_exactly(8, timeout=30), b"abcdefgh"),
    "get_rec": ("in_rec", lambda f: f.get_rec(1, timeout=30), b"record"),
    "records": ("in_rec", lambda f: next(f.records(1)), b"record"),
    "wait_len": ("in", lambda f: f.wait_len(8, timeout=30), True),
    "get_at_close": ("close", lambda f: f.get(8, timeout=30), b""),
}


@pytest.mark.parametrize("call", sorted(BLOCKING))
def test_every_blocking_call_is_woken_by_another_process(call):
    action, do, expected = BLOCKING[call]
    f = Kfifo(16, shared=True)
    if action == "out":
        f.in_(bytes(16))  # full: the producer's calls block
    p = ctx("fork").Process(target=peers.unblock_later, args=(f, action, 0.3))
    p.start()
    # what it returns only the peer supplies: it waited for the peer (no
    # clock: a busy machine may run this process late, or the peer)
    assert do(f) == expected
    p.join(30)
    assert p.exitcode == 0
    f.free()


# ---- a peer killed with SIGKILL --------------------------------------------------------------


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_a_killed_producer_leaves_timeouts_working_and_data_to_drain(method):
    """How the survivor learns the peer is gone: a dead process cannot
    close the fifo, so the survivor waits with timeouts and asks the
    process (Process.is_alive(), its sentinel, os.waitpid)."""
    f = Kfifo(4096, shared=True)
    p = ctx(method).Process(target=peers.produce_forever, args=(f,))
    p.start()
    assert f.wait_len(4096, timeout=60)  # the producer filled it and blocks
    taken = f.get_exactly(1000, timeout=10)
    os.kill(p.pid, signal.SIGKILL)
    p.join(30)
    assert p.exitcode == -signal.SIGKILL and not p.is_alive()
    # drain: a counting stream, continuing where the first bytes left off
    rest = f.out(f.len())
    data = taken + rest
    assert len(data) >= 4096
    assert data == bytes(k % 251 for k in range(len(data))) or _continues(data)
    # nothing more comes, and every timeout fires on time
    for call in (lambda: f.get(1, timeout=0.2), lambda: f.get_rec(1, timeout=0.2)):
        start = time.monotonic()
        with pytest.raises(TimeoutError):
            call()
        assert time.monotonic() - start >= 0.2  # no sooner than asked
    assert f.wait_len(1, timeout=0.2) is False
    f.free()


def _continues(data):
    first = data[0]
    return data == bytes((first + k) % 251 for k in range(len(data)))


def test_a_killed_consumer_leaves_the_producers_timeouts_working():
    f = Kfifo(64, shared=True)
    p = ctx("fork").Process(target=peers.consume_bytes, args=(f, 0, 0))
    p.start()
    f.put(b"z" * 64, timeout=30)
    time.sleep(0.1)
    os.kill(p.pid, signal.SIGKILL)
    p.join(30)
    f.put(b"w" * 64, timeout=0)  # fits only if the consumer took the first 64
    start = time.monotonic()
    with pytest.raises(TimeoutError):
        f.put(b"v", timeout=0.3)
    assert time.monotonic() - start >= 0.3  # no sooner than asked
    assert f.out(64) == b"w" * 64
    f.free()


# ---- a hostile peer --------------------------------------------------------------------------


def test_a_peer_scribbling_over_the_mapping_cannot_crash_or_hang_this_process():
    """The child writes random words over the indices, wait words, closed
    flag, header and data; this process keeps calling everything and
    checks the bounds of docs/spec.md 3.2 (the C tests do the same at scale)."""
    f = Kfifo(256, shared=True)
    p = ctx("fork").Process(target=peers.scribble, args=(f.name, 3.0, 7))
    p.start()
    end = time.monotonic() + 2.5
    calls = 0
    while time.monotonic() < end:
        assert f.len() <= f.size() == 256
        assert f.avail() <= 256
        assert len(f.out(100)) <= 100
        assert f.in_(b"q" * 50) <= 50
        n, data, total = f.out_rec(300, 2)
        assert len(data) <= 300
        assert f.in_rec(b"r" * 10, 1) in (0, 11)
        v1, v2 = f.out_prepare(64)
        assert len(v1) + len(v2) <= 64
        f.out_finish(len(v1) + len(v2))
        v1.release()
        v2.release()
        for wait in (lambda: f.get(10, timeout=0.01), lambda: f.get_rec(1, timeout=0.01), lambda: f.put(b"p" * 300, timeout=0.01)):
            # (a wait the peer keeps spinning shows in this thread's CPU
            # time, which a busy machine does not stretch as it does the
            # wall clock; a hung one never returns)
            start = time.thread_time()
            try:
                r = wait()
                assert r is None or len(r) <= 300
            except (TimeoutError, BrokenPipeError, ValueError):
                pass
            assert time.thread_time() - start < 2
        f.valid()
        calls += 1
    p.join(30)
    assert p.exitcode == 0 and calls > 10
    f.free()


# ---- the resource tracker and the example ---------------------------------------------------


def test_attach_does_not_register_with_the_resource_tracker(monkeypatch, shared):
    """The documented way on 3.13+ (track=False), the untracked shm_open
    before: either way, no register() (and so no unregister) call."""
    from multiprocessing import resource_tracker

    calls = []
    monkeypatch.setattr(resource_tracker, "register", lambda *a: calls.append(("register", a)))
    monkeypatch.setattr(resource_tracker, "unregister", lambda *a: calls.append(("unregister", a)))
    f = shared(64)
    assert calls and calls[0][0] == "register"  # the creator registers its block
    calls.clear()
    g = Kfifo.attach(f.name)
    h = pickle.loads(pickle.dumps(f))
    g.free()
    h.free()
    assert calls == []


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_the_processes_example_runs(method):
    example = ROOT.parent / "examples" / "processes.py"
    r = subprocess.run(
        [sys.executable, str(example), "20000", method],
        capture_output=True, text=True, timeout=120,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert "20000 records from process" in r.stdout and r.stderr == ""


# ---- hostile use of the new calls ------------------------------------------------------------


def test_a_shared_fifo_in_a_reference_cycle_is_collected_and_unlinked():
    import gc

    class Sub(Kfifo):
        pass

    f = Sub(64, shared=True)
    name = f.name
    f.me = f  # a cycle through the instance dict
    del f
    gc.collect()
    assert not block_exists(name)


def test_attach_on_a_subclass_makes_the_subclass(shared):
    class Sub(Kfifo):
        pass

    f = shared(64)
    g = Sub.attach(f.name)
    assert type(g) is Sub
    f.in_(b"sub")
    assert g.out(3) == b"sub"
    g.free()


def test_ctrl_c_interrupts_a_wait_on_a_shared_fifo():
    f = Kfifo(64, shared=True)
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        # (KeyboardInterrupt, not TimeoutError, says the signal ended it;
        # no clock: a busy machine may run the timer late, so the timeout
        # is only there to end a hang)
        f.get(1, timeout=300)
    timer.join()
    f.free()


def test_exit_with_daemon_threads_waiting_on_shared_fifos():
    """Daemon threads asleep in get()/put() on the creator's handle and on
    an attached one when the interpreter exits: no hang, no crash, no
    block left, nothing on stderr."""
    r = run_script(
        """
        import threading, time
        from kfifo import Kfifo
        f = Kfifo(16, shared=True)
        g = Kfifo.attach(f.name)
        g.in_(bytes(16))
        threading.Thread(target=f.put, args=(b"x",), daemon=True).start()
        h = Kfifo(16, shared=True)
        threading.Thread(target=h.get, args=(1,), daemon=True).start()
        time.sleep(0.3)
        print(f.name, h.name)
        """,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    for name in r.stdout.split():
        assert not block_exists(name)
