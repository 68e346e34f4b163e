# SPDX-License-Identifier: MIT
"""The state machine: a fifo under test and the model, driven side by side."""
from __future__ import annotations

import array
import contextlib
import inspect
import os
import sys
import time
from typing import (
    Any, Callable, ClassVar, Dict, FrozenSet, Iterable, Iterator, List, Mapping, Optional, Tuple, Type, Union,
)

from hypothesis import Phase, settings
from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from kfifo.model import UINT_MAX, Capacity, RingModel, capacity_of
from kfifo.testing.c_adapter import CFifo
from kfifo.testing.catalogue import ARGUMENT_ERRORS, OPERATIONS, project, record_conventions, roles
from kfifo.testing.isolation import PERTURB_SRC, IsolatedFifo, RingCrashed
from kfifo.testing.profiles import _QUIET_CHECKS
from kfifo.testing.reproduction import (
    STATS, KfifoMismatch, Trace, _bytes_src, _difference, _exc_src, _Lazy, _make_data, _short, _value_src,
)
from kfifo.testing.strategies import (
    _ALL_KINDS, _BAD_CALLS, _BAD_CATEGORY, _CAPACITIES, _COUNTS, _FILL, _LENGTHS,
    _REC_LENGTHS, _SEEDS, _SIZES, _SMALL_CAPACITIES, _STARTS,
)

__all__ = ["KfifoStateMachine", "make_state_machine", "find_operations", "run_machine", "nondeterminism_reported"]


def _flag(name: str) -> bool:
    """``kfifo.testing.PROGRESS`` / ``PRINT_REPRODUCTION``, read when used (set on the package)."""
    return bool(getattr(sys.modules["kfifo.testing"], name))

def _takes_start(factory: Callable[..., Any]) -> bool:
    """Whether ``factory(size, start=...)`` can be called, from its signature."""
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):  # no signature to read (a C type): assume Kfifo's
        return True
    return "start" in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def find_operations(factory: Callable[..., Any]) -> FrozenSet[str]:
    """The names of :data:`OPERATIONS` that ``factory``'s fifos have.

    Read from the class when ``factory`` is a class, else from one fifo
    ``factory(64)`` made for the purpose (and freed).  ``__len__`` is
    reported as ``"__len__"``.
    """
    target: Any = factory
    probe = None
    if not isinstance(factory, type):
        probe = target = factory(64)
    found = {op for op in OPERATIONS + ("__len__",) if callable(getattr(target, op, None))}
    if probe is not None and "free" in found:
        probe.free()
    return frozenset(found)


_Checks = Union[None, bool, str, type, Tuple[type, ...], Mapping[str, Union[type, Tuple[type, ...]]]]


def _argument_checks(check: _Checks) -> Optional[Dict[str, Any]]:
    """``check_arguments`` as {category: exception class(es)}, "kfifo" for
    each to mean "exactly Kfifo's", or None for no checks."""
    if check is None or check is False:
        return None
    if check is True or check == "kfifo":
        return {cat: "kfifo" for cat in ARGUMENT_ERRORS}
    if isinstance(check, type) or isinstance(check, tuple):
        excs = check if isinstance(check, tuple) else (check,)
        if not excs or not all(isinstance(e, type) and issubclass(e, BaseException) for e in excs):
            raise TypeError(f"check_arguments: {check!r} is not an exception class or a tuple of them")
        return {cat: check for cat in ARGUMENT_ERRORS}
    if isinstance(check, Mapping):
        unknown = set(check) - set(ARGUMENT_ERRORS)
        if unknown:
            raise ValueError(f"check_arguments: unknown kind(s) {sorted(unknown)}; known: {ARGUMENT_ERRORS}")
        for value in check.values():
            _argument_checks(value)  # each one an exception class or a tuple of them
        return dict(check)
    raise TypeError(f"check_arguments must be None, True, 'kfifo', an exception class, a tuple of them "
                    f"or a mapping; got {check!r}")



#: Set when the current run's shrinking was stopped by ``SHRINK_SECONDS``.
_SHRINK_CUT = [False]
#: The warning Hypothesis prints when its shrinking time is up; it says five
#: minutes and asks for a bug report, neither true of a cap set here.
_SLOW_SHRINK_WARNING = "WARNING: Hypothesis has spent more than five minutes"


def _shrink_seconds() -> Optional[float]:
    seconds = getattr(sys.modules["kfifo.testing"], "SHRINK_SECONDS")
    if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float))
                                or not seconds > 0):
        raise ValueError(f"kfifo.testing.SHRINK_SECONDS must be a number of seconds > 0 or None; got {seconds!r}")
    return seconds


@contextlib.contextmanager
def _shrinking_capped() -> Iterator[None]:
    """Stop shrinking ``kfifo.testing.SHRINK_SECONDS`` after it starts.

    Hypothesis has no setting for this: its engine stops shrinking after
    ``MAX_SHRINKING_SECONDS`` (five minutes), a module constant read when
    the shrink phase starts, so the run sets it for its duration (a
    Hypothesis without the constant shrinks as long as it likes).  The
    final replay of the shortest failing example found so far still prints
    the reproduction.
    """
    from hypothesis.internal.conjecture import engine
    from hypothesis.reporting import current_reporter, with_reporter

    _SHRINK_CUT[0] = False
    seconds = _shrink_seconds()
    if seconds is None or not isinstance(getattr(engine, "MAX_SHRINKING_SECONDS", None), (int, float)):
        yield
        return
    outer = current_reporter()

    def reporter(text: str) -> None:
        if isinstance(text, str) and text.startswith(_SLOW_SHRINK_WARNING):
            _SHRINK_CUT[0] = True  # the reproduction says so instead
            return
        outer(text)

    saved = engine.MAX_SHRINKING_SECONDS
    engine.MAX_SHRINKING_SECONDS = seconds  # type: ignore[assignment]
    try:
        with with_reporter(reporter):
            yield
    finally:
        engine.MAX_SHRINKING_SECONDS = saved


def _is_final() -> bool:
    """True in the run Hypothesis makes of the shrunk example, just before it reports it."""
    try:
        from hypothesis.control import current_build_context

        return bool(current_build_context().is_final)
    except Exception:  # no build context: called outside a Hypothesis test
        return False


class KfifoStateMachine(RuleBasedStateMachine):
    """What every machine of :func:`make_state_machine` is (for type checkers).

    The rules are added by :func:`make_state_machine`, for the operations
    the fifo under test has.
    """

    #: The operations tested (names of :data:`OPERATIONS`, and ``__len__``).
    operations: ClassVar[FrozenSet[str]] = frozenset()
    #: The record header sizes tested.
    recsizes: ClassVar[Tuple[int, ...]] = ()
    #: Whether the fifo is made with ``start=`` (it can reach the 2**32 wrap).
    with_start: ClassVar[bool] = False
    #: Whether bad arguments are tried.
    checks_arguments: ClassVar[bool] = False
    #: The capacity model (a name of :data:`kfifo.model.CAPACITIES` or a callable).
    capacity: ClassVar[Any] = "pow2"


def make_state_machine(
    factory: Optional[Callable[..., Any]] = None,
    *,
    lock_factory: Optional[Callable[[], Any]] = None,
    operations: Optional[Iterable[str]] = None,
    start: Optional[bool] = None,
    recsizes: Optional[Iterable[int]] = None,
    sizes: Optional[Union[Iterable[int], SearchStrategy[int]]] = None,
    check_arguments: _Checks = None,
    inputs: Optional[Iterable[str]] = None,
    capacity: Optional[Capacity] = None,
    huge_counts: Optional[bool] = None,
    isolate: Optional[bool] = None,
) -> Type[KfifoStateMachine]:
    """Build a state machine that checks ``factory``'s fifos against the model.

    Parameters
    ----------
    factory : callable, optional
        Creates the fifo under test; called as ``factory(size, start=start)``
        (or ``factory(size)``, see ``start``) with ``size`` from 1 to 65537,
        which it rounds up to a power of two, and ``start`` in ``[0, 2**32)``.
        Defaults to :class:`kfifo.Kfifo`, tested in full.
    lock_factory : callable, optional
        If given, ``in_locked(data, lock)`` / ``out_locked(n, lock)`` are
        exercised too, with ``lock = lock_factory()``.  Defaults to
        ``kfifo.SpinLock`` when ``factory`` is defaulted.
    operations : iterable of str, optional
        The operations to test (names of :data:`OPERATIONS`, and
        ``"__len__"``).  By default, every one the fifo has
        (:func:`find_operations`).  It needs at least one way in (``in_``,
        ``from_user``, ``in_rec`` or ``from_user_rec``); see :data:`FEATURES`.
    start : bool, optional
        Whether ``factory`` takes ``start=`` (the first value of the
        indices, so that tests cross the ``2**32`` wrap).  By default, read
        from its signature.  Without it every fifo starts at index 0.
    recsizes : iterable of int, optional
        The record header sizes to test, from 0, 1, 2.  By default
        ``factory.recsizes`` if it has that attribute, else all three.
    sizes : iterable of int or strategy, optional
        The sizes to create fifos of, instead of the default mix of powers
        of two and sizes to round up.
    check_arguments : optional
        Whether bad arguments (``out(-1)``, ``in_rec(b"", 3)``, ``out(1.0)``,
        ``out(2**32)`` ...) are tried and how the fifo must answer them:
        ``None`` (the default for your own factory) never tries them;
        ``"kfifo"`` or ``True`` (the default for :class:`kfifo.Kfifo`)
        wants exactly Kfifo's exception type for each; an exception class or
        a tuple of them wants one of those for every bad call; a mapping from
        kinds of :data:`ARGUMENT_ERRORS` to exception classes tries only those
        kinds.  In every case the fifo must be left unchanged.
    inputs : iterable of str, optional
        The kinds of bytes-like object passed as data: ``"bytes"``,
        ``"bytearray"``, ``"memoryview"``, ``"array"``, ``"numpy"``; ``out_into``
        gets the writable ones.  By default all of them with
        ``check_arguments="kfifo"``, else ``bytes`` (and ``bytearray`` for
        ``out_into``).
    capacity : str or callable, optional
        How many bytes a fifo made with ``size`` holds: ``"pow2"`` (kfifo's
        power of two, the default), ``"pow2-1"`` (one byte of it kept free:
        JACK, ck_ring), ``"exact"`` (Boost ``spsc_queue``), ``"size-1"``, or
        a callable ``size -> capacity`` (:class:`kfifo.model.RingModel`).
        By default ``factory.capacity`` if it has that attribute.
    huge_counts : bool, optional
        Whether counts up to ``2**32 - 1`` are passed.  By default
        ``factory.huge_counts``, else True for Python fifos and False for a
        :class:`CFifo` (a C ring that trusts its caller would crash).
    isolate : bool, optional
        Run the fifo in a child process, one per example, so that a fifo
        that kills its process is reported with a reproduction.  By default
        ``factory.isolate``, else True for a :class:`CFifo` (on POSIX).

    Returns
    -------
    type
        A :class:`KfifoStateMachine` (a
        :class:`~hypothesis.stateful.RuleBasedStateMachine`) subclass; use
        its ``TestCase`` attribute as a unittest/pytest test class, or pass
        it to :func:`hypothesis.stateful.run_state_machine_as_test`.  Its
        ``TestCase.settings`` has ``deadline=None``, no "explain" phase, and
        otherwise follows the Hypothesis profile in force when this function
        is called.
    """
    if factory is None:
        import kfifo

        factory = kfifo.Kfifo
        if lock_factory is None:
            lock_factory = getattr(kfifo, "SpinLock", None)
        if check_arguments is None:
            check_arguments = "kfifo"
    return _make_machine(factory, lock_factory, operations, start, recsizes, sizes, check_arguments, inputs,
                         capacity, huge_counts, isolate)


def _make_machine(factory: Callable[..., Any], lock_factory: Optional[Callable[[], Any]],
                  operations: Optional[Iterable[str]], start: Optional[bool], recsizes: Optional[Iterable[int]],
                  sizes: Optional[Union[Iterable[int], SearchStrategy[int]]], check_arguments: _Checks,
                  inputs: Optional[Iterable[str]], capacity: Optional[Capacity], huge_counts: Optional[bool],
                  isolate: Optional[bool]) -> Type[KfifoStateMachine]:
    is_c = isinstance(factory, type) and issubclass(factory, CFifo)
    if capacity is None:
        capacity = getattr(factory, "capacity", None) or "pow2"
    capacity_of(capacity, 64)  # a bad name or callable is an error now, not in the first example
    if huge_counts is None:
        # 2**32 - 1 is a fine test of a count check, and a sure crash of a C
        # ring that trusts its caller: asked for, or for Python fifos only.
        huge_counts = bool(getattr(factory, "huge_counts", not is_c))
    if isolate is None:
        isolate = bool(getattr(factory, "isolate", is_c)) and hasattr(os, "fork")
    elif isolate and not hasattr(os, "fork"):
        raise ValueError("isolate=True needs os.fork (POSIX); this platform has none")
    # A ring whose skip must not be asked for more than it holds (JACK's
    # read_advance) says so with skip_past_len = False.
    skip_past_len = bool(getattr(factory, "skip_past_len", True))
    c_names = getattr(factory, "c_names", None) if is_c else None
    conventions = record_conventions(getattr(factory, "record_convention", None) or {})
    counts = _COUNTS if huge_counts else _LENGTHS
    capacities = _CAPACITIES if huge_counts else _SMALL_CAPACITIES
    checks = _argument_checks(check_arguments)
    strict = checks is not None and all(v == "kfifo" for v in checks.values())
    if operations is None:
        ops = find_operations(factory)
    else:
        ops = frozenset(operations)
        unknown = ops - set(OPERATIONS) - {"__len__"}
        if unknown:
            raise ValueError(f"unknown operation(s) {sorted(unknown)}; known: {OPERATIONS + ('__len__',)}")
    if lock_factory is None or isolate:  # a lock cannot be sent to a child
        ops -= {"in_locked", "out_locked"}
    if not ops & {"in_", "from_user", "in_rec", "from_user_rec"}:
        raise ValueError(f"{factory!r} has no way in (in_, from_user, in_rec or from_user_rec): nothing to test")
    with_start = _takes_start(factory) if start is None else bool(start)
    if recsizes is None:
        recsizes = getattr(factory, "recsizes", (0, 1, 2))
    allowed_recsizes = sorted(set(recsizes))
    if not allowed_recsizes or not set(allowed_recsizes) <= {0, 1, 2}:
        raise ValueError(f"recsizes must be some of 0, 1, 2; got {allowed_recsizes}")
    kinds = list(inputs) if inputs is not None else (_ALL_KINDS if strict else ["bytes"])
    if not kinds or set(kinds) - set(_ALL_KINDS):
        raise ValueError(f"inputs must be some of {_ALL_KINDS}; got {kinds}")
    writable = [k for k in kinds if k not in ("bytes", "numpy")] or ["bytearray"]

    def have(*names: str) -> List[str]:
        return [n for n in names if n in ops]

    # Which rule drives which operation: read from the catalogue.
    put_methods = roles(ops, "put")
    get_methods = roles(ops, "get", "get_into", "peek")
    rec_in = roles(ops, "put_rec")
    rec_out = roles(ops, "get_rec")
    drop_methods = roles(ops, "drop") + (roles(ops, "drop_rec") if rec_in else [])
    get_rec_methods = roles(ops, "get_rec", "peek_rec")
    batch_calls = roles(ops, "batch")
    queries = roles(ops, "query")
    bad_calls = [] if checks is None else [
        i for i, (name, _) in enumerate(_BAD_CALLS) if name in ops and _BAD_CATEGORY[i] in checks
    ]
    size_strategy = _SIZES if sizes is None else (
        sizes if isinstance(sizes, SearchStrategy) else st.sampled_from(sorted(set(sizes)))
    )
    if sizes is None and capacity_of(capacity, 1) < 1:
        # The smallest ring of the capacity model (size 1 holds nothing).
        size_strategy = size_strategy.map(lambda size: size if capacity_of(capacity, size) >= 1 else 2)
    start_strategy = _STARTS if with_start else st.just(0)
    # The header size of the records a new fifo holds (and of most records of
    # the example): those with a header to get wrong (1, 2) five times in six.
    with_header = [r for r in allowed_recsizes if r]
    recsize_strategy = st.sampled_from(allowed_recsizes) if not with_header else st.one_of(
        st.sampled_from(with_header), st.sampled_from(allowed_recsizes))
    # A record call's recsize: None (drawn most often, and what shrinking goes
    # to) is the recsize of the records last stored, as a producer and a
    # consumer agree on it: the records a call takes were stored with it.
    recsize_choices = st.sampled_from([None] + (allowed_recsizes if len(allowed_recsizes) > 1 else []))
    kind_strategy = st.sampled_from(kinds)
    # Fewer bytes than a header are reached by byte calls among records: only
    # a fifo with both, and a way to drop bytes, can be put there.  Mostly
    # one byte of a 2-byte header; below a 1-byte header the fifo is empty.
    can_go_below = bool(put_methods and rec_in and get_rec_methods and with_header
                        and (roles(ops, "get") or {"skip", "reset_out"} & ops))
    below_recsizes = [r for r in (2, 2, 1) if r in allowed_recsizes] or [1]
    # What a consumer does right after records are stored: take one (the
    # capacity), or skip one.
    take_strategy = st.one_of(capacities, st.just("skip_rec")) if "skip_rec" in ops else capacities

    class _Machine(KfifoStateMachine):
        """``factory(size, start=start)`` and the model, driven side by side."""

        def __init__(self) -> None:
            super().__init__()
            self.model: Optional[RingModel] = None
            self.fifo: Any = None
            self.lock: Any = None
            self.failed = False
            self.trace = Trace(factory, lock_factory, preamble=[PERTURB_SRC] if isolate else [])
            self.recsize: int = allowed_recsizes[-1]  # of the records last stored; see recsize_choices
            self.last_length = 0  # of the last data stored or taken
            STATS.trace = self.trace
            STATS.examples += 1

        # -------------------------------------------------------------- calls
        def _fail(self, line: Any, message: str, crashed: Optional[str] = None) -> None:
            self.failed = True
            if STATS.first_failure is None:
                STATS.first_failure = (STATS.examples, STATS.steps, time.monotonic() - STATS.started)
                if _flag("PROGRESS"):
                    print(f"kfifo.testing: {type(self).__name__}: mismatch found after {STATS.examples} examples "
                          f"({STATS.first_failure[2]:.1f} s); shrinking it to a short reproduction ...",
                          file=sys.stderr, flush=True)
            if c_names:  # name the C functions of the calls in the message
                called = sorted({op for op in c_names if f"f.{op}(" in message})
                if called:
                    message += " [" + ", ".join(f"{op} is {c_names[op]}()" for op in called) + "]"
            self.trace.add(f"{line}  # <-- " + message.replace("\n", " "))
            self.trace.failure = message
            exc = KfifoMismatch(message, self.trace, crashed=crashed)
            if STATS.failure is None or len(self.trace.lines) <= len(STATS.failure.trace.lines):
                STATS.failure = exc  # the shortest failing example so far
            if _flag("PRINT_REPRODUCTION") and _is_final():
                exc.printed = True
                what = f"the fifo crashed ({crashed})" if crashed else "the fifo and the model disagree"
                cut = (f"; shrinking stopped after kfifo.testing.SHRINK_SECONDS = "
                       f"{getattr(sys.modules['kfifo.testing'], 'SHRINK_SECONDS')} s, so the reproduction "
                       "may have steps it does not need") if _SHRINK_CUT[0] else ""
                print(f"\nkfifo.testing: {type(self).__name__}: {what} "
                      f"({time.monotonic() - STATS.started:.1f} s{cut}).\n{message}\n"
                      "Reproduction (save it as repro.py and run: python repro.py):\n"
                      "----------------------------------------------------------------------\n"
                      + self.trace.snippet() +
                      "----------------------------------------------------------------------",
                      file=sys.stderr, flush=True)
            raise exc

        def call(self, name: str, *args: Any, srcs: Optional[List[Any]] = None,
                 record: bool = True, model_args: Optional[Tuple[Any, ...]] = None, refused: bool = False,
                 allowed: Any = None, answer: Optional[Tuple[Any, Optional[BaseException]]] = None) -> Any:
            """Call ``name(*args)`` on both sides; compare results or exception types.

            ``refused`` says the call is meant to raise: only then may the
            model raise (anywhere else that would be a bug in the model).
            The fifo must then raise ``allowed`` (default: the model's type).
            """
            STATS.ops[name] += 1
            margs = args if model_args is None else model_args
            len_before = self.model.len() if name in conventions else 0
            try:
                expected, expected_exc = getattr(self.model, name)(*margs), None
            except Exception as exc:
                if not refused:
                    raise
                expected, expected_exc = None, exc
            model_answer = expected
            if name in conventions and expected_exc is None:  # what the fifo's convention can say
                expected = project(conventions[name], expected, margs, self.model.len() != len_before)
            if answer is not None:  # asked already (a batch of queries to a child)
                actual, actual_exc = answer
            else:
                try:
                    actual, actual_exc = getattr(self.fifo, name)(*args), None
                except Exception as exc:
                    actual, actual_exc = None, exc
            # The reproduction's lines are only rendered if a snippet is printed.
            srcs = srcs if srcs is not None else [_Lazy(_value_src, a) for a in args]

            def call_src() -> str:
                return f"f.{name}({', '.join(map(str, srcs))})"

            if isinstance(actual_exc, RingCrashed):
                self._fail(_Lazy(call_src), f"{call_src()} crashed the process the fifo ran in: {actual_exc.how}",
                           crashed=actual_exc.how)

            if expected_exc is not None:
                kind = allowed if allowed is not None else type(expected_exc)
                if not isinstance(kind, tuple) and kind.__module__ != "builtins":
                    self.trace.exceptions.append(kind)
                line = _Lazy(lambda: f"raises({_exc_src(kind)}, f.{name}{''.join(', ' + str(s) for s in srcs)})")
                if actual_exc is None:
                    self._fail(line, f"{call_src()} returned {_short(actual)}; expected {_exc_src(kind)} "
                               f"({expected_exc})")
                if not isinstance(actual_exc, kind):
                    self._fail(line, f"{call_src()} raised {type(actual_exc).__name__}({actual_exc}); "
                               f"expected {_exc_src(kind)} ({expected_exc})")
                if record:
                    self.trace.add(line)
                return expected_exc
            if actual is None and expected is None and actual_exc is None:
                if record:
                    self.trace.add(_Lazy(call_src) if model_answer is None else
                                   _Lazy(lambda: f"assert {call_src()} is None"))
                return model_answer
            line = _Lazy(lambda: f"assert {call_src()} == {_value_src(expected)}")
            if actual_exc is not None:
                self._fail(line, f"{call_src()} raised {type(actual_exc).__name__}: {actual_exc}; "
                           f"expected {_short(expected)}")
            got = tuple(actual) if isinstance(expected, tuple) and isinstance(actual, (list, tuple)) else actual
            if got != expected:
                self._fail(line, f"{call_src()} returned {_short(actual)}; expected {_short(expected)}"
                           + _difference(got, expected))
            if record:
                self.trace.add(line)
            return model_answer

        def _length(self, spec: Any, recsize: int = 0) -> int:
            if isinstance(spec, int):
                return spec
            what, delta = spec
            assert self.model is not None
            model = self.model
            if recsize not in allowed_recsizes:  # a byte count relative to the next record
                recsize = self.recsize
            base: Dict[str, Callable[[], Any]] = {"avail": model.avail, "size": model.size, "len": model.len,
                    # As a user would: ask the fifo under test (and check its answer).
                    "peek": lambda: (self.call("peek_rec", recsize) if "peek_rec" in ops
                                     else model.peek_rec(recsize)),
                    "to_end": lambda: -model.in_index & (model.buffer_size - 1),
                    "split": lambda: (-model.in_index - recsize - 1) & (model.buffer_size - 1),
                    "last": lambda: self.last_length,
                    "limit": lambda: (255, 255, 65535)[recsize]}
            return max(0, int(base[what]()) + int(delta))

        def _recsize(self, choice: Optional[int], storing: bool = False) -> int:
            """``choice``, or the recsize of the records last stored if it is None."""
            if choice is None:
                return self.recsize
            if storing:
                self.recsize = choice
            return choice

        def _edges(self, name: str, before: Tuple[int, int, int], moved_in: int = 0, moved_out: int = 0) -> None:
            assert self.model is not None
            m = self.model
            old_in, old_out, _ = before
            mask = m.buffer_size - 1
            if moved_in and m.in_index < old_in:
                STATS.edges["in wraps 2**32"] += 1
            if moved_out and m.out_index < old_out:
                STATS.edges["out wraps 2**32"] += 1
            if (moved_in and (old_in & mask) + moved_in > mask + 1) or \
               (moved_out and (old_out & mask) + moved_out > mask + 1):
                STATS.edges["copy crosses buffer end"] += 1
            if m.is_full():
                STATS.edges["fifo full"] += 1

        def _state(self) -> Tuple[int, int, int]:
            assert self.model is not None
            return self.model.in_index, self.model.out_index, self.model.len()

        def _step(self) -> None:
            STATS.steps += 1

        # ---------------------------------------------------------- creation
        @initialize(size=size_strategy, start=start_strategy, recsize=recsize_strategy,
                    fill=_FILL, seed=_SEEDS)
        def create(self, size: int, start: int, recsize: int, fill: List[Any], seed: int) -> None:
            """A new fifo that already holds one to three ``fill`` records
            (byte strings if it has no records).

            Swarm testing switches the rules that store records off in about
            half of the examples; records stored here are always there to be
            taken, and the first one goes into an empty fifo (a record one past
            the header limit fits whenever the fifo could hold it).
            """
            STATS.ops["create"] += 1
            self.model = RingModel(size, start=start, capacity=capacity)
            line = f"f = make_fifo({size}, start={start})" if with_start else f"f = make_fifo({size})"
            make = (lambda *a, **k: IsolatedFifo(factory, *a, **k)) if isolate else factory
            try:
                self.fifo = make(size, start=start) if with_start else make(size)
                if isolate:  # answered after every call, in the same round trip
                    self.fifo.queries = tuple(queries) + (("__len__",) if "__len__" in ops else ())
            except RingCrashed as exc:
                self._fail(line, f"{line[4:]} crashed the process the fifo ran in: {exc.how}", crashed=exc.how)
            except Exception as exc:
                self._fail(line, f"{line[4:]} raised {type(exc).__name__}: {exc}")
            self.trace.add(line)
            if lock_factory is not None:
                self.lock = lock_factory()
            if self.model.size() == 1:
                STATS.edges["size 1"] += 1
            if start > UINT_MAX - 65536:
                STATS.edges["start near 2**32"] += 1
            if "size" in ops:
                self.call("size")
            self.recsize = recsize
            for i, length in enumerate(fill):
                data_seed = (seed + 67 * i) % 251
                if rec_in:
                    self._put_rec(rec_in[0], self._length(length, recsize), data_seed, "bytes", recsize)
                else:
                    self._put(put_methods[0], self._length(length, recsize), data_seed, "bytes")

        # ------------------------------------------------------- byte stream
        @rule(method=st.sampled_from(put_methods), length=_LENGTHS, seed=_SEEDS, kind=kind_strategy)
        def put(self, method: str, length: Any, seed: int, kind: str) -> None:
            self._step()
            self._put(method, self._length(length), seed, kind)

        def _put(self, method: str, n: int, seed: int, kind: str) -> None:
            data, src = _make_data(n, seed, kind)
            before = self._state()
            stored = self.call(method, data, srcs=[src])
            self.last_length = n
            if stored < n:
                STATS.edges["partial in"] += 1
            self._edges(method, before, moved_in=stored)

        @rule(method=st.sampled_from(get_methods), count=counts, kind=st.sampled_from(writable))
        def get(self, method: str, count: Any, kind: str) -> None:
            """out(n), to_user(n), peek(n) or out_into(buffer of n bytes of the given kind)."""
            self._step()
            assert self.model is not None
            n = self._length(count)
            before = self._state()
            if before[2] == 0:
                STATS.edges["out of empty fifo"] += 1
            if method == "out_into":
                # A buffer longer than the whole fifo tests nothing more.
                moved = self._get_into(min(n, self.model.size() + 64), kind)
            elif method == "peek":  # what it shows must still be there (queries, content)
                if self.call("peek", n):
                    STATS.edges["peek then take"] += 1
                return
            else:
                moved = len(self.call(method, n))
            self.last_length = moved
            self._edges(method, before, moved_out=moved)

        def _get_into(self, n: int, kind: str) -> int:
            """out_into a buffer of ``n`` bytes; its whole content is compared,
            bytes past the count included (they must be left untouched)."""
            bufs: List[Any] = [bytearray(b"\xee" * n) for _ in range(2)]
            if kind == "array":
                bufs = [array.array("B", b) for b in bufs]
                self.trace.add(f"buf = array.array('B', b'\\xee' * {n})")
            else:
                self.trace.add(f"buf = bytearray(b'\\xee' * {n})")
            arg = (lambda b: memoryview(b)) if kind == "memoryview" else (lambda b: b)
            src = "memoryview(buf)" if kind == "memoryview" else "buf"
            moved = self.call("out_into", arg(bufs[1]), model_args=(arg(bufs[0]),), srcs=[src])
            want, got = bytes(bufs[0]), bytes(bufs[1])
            line = _Lazy(lambda: f"assert bytes(buf) == {_bytes_src(want)}")
            if want != got:
                self._fail(line, f"out_into left the buffer as {_short(got)}; expected {_short(want)}"
                           + _difference(got, want))
            self.trace.add(line)
            return int(moved)

        @rule(method=st.sampled_from(drop_methods), count=counts, recsize=recsize_choices)
        def drop(self, method: str, count: Any, recsize: Optional[int]) -> None:
            """skip(count), skip_rec(recsize), reset_out() or reset(): one rule,
            so that dropping data is not drawn more often than storing it."""
            self._step()
            assert self.model is not None
            before = self._state()
            if method == "skip_rec":
                self._skip_rec(self._recsize(recsize), before)
            elif method == "skip":
                n = self._length(count)
                if not skip_past_len:  # the ring's contract: skip at most what is stored
                    n = min(n, before[2])
                if n >= before[2]:
                    STATS.edges["skip past len"] += 1
                self.call("skip", n)
            else:
                self.call(method)
            if method != "reset":
                self._edges(method, before, moved_out=before[2] - self.model.len())

        def _skip_rec(self, recsize: int, before: Tuple[int, int, int]) -> None:
            assert self.model is not None
            whole = recsize + self.model.peek_rec(recsize) if recsize else None
            self.call("skip_rec", recsize)
            if whole is not None and whole <= before[2]:
                STATS.edges["skip_rec one record"] += 1
            else:
                STATS.edges["skip_rec empties"] += 1

        @precondition(lambda self: self.lock is not None)
        @rule(length=_LENGTHS, seed=_SEEDS, count=counts)
        def locked(self, length: Any, seed: int, count: Any) -> None:
            """in_locked then out_locked (only with a lock_factory)."""
            self._step()
            data, src = _make_data(self._length(length), seed, "bytes")
            self.call("in_locked", data, self.lock, srcs=[src, "lock"], model_args=(data, None))
            n = self._length(count)
            self.call("out_locked", n, self.lock, srcs=[repr(n), "lock"], model_args=(n, None))

        # ----------------------------------------------------------- records
        @rule(method=st.sampled_from(rec_in),
              lengths=st.lists(_REC_LENGTHS, min_size=2, max_size=3), seed=_SEEDS,
              kind=kind_strategy, recsize=recsize_choices, take=st.lists(take_strategy, max_size=2))
        def put_rec(self, method: str, lengths: List[Any], seed: int, kind: str, recsize: Optional[int],
                    take: List[Any]) -> None:
            """Two or three records with one header size, then up to two taken
            with out_rec (to_user_rec after from_user_rec) and the same recsize.

            A record taken is followed by more data, so bytes copied past its
            end would show; and storing and taking are one rule because swarm
            testing switches whole rules off (an example with only one of two
            rules on would test neither).
            """
            self._step()
            recsize = self._recsize(recsize, storing=True)
            for i, length in enumerate(lengths):
                self._put_rec(method, self._length(length, recsize), (seed + 67 * i) % 251, kind, recsize)
            if not rec_out:
                take = [t for t in take if t == "skip_rec"]
            taker = "to_user_rec" if method == "from_user_rec" and "to_user_rec" in ops else (rec_out or [""])[0]
            for capacity in take:
                if capacity == "skip_rec":
                    self._skip_rec(recsize, self._state())
                else:
                    self._get_rec(taker, capacity, recsize)

        def _put_rec(self, method: str, n: int, seed: int, kind: str, recsize: int) -> None:
            assert self.model is not None
            self.last_length = n
            data, src = _make_data(n, seed, kind)
            before = self._state()
            mask = self.model.buffer_size - 1
            ret = self.call(method, data, recsize, srcs=[src, repr(recsize)])
            limit = (0, 255, 65535)[recsize]
            if ret == 0:
                if n == 0:
                    STATS.edges["zero-length record"] += 1
                if recsize and n == limit:
                    STATS.edges["header max stored"] += 1
                if recsize == 2 and (before[0] & mask) == mask:
                    STATS.edges["2-byte header split"] += 1
                self._edges(method, before, moved_in=n + recsize)
            elif recsize and n == limit + 1:
                STATS.edges["header max + 1 refused"] += 1
            else:
                STATS.edges["record refused for room"] += 1

        @rule(method=st.sampled_from(get_rec_methods), count=capacities, recsize=recsize_choices)
        def get_rec(self, method: str, count: Any, recsize: Optional[int]) -> None:
            """out_rec(n, recsize), to_user_rec(n, recsize) or peek_rec(recsize)."""
            self._step()
            recsize = self._recsize(recsize)
            if method == "peek_rec":
                self.call("peek_rec", recsize)
            else:
                self._get_rec(method, count, recsize)

        @rule(method=st.sampled_from(get_rec_methods), count=capacities, recsize=st.sampled_from(below_recsizes),
              keep=st.booleans(), seed=st.integers(1, 250))
        def below_header(self, method: str, count: Any, recsize: int, keep: bool, seed: int) -> None:
            """Fewer bytes stored than a header (one byte of a 2-byte header, or
            none), reached by byte calls, then peek_rec and a record read.

            Records alone never leave the fifo there (a header comes and goes
            with its record), so a "header present?" test that is off by one
            (``len >= recsize - 1``) would survive every other rule.  With
            ``keep`` the last byte already stored stays (all but one skipped);
            else the fifo is emptied and given one new byte, never 0, so that a
            length read from it and a stale byte is never 0 either.
            """
            self._step()
            assert self.model is not None
            wanted = recsize - 1
            before = self._state()
            if keep and before[2] > wanted and ("skip" in ops or get_out):
                self.call("skip" if "skip" in ops else get_out[0], before[2] - wanted)
                self._edges("skip", before, moved_out=before[2] - wanted)
            elif before[2] != wanted:
                self._drop_all()
                self._edges("skip", before, moved_out=before[2])
                if wanted:
                    self._put(put_methods[0], wanted, seed, "bytes")
            if wanted and self.model.len() == wanted:
                STATS.edges["fewer bytes than a header"] += 1
            if "peek_rec" in ops:
                self.call("peek_rec", recsize)
            if method != "peek_rec":
                self._get_rec(method, count, recsize)

        def _drop_all(self) -> None:
            """Empty the fifo with byte calls (skip, reset_out or a read)."""
            assert self.model is not None
            if not self.model.len():
                return
            if "skip" in ops:
                self.call("skip", self.model.len())
            elif "reset_out" in ops:
                self.call("reset_out")
            else:
                self.call(get_out[0], self.model.len())

        def _get_rec(self, method: str, count: Any, recsize: int) -> None:
            n = self._length(count, recsize)
            before = self._state()
            if before[2] == 0:
                STATS.edges["out of empty fifo"] += 1
            ret, data, total = self.call(method, n, recsize)
            # A header's L (at most 65535), not n: with recsize 0, total is the capacity.
            self.last_length = total if recsize else len(data)
            if ret == 0:
                STATS.edges["out_rec success"] += 1
                if n > total and before[2] > recsize + total:
                    STATS.edges["out_rec buffer larger"] += 1
                self._edges(method, before, moved_out=recsize + len(data))
            elif ret == total and total > n:
                STATS.edges["out_rec buffer too small"] += 1
            else:
                STATS.edges["out_rec incomplete"] += 1

        @rule(lengths=st.lists(_REC_LENGTHS, max_size=4), seed=_SEEDS, kind=kind_strategy,
              recsize=st.sampled_from(with_header or [1]), count=st.integers(0, 5))
        def batch(self, lengths: List[Any], seed: int, kind: str, recsize: int, count: int) -> None:
            """put_recs of up to four records, then get_recs of up to ``count``,
            both with timeout 0 (a call that would wait raises TimeoutError on
            both sides; what put_recs stored before shows in the queries)."""
            self._step()
            assert self.model is not None
            if "put_recs" in ops:
                self._recsize(recsize, storing=True)
                made = [_make_data(self._length(length, recsize), (seed + 67 * i) % 251, kind)
                        for i, length in enumerate(lengths)]
                before = self._state()
                res = self.call("put_recs", [d for d, _ in made], recsize, 0, refused=True,
                                srcs=[_Lazy(lambda: "[" + ", ".join(str(src) for _, src in made) + "]"),
                                      repr(recsize), "0"])
                if isinstance(res, TimeoutError) and self.model.len() > before[2]:
                    STATS.edges["batch stopped for room"] += 1
                elif res == len(made) and len(made) > 1:
                    STATS.edges["batch stored whole"] += 1
                self._edges("put_recs", before, moved_in=self.model.len() - before[2])
            if "get_recs" in ops:
                before = self._state()
                res = self.call("get_recs", count, recsize, 0, refused=True)
                if isinstance(res, list) and len(res) > 1:
                    STATS.edges["batch taken"] += 1
                self._edges("get_recs", before, moved_out=before[2] - self.model.len())

        # ------------------------------------------------------------- state
        @rule(bad=st.sampled_from(bad_calls))
        def bad_call(self, bad: int) -> None:
            """A refused call: an exception of the kind wanted, nothing changed."""
            self._step()
            assert checks is not None
            name, args = _BAD_CALLS[bad]
            category = _BAD_CATEGORY[bad]
            wanted = checks[category]
            exc = self.call(name, *args, refused=True, allowed=None if wanted == "kfifo" else wanted)
            assert isinstance(exc, Exception), f"the model accepted {name}{args!r}"
            STATS.edges[category] += 1

        @rule()
        def drain_and_refill(self) -> None:
            """Compare the whole content, then put it back (on both sides)."""
            self._step()
            content = self.drain()
            self.call(put_methods[0], content, srcs=[_Lazy(_bytes_src, content)])

        def drain(self) -> bytes:
            assert self.model is not None
            STATS.edges["content drained"] += 1
            n = self.model.len()
            before = self._state()
            content = bytes(self.call(get_out[0], n))
            self._edges(get_out[0], before, moved_out=n)
            return content

        def drain_records(self) -> None:
            """Take records until the fifo is empty or holds no whole one."""
            assert self.model is not None
            recsize = self.recsize
            while self.model.len() and (
                    recsize == 0 or recsize + self.model.peek_rec(recsize) <= self.model.len()):
                n = self.model.len() if recsize == 0 else self.model.peek_rec(recsize)
                self.call(rec_out[0], n, recsize)

        # -------------------------------------------------------- invariants
        @invariant()
        def queries_agree(self) -> None:
            if self.model is None:
                return
            names = list(queries) + (["__len__"] if "__len__" in ops else [])
            answers: List[Any] = [None] * len(names)
            if isinstance(self.fifo, IsolatedFifo):  # one round trip for all of them
                answers = self.fifo.batch(names)
            for name, answer in zip(queries, answers):
                self.call(name, record=False, answer=answer)
            if "__len__" not in ops:
                return
            expected = len(self.model)
            try:
                got, exc = answers[-1] if answers[-1] is not None else (len(self.fifo), None)
                if exc is not None:
                    raise exc
            except RingCrashed as exc:
                self._fail("len(f)", f"len(f) crashed the process the fifo ran in: {exc.how}", crashed=exc.how)
            if got != expected:
                self._fail(f"assert len(f) == {expected}", f"len(f) is {got}; expected {expected}")

        def teardown(self) -> None:
            """Compare what is left; free the fifo (and with Kfifo's argument
            checks, check that every call then raises ValueError)."""
            try:
                self._teardown()
            finally:
                if isinstance(self.fifo, IsolatedFifo):
                    self.fifo.close()

        def _teardown(self) -> None:
            if self.model is None or self.failed:
                return
            if get_out:
                self.drain()
            elif rec_out:
                self.drain_records()
            if "free" not in ops:
                return
            self.call("free")
            if not strict:
                return
            for name, args in (("len", ()), ("in_", (b"x",)), ("out", (1,)), ("peek_rec", (1,))):
                if name in ops:
                    self.call(name, *args, refused=True)
            STATS.edges["calls after free"] += 1

    get_out = roles(ops, "get")
    disabled = {
        "put": not put_methods, "get": not get_methods, "drop": not drop_methods,
        "locked": not ({"in_locked", "out_locked"} <= ops and lock_factory is not None),
        "put_rec": not rec_in, "get_rec": not (rec_in and get_rec_methods), "below_header": not can_go_below,
        "bad_call": not bad_calls,
        "drain_and_refill": not (put_methods and get_out),
        "batch": not batch_calls,
    }
    for rule_name, off in disabled.items():
        if off:
            setattr(_Machine, rule_name, None)  # Hypothesis collects no rule from it
    name = getattr(factory, "__qualname__", None) or type(factory).__name__
    _Machine.__name__ = _Machine.__qualname__ = f"KfifoStateMachine_{name.replace('.', '_')}"
    _Machine.operations = ops
    _Machine.with_start = with_start
    _Machine.checks_arguments = checks is not None
    _Machine.capacity = capacity
    _Machine.recsizes = tuple(allowed_recsizes)
    _Machine.TestCase.settings = settings(
        deadline=None, suppress_health_check=_QUIET_CHECKS,
        phases=[p for p in (settings.default or settings()).phases if p != Phase.explain],
    )
    hypothesis_run = _Machine.TestCase.runTest

    def runTest(self: Any) -> None:  # noqa: N802 - unittest's name
        with _shrinking_capped(), nondeterminism_reported():
            hypothesis_run(self)

    for attr in ("is_hypothesis_test", "_hypothesis_state_machine_class"):
        if hasattr(hypothesis_run, attr):
            setattr(runTest, attr, getattr(hypothesis_run, attr))
    _Machine.TestCase.runTest = runTest  # type: ignore[method-assign]
    return _Machine


@contextlib.contextmanager
def nondeterminism_reported() -> Iterator[None]:
    """Turn Hypothesis's "flaky" errors into the fifo's :class:`KfifoMismatch`.

    When the fifo answers a replay of the same calls differently (it returns
    bytes it never stored: uninitialised memory; or its answers depend on
    time), Hypothesis cannot shrink or confirm the failure and raises
    ``Flaky*``, blaming the test.  The bug is the fifo's: this reports the
    shortest failing example seen, as a mismatch, with its reproduction.
    """
    from hypothesis.errors import Flaky

    STATS.failure = None
    try:
        yield
    except Flaky as flaky:
        found = STATS.failure
        if found is None or found.trace is None:
            raise
        message = (f"{found.message}\n(the fifo answered differently when the same calls were replayed: "
                   "its answers depend on more than the calls -- bytes it never stored, uninitialised "
                   "memory, time -- so the reproduction may need a few runs to fail)")
        exc = KfifoMismatch(message, found.trace, crashed=found.crashed)
        exc.nondeterministic = True
        if _flag("PRINT_REPRODUCTION"):
            exc.printed = True
            print(f"\nkfifo.testing: the fifo is nondeterministic.\n{message}\n"
                  "Reproduction (save it as repro.py and run: python repro.py):\n"
                  "----------------------------------------------------------------------\n"
                  + found.trace.snippet() +
                  "----------------------------------------------------------------------",
                  file=sys.stderr, flush=True)
        raise exc from flaky


def run_machine(machine: Type[KfifoStateMachine], settings: Optional[Any] = None) -> None:
    """:func:`hypothesis.stateful.run_state_machine_as_test` with a
    nondeterministic fifo reported as a :class:`KfifoMismatch`, and shrinking
    stopped after ``kfifo.testing.SHRINK_SECONDS`` (as ``TestCase`` does)."""
    from hypothesis.stateful import run_state_machine_as_test

    with _shrinking_capped(), nondeterminism_reported():
        run_state_machine_as_test(machine, settings=settings)




