# SPDX-License-Identifier: MIT
"""The reproduction printer: the calls of an example as a runnable Python
snippet, the mismatch exception that carries it, and the coverage counters."""
from __future__ import annotations

import array
import sys
import time
from collections import Counter
from typing import Any, Callable, List, Optional, Tuple

__all__ = ["Stats", "STATS", "KfifoMismatch", "pattern", "Trace"]

_np: Any
try:  # numpy arrays are bytes-like inputs too, when numpy is there
    import numpy as _np
except ImportError:  # pragma: no cover
    _np = None


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
        #: The shortest mismatch seen (reported if the fifo turns out nondeterministic).
        self.failure: Optional["KfifoMismatch"] = None
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

    def __init__(self, message: str, trace: Optional["Trace"] = None, crashed: Optional[str] = None) -> None:
        super().__init__(message)
        self.message = message
        self.trace = trace
        self.printed = False
        #: How the fifo's process died (``"killed by SIGSEGV"``), if it did.
        self.crashed = crashed
        #: Whether the fifo answered a replay of the same calls differently.
        self.nondeterministic = False

    def __str__(self) -> str:
        if self.trace is None:
            return self.message
        if self.printed:
            return (self.message + "\n\nA runnable reproduction was printed to stderr "
                    "(under pytest: 'Captured stderr call'); it is also exc.trace.snippet().")
        return self.message + "\n\n" + self.trace.snippet()


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

    def __init__(self, factory: Callable[..., Any], lock_factory: Optional[Callable[[], Any]] = None,
                 preamble: Optional[List[str]] = None) -> None:
        self.factory = factory
        #: Lines run first (the malloc setting of a crash-safe run).
        self.preamble = list(preamble or [])
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
            *self.preamble,
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


def _exc_src(exc: Any) -> str:
    if isinstance(exc, tuple):
        return "(" + ", ".join(e.__name__ for e in exc) + ("," if len(exc) == 1 else "") + ")"
    return str(exc.__name__)
