# SPDX-License-Identifier: MIT
"""Shared fifos under a careless or hostile peer, and their clean-up: a
block is backed when it is created, the sealed form cannot be shrunk, and
no block and no warning is left after any normal exit (creator, fork and
spawn children, the creator leaving first).  See docs/shared-memory.md for the
threat model these tests hold."""
import gc
import multiprocessing as mp
import os
import pickle
import shutil
import subprocess
import sys
import textwrap

import pytest

from _isolated import assert_clean, run_isolated
from kfifo import Kfifo

SHM = "/dev/shm"

pytestmark = pytest.mark.skipif(not os.path.isdir(SHM), reason="no /dev/shm")


def kfifo_blocks():
    return {n for n in os.listdir(SHM) if n.startswith("kfifo_")}


# ---- backed at creation ----------------------------------------------------------


def test_a_named_block_is_backed_when_it_is_created():
    # tmpfs reserves nothing on ftruncate; the pages must exist at once
    f = Kfifo(1 << 22, shared=True)
    try:
        st = os.stat(os.path.join(SHM, f.name))
        assert st.st_blocks * 512 >= f.size()
    finally:
        f.free()


def test_a_fifo_bigger_than_dev_shm_is_an_oserror_at_creation_not_sigbus():
    # a private 1 MiB /dev/shm (a mount namespace); creating a 4 MiB fifo
    # there used to succeed, and the first put() of its far pages died of
    # SIGBUS
    if shutil.which("unshare") is None:
        pytest.skip("needs unshare(1) to mount a small /dev/shm")
    probe = subprocess.run(
        ["unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=1m tmpfs /dev/shm"],
        capture_output=True,
    )
    if probe.returncode != 0:
        pytest.skip("cannot mount a private tmpfs here (needs CAP_SYS_ADMIN)")
    code = """
        import os, sys, errno
        from kfifo import Kfifo
        try:
            f = Kfifo(4 << 20, shared=True)
        except OSError as e:
            assert e.errno == errno.ENOSPC, e
            print("OSError")
        else:
            f.put(b"x" * (4 << 20), timeout=0)
            print("stored")
        print(sorted(n for n in os.listdir("/dev/shm")))
    """
    script = "mount -t tmpfs -o size=1m tmpfs /dev/shm && exec %s -c '%s'" % (
        sys.executable,
        textwrap.dedent(code).replace("'", "'\\''"),
    )
    proc = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stdout.split("\n")[:2] == ["OSError", "[]"]


# ---- the sealed form ---------------------------------------------------------------


def test_sealed_needs_shared():
    with pytest.raises(TypeError, match="shared=True"):
        Kfifo(64, sealed=True)


def test_a_sealed_fifo_has_no_name_and_works_like_any_fifo():
    with Kfifo(100, shared=True, sealed=True) as f:
        assert f.name is None
        assert f.size() == 128
        assert f.in_rec(b"abc", 1) == 0
        assert f.out_rec(8, 1) == (0, b"abc", 3)


def _shrink_every_memfd(f, q):
    """Child: try to shrink every kfifo memfd it holds, then produce."""
    results = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith("/memfd:kfifo"):
            try:
                os.ftruncate(int(fd), 0)
                results.append("shrunk")
            except PermissionError:
                results.append("refused")
    f.put(b"from the child", timeout=10)
    q.put(results)


@pytest.mark.parametrize("method", ["fork", "spawn", "forkserver"])
def test_a_sealed_fifo_reaches_children_and_they_cannot_shrink_it(method):
    ctx = mp.get_context(method)
    f = Kfifo(4096, shared=True, sealed=True)
    q = ctx.Queue()
    p = ctx.Process(target=_shrink_every_memfd, args=(f, q))
    p.start()
    try:
        results = q.get(timeout=60)
        p.join(60)
        assert p.exitcode == 0
        assert results and set(results) == {"refused"}
        # our mapping is whole: reading every page after the attempt is fine
        assert f.get(64, timeout=10) == b"from the child"
        a, b = f.in_prepare(4096)
        assert len(a) + len(b) == 4096
        del a, b
    finally:
        f.free()


def _memfds_of_kfifo():
    fds = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}").startswith("/memfd:kfifo"):
                fds.append(int(fd))
        except OSError:
            pass
    return fds


def test_attach_by_file_descriptor_duplicates_it():
    before = set(_memfds_of_kfifo())
    f = Kfifo(64, shared=True, sealed=True)
    fds = set(_memfds_of_kfifo()) - before  # the block's, and its mmap's dup
    fd = min(fds)
    g = Kfifo.attach(fd)
    try:
        assert g.name is None and g.size() == 64
        assert g.in_(b"by descriptor") == 13
        assert f.out(13) == b"by descriptor"
    finally:
        g.free()
    os.fstat(fd)  # the caller's descriptor is still open
    f.free()
    assert set(_memfds_of_kfifo()) == before


def test_attach_refuses_a_descriptor_that_holds_no_fifo():
    fd = os.memfd_create("not-a-fifo")
    try:
        with pytest.raises(ValueError, match="holds no kfifo"):
            Kfifo.attach(fd)
        os.ftruncate(fd, 4096)
        with pytest.raises(ValueError):
            Kfifo.attach(fd)
    finally:
        os.close(fd)


# ---- clean-up: no leftover, no warning -----------------------------------------------


def test_a_block_created_in_a_child_is_gone_when_the_child_exits(tmp_path):
    # used to (fork): it stayed until the parent exited, and the resource
    # tracker then warned about a leaked shared_memory object
    script = tmp_path / "children.py"
    script.write_text(textwrap.dedent(
        """
        import os, multiprocessing as mp
        from kfifo import Kfifo

        KEEP = []

        def make(q):
            f = Kfifo(64, shared=True)
            KEEP.append(f)         # never freed: alive when the child leaves
            q.put(f.name)

        if __name__ == "__main__":
            for method in ("fork", "spawn", "forkserver"):
                ctx = mp.get_context(method)
                q = ctx.Queue()
                p = ctx.Process(target=make, args=(q,))
                p.start()
                name = q.get(timeout=60)
                p.join(60)
                assert p.exitcode == 0
                assert not os.path.exists("/dev/shm/" + name), (method, name)
            print("ok")
        """
    ))
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert_clean(proc)
    assert proc.stdout.strip() == "ok"


def test_the_creator_exiting_first_leaves_nothing_and_warns_nowhere():
    proc = run_isolated(
        """
        import os, subprocess, sys, time
        from kfifo import Kfifo
        f = Kfifo(64, shared=True)
        f.in_(b"hello")
        other = subprocess.Popen(
            [sys.executable, "-c",
             "import sys, time; from kfifo import Kfifo; "
             "g = Kfifo.attach(sys.argv[1]); print('attached', flush=True); "
             "sys.stdin.readline(); print(g.out(5)); g.close()",
             f.name],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert other.stdout.readline().strip() == "attached"
        f.close()   # the creator leaves first, without free()
        print(f.name)
        sys.stdout.flush()
        os.environ["KFIFO_OTHER_PID"] = str(other.pid)
        import atexit
        def finish_other():
            # after this process's own clean-up has run
            out, err = other.communicate("go\\n", timeout=60)
            assert other.returncode == 0 and err == "", (other.returncode, err)
            assert out.strip() == "b'hello'", out
        atexit.register(finish_other)
        """
    )
    assert_clean(proc)
    name = proc.stdout.split()[0]
    assert not os.path.exists(os.path.join(SHM, name))


def test_a_shared_fifo_in_a_cycle_at_exit_warns_nowhere():
    # used to: "Exception ignored in: <function SharedMemory.__del__>
    # ... BufferError: memoryview has 1 exported buffer"
    proc = run_isolated(
        """
        from kfifo import Kfifo
        class Holder(Kfifo):
            pass
        f = Holder(64, shared=True)
        g = Kfifo.attach(f.name)
        f.me = f
        f.other = g
        cycle = [f, g]
        cycle.append(cycle)
        s = Kfifo(64, shared=True, sealed=True)
        s.in_(b"x")
        print(f.name)
        """
    )
    assert_clean(proc)
    assert not os.path.exists(os.path.join(SHM, proc.stdout.split()[0]))


def test_collecting_a_cycle_that_holds_an_attach_handle_warns_nowhere():
    proc = run_isolated(
        """
        import gc, sys
        from kfifo import Kfifo
        seen = []
        sys.unraisablehook = seen.append
        f = Kfifo(64, shared=True)
        for _ in range(50):
            g = Kfifo.attach(f.name)
            loop = [g]
            loop.append(loop)
            del g, loop
            gc.collect()
        f.free()
        assert seen == [], [s.exc_value for s in seen]
        print("ok")
        """
    )
    assert_clean(proc)


def test_a_block_created_and_freed_in_this_process_is_unlinked_at_once():
    f = Kfifo(64, shared=True)
    name = f.name
    assert name in kfifo_blocks()
    g = pickle.loads(pickle.dumps(f))
    g.free()  # another handle: never unlinks
    assert name in kfifo_blocks()
    f.free()
    gc.collect()
    assert name not in kfifo_blocks()


def test_attach_by_descriptor_refuses_an_unsealed_block_unless_trusted():
    # the sender of an unsealed memfd keeps a descriptor and can shrink the
    # block under the receiver (SIGBUS): refused unless trusted, and the
    # fifo says whether it is sealed
    f = Kfifo(64, shared=True)  # a named block: no seals
    fd = os.open("/dev/shm/" + f.name, os.O_RDWR)
    try:
        with pytest.raises(ValueError, match="not sealed against shrinking.*trust_unsealed=True"):
            Kfifo.attach(fd)
        g = Kfifo.attach(fd, trust_unsealed=True)
        assert g.sealed is False and g.in_(b"ok") == 2 and f.out(2) == b"ok"
        g.free()
    finally:
        os.close(fd)
    assert f.sealed is False
    f.free()
    # an unsealed memfd with a valid fifo in it (a copy of a sealed one)
    before = set(_memfds_of_kfifo())
    s = Kfifo(64, shared=True, sealed=True)
    assert s.sealed is True
    src = min(set(_memfds_of_kfifo()) - before)
    m = os.memfd_create("unsealed-copy")
    try:
        size = os.fstat(src).st_size
        os.ftruncate(m, size)
        os.pwrite(m, os.pread(src, size, 0), 0)
        with pytest.raises(ValueError, match="not sealed"):
            Kfifo.attach(m)
        t = Kfifo.attach(m, trust_unsealed=True)
        assert t.sealed is False and t.size() == 64
        t.free()
        with pytest.raises(TypeError):
            Kfifo.attach(m, True)  # keyword only
    finally:
        os.close(m)
    g = Kfifo.attach(src)  # sealed: no trust needed
    assert g.sealed is True
    g.free()
    s.free()


# ---- the private block type -------------------------------------------------------------------


def test_a_block_stays_mapped_while_a_view_of_it_is_alive():
    from kfifo._kfifo import _Block

    with pytest.raises(TypeError):
        _Block.__new__(_Block)  # no name: refused, nothing made
    f = Kfifo(64, shared=True)
    try:
        b = _Block(f.name)
        view = b.buf
        with pytest.raises(BufferError):
            b.close()
        assert view[8:12] == (64).to_bytes(4, sys.byteorder)  # still mapped
        view.release()
        b.close()
        assert b.name is None and b.sealed is False
        with pytest.raises(ValueError, match="closed"):
            b.buf
        b.close()  # a second close is harmless
    finally:
        f.free()
