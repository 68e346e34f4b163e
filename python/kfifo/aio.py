# SPDX-License-Identifier: MIT
"""asyncio face of :class:`kfifo.Kfifo`: the blocking calls as coroutines.

>>> import asyncio, kfifo
>>> from kfifo.aio import AsyncKfifo
>>> async def main():
...     f = kfifo.Kfifo(64)
...     af = AsyncKfifo(f)
...     await af.put(b"hello")
...     return await af.get(64)
>>> asyncio.run(main())
b'hello'

``AsyncKfifo(f)`` is a view of a fifo, as janus's ``async_q`` is of its
queue: the same names as the blocking calls of ``Kfifo`` (put, get,
get_into, get_exactly, put_rec, get_rec, put_recs, get_recs, records,
wait_avail, wait_len, put_frame, get_frame, get_frame_into), with the same arguments, results, errors and end
of stream, but awaited.  The sync fifo stays one type, and code moves between the two faces by
adding or removing ``await``.  (``Kfifo`` is a C type without a ``__dict__``
or weak references, so it cannot cache a view of itself: make one view per
fifo and share it among the tasks.)

How a call waits, without a thread: it first tries the non-blocking form
(the sync call with ``timeout=0``); only when that finds nothing does it
register, in the running loop, the fifo's descriptor for that direction
(:meth:`kfifo.Kfifo.notifier`: "data" for the get side, "room" for the put
side), armed before it tries again, and then await a future that the
loop's reader callback resolves when the descriptor becomes readable.
One reader per loop, view and direction wakes every task that waits
there; it stays registered while tasks use it and is removed (and its
descriptor closed) when none waits any more, when the fifo is freed and
when a waiting task is cancelled or its loop closes.

Cancellation is exact: a call takes or stores nothing at an ``await``, only
between them, so a cancelled ``get``/``get_into``/``get_exactly``/
``get_rec``/``get_recs`` took nothing, and a cancelled ``put_rec`` stored
nothing (a record is stored whole).  A ``put`` streams, and ``put_recs``
stores record after record, so either may have stored part of its data
when it is cancelled: pass ``progress=Progress()`` and read
``progress.stored`` afterwards (a cancelled task's ``CancelledError`` is
re-created by asyncio, so an attribute on it would not reach the caller).
"""
from __future__ import annotations

import asyncio
import errno
import math
import operator
import time
import weakref
from typing import TYPE_CHECKING, AsyncIterator, Callable, Iterable, List, Literal, Optional, Set, Tuple, TypeVar

from kfifo import Empty, Full, Kfifo, Notifier

if TYPE_CHECKING:
    from kfifo import _Buffer, _RecSize, _WaitRecSize, _WritableBuffer

    _Direction = Literal["data", "room"]

__all__ = ["AsyncKfifo", "Progress"]

_T = TypeVar("_T")
_NO_LIMIT = 1e9  # seconds; as in the sync calls, a longer timeout is no limit
#: how often a call retries when it has no notifier to wait on (seconds)
_POLL = 0.01
#: the notifier cannot be had, for reasons a peer or the system causes, not
#: the caller: every slot of a shared fifo taken (EBUSY), a block whose
#: header says it has no slots (EOPNOTSUPP, a peer can clear the flag), no
#: notifiers on this system (ENOSYS), no descriptor or memory left.  The
#: sync calls wait on the futex then and answer as always (the data, or
#: TimeoutError at the deadline); the coroutines poll, and answer the same.
_NO_NOTIFIER = frozenset({errno.EBUSY, errno.EOPNOTSUPP, errno.ENOSYS, errno.EMFILE,
                          errno.ENFILE, errno.ENOMEM, errno.ENOBUFS})


class Progress:
    """What a :meth:`AsyncKfifo.put` or :meth:`AsyncKfifo.put_recs` stored so far.

    Pass one as ``progress=``.  ``stored`` is the count of bytes (``put``)
    or whole records (``put_recs``) the call stored, updated before every
    ``await`` of the call, so after a cancellation (``task.cancel()``,
    ``asyncio.timeout()``, ``wait_for``, a TaskGroup) it says exactly how
    much is in the fifo; ``total`` is the length of the data (the count of
    records).
    """

    __slots__ = ("stored", "total")

    def __init__(self) -> None:
        self.stored = 0
        self.total = 0

    def __repr__(self) -> str:
        return f"<kfifo.aio.Progress stored={self.stored} total={self.total}>"


def _deadline(timeout: object, method: str) -> Optional[float]:
    """timeout in seconds -> a deadline in time.monotonic(), None for no limit.

    The same rules and messages as the sync calls (section 3.4 of the
    specification, installed as ``share/doc/kfifo/spec.md`` under ``sys.prefix``).  Not
    the loop's clock: uvloop's counts whole milliseconds, and a timeout must
    never end early.
    """
    if timeout is None:
        return None
    if isinstance(timeout, bool):
        raise TypeError(
            f"Kfifo.{method}(): timeout must be a number of seconds or None, not bool "
            "(queue.Queue's block argument has no equivalent here: use timeout=0 to not wait)"
        )
    if isinstance(timeout, float):
        t = timeout
        if math.isnan(t):
            raise ValueError(f"Kfifo.{method}(): timeout must be a number of seconds, not nan")
    elif isinstance(timeout, int) or hasattr(type(timeout), "__index__"):
        i = operator.index(timeout)  # type: ignore[arg-type]
        t = -1.0 if i < 0 else (float(i) if i < _NO_LIMIT else math.inf)
    else:
        raise TypeError(
            f"Kfifo.{method}(): timeout must be a number of seconds or None, not {type(timeout).__name__}"
        )
    if t < 0:
        raise ValueError(f"Kfifo.{method}(): timeout must not be negative, got {timeout!r}")
    if t >= _NO_LIMIT:
        return None
    return time.monotonic() + t


def _put_error(kind: type, message: str, stored: int) -> BaseException:
    exc: BaseException = kind(message)
    exc.stored = stored  # type: ignore[attr-defined]
    return exc


def _left(deadline: Optional[float], timeout: Optional[float]) -> Optional[float]:
    """The time left until ``deadline`` as a timeout (0 stays 0, no deadline is None)."""
    if deadline is None or timeout == 0:
        return None if deadline is None else 0
    return max(0.0, deadline - time.monotonic())


def _expire(fut: "asyncio.Future[bool]") -> None:
    if not fut.done():
        fut.set_result(False)


class _Waker:
    """One loop's reader of one fifo direction, shared by the tasks waiting there.

    It owns a notifier, armed for its whole life, whose descriptor the loop
    watches.  ``Kfifo.free()`` detaches the notifier (readable for ever, the
    descriptor still open), so the reader sees it, takes itself down and
    wakes the tasks, whose retries raise the freed fifo's ``ValueError``.

    Without a notifier (none to be had, see ``_NO_NOTIFIER``, or it lost its
    slot and found none free) the tasks poll every ``_POLL`` seconds: the
    same answers as the sync calls, later.
    """

    __slots__ = ("_view", "_loop", "_direction", "_notifier", "_fd", "_futures", "_users",
                 "_idle_check", "_polling", "__weakref__")

    def __init__(self, view: AsyncKfifo, loop: asyncio.AbstractEventLoop, direction: _Direction) -> None:
        self._view = view
        self._loop = loop
        self._direction = direction
        self._futures: Set[asyncio.Future[bool]] = set()
        self._users = 0
        self._idle_check = False
        self._polling = False
        self._notifier: Optional[Notifier] = None
        self._fd = -1
        try:
            n = view.fifo.notifier(direction)
        except OSError as e:
            if e.errno not in _NO_NOTIFIER:
                raise
            self._polling = True
            return
        try:
            n.arm()
            self._fd = n.fileno()
            loop.add_reader(self._fd, self._ready)
        except OSError as e:
            n.close()
            self._fd = -1
            if e.errno not in _NO_NOTIFIER:
                raise
            self._polling = True
            return
        except BaseException:
            n.close()
            raise
        self._notifier = n

    def _ready(self) -> None:
        n = self._notifier
        if n is None or n.closed or self._view.fifo.is_freed():
            self.release()
        else:
            n.clear()
            if not n.armed:
                # lost its slot, none free: the descriptor stays readable;
                # poll (wait()) instead of spinning on it until a clear()
                # there claims a slot again
                self._loop.remove_reader(self._fd)
                self._polling = True
        for fut in self._futures:
            if not fut.done():
                fut.set_result(True)

    def _repoll(self) -> None:
        """Polling with a notifier: try to claim a slot again."""
        n = self._notifier
        if n is None or n.closed or self._fd < 0:
            return
        n.clear()
        if n.armed:
            self._polling = False
            self._loop.add_reader(self._fd, self._ready)

    async def wait(self, deadline: Optional[float]) -> None:
        """Until the descriptor is readable, the deadline passes or the call is cancelled."""
        loop = self._loop
        fut: asyncio.Future[bool] = loop.create_future()
        self._futures.add(fut)
        timer = None
        n = self._notifier
        if not self._polling and n is not None and self._fd >= 0 and not n.armed:
            # its slot was taken (a peer judged it dead) since the last
            # wake-up: no signal comes, poll until a clear() claims one
            self._loop.remove_reader(self._fd)
            self._polling = True
        if self._polling:
            self._repoll()
        if self._polling:
            left = _POLL if deadline is None else min(_POLL, max(0.0, deadline - time.monotonic()))
            timer = loop.call_later(left, _expire, fut)
        elif deadline is not None:
            timer = loop.call_later(max(0.0, deadline - time.monotonic()), _expire, fut)
        try:
            await fut
        finally:
            self._futures.discard(fut)
            if timer is not None:
                timer.cancel()

    def enter(self) -> None:
        self._users += 1

    def leave(self, done: bool) -> None:
        """A task stops waiting: ``done`` when it leaves with its result.

        A task that got its result usually calls again at once (a consumer
        in a loop), so the reader is kept until the loop's next turn; one
        that leaves by an exception (cancelled, timed out, its loop closing)
        takes the reader down now when it was the last.
        """
        self._users -= 1
        if self._users:
            return
        if not done:
            self.release()
        elif not self._idle_check:
            self._idle_check = True
            try:
                self._loop.call_soon(self._release_if_idle)
            except RuntimeError:  # the loop is closed
                self.release()

    def _release_if_idle(self) -> None:
        self._idle_check = False
        if not self._users:
            self.release()

    def release(self) -> None:
        """Remove the reader, then close the notifier; idempotent."""
        wakers = self._view._wakers
        if wakers.get((self._loop, self._direction)) is self:
            del wakers[(self._loop, self._direction)]
        n, self._notifier = self._notifier, None
        if self._fd < 0:
            if n is not None:
                n.close()
            return
        try:
            if not self._loop.is_closed():
                self._loop.remove_reader(self._fd)
        finally:
            self._fd = -1
            if n is not None:
                n.close()


class _Session:
    """A call's use of a waker: ``with`` it around the retry loop."""

    __slots__ = ("_view", "_direction", "waker")

    def __init__(self, view: AsyncKfifo, direction: _Direction) -> None:
        self._view = view
        self._direction = direction

    def __enter__(self) -> _Waker:
        loop = asyncio.get_running_loop()
        key = (loop, self._direction)
        w = self._view._wakers.get(key)
        if w is None:
            w = self._view._wakers[key] = _Waker(self._view, loop, self._direction)
        w.enter()
        self.waker = w
        return w

    def __exit__(self, exc_type: Optional[type], *rest: object) -> None:
        self.waker.leave(exc_type is None)


class AsyncKfifo:
    """An asyncio view of a :class:`kfifo.Kfifo` (ordinary or shared).

    Its coroutines are the fifo's blocking calls: same arguments, results,
    errors (the messages name the sync call) and end of stream; ``timeout``
    in seconds, ``None`` without limit, ``0`` only tries.  Any number of
    tasks of any number of loops may wait on one view; for the data itself
    the fifo's mode holds: processes beyond one producer (consumer) need a
    fifo made with ``producers='many'`` (``consumers='many'``), and with it
    every ``get*`` / ``put*`` here is exactly-once across all of them (a
    consumer that finds the data it woke for taken by another waits again).
    """

    __slots__ = ("_fifo", "_wakers", "__weakref__")

    def __init__(self, fifo: Kfifo) -> None:
        if not isinstance(fifo, Kfifo):
            raise TypeError(f"AsyncKfifo() needs a kfifo.Kfifo, not {type(fifo).__name__}")
        self._fifo = fifo
        # weak: while its loop runs, a waker is held by the loop's reader
        # (and holds the futures, so the tasks, that wait on it); once the
        # loop is closed without cancelling them, nothing holds it but
        # those tasks, and collecting them closes its descriptors
        self._wakers: weakref.WeakValueDictionary[Tuple[asyncio.AbstractEventLoop, str], _Waker]
        self._wakers = weakref.WeakValueDictionary()

    @property
    def fifo(self) -> Kfifo:
        """The fifo this view waits on (for the calls that never wait)."""
        return self._fifo

    def __repr__(self) -> str:
        return f"<kfifo.aio.AsyncKfifo of {self._fifo!r}>"

    def close(self) -> None:
        """``Kfifo.close()``: end of stream; wakes every waiting task."""
        self._fifo.close()

    # ``async with AsyncKfifo(f) as af:`` (or ``with``) leaves as ``with f:``
    # does: it ends the stream for the peer, then frees the fifo's handle
    # (``with kfifo.freeing(af.fifo):`` frees without closing)
    def __enter__(self) -> AsyncKfifo:
        self._fifo.__enter__()  # refuses a freed fifo
        return self

    def __exit__(self, exc_type: Optional[type], exc: Optional[BaseException], tb: object) -> Literal[False]:
        return self._fifo.__exit__(exc_type, exc, tb)  # type: ignore[arg-type]

    async def __aenter__(self) -> AsyncKfifo:
        return self.__enter__()

    async def __aexit__(self, exc_type: Optional[type], exc: Optional[BaseException], tb: object) -> Literal[False]:
        return self.__exit__(exc_type, exc, tb)

    @property
    def closed(self) -> bool:
        return self._fifo.closed

    @property
    def producers(self) -> str:
        """The fifo's mode on the producer side, ``'one'`` or ``'many'``
        (``Kfifo.producers``)."""
        return self._fifo.producers

    @property
    def consumers(self) -> str:
        """The fifo's mode on the consumer side, ``'one'`` or ``'many'``
        (``Kfifo.consumers``)."""
        return self._fifo.consumers

    async def _retry(self, direction: _Direction, attempt: Callable[[], _T],
                     deadline: Optional[float], on_timeout: Callable[[], BaseException]) -> _T:
        """The no-lost-wake-up loop: arm; { try; wait; } until attempt() answers.

        ``attempt`` returns the result, or raises TimeoutError for "not yet".
        """
        with _Session(self, direction) as waker:
            while True:
                try:
                    return attempt()
                except TimeoutError:
                    pass
                if deadline is not None and time.monotonic() >= deadline:
                    raise on_timeout()
                await waker.wait(deadline)

    async def _call(self, direction: _Direction, method: str, attempt: Callable[[], _T],
                    timeout: Optional[float],
                    on_timeout: Optional[Callable[[], BaseException]] = None) -> _T:
        """A blocking call: check the timeout, try once, then wait and retry.

        The first try is the sync call's own (so its checks and errors);
        it answers without any system call when it need not wait.
        """
        deadline = _deadline(timeout, method)
        try:
            return attempt()
        except TimeoutError:
            if timeout == 0:
                raise
        kind = Empty if direction == "data" else Full
        return await self._retry(direction, attempt, deadline,
                                 on_timeout or (lambda: kind(f"Kfifo.{method}(): timed out")))

    # ---- consumer side ----------------------------------------------------------

    async def get(self, n: int, timeout: Optional[float] = None) -> bytes:
        """Wait for a stored byte, then take up to ``n`` (``b""`` at end of stream)."""
        fifo = self._fifo
        return await self._call("data", "get", lambda: fifo.get(n, 0), timeout)

    async def get_into(self, buffer: _WritableBuffer, timeout: Optional[float] = None, whole: bool = False) -> int:
        """``get`` into a writable buffer; returns the count (0 at end of stream).

        ``whole=True`` fills all of it, as the sync call: a buffer that fits
        the fifo all or nothing, a longer one streaming (``kfifo.Empty`` or
        ``EOFError`` part way carry ``taken``, the bytes already written).
        """
        fifo = self._fifo
        if whole is not True:
            if whole is not False:
                fifo.get_into(buffer, 0, whole)  # the sync call's TypeError
            return await self._call("data", "get_into", lambda: fifo.get_into(buffer, 0), timeout)
        view = memoryview(buffer)  # type: ignore[arg-type]
        if view.ndim != 1 or view.format not in ("B", "b", "c"):
            view = view.cast("B")
        if view.nbytes <= fifo.size():
            return await self._call("data", "get_into", lambda: fifo.get_into(view, 0, True), timeout)
        return await self._stream_into(view, _deadline(timeout, "get_into"), "get_into")

    async def _stream_into(self, view: memoryview, deadline: Optional[float], method: str) -> int:
        """Fill ``view`` (longer than the fifo) as it streams through."""
        fifo = self._fifo
        total = view.nbytes
        done = 0

        def attempt() -> int:
            nonlocal done
            got = fifo.get_into(view[done:], 0)  # kfifo.Empty: nothing yet
            if got == 0:  # end of stream
                if done == 0:
                    return 0
                exc = _put_error(EOFError, f"Kfifo.{method}(): the stream ended after {done} of "
                                 f"{total} bytes (taken by this call)", done)
                exc.taken = exc.stored  # type: ignore[attr-defined]
                raise exc
            done += got
            if done < total:
                raise Empty
            return done

        def timed_out() -> BaseException:
            exc = Empty(f"Kfifo.{method}(): timed out after {done} of {total} bytes (taken by this call)")
            exc.taken = done  # type: ignore[attr-defined]
            return exc

        return await self._retry("data", attempt, deadline, timed_out)

    def _frames_allowed(self, method: str, side: str) -> None:
        # as the sync calls: a frame is several calls, which the other
        # producers (consumers) of a side of "many" would come between
        if getattr(self._fifo, side) == "many":
            one = "producer" if side == "producers" else "consumer"
            use = "put_rec()/put_recs()" if side == "producers" else "get_rec()/get_recs()"
            raise ValueError(f"Kfifo.{method}(): frames need a fifo of one {one} "
                             f"(this one has {side}='many'); use {use}")

    async def get_frame(self, timeout: Optional[float] = None) -> Optional[bytes]:
        """The next frame of ``put_frame``, whole; ``None`` at end of stream."""
        deadline = _deadline(timeout, "get_frame")
        self._frames_allowed("get_frame", "consumers")
        length = await self._frame_length(deadline, timeout, "get_frame")
        if length is None:
            return None
        fifo = self._fifo
        if length + 8 <= fifo.size():
            return await self._call("data", "get_frame", lambda: fifo.get_frame(0), _left(deadline, timeout))
        buf = bytearray(length)
        await self._frame_stream(buf, deadline, "get_frame")
        return bytes(buf)

    async def get_frame_into(self, buffer: _WritableBuffer, timeout: Optional[float] = None) -> Optional[int]:
        """``get_frame`` into a writable buffer: the frame's length, ``None`` at end of stream."""
        deadline = _deadline(timeout, "get_frame_into")
        self._frames_allowed("get_frame_into", "consumers")
        length = await self._frame_length(deadline, timeout, "get_frame_into")
        if length is None:
            return None
        fifo = self._fifo
        if length + 8 <= fifo.size():
            return await self._call("data", "get_frame_into", lambda: fifo.get_frame_into(buffer, 0),
                                    _left(deadline, timeout))
        view = memoryview(buffer).cast("B")  # type: ignore[arg-type]
        if length > view.nbytes:
            fifo.get_frame_into(view, 0)  # the sync call's ValueError, nothing taken
        await self._frame_stream(view[:length], deadline, "get_frame_into")
        return length

    async def _frame_length(self, deadline: Optional[float], timeout: Optional[float],
                            method: str) -> Optional[int]:
        """Wait for the next frame's 8-byte header; its length (not taken), None at the end."""
        fifo = self._fifo

        def attempt() -> Optional[int]:
            closed = fifo.closed  # before the check: data stored, then closed, is data
            if fifo.wait_len(8, 0):
                a, b = fifo.out_prepare(8)
                try:
                    return int.from_bytes(bytes(a) + bytes(b), "little")
                finally:
                    a.release()
                    b.release()
            if not closed:
                raise Empty
            if len(fifo):
                raise EOFError(f"Kfifo.{method}(): the stream ended in a frame's header (nothing taken)")
            return None

        return await self._call("data", method, attempt, _left(deadline, timeout))

    async def _frame_stream(self, view: object, deadline: Optional[float], method: str) -> None:
        """A frame longer than the fifo: drop its header, stream its bytes into ``view``."""
        self._fifo.skip(8)
        mv = memoryview(view)  # type: ignore[arg-type]
        if await self._stream_into(mv, deadline, method) == 0 and mv.nbytes:
            raise EOFError(f"Kfifo.{method}(): the stream ended inside a frame")

    async def get_exactly(self, n: int, timeout: Optional[float] = None) -> bytes:
        """Wait until ``n`` bytes are stored and take them; ``EOFError`` if the stream ends first."""
        fifo = self._fifo
        return await self._call("data", "get_exactly", lambda: fifo.get_exactly(n, 0), timeout)

    async def get_rec(self, recsize: _WaitRecSize, timeout: Optional[float] = None) -> Optional[bytes]:
        """Wait for a whole record and take it; ``None`` at end of stream."""
        fifo = self._fifo
        return await self._call("data", "get_rec", lambda: fifo.get_rec(recsize, 0), timeout)

    async def get_recs(self, max: int, recsize: _WaitRecSize, timeout: Optional[float] = None) -> List[bytes]:
        """Wait for a whole record, then take up to ``max`` records (``[]`` at end of stream)."""
        fifo = self._fifo
        return await self._call("data", "get_recs", lambda: fifo.get_recs(max, recsize, 0), timeout)

    def records(self, recsize: _WaitRecSize) -> AsyncIterator[bytes]:
        """``async for rec in view.records(recsize)``: records until end of stream."""
        self._fifo.records(recsize)  # the sync call's checks (recsize 1 or 2, not freed)
        return _Records(self, recsize)

    async def wait_len(self, n: int, timeout: Optional[float] = None) -> bool:
        """True once ``len() >= n``; False on timeout or when the stream ended short."""
        fifo = self._fifo

        def attempt() -> bool:
            closed = fifo.closed  # before the check: data stored, then closed, is data
            if fifo.wait_len(n, 0):
                return True
            if closed:
                return False
            raise TimeoutError

        try:
            return await self._call("data", "wait_len", attempt, timeout)
        except TimeoutError:
            return False

    # ---- producer side ----------------------------------------------------------

    async def wait_avail(self, n: int, timeout: Optional[float] = None) -> bool:
        """True once ``avail() >= n``; False on timeout or when the fifo is closed."""
        fifo = self._fifo

        def attempt() -> bool:
            if fifo.wait_avail(n, 0):
                return True
            if fifo.closed:
                return False
            raise TimeoutError

        try:
            return await self._call("room", "wait_avail", attempt, timeout)
        except TimeoutError:
            return False

    async def put_rec(self, data: _Buffer, recsize: _RecSize, timeout: Optional[float] = None) -> None:
        """Wait for room for the whole record and store it (whole or not at all)."""
        fifo = self._fifo
        await self._call("room", "put_rec", lambda: fifo.put_rec(data, recsize, 0), timeout,
                         lambda: _put_error(Full, "Kfifo.put_rec(): timed out (nothing stored)", 0))

    async def put_recs(self, records: Iterable[_Buffer], recsize: _RecSize, timeout: Optional[float] = None,
                       *, progress: Optional[Progress] = None) -> int:
        """``put_rec`` for every record, in order, each whole; returns the count.

        As the sync call, every record is checked before any is stored;
        ``TimeoutError``/``BrokenPipeError`` carry ``stored``, the records
        this call stored, and ``progress.stored`` says the same at every
        moment (so after a cancellation): a prefix of whole records.
        """
        deadline = _deadline(timeout, "put_recs")
        fifo = self._fifo
        try:
            items = records if isinstance(records, (list, tuple)) else list(records)
        except TypeError:  # not iterable: the sync call says so in its words
            fifo.put_recs(records, recsize, 0)
            raise
        total = len(items)
        if progress is not None:
            progress.stored, progress.total = 0, total
        try:
            done: int = fifo.put_recs(items, recsize, 0)  # checks every record first
        except (TimeoutError, BrokenPipeError) as e:
            done = e.stored  # type: ignore[union-attr]
            if progress is not None:
                progress.stored = done
            if timeout == 0 or isinstance(e, BrokenPipeError):
                raise
        else:
            if progress is not None:
                progress.stored = done
            return done

        def attempt() -> int:
            nonlocal done
            try:
                done += fifo.put_recs(items[done:], recsize, 0)
            except TimeoutError as e:
                done += e.stored  # type: ignore[attr-defined]
                raise
            except BrokenPipeError as e:
                done += e.stored  # type: ignore[attr-defined]
                raise _put_error(BrokenPipeError, "Kfifo.put_recs(): the fifo is closed "
                                 f"({done} of {total} records stored by this call)", done) from None
            finally:
                if progress is not None:
                    progress.stored = done
            return done

        return await self._retry("room", attempt, deadline,
                                 lambda: _put_error(Full, f"Kfifo.put_recs(): timed out ({done} of "
                                                    f"{total} records stored by this call)", done))

    async def put(self, data: _Buffer, timeout: Optional[float] = None, *,
                  progress: Optional[Progress] = None) -> None:
        """Store all of ``data``, waiting for room as needed (it streams through).

        ``TimeoutError``/``BrokenPipeError`` carry ``stored``, the bytes this
        call stored; ``progress`` (a :class:`Progress`) shows the same count
        at every moment, so also after a cancellation.
        """
        deadline = _deadline(timeout, "put")
        fifo = self._fifo
        if progress is not None:
            progress.stored = progress.total = 0
        try:
            fifo.put(data, 0)  # the sync call's checks; stores what fits
        except (TimeoutError, BrokenPipeError) as e:
            done: int = e.stored  # type: ignore[union-attr]
            if progress is not None:
                progress.stored = done
                progress.total = memoryview(data).nbytes  # type: ignore[arg-type]
            if timeout == 0 or isinstance(e, BrokenPipeError):
                raise  # the whole call: the sync message and count are ours
        else:
            if progress is not None:
                progress.stored = progress.total = memoryview(data).nbytes  # type: ignore[arg-type]
            return
        view = memoryview(data)  # type: ignore[arg-type]
        if view.ndim != 1 or view.format not in ("B", "b", "c"):
            view = view.cast("B")
        total = view.nbytes

        def attempt() -> None:
            nonlocal done
            try:
                fifo.put(view[done:], 0)
                done = total
            except TimeoutError as e:
                done += e.stored  # type: ignore[attr-defined]
                raise
            except BrokenPipeError as e:
                done += e.stored  # type: ignore[attr-defined]
                raise _put_error(BrokenPipeError, f"Kfifo.put(): the fifo is closed ({done} of "
                                 f"{total} bytes stored by this call)", done) from None
            finally:
                if progress is not None:
                    progress.stored = done

        await self._retry("room", attempt, deadline,
                          lambda: _put_error(Full, f"Kfifo.put(): timed out with {done} of "
                                             f"{total} bytes stored by this call", done))


    async def put_frame(self, data: _Buffer, timeout: Optional[float] = None, *,
                        progress: Optional[Progress] = None) -> None:
        """Store ``data`` as one frame (an 8-byte little-endian length, then the bytes).

        As the sync call: a frame that fits the fifo is stored whole or not
        at all; a longer one streams (``stored`` and ``progress`` count its
        bytes, header included).
        """
        fifo = self._fifo
        self._frames_allowed("put_frame", "producers")
        view = memoryview(data)  # type: ignore[arg-type]
        if view.ndim != 1 or view.format not in ("B", "b", "c"):
            view = view.cast("B")
        if view.nbytes + 8 <= fifo.size():
            await self._call("room", "put_frame", lambda: fifo.put_frame(view, 0), timeout,
                             lambda: _put_error(Full, "Kfifo.put_frame(): timed out (nothing stored)", 0))
            if progress is not None:
                progress.stored = progress.total = view.nbytes + 8
            return
        deadline = _deadline(timeout, "put_frame")
        total = view.nbytes + 8
        progress = progress if progress is not None else Progress()
        for part, before in ((view.nbytes.to_bytes(8, "little"), 0), (view, 8)):
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            inner = Progress()
            try:
                await self.put(part, left, progress=inner)
            except (Full, BrokenPipeError) as e:
                stored = before + e.stored  # type: ignore[union-attr]
                progress.stored, progress.total = stored, total
                what = "timed out with" if isinstance(e, Full) else "the fifo is closed:"
                raise _put_error(type(e), f"Kfifo.put_frame(): {what} {stored} of {total} bytes "
                                 "(header included) stored by this call", stored) from None
            finally:
                progress.stored, progress.total = before + inner.stored, total


class _Records:
    """``AsyncKfifo.records()``: an async iterator of get_rec until end of stream."""

    __slots__ = ("_view", "_recsize")

    def __init__(self, view: AsyncKfifo, recsize: _WaitRecSize) -> None:
        self._view: Optional[AsyncKfifo] = view
        self._recsize = recsize

    def __aiter__(self) -> _Records:
        return self

    async def __anext__(self) -> bytes:
        view = self._view
        if view is None:
            raise StopAsyncIteration
        try:
            rec = view._fifo.get_rec(self._recsize, 0)
        except TimeoutError:
            rec = await view.get_rec(self._recsize)
        if rec is None:
            self._view = None
            raise StopAsyncIteration
        return rec
