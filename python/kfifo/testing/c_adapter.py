# SPDX-License-Identifier: MIT
"""C ring buffers through ctypes: :class:`CFifo`."""
from __future__ import annotations

import os
from typing import Any, Callable, ClassVar, Dict, List, Mapping, Optional, Tuple

from kfifo.model import UINT_MAX
from kfifo.testing.catalogue import C_SIGNATURES

__all__ = ["CFifo", "C_SIGNATURES"]

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
