# SPDX-License-Identifier: MIT
"""Crash-safe runs: the fifo under test lives in a child process.

A C ring that writes past its buffer, or is handed a count it trusts, can
kill the process it runs in; run in the test process, it takes the test
run down with nothing but a stack of the tester's own frames.  With
``isolate=True`` (the default for :class:`~kfifo.testing.CFifo`) every
example forks a child that makes the fifo and answers the machine's calls
over a pipe.  When the child dies, the call that killed it raises
:class:`RingCrashed` in the machine, which reports it like any other
mismatch: Hypothesis shrinks the sequence (a new child per example), and
the printed reproduction ends with the call that crashed, which crashes a
Python process the same way when run.

The child fills fresh ``malloc`` memory with a fixed byte (glibc's
``M_PERTURB``), so a ring that returns bytes it never stored returns the
same ones on every replay: its answers are the ring's bug, not a flaky
test; the printed reproduction does the same.
"""
from __future__ import annotations

import os
import pickle
import select
import signal
import struct
from typing import Any, Callable, Dict, Optional, Tuple

__all__ = ["RingCrashed", "IsolatedFifo", "PERTURB_BYTE", "perturb_malloc", "PERTURB_SRC"]

#: The byte glibc fills fresh malloc memory with in the child (``M_PERTURB``
#: of 0xa5: allocations read as 0x5a until written).
PERTURB_BYTE = 0xA5
#: The same, as a line of a reproduction.
PERTURB_SRC = ("import ctypes; ctypes.CDLL(None).mallopt(-6, 0xa5)  "
               "# as the tester ran it: fresh malloc memory reads as 0x5a")
#: How long a call may take before the ring is reported as hung (seconds):
#: a safety net for a ring that loops forever, far above any real call.
HANG_SECONDS = 120.0


def perturb_malloc() -> None:
    """Make fresh malloc memory read as a fixed byte (glibc only; else nothing)."""
    try:
        import ctypes

        ctypes.CDLL(None).mallopt(-6, PERTURB_BYTE)  # M_PERTURB
    except (OSError, AttributeError):  # pragma: no cover - not glibc
        pass


class RingCrashed(Exception):
    """The fifo under test killed the process it ran in (or hung)."""

    def __init__(self, how: str) -> None:
        super().__init__(how)
        self.how = how


def _send(fd: int, obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    data = struct.pack("<Q", len(data)) + data
    while data:
        data = data[os.write(fd, data):]


def _recv(fd: int, timeout: Optional[float] = None) -> Any:
    head = _read(fd, 8, timeout)
    if head is None:
        raise EOFError
    body = _read(fd, struct.unpack("<Q", head)[0], timeout)
    if body is None:
        raise EOFError
    return pickle.loads(body)


def _read(fd: int, n: int, timeout: Optional[float]) -> Optional[bytes]:
    chunks = []
    while n:
        if timeout is not None:
            ready, _, _ = select.select([fd], [], [], timeout)
            if not ready:
                raise TimeoutError
        chunk = os.read(fd, min(n, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _portable(exc: BaseException) -> BaseException:
    """``exc`` if it pickles, else a RuntimeError that says what it was."""
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:
        return RuntimeError(f"{type(exc).__name__}: {exc}")


def _serve(factory: Callable[..., Any], rfd: int, wfd: int) -> None:  # pragma: no cover - in the child
    import faulthandler

    faulthandler.disable()  # the parent reports the crash; no stack of the child
    try:  # a core file per crash would cost seconds each while shrinking
        import resource

        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    except (ImportError, ValueError, OSError):  # pragma: no cover
        pass
    perturb_malloc()
    fifo: Any = None
    while True:
        try:
            msg = _recv(rfd)
        except EOFError:
            return
        name, args, kwargs = msg
        after = kwargs.pop("__after__", ())

        def queries() -> list:
            """Several argument-less calls, one answer each."""
            answers = []
            for one in after:
                try:
                    answers.append((len(fifo) if one == "__len__" else getattr(fifo, one)(), None))
                except BaseException as exc:
                    answers.append((None, _portable(exc)))
            return answers

        if name == "__batch__":
            after = args
            _send(wfd, (("ok", queries()), []))
            continue
        if name == "__drop__":  # the example is over; this child may serve the next
            fifo = None
            _send(wfd, (("ok", None), []))
            continue
        try:
            if name == "__new__":
                fifo = factory(*args, **kwargs)
                result: Any = None
            elif name == "out_into":
                buf = bytearray(args[0])
                result = (fifo.out_into(buf), bytes(buf))
            elif name == "__len__":
                result = len(fifo)
            else:
                result = getattr(fifo, name)(*args)
            reply: Tuple[str, Any] = ("ok", result)
        except BaseException as exc:  # sent to the parent, raised there
            reply = ("exc", _portable(exc))
        # The queries the machine will ask after this call, answered now:
        # one round trip instead of two (a ring is often slow to schedule).
        _send(wfd, (reply, queries() if fifo is not None else []))


#: factory -> children waiting for their next example: (pid, write fd, read fd).
_IDLE: Dict[Any, list] = {}
#: The parent's ends of every child's pipes: a new child closes them, or a
#: child waiting for the end of its input would never see it.
_PARENT_FDS: set = set()


class IsolatedFifo:
    """A fifo made by ``factory(*args, **kwargs)`` in a child process; every
    method call is forwarded to it, and a call during which the child dies
    raises :class:`RingCrashed`."""

    def __init__(self, factory: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        self._factory = factory
        self.queries: Tuple[str, ...] = ()
        self._answered: Optional[list] = None
        try:
            idle = _IDLE.get(factory)
        except TypeError:
            idle = None
        while idle:  # a child that ended its last example cleanly serves this one
            self._pid, self._w, self._r = idle.pop()
            try:
                self._call("__new__", args, kwargs)
                return
            except RingCrashed:
                continue
        child_r, parent_w = os.pipe()
        parent_r, child_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            code = 0
            try:
                os.close(parent_w)
                os.close(parent_r)
                for fd in _PARENT_FDS:
                    try:
                        os.close(fd)
                    except OSError:
                        pass
                _serve(factory, child_r, child_w)
            except BaseException:
                code = 70
            finally:
                os._exit(code)
        os.close(child_r)
        os.close(child_w)
        self._pid: Optional[int] = pid
        self._w, self._r = parent_w, parent_r
        _PARENT_FDS.update((parent_w, parent_r))
        self._call("__new__", args, kwargs)

    def _call(self, name: str, args: Tuple[Any, ...], kwargs: Optional[Dict[str, Any]] = None) -> Any:
        if self._pid is None:
            raise RingCrashed("the ring's process is gone (it crashed earlier)")
        args = tuple(bytes(a) if isinstance(a, memoryview) else a for a in args)
        self._answered = None
        kwargs = dict(kwargs or {})
        if name != "__batch__" and self.queries:
            kwargs["__after__"] = self.queries
        try:
            _send(self._w, (name, args, kwargs))
            (status, value), answered = _recv(self._r, HANG_SECONDS)
            self._answered = answered or None
        except (EOFError, BrokenPipeError):
            raise RingCrashed(self._reap()) from None
        except TimeoutError:
            self._kill()
            raise RingCrashed(f"hung: no answer within {HANG_SECONDS:g} s") from None
        if status == "exc":
            raise value
        return value

    def _reap(self) -> str:
        pid, self._pid = self._pid, None
        assert pid is not None
        _, status = os.waitpid(pid, 0)
        self._close_fds()
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            try:
                name = signal.Signals(sig).name
            except ValueError:
                name = f"signal {sig}"
            return f"killed by {name}"
        return f"exited with status {os.WEXITSTATUS(status)}"

    def _kill(self) -> None:
        if self._pid is not None:
            try:
                os.kill(self._pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self._reap()

    def _close_fds(self) -> None:
        for fd in (self._w, self._r):
            _PARENT_FDS.discard(fd)
            try:
                os.close(fd)
            except OSError:
                pass

    def close(self) -> None:
        """Drop the fifo; keep the child for the next example of the same
        factory (a fork per example costs more than the calls on a busy
        machine), or end it."""
        if self._pid is None:
            return
        try:
            self.queries = ()
            self._call("__drop__", ())
        except Exception:  # crashed freeing it, or gone: no reuse
            self._kill()
            return
        try:
            _IDLE.setdefault(self._factory, []).append((self._pid, self._w, self._r))
        except TypeError:  # an unhashable factory: no reuse
            self._kill()
        self._pid = None

    def __del__(self) -> None:
        try:
            self._kill()
        except Exception:
            pass

    def batch(self, names: "list[str]") -> "list[Tuple[Any, Optional[BaseException]]]":
        """``(result, exception)`` of each argument-less call of ``names``, in
        one round trip, or none when they are :attr:`queries` and were
        answered after the last call; if the ring crashes, every answer is
        the crash."""
        if tuple(names) == self.queries and self._answered is not None:
            answered, self._answered = self._answered, None
            return answered
        try:
            return list(self._call("__batch__", tuple(names)))
        except RingCrashed as exc:
            return [(None, exc)] * len(names)

    def __len__(self) -> int:
        return int(self._call("__len__", ()))

    def out_into(self, buf: Any) -> int:
        view = memoryview(buf).cast("B")
        ret, data = self._call("out_into", (bytes(view),))
        view[:] = data
        return int(ret)

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("_"):
            raise AttributeError(name)

        def method(*args: Any) -> Any:
            return self._call(name, args)
        method.__name__ = name
        return method
