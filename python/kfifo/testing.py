# SPDX-License-Identifier: MIT
"""Hypothesis support: test any kfifo implementation against the reference model.

Install with ``pip install kfifo[testing]``.  In your tests::

    from kfifo.testing import make_state_machine
    TestMine = make_state_machine(MyFifo).TestCase

``make_state_machine(factory)`` returns a
:class:`~hypothesis.stateful.RuleBasedStateMachine` that creates
``factory(size, start=start)`` next to a :class:`kfifo.model.KfifoModel`
and drives both with the same random sequence of calls: byte stream,
records with ``recsize`` 0/1/2, skips, peeks, resets and the size queries
-- those of them your fifo has (:func:`find_operations`, or
``operations=``; :data:`FEATURES` lists them).  Every return value is
compared; the size queries are compared after every step; the content is
compared whenever bytes come out, by an occasional "drain and refill" step,
and at the end of every example.  Bad arguments are tried only when you ask
(``check_arguments=``); ``start=`` is used when the factory takes it.

A C ring buffer is tested through ctypes: subclass :class:`CFifo` with its
library and a mapping from operations to its functions.

When the two disagree the machine prints, on stderr, a runnable Python
snippet that replays the shortest failing sequence on your fifo alone, with
the model's answers written as ``assert`` statements.

Aim
---
The default 100 examples are few (Hypothesis spends many of them on small
examples and on near-copies), so every example is aimed at the edges where
a FIFO goes wrong:

* lengths are mostly relative (the fifo's ``len``, ``avail``, ``size``, the
  bytes before the buffer's end, the length last stored), and indices start
  near ``2**32``, so the fifo fills, wraps its buffer and wraps ``2**32``
  within a few calls;
* a new fifo already holds one to three records, the first ones leaning to
  the header limit (255/65535) and one past it;
* records are stored two or three at a time, and up to two taken back at
  once by a consumer that uses the producer's ``recsize`` and sizes its
  buffer as a user would (from ``peek_rec``: one byte too small, exact, or
  larger, so that bytes copied past the record would show);
* the calls that drop data (skip, skip_rec, reset_out, reset) share one rule,
  so the fifo is not drained more often than it is filled.

``scripts/detection_rate.py`` in the source tree measures how often the
default settings find each planted bug of ``tests/test_planted_bugs.py``.

Settings
--------
Importing this module changes no Hypothesis setting.  A machine's
``TestCase.settings`` are the profile in force when
:func:`make_state_machine` is called, with ``deadline=None`` (the first
calls into a C extension are slow) and without the "explain" phase (the
machine prints its own reproduction, so that phase would only cost time).

Three profiles are registered on request, by :func:`register_profiles` or
:func:`load_profile`, under names of their own so that yours are left alone:

``kfifo-dev``   100 examples of up to 50 steps, a few seconds;
``kfifo-ci``    200 examples of up to 50 steps, a few seconds per machine;
``kfifo-long``  20 000 examples of up to 100 steps, for a campaign.

``load_profile()`` loads the one named by ``$KFIFO_HYPOTHESIS_PROFILE``
(``dev``, ``ci``, ``long``, short for the ``kfifo-`` names, or any profile
you registered yourself); the project's ``tests/conftest.py`` calls it.

Coverage
--------
:data:`STATS` counts examples, steps, and which operations and edge cases
(wrap at ``2**32``, copies across the buffer's end, full fifo, header
limits, refused records, bad arguments ...) the machines have exercised;
``python -m kfifo fuzz`` prints it.
"""
from __future__ import annotations

import array
import inspect
import os
import sys
import time
from collections import Counter
from typing import (
    Any, Callable, ClassVar, Dict, FrozenSet, Iterable, List, Mapping, Optional, Tuple, Type, Union,
)

from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from kfifo.model import UINT_MAX, KfifoModel

__all__ = [
    "make_state_machine",
    "find_operations",
    "KfifoStateMachine",
    "CFifo",
    "C_SIGNATURES",
    "FEATURES",
    "ARGUMENT_ERRORS",
    "register_profiles",
    "load_profile",
    "PROFILE_ENV",
    "STATS",
    "Stats",
    "KfifoMismatch",
    "pattern",
    "OPERATIONS",
    "EDGES",
]

# ----------------------------------------------------------------------
# Settings profiles
# ----------------------------------------------------------------------
#: Environment variable naming the Hypothesis profile to load.
PROFILE_ENV = "KFIFO_HYPOTHESIS_PROFILE"

_QUIET_CHECKS = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
#: Every phase but "explain": the machine prints its own reproduction.
_PHASES = (Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink)
#: The profiles :func:`register_profiles` registers (name -> settings keywords).
PROFILES: Dict[str, Dict[str, Any]] = {
    "kfifo-dev": dict(max_examples=100, stateful_step_count=50),
    "kfifo-ci": dict(max_examples=200, stateful_step_count=50, print_blob=True),
    "kfifo-long": dict(max_examples=20_000, stateful_step_count=100),
}


def register_profiles() -> None:
    """Register the ``kfifo-dev``, ``kfifo-ci`` and ``kfifo-long`` profiles
    (no other profile is touched)."""
    for name, kwargs in PROFILES.items():
        settings.register_profile(
            name, deadline=None, suppress_health_check=_QUIET_CHECKS, phases=_PHASES, **kwargs
        )


def load_profile(name: Optional[str] = None) -> str:
    """Load the profile ``name``, or the one named by ``$KFIFO_HYPOTHESIS_PROFILE``
    (``kfifo-dev`` if unset); return the name loaded.

    ``dev``, ``ci`` and ``long`` are short for ``kfifo-dev``, ``kfifo-ci`` and
    ``kfifo-long`` (Hypothesis has a ``ci`` profile of its own); any other
    name is a profile you registered.
    """
    register_profiles()
    name = name or os.environ.get(PROFILE_ENV) or "kfifo-dev"
    if "kfifo-" + name in PROFILES:
        name = "kfifo-" + name
    settings.load_profile(name)
    return name


# ----------------------------------------------------------------------
# Coverage accounting
# ----------------------------------------------------------------------
#: Every operation the machine can call (the public API of kfifo.Kfifo); the
#: locked calls only when the machine has a ``lock_factory``.
OPERATIONS = (
    "in_", "from_user", "out", "to_user", "out_into",
    "in_rec", "from_user_rec", "out_rec", "to_user_rec",
    "peek_rec", "skip", "skip_rec", "reset", "reset_out",
    "len", "size", "avail", "is_empty", "is_full", "free",
    "in_locked", "out_locked", "put_recs", "get_recs",
)

#: Edge cases the machine looks for, with a short description.
EDGES = {
    "size 1": "a fifo of one byte",
    "start near 2**32": "indices start less than 64 KiB before the 32-bit wrap",
    "in wraps 2**32": "the producer index crosses 2**32",
    "out wraps 2**32": "the consumer index crosses 2**32",
    "copy crosses buffer end": "a copy in or out continues at the buffer's start",
    "fifo full": "an operation leaves the fifo full",
    "partial in": "in_ stores fewer bytes than offered",
    "out of empty fifo": "out/out_rec on an empty fifo",
    "zero-length record": "a record of 0 bytes stored",
    "header max stored": "a record of 255 (recsize 1) or 65535 (recsize 2) bytes stored",
    "header max + 1 refused": "a record of 256 / 65536 bytes refused for its header",
    "record refused for room": "in_rec refused because it does not fit",
    "2-byte header split": "a recsize-2 header straddles the buffer's end",
    "out_rec buffer too small": "out_rec returns L > n and keeps the record",
    "out_rec incomplete": "out_rec returns n: fewer than recsize + L bytes stored",
    "out_rec success": "out_rec removes one record",
    "out_rec buffer larger": "out_rec takes a record into a larger buffer, more data behind it",
    "skip_rec one record": "skip_rec removes exactly one record",
    "skip_rec empties": "skip_rec empties the fifo (partial record or recsize 0)",
    "skip past len": "skip(n) with n >= len empties the fifo",
    "invalid recsize": "ValueError for a recsize other than 0, 1, 2",
    "negative count": "ValueError for a negative count",
    "count >= 2**32": "OverflowError for a count that does not fit 32 bits",
    "wrong type": "TypeError for a wrong argument type",
    "content drained": "all content compared by draining and refilling",
    "batch stored whole": "put_recs stores every record of its batch",
    "batch stopped for room": "put_recs stores part of its batch, then times out",
    "batch taken": "get_recs takes two records or more",
    "calls after free": "ValueError from every call after free()",
}


class Stats:
    """What the machines did since the last :meth:`reset` (read by ``kfifo fuzz``)."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.examples = 0
        self.steps = 0
        self.ops: Counter[str] = Counter()
        self.edges: Counter[str] = Counter()
        #: (examples, steps, seconds) when the first mismatch was seen.
        self.first_failure: Optional[Tuple[int, int, float]] = None
        #: The trace of the most recent example (after a failure: the shrunk one).
        self.trace: Optional["Trace"] = None
        self.started = time.monotonic()


#: Global counters shared by every machine of this process.
STATS = Stats()


class KfifoMismatch(AssertionError):
    """The implementation and the model disagree; ``str()`` adds a reproduction.

    The snippet is rendered only when the message is shown: while shrinking,
    Hypothesis raises and discards many of these.  When the machine has
    already printed it to stderr (``printed``), ``str()`` points there
    instead: a traceback would prefix every line of it (pytest's ``E``),
    while the copy on stderr pastes and runs as it is.
    """

    def __init__(self, message: str, trace: Optional["Trace"] = None) -> None:
        super().__init__(message)
        self.message = message
        self.trace = trace
        self.printed = False

    def __str__(self) -> str:
        if self.trace is None:
            return self.message
        if self.printed:
            return (self.message + "\n\nA runnable reproduction was printed to stderr "
                    "(under pytest: 'Captured stderr call'); it is also exc.trace.snippet().")
        return self.message + "\n\n" + self.trace.snippet()


# ----------------------------------------------------------------------
# Data and its source form in reproductions
# ----------------------------------------------------------------------
_BASE = bytes(range(251))


def pattern(n: int, seed: int) -> bytes:
    """``bytes((seed + i) % 251 for i in range(n))``, fast.

    The period 251 is prime, so content shifted by any multiple of a
    power-of-two buffer size is always different.
    """
    reps = (seed + n) // 251 + 1
    return (_BASE * reps)[seed:seed + n]


def _bytes_src(b: bytes) -> str:
    """Python source for ``b``: a literal if short, else runs of ``pattern()``."""
    if len(b) <= 24:
        return repr(bytes(b))
    runs = []
    i = 0
    while i < len(b):
        j = i + 1
        while j < len(b) and b[j] == (b[i] + j - i) % 251:
            j += 1
        runs.append((i, j))
        i = j
        if len(runs) > 4:
            return f"bytes.fromhex({bytes(b).hex()!r})"
    return " + ".join(
        f"pattern({j - i}, {b[i]})" if j - i > 8 else repr(bytes(b[i:j])) for i, j in runs
    )


def _make_data(n: int, seed: int, kind: str) -> Tuple[Any, str]:
    raw = pattern(n, seed)
    src = f"pattern({n}, {seed})" if n > 8 else repr(raw)
    if kind == "bytearray":
        return bytearray(raw), f"bytearray({src})"
    if kind == "memoryview":
        return memoryview(raw), f"memoryview({src})"
    if kind == "array":
        return array.array("B", raw), f"array.array('B', {src})"
    if kind == "numpy":
        return _np.frombuffer(raw, dtype=_np.uint8), f"numpy.frombuffer({src}, dtype=numpy.uint8)"
    return raw, src


def _value_src(v: Any) -> str:
    if isinstance(v, (bytes, bytearray)):
        return _bytes_src(bytes(v))
    if isinstance(v, tuple):
        inner = ", ".join(_value_src(x) for x in v)
        return f"({inner})"
    return repr(v)


class _Lazy:
    """A string computed when first needed: ``str(_Lazy(f, *args)) == f(*args)``."""

    __slots__ = ("fn", "args", "text")

    def __init__(self, fn: Callable[..., str], *args: Any) -> None:
        self.fn, self.args = fn, args
        self.text: Optional[str] = None

    def __str__(self) -> str:
        if self.text is None:
            self.text = self.fn(*self.args)
        return self.text


class Trace:
    """The calls of one example, as lines of a runnable Python snippet."""

    def __init__(self, factory: Callable[..., Any], lock_factory: Optional[Callable[[], Any]] = None) -> None:
        self.factory = factory
        self.lock_factory = lock_factory
        self.lines: List[Any] = []
        self.failure: Optional[str] = None
        #: Exception classes the snippet names (imported unless built in).
        self.exceptions: List[type] = []

    def add(self, line: Any) -> None:
        """Append a line: a string, or a :class:`_Lazy` rendered only when printed."""
        self.lines.append(line)

    def snippet(self) -> str:
        lines = [str(line) for line in self.lines]
        imports = ["import array"]
        if any("numpy." in line for line in lines):
            imports.append("import numpy")
        names = [f"make_fifo = {_import(self.factory, imports)}"]
        for exc in self.exceptions:
            if exc.__module__ != "builtins":
                _import(exc, imports)
        if self.lock_factory is not None and any(", lock)" in str(line) for line in self.lines):
            names.append(f"lock = {_import(self.lock_factory, imports)}()")
        head = [
            "# Reproduction: run it with python.  Each assert holds the answer of",
            "# kfifo.model.KfifoModel; the last one fails.",
            *imports,
            "",
            *names,
            "",
            "",
            "def pattern(n, seed):",
            "    return bytes((seed + i) % 251 for i in range(n))",
            "",
            "",
            "def raises(exc, call, *args):",
            "    try:",
            "        call(*args)",
            "    except exc:",
            "        return",
            "    raise AssertionError(f'{call.__name__}{args!r} did not raise {exc}')",
            "",
            "",
        ]
        return "\n".join(head + lines) + "\n"


def _import(obj: Any, imports: List[str]) -> str:
    """Add the import of ``obj`` to ``imports``; return the expression naming it."""
    mod = getattr(obj, "__module__", None) or "__main__"
    qual = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or type(obj).__name__
    top = sys.modules.get(mod.split(".")[0])
    if top is not None and getattr(top, qual, None) is obj:  # kfifo._kfifo.Kfifo -> kfifo.Kfifo
        mod = top.__name__
    imports.append(f"from {mod} import {qual.split('.')[0]}")
    return qual


# ----------------------------------------------------------------------
# Strategies
# ----------------------------------------------------------------------
_SIZES = st.one_of(
    # A third small: they fill and wrap within a few calls ...
    st.sampled_from([1, 2, 3, 4, 8, 16, 17, 64]),
    # ... two thirds large enough for a 256-byte record, one past the recsize-1
    # header limit (lengths relative to len/avail/size fill and wrap them
    # quickly too); 65537 rounds up to 128 KiB: room for 65536 bytes and a header.
    st.sampled_from([300, 512, 1024, 65537]),
    st.integers(257, 2048),
)
_STARTS = st.one_of(
    st.sampled_from([0, UINT_MAX]),  # UINT_MAX: the first byte goes to the buffer's last slot
    st.integers(UINT_MAX - 40, UINT_MAX),
    st.integers(UINT_MAX - 300, UINT_MAX),
    st.integers(UINT_MAX - 70_000, UINT_MAX),
    st.integers(0, UINT_MAX),
)
#: An absolute length, or (what, delta): the fifo's len/size/avail, the next
#: record's length ("peek"), the bytes left before the buffer's end
#: ("to_end"), the length last stored or taken ("last"), plus delta.
_LENGTHS = st.one_of(
    st.integers(0, 20),
    st.sampled_from([0, 1, 255, 256, 65535, 65536]),
    st.tuples(st.sampled_from(["avail", "size", "len", "peek", "to_end", "last"]), st.integers(-2, 2)),
    st.integers(0, 5000),
)
_COUNTS = st.one_of(_LENGTHS, st.just(UINT_MAX))
#: Record lengths: short ones, so that several records fit and follow each
#: other; ("limit", delta), the longest record the header holds (255 or
#: 65535; 255 for recsize 0) plus delta, one past it first; lengths relative
#: to the room left, the buffer's end or the last record.  No absolute long
#: lengths: in most fifos they would only be refused for room.
_HEADER_LIMITS = st.sampled_from([("limit", 1), ("limit", 0)])
_REC_LENGTHS = st.one_of(
    st.integers(0, 12),
    _HEADER_LIMITS,
    st.tuples(st.sampled_from(["avail", "to_end", "last"]), st.integers(-3, 1)),
    # The length that makes the next record's header straddle the buffer's end.
    st.just(("split", 0)),
)
#: The records a new fifo holds: it is empty, the one moment a record at the
#: header limit is sure to fit if the fifo can hold it, so they lean there.
_FILL = st.lists(st.one_of(_HEADER_LIMITS, _REC_LENGTHS), min_size=1, max_size=3)
#: out_rec capacities: about the next record's length (one too small, exact,
#: or larger, so bytes past L would show), the header limit, any count.
_CAPACITIES = st.one_of(
    st.tuples(st.just("peek"), st.integers(-1, 4)),
    st.tuples(st.just("limit"), st.integers(-1, 1)),
    _COUNTS,
)
_SEEDS = st.integers(0, 250)
_np: Any
try:  # numpy arrays are bytes-like inputs too, when numpy is there
    import numpy as _np
except ImportError:  # pragma: no cover
    _np = None

_BAD_CALLS = [
    ("in_", ("text",)), ("in_", (5,)), ("in_", (None,)), ("from_user", ([1, 2],)),
    ("out", (-1,)), ("out", (UINT_MAX + 1,)), ("out", (1.0,)), ("out", ("3",)),
    ("to_user", (-5,)), ("to_user", (2 ** 40,)), ("skip", (2 ** 64,)), ("out_rec", (2 ** 64, 1)),
    ("out_into", (b"read-only",)), ("out_into", ("text",)),
    ("in_rec", (b"abc", 3)), ("in_rec", (b"", 255)), ("in_rec", (b"abc", -1)),
    ("in_rec", ("abc", 1)), ("in_rec", (b"abc", 1.0)), ("from_user_rec", (b"x", 4)),
    ("out_rec", (4, 3)), ("out_rec", (4, -1)), ("out_rec", (-1, 1)),
    ("out_rec", (UINT_MAX + 1, 1)), ("out_rec", (4.0, 1)), ("to_user_rec", (4, 65536)),
    ("peek_rec", (3,)), ("peek_rec", (-1,)), ("peek_rec", (None,)),
    ("skip", (-1,)), ("skip", (UINT_MAX + 1,)), ("skip", (2.5,)),
    ("skip_rec", (3,)), ("skip_rec", (7,)), ("skip_rec", ("1",)), ("peek_rec", (UINT_MAX + 1,)),
    ("put_recs", (5, 1)), ("put_recs", ([b"x", "text"], 1)), ("put_recs", ([b"x"], 3)),
    ("put_recs", ([b"x"], -1)),
    ("get_recs", (-1, 1)), ("get_recs", (UINT_MAX + 1, 1)), ("get_recs", (2.0, 1)),
    ("get_recs", (2, 3)), ("get_recs", (2, 0)),
]

_QUERIES = ("len", "avail", "size", "is_empty", "is_full")

#: The kinds of bad argument, keys of a ``check_arguments`` mapping.
ARGUMENT_ERRORS = ("wrong type", "negative count", "count >= 2**32", "invalid recsize")

#: What each feature needs: the machine tests a feature when the fifo has
#: its first operation; the others of the group are tested when present.
FEATURES = {
    "byte stream": ("in_", "from_user", "out", "to_user", "out_into", "skip"),
    "records": ("in_rec", "from_user_rec", "out_rec", "to_user_rec", "peek_rec", "skip_rec"),
    "emptying": ("reset", "reset_out"),
    "queries": ("len", "avail", "size", "is_empty", "is_full"),
    "locked calls": ("in_locked", "out_locked"),
    "batches of records": ("put_recs", "get_recs"),
    "release": ("free",),
}

_ALL_KINDS = ["bytes", "bytearray", "memoryview", "array"] + (["numpy"] if _np else [])


def _bad_category(name: str, args: Tuple[Any, ...]) -> str:
    """Which of :data:`ARGUMENT_ERRORS` the bad call ``name(*args)`` is."""
    try:
        getattr(KfifoModel(8), name)(*args)
    except TypeError:
        return "wrong type"
    except OverflowError:
        return "count >= 2**32"
    except ValueError as exc:
        return "invalid recsize" if "recsize" in str(exc) else "negative count"
    raise AssertionError(f"the model accepts {name}{args!r}")  # pragma: no cover


_BAD_CATEGORY = {i: _bad_category(name, args) for i, (name, args) in enumerate(_BAD_CALLS)}


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


def _exc_src(exc: Any) -> str:
    if isinstance(exc, tuple):
        return "(" + ", ".join(e.__name__ for e in exc) + ("," if len(exc) == 1 else "") + ")"
    return str(exc.__name__)


def _is_final() -> bool:
    """True in the run Hypothesis makes of the shrunk example, just before it reports it."""
    try:
        from hypothesis.control import current_build_context

        return bool(current_build_context().is_final)
    except Exception:  # no build context: called outside a Hypothesis test
        return False


#: Whether the machines print a line to stderr when they find a mismatch
#: (shrinking it may take seconds); the measuring scripts turn it off.
PROGRESS = True
#: Whether the machines print the shrunk reproduction to stderr, clean, in
#: the final run; ``kfifo fuzz`` prints it itself.
PRINT_REPRODUCTION = True


class KfifoStateMachine(RuleBasedStateMachine):
    """What every machine of :func:`make_state_machine` is (for type checkers).

    The rules are added by :func:`make_state_machine`, for the operations
    the fifo under test has.
    """

    #: The operations tested (names of :data:`OPERATIONS`, and ``__len__``).
    operations: ClassVar[FrozenSet[str]] = frozenset()
    #: The record header sizes tested.
    recsizes: ClassVar[Tuple[int, ...]] = ()


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
    return _make_machine(factory, lock_factory, operations, start, recsizes, sizes, check_arguments, inputs)


def _make_machine(factory: Callable[..., Any], lock_factory: Optional[Callable[[], Any]],
                  operations: Optional[Iterable[str]], start: Optional[bool], recsizes: Optional[Iterable[int]],
                  sizes: Optional[Union[Iterable[int], SearchStrategy[int]]], check_arguments: _Checks,
                  inputs: Optional[Iterable[str]]) -> Type[KfifoStateMachine]:
    checks = _argument_checks(check_arguments)
    strict = checks is not None and all(v == "kfifo" for v in checks.values())
    if operations is None:
        ops = find_operations(factory)
    else:
        ops = frozenset(operations)
        unknown = ops - set(OPERATIONS) - {"__len__"}
        if unknown:
            raise ValueError(f"unknown operation(s) {sorted(unknown)}; known: {OPERATIONS + ('__len__',)}")
    if lock_factory is None:
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

    put_methods = have("in_", "from_user")
    get_methods = have("out", "to_user", "out_into")
    rec_in = have("in_rec", "from_user_rec")
    rec_out = have("out_rec", "to_user_rec")
    drop_methods = have("skip", "reset_out", "reset") + (have("skip_rec") if rec_in else [])
    get_rec_methods = have("out_rec", "to_user_rec", "peek_rec")
    batch_calls = have("put_recs", "get_recs")
    queries = have(*_QUERIES)
    bad_calls = [] if checks is None else [
        i for i, (name, _) in enumerate(_BAD_CALLS) if name in ops and _BAD_CATEGORY[i] in checks
    ]
    size_strategy = _SIZES if sizes is None else (
        sizes if isinstance(sizes, SearchStrategy) else st.sampled_from(sorted(set(sizes)))
    )
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
    # What a consumer does right after records are stored: take one (the
    # capacity), or skip one.
    take_strategy = st.one_of(_CAPACITIES, st.just("skip_rec")) if "skip_rec" in ops else _CAPACITIES

    class _Machine(KfifoStateMachine):
        """``factory(size, start=start)`` and :class:`KfifoModel`, driven side by side."""

        def __init__(self) -> None:
            super().__init__()
            self.model: Optional[KfifoModel] = None
            self.fifo: Any = None
            self.lock: Any = None
            self.failed = False
            self.trace = Trace(factory, lock_factory)
            self.recsize: int = allowed_recsizes[-1]  # of the records last stored; see recsize_choices
            self.last_length = 0  # of the last data stored or taken
            STATS.trace = self.trace
            STATS.examples += 1

        # -------------------------------------------------------------- calls
        def _fail(self, line: Any, message: str) -> None:
            self.failed = True
            if STATS.first_failure is None:
                STATS.first_failure = (STATS.examples, STATS.steps, time.monotonic() - STATS.started)
                if PROGRESS:
                    print(f"kfifo.testing: {type(self).__name__}: mismatch found after {STATS.examples} examples "
                          f"({STATS.first_failure[2]:.1f} s); shrinking it to a short reproduction ...",
                          file=sys.stderr, flush=True)
            self.trace.add(f"{line}  # <-- " + message.replace("\n", " "))
            self.trace.failure = message
            exc = KfifoMismatch(message, self.trace)
            if PRINT_REPRODUCTION and _is_final():
                exc.printed = True
                print(f"\nkfifo.testing: {type(self).__name__}: the fifo and the model disagree "
                      f"({time.monotonic() - STATS.started:.1f} s).\n{message}\n"
                      "Reproduction (save it as repro.py and run: python repro.py):\n"
                      "----------------------------------------------------------------------\n"
                      + self.trace.snippet() +
                      "----------------------------------------------------------------------",
                      file=sys.stderr, flush=True)
            raise exc

        def call(self, name: str, *args: Any, srcs: Optional[List[Any]] = None,
                 record: bool = True, model_args: Optional[Tuple[Any, ...]] = None, refused: bool = False,
                 allowed: Any = None) -> Any:
            """Call ``name(*args)`` on both sides; compare results or exception types.

            ``refused`` says the call is meant to raise: only then may the
            model raise (anywhere else that would be a bug in the model).
            The fifo must then raise ``allowed`` (default: the model's type).
            """
            STATS.ops[name] += 1
            margs = args if model_args is None else model_args
            try:
                expected, expected_exc = getattr(self.model, name)(*margs), None
            except Exception as exc:
                if not refused:
                    raise
                expected, expected_exc = None, exc
            try:
                actual, actual_exc = getattr(self.fifo, name)(*args), None
            except Exception as exc:
                actual, actual_exc = None, exc
            # The reproduction's lines are only rendered if a snippet is printed.
            srcs = srcs if srcs is not None else [_Lazy(_value_src, a) for a in args]

            def call_src() -> str:
                return f"f.{name}({', '.join(map(str, srcs))})"

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
                    self.trace.add(_Lazy(call_src))
                return None
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
            return expected

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
                    "to_end": lambda: -model.in_index & (model.size() - 1),
                    "split": lambda: (-model.in_index - recsize - 1) & (model.size() - 1),
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
            mask = m.size() - 1
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
            self.model = KfifoModel(size, start=start)
            line = f"f = make_fifo({size}, start={start})" if with_start else f"f = make_fifo({size})"
            try:
                self.fifo = factory(size, start=start) if with_start else factory(size)
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

        @rule(method=st.sampled_from(get_methods), count=_COUNTS, kind=st.sampled_from(writable))
        def get(self, method: str, count: Any, kind: str) -> None:
            """out(n), to_user(n) or out_into(buffer of n bytes of the given kind)."""
            self._step()
            assert self.model is not None
            n = self._length(count)
            before = self._state()
            if before[2] == 0:
                STATS.edges["out of empty fifo"] += 1
            if method == "out_into":
                # A buffer longer than the whole fifo tests nothing more.
                moved = self._get_into(min(n, self.model.size() + 64), kind)
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

        @rule(method=st.sampled_from(drop_methods), count=_COUNTS, recsize=recsize_choices)
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
        @rule(length=_LENGTHS, seed=_SEEDS, count=_COUNTS)
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
            mask = self.model.size() - 1
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

        @rule(method=st.sampled_from(get_rec_methods), count=_CAPACITIES, recsize=recsize_choices)
        def get_rec(self, method: str, count: Any, recsize: Optional[int]) -> None:
            """out_rec(n, recsize), to_user_rec(n, recsize) or peek_rec(recsize)."""
            self._step()
            recsize = self._recsize(recsize)
            if method == "peek_rec":
                self.call("peek_rec", recsize)
            else:
                self._get_rec(method, count, recsize)

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
            for name in queries:
                self.call(name, record=False)
            if "__len__" not in ops:
                return
            expected = len(self.model)
            got = len(self.fifo)
            if got != expected:
                self._fail(f"assert len(f) == {expected}", f"len(f) is {got}; expected {expected}")

        def teardown(self) -> None:
            """Compare what is left; free the fifo (and with Kfifo's argument
            checks, check that every call then raises ValueError)."""
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

    get_out = have("out", "to_user")
    disabled = {
        "put": not put_methods, "get": not get_methods, "drop": not drop_methods,
        "locked": not ({"in_locked", "out_locked"} <= ops and lock_factory is not None),
        "put_rec": not rec_in, "get_rec": not (rec_in and get_rec_methods), "bad_call": not bad_calls,
        "drain_and_refill": not (put_methods and get_out),
        "batch": not batch_calls,
    }
    for rule_name, off in disabled.items():
        if off:
            setattr(_Machine, rule_name, None)  # Hypothesis collects no rule from it
    name = getattr(factory, "__qualname__", None) or type(factory).__name__
    _Machine.__name__ = _Machine.__qualname__ = f"KfifoStateMachine_{name.replace('.', '_')}"
    _Machine.operations = ops
    _Machine.recsizes = tuple(allowed_recsizes)
    _Machine.TestCase.settings = settings(
        deadline=None, suppress_health_check=_QUIET_CHECKS,
        phases=[p for p in (settings.default or settings()).phases if p != Phase.explain],
    )
    return _Machine


def _difference(got: Any, expected: Any) -> str:
    """Where two results first differ, when that is not obvious from their repr."""
    if isinstance(expected, tuple) and isinstance(got, tuple) and len(got) == len(expected):
        for i, (g, e) in enumerate(zip(got, expected)):
            if g != e:
                return f" (item {i}{_difference(g, e)})"
        return ""
    if not isinstance(expected, bytes) or not isinstance(got, (bytes, bytearray)):
        return ""
    if len(got) != len(expected):
        return f" ({len(got)} bytes instead of {len(expected)})"
    i = next(i for i, (g, e) in enumerate(zip(got, expected)) if g != e)
    return f" (first difference at byte {i}: {got[i]} instead of {expected[i]})"


def _short(v: Any) -> str:
    r = repr(v)
    return r if len(r) <= 120 else r[:100] + f"... ({len(v) if hasattr(v, '__len__') else '?'} items)"


# ----------------------------------------------------------------------
# C ring buffers through ctypes
# ----------------------------------------------------------------------
#: The C shape each operation of a :class:`CFifo` must have; ``R`` is the
#: ring (any pointer), ``u`` is ``unsigned int``.  A fixed ``recsize`` drops
#: the ``recsize`` argument of the record calls.
C_SIGNATURES = {
    "new": "R *new(u size)  - NULL on failure",
    "free": "void free(R *)",
    "start": "void set_start(R *, u start)  - both indices to start (a test hook)",
    "in_": "u in(R *, const void *from, u n)  - bytes stored",
    "from_user": "u from_user(R *, const void *from, u n)",
    "out": "u out(R *, void *to, u n)  - bytes copied to `to` and removed",
    "to_user": "u to_user(R *, void *to, u n)",
    "skip": "void skip(R *, u n)",
    "reset": "void reset(R *)",
    "reset_out": "void reset_out(R *)",
    "len": "u len(R *)",
    "avail": "u avail(R *)",
    "size": "u size(R *)",
    "is_empty": "int is_empty(R *)",
    "is_full": "int is_full(R *)",
    "in_rec": "u in_rec(R *, const void *from, u n, u recsize)  - 0 if stored",
    "from_user_rec": "u from_user_rec(R *, const void *from, u n, u recsize)",
    "out_rec": "u out_rec(R *, void *to, u n, u recsize, u *total)  - 0 if taken",
    "to_user_rec": "u to_user_rec(R *, void *to, u n, u recsize, u *total)",
    "peek_rec": "u peek_rec(R *, u recsize)",
    "skip_rec": "void skip_rec(R *, u recsize)",
}


def _c_types(op: str, fixed_recsize: bool) -> Tuple[Any, List[Any]]:
    """``(restype, argtypes)`` of the C function of ``op``."""
    import ctypes

    R, u, p = ctypes.c_void_p, ctypes.c_uint, ctypes.c_void_p
    rec = [] if fixed_recsize else [u]
    table: Dict[str, Tuple[Any, List[Any]]] = {
        "new": (R, [u]), "free": (None, [R]), "start": (None, [R, u]),
        "in_": (u, [R, p, u]), "from_user": (u, [R, p, u]),
        "out": (u, [R, p, u]), "to_user": (u, [R, p, u]), "skip": (None, [R, u]),
        "reset": (None, [R]), "reset_out": (None, [R]),
        "len": (u, [R]), "avail": (u, [R]), "size": (u, [R]),
        "is_empty": (ctypes.c_int, [R]), "is_full": (ctypes.c_int, [R]),
        "in_rec": (u, [R, p, u] + rec), "from_user_rec": (u, [R, p, u] + rec),
        "out_rec": (u, [R, p, u] + rec + [ctypes.POINTER(u)]),
        "to_user_rec": (u, [R, p, u] + rec + [ctypes.POINTER(u)]),
        "peek_rec": (u, [R] + rec), "skip_rec": (None, [R] + rec),
    }
    return table[op]


class CFifo:
    """A Python face for a C ring buffer, made from a mapping of names.

    Subclass it with the library and the names of its functions; the
    subclass is a factory for :func:`make_state_machine`::

        class Ring(CFifo):
            library = "./libring.so"          # a path or a ctypes.CDLL
            functions = {"new": "ring_new", "free": "ring_free",
                         "in_": "ring_put", "out": "ring_get", "len": "ring_len"}

        TestRing = make_state_machine(Ring).TestCase

    Each key of ``functions`` is an operation of :data:`C_SIGNATURES`, which
    also gives the C shape the function must have; only ``new`` and one way
    in are required, and the machine tests exactly the operations mapped.
    With ``"start"`` mapped, ``Ring(size, start=...)`` sets the indices, so
    the machine crosses the ``2**32`` wrap.  Set ``recsize`` when the record
    functions have a fixed header size and take no ``recsize`` argument.

    Output buffers hold ``min(n, 2 * size + 64)`` bytes: a correct ring never
    writes more than it holds, while an ``out(2**32 - 1)`` must not cost
    4 GiB.  A ring that writes past what it holds may crash the process, as
    it would crash a C program.
    """

    library: ClassVar[Any] = None
    functions: ClassVar[Mapping[str, str]] = {}
    #: A fixed record header size (the C record calls take no recsize).
    recsize: ClassVar[Optional[int]] = None
    #: The record header sizes the machine tests (set from ``recsize``).
    recsizes: ClassVar[Tuple[int, ...]] = (0, 1, 2)
    _c: ClassVar[Dict[str, Any]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not cls.functions:
            return
        import ctypes

        unknown = set(cls.functions) - set(C_SIGNATURES)
        if unknown:
            raise TypeError(f"{cls.__name__}.functions: unknown operation(s) {sorted(unknown)}; "
                            f"known: {sorted(C_SIGNATURES)}")
        if "new" not in cls.functions:
            raise TypeError(f"{cls.__name__}.functions needs 'new': {C_SIGNATURES['new']}")
        lib = cls.library
        if not isinstance(lib, ctypes.CDLL):
            lib = ctypes.CDLL(os.fspath(lib))
        fixed = cls.recsize is not None
        if fixed:
            if cls.recsize not in (0, 1, 2):
                raise ValueError(f"{cls.__name__}.recsize must be 0, 1 or 2, got {cls.recsize!r}")
            cls.recsizes = (int(cls.recsize),)
        cls._c = {}
        for op, cname in cls.functions.items():
            try:
                fn = getattr(lib, cname)
            except AttributeError:
                raise TypeError(f"{cls.__name__}: the library has no function {cname!r} (for {op!r})") from None
            fn.restype, fn.argtypes = _c_types(op, fixed)
            cls._c[op] = fn
        for op in cls.functions:
            if op in _C_METHODS:
                setattr(cls, op, _C_METHODS[op])
        if "len" in cls.functions:
            setattr(cls, "__len__", _C_METHODS["len"])
        if "start" not in cls.functions:
            setattr(cls, "__init__", _c_init_without_start)

    def __init__(self, size: int, *, start: int = 0) -> None:
        self._handle: Any = None
        if not self._c:
            raise TypeError(f"{type(self).__name__}: subclass CFifo and set library and functions")
        if size < 1:
            raise ValueError(f"size must be at least 1, got {size}")
        handle = self._c["new"](size)
        if not handle:
            raise MemoryError(f"{self.functions['new']}({size}) returned NULL")
        self._handle = handle
        self._room = 2 * (1 << (size - 1).bit_length()) + 64
        if start and "start" in self._c:
            self._c["start"](handle, start & UINT_MAX)

    def _h(self) -> Any:
        if self._handle is None:
            raise ValueError("operation on a freed fifo")
        return self._handle

    def _check_recsize(self, recsize: int) -> None:
        if self.recsize is not None and recsize != self.recsize:
            raise ValueError(f"this ring's records have a {self.recsize}-byte header, not {recsize}")

    def _buffer(self, n: int) -> Any:
        import ctypes

        return ctypes.create_string_buffer(max(0, min(n, self._room)))

    def __del__(self) -> None:
        handle, self._handle = getattr(self, "_handle", None), None
        if handle is not None and "free" in self._c:
            self._c["free"](handle)

    def __repr__(self) -> str:
        state = "freed" if self._handle is None else f"at {self._handle:#x}"
        return f"<{type(self).__name__} (C ring) {state}>"


def _c_init_without_start(self: CFifo, size: int) -> None:
    CFifo.__init__(self, size)


def _c_data(data: Any) -> Tuple[Any, int]:
    import ctypes

    view = memoryview(data).cast("B")
    return (ctypes.c_char * len(view)).from_buffer_copy(view), len(view)


def _c_in(op: str) -> Callable[..., int]:
    def method(self: CFifo, data: Any) -> int:
        buf, n = _c_data(data)
        return int(self._c[op](self._h(), buf, n))
    method.__name__ = op
    return method


def _c_out(op: str) -> Callable[..., bytes]:
    def method(self: CFifo, n: int) -> bytes:
        buf = self._buffer(n)
        got = int(self._c[op](self._h(), buf, n))
        return bytes(buf.raw[:got])
    method.__name__ = op
    return method


def _c_in_rec(op: str) -> Callable[..., int]:
    def method(self: CFifo, data: Any, recsize: int) -> int:
        self._check_recsize(recsize)
        buf, n = _c_data(data)
        rec = () if self.recsize is not None else (recsize,)
        return int(self._c[op](self._h(), buf, n, *rec))
    method.__name__ = op
    return method


def _c_out_rec(op: str) -> Callable[..., Tuple[int, bytes, int]]:
    def method(self: CFifo, n: int, recsize: int) -> Tuple[int, bytes, int]:
        import ctypes

        self._check_recsize(recsize)
        buf, total = self._buffer(n), ctypes.c_uint(0)
        rec = () if self.recsize is not None else (recsize,)
        ret = int(self._c[op](self._h(), buf, n, *rec, ctypes.byref(total)))
        return ret, (buf.raw[:total.value] if ret == 0 else b""), int(total.value)
    method.__name__ = op
    return method


def _c_with_recsize(op: str, cast: Callable[[Any], Any]) -> Callable[..., Any]:
    def method(self: CFifo, recsize: int) -> Any:
        self._check_recsize(recsize)
        rec = () if self.recsize is not None else (recsize,)
        return cast(self._c[op](self._h(), *rec))
    method.__name__ = op
    return method


def _c_query(op: str, cast: Callable[[Any], Any]) -> Callable[..., Any]:
    def method(self: CFifo) -> Any:
        return cast(self._c[op](self._h()))
    method.__name__ = op
    return method


def _c_skip(self: CFifo, n: int) -> None:
    self._c["skip"](self._h(), n)


def _c_free(self: CFifo) -> None:
    handle, self._handle = self._handle, None
    if handle is not None:
        self._c["free"](handle)


_C_METHODS: Dict[str, Callable[..., Any]] = {
    "in_": _c_in("in_"), "from_user": _c_in("from_user"),
    "out": _c_out("out"), "to_user": _c_out("to_user"), "skip": _c_skip,
    "reset": _c_query("reset", lambda r: None), "reset_out": _c_query("reset_out", lambda r: None),
    "len": _c_query("len", int), "avail": _c_query("avail", int), "size": _c_query("size", int),
    "is_empty": _c_query("is_empty", bool), "is_full": _c_query("is_full", bool),
    "in_rec": _c_in_rec("in_rec"), "from_user_rec": _c_in_rec("from_user_rec"),
    "out_rec": _c_out_rec("out_rec"), "to_user_rec": _c_out_rec("to_user_rec"),
    "peek_rec": _c_with_recsize("peek_rec", int), "skip_rec": _c_with_recsize("skip_rec", lambda r: None),
    "free": _c_free,
}
