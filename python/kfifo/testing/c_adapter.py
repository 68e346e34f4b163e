# SPDX-License-Identifier: MIT
"""C ring buffers through ctypes: :class:`CFifo`."""
from __future__ import annotations

import ctypes
import os
import re
from typing import Any, Callable, ClassVar, Dict, List, Mapping, NamedTuple, Optional, Tuple

from kfifo.model import UINT_MAX
from kfifo.testing.catalogue import C_SIGNATURES, CATALOGUE, record_conventions

__all__ = ["CFifo", "C_SIGNATURES", "CFunctionError", "parse_prototype"]

# ----------------------------------------------------------------------
# C types: the default shape of each operation, or a declared prototype
# ----------------------------------------------------------------------
#: C integer type names -> ctypes (qualifiers and ``int`` after a size
#: word dropped first: ``unsigned long int`` is ``unsigned long``).
_INTEGERS = {
    "bool": ctypes.c_bool, "_Bool": ctypes.c_bool, "char": ctypes.c_char,
    "signed char": ctypes.c_byte, "unsigned char": ctypes.c_ubyte,
    "short": ctypes.c_short, "unsigned short": ctypes.c_ushort,
    "int": ctypes.c_int, "signed": ctypes.c_int, "unsigned": ctypes.c_uint, "unsigned int": ctypes.c_uint,
    "long": ctypes.c_long, "unsigned long": ctypes.c_ulong,
    "long long": ctypes.c_longlong, "unsigned long long": ctypes.c_ulonglong,
    "size_t": ctypes.c_size_t, "ssize_t": ctypes.c_ssize_t, "ptrdiff_t": ctypes.c_ssize_t,
    "intptr_t": ctypes.c_ssize_t, "uintptr_t": ctypes.c_size_t,
    "int8_t": ctypes.c_int8, "uint8_t": ctypes.c_uint8, "int16_t": ctypes.c_int16, "uint16_t": ctypes.c_uint16,
    "int32_t": ctypes.c_int32, "uint32_t": ctypes.c_uint32, "int64_t": ctypes.c_int64, "uint64_t": ctypes.c_uint64,
}
_QUALIFIERS = {"const", "volatile", "restrict", "__restrict", "extern", "static", "inline"}
_TYPE_WORDS = set(" ".join(_INTEGERS).split()) | {"void", "struct", "union", "enum"} | _QUALIFIERS


class CType(NamedTuple):
    """One C type of a declared prototype."""

    text: str            # as written, for messages
    pointer: bool
    ctype: Any           # the ctypes type (None for void)
    pointee: Any = None  # for a pointer to an integer type: that type


def _integer_name(words: List[str]) -> str:
    """``unsigned long int`` -> ``unsigned long``, ``signed int`` -> ``int``."""
    name = " ".join(w for w in words if w not in _QUALIFIERS)
    if name.endswith(" int") and name != "unsigned int":
        name = name[:-4]
    return {"signed int": "int", "signed long": "long", "signed short": "short",
            "signed long long": "long long"}.get(name, name)


def _parse_type(text: str, where: str) -> CType:
    tokens = re.findall(r"[A-Za-z_]\w*|\*", text)
    if "*" in tokens:
        if tokens[-1] != "*" and tokens[-1] not in _QUALIFIERS:
            tokens = tokens[:-1]  # the parameter's name
        base = tokens[:tokens.index("*")]
        pointee = _INTEGERS.get(_integer_name(base)) if tokens.count("*") == 1 else None
        return CType(" ".join(tokens), True, ctypes.c_void_p, pointee)
    words = [t for t in tokens if t not in _QUALIFIERS]
    if len(words) >= 2 and words[-1] not in _TYPE_WORDS:
        words = words[:-1]  # the parameter's name
    if words == ["void"]:
        return CType("void", False, None)
    name = _integer_name(words)
    if name not in _INTEGERS:
        raise TypeError(f"{where}: cannot pass the C type {text.strip()!r} through ctypes "
                        "(integers, bool, void and pointers only; a struct by value is not supported)")
    return CType(name, False, _INTEGERS[name])


def parse_prototype(prototype: str) -> Tuple[str, CType, List[CType]]:
    """``(name, return type, parameter types)`` of a C prototype such as
    ``"size_t jack_ringbuffer_read(jack_ringbuffer_t *rb, char *dest, size_t cnt)"``."""
    text = " ".join(prototype.replace(";", " ").split())
    m = re.fullmatch(r"(.+?)\b([A-Za-z_]\w*)\s*\((.*)\)", text)
    if not m:
        raise TypeError(f"not a C prototype: {prototype!r} (expected e.g. 'size_t ring_read(ring_t *, char *, size_t)')")
    ret_text, name, params = m.groups()
    where = f"{name}()"
    params = params.strip()
    args = [] if params in ("", "void") else [_parse_type(p, where) for p in params.split(",")]
    return name, _parse_type(ret_text, where), args


_DEFAULT = {"R": CType("void *", True, ctypes.c_void_p), "in": CType("const void *", True, ctypes.c_void_p),
            "out": CType("void *", True, ctypes.c_void_p), "u": CType("unsigned int", False, ctypes.c_uint),
            "rec": CType("unsigned int", False, ctypes.c_uint),
            "u*": CType("unsigned int *", True, ctypes.c_void_p, ctypes.c_uint),
            "bool": CType("int", False, ctypes.c_int), "void": CType("void", False, None)}
_WANTS = {"R": "a pointer (the ring)", "in": "a pointer (the data)", "out": "a pointer (the buffer to fill)",
          "u": "an integer (a count)", "rec": "an integer (the recsize)", "u*": "a pointer to an integer (total)",
          "bool": "an integer or bool", "void": "anything"}


def _fits(token: str, t: CType) -> bool:
    if token in ("R", "in", "out"):
        return t.pointer
    if token == "u*":
        return t.pointer and t.pointee not in (None, ctypes.c_char, ctypes.c_bool)
    if token == "void":
        return True
    return not t.pointer and t.ctype is not None and t.ctype is not ctypes.c_char


def _resolve(cls_name: str, op: str, spec: str, fixed_recsize: bool,
             convention: str = "kfifo") -> Tuple[str, CType, List[CType], bool]:
    """``(C name, return type, parameter types, declared)`` of ``functions[op]``,
    checked against the operation's shape in the catalogue."""
    shape = CATALOGUE[op].c
    assert shape is not None
    ret_tok, arg_toks = shape[0], [t for t in shape[1:] if not (fixed_recsize and t == "rec")]
    if "(" not in spec:
        if convention != "kfifo":
            raise TypeError(f"{cls_name}.functions[{op!r}]: record_convention {convention!r} needs the "
                            "C prototype, not only the name")
        return spec, _DEFAULT[ret_tok], [_DEFAULT[t] for t in arg_toks], False
    name, ret, args = parse_prototype(spec)
    if convention == "message" and len(args) == len(arg_toks) - 1:
        arg_toks = arg_toks[:-1]  # the length is the result: ssize_t get(R *, void *, size_t)
    where = f"{cls_name}.functions[{op!r}] = {spec!r}"
    need = f"the operation {op!r} needs: {C_SIGNATURES[op]}" + (
        " (without the recsize argument: recsize is fixed)" if fixed_recsize and "rec" in shape else "")
    if len(args) != len(arg_toks):
        raise TypeError(f"{where}: {len(args)} parameter(s), {len(arg_toks)} expected; {need}")
    for i, (tok, t) in enumerate(zip(arg_toks, args)):
        if not _fits(tok, t):
            raise TypeError(f"{where}: parameter {i + 1} is {t.text!r}, {_WANTS[tok]} expected; {need}")
    if ret_tok != "void" and not _fits(ret_tok, ret):
        raise TypeError(f"{where}: returns {ret.text!r}, {_WANTS[ret_tok]} expected; {need}")
    return name, ret, args, True


class CFunctionError(Exception):
    """A C function answered what no ring may answer (more bytes than asked
    for, a negative count ...), or could not be called with these arguments."""


# ----------------------------------------------------------------------
# The adapter
# ----------------------------------------------------------------------
class CFifo:
    """A Python face for a C ring buffer, made from a mapping of names.

    Subclass it with the library and the functions of its operations; the
    subclass is a factory for :func:`make_state_machine`::

        class Ring(CFifo):
            library = "./libring.so"          # a path or a ctypes.CDLL
            functions = {"new": "ring_new", "free": "ring_free",
                         "in_": "ring_put", "out": "ring_get", "len": "ring_len"}

        TestRing = make_state_machine(Ring).TestCase

    Each key of ``functions`` is an operation of :data:`C_SIGNATURES`, which
    gives the C shape its function must have, with ``unsigned int`` counts.
    Other C types are declared by giving the prototype instead of the name::

        functions = {"out": "size_t jack_ringbuffer_read(jack_ringbuffer_t *, char *, size_t)", ...}

    Integers (``size_t``, ``ssize_t``, ``int``, ``bool``, ``uint64_t`` ...),
    ``void`` and pointers can be declared; the prototype is checked against
    the shape (number of parameters, pointer or integer at each place, a
    result where one is needed), with a ``TypeError`` naming the function,
    and results are read at their declared width (a 64-bit ``len`` wrong in
    its upper half is seen).  Only ``new`` and one way in are required, and
    the machine tests exactly the operations mapped.

    With ``"start"`` mapped, ``Ring(size, start=...)`` sets the indices, so
    the machine crosses the ``2**32`` wrap.  Set ``recsize`` when the record
    functions have a fixed header size and take no ``recsize`` argument, and
    ``capacity`` (a name of :data:`kfifo.model.CAPACITIES` or a callable)
    when the ring does not hold exactly the power of two ``size`` rounds up
    to: ``"pow2-1"`` for a ring that keeps one byte free.

    The machine runs a C ring in a child process (``isolate = True``), so a
    ring that crashes is reported, with a reproduction, instead of taking the
    test run down; and it passes no count the ring cannot hold unless
    ``huge_counts = True``.  Output buffers hold ``min(n, 2 * size + 64)``
    bytes; a count returned larger than the ``n`` asked for is reported.
    """

    library: ClassVar[Any] = None
    functions: ClassVar[Mapping[str, str]] = {}
    #: A fixed record header size (the C record calls take no recsize).
    recsize: ClassVar[Optional[int]] = None
    #: The record header sizes the machine tests (set from ``recsize``).
    recsizes: ClassVar[Tuple[int, ...]] = (0, 1, 2)
    #: The capacity model (see :class:`kfifo.model.RingModel`); None: ``"pow2"``.
    capacity: ClassVar[Any] = None
    #: Whether the machine may pass counts up to ``2**32 - 1``.
    huge_counts: ClassVar[bool] = False
    #: Whether ``skip(n)`` may be called with ``n`` larger than what is
    #: stored (kfifo empties the fifo); False for rings whose skip requires
    #: ``n <= len`` (JACK's ``jack_ringbuffer_read_advance``).
    skip_past_len: ClassVar[bool] = True
    #: Other conventions of the record calls, a mapping of operation to
    #: convention name such as ``"bool"`` for ``in_rec`` or ``"message"``
    #: for ``out_rec`` (see :data:`kfifo.testing.RECORD_CONVENTIONS`).
    record_convention: ClassVar[Optional[Mapping[str, str]]] = None
    #: Whether the machine runs the ring in a child process.
    isolate: ClassVar[bool] = True
    #: Operation -> name of the C function (for messages).
    c_names: ClassVar[Dict[str, str]] = {}
    _c: ClassVar[Dict[str, Any]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not cls.functions:
            return
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
        cls._c, cls.c_names = {}, {}
        conventions = record_conventions(dict(cls.record_convention or {}))
        for op, spec in cls.functions.items():
            cname, ret, args, declared = _resolve(cls.__name__, op, spec, fixed, conventions.get(op, "kfifo"))
            try:
                fn = getattr(lib, cname)
            except AttributeError:
                raise TypeError(f"{cls.__name__}: the library has no function {cname!r} (for {op!r})") from None
            fn.restype = ret.ctype
            fn.argtypes = [t.ctype for t in args]
            cls._c[op] = _CFunction(op, cname, fn, ret, args)
            cls.c_names[op] = cname
        for op in cls.functions:
            if op in _C_METHODS:
                setattr(cls, op, _C_METHODS[op])
        if "len" in cls.functions:
            setattr(cls, "__len__", _C_METHODS["len"])
        if "start" not in cls.functions:
            setattr(cls, "__init__", _c_init_without_start)
        for op, convention in conventions.items():
            if op in cls.functions:
                setattr(cls, op, _C_CONVENTIONS[convention](op))

    def __init__(self, size: int, *, start: int = 0) -> None:
        self._handle: Any = None
        if not self._c:
            raise TypeError(f"{type(self).__name__}: subclass CFifo and set library and functions")
        if size < 1:
            raise ValueError(f"size must be at least 1, got {size}")
        handle = self._c["new"](size)
        if not handle:
            raise MemoryError(f"{self.c_names['new']}({size}) returned NULL")
        self._handle = handle
        self._room = 2 * (1 << (size - 1).bit_length()) + 64
        if start and "start" in self._c:
            self._c["start"](handle, start & UINT_MAX)

    def _h(self) -> Any:
        if self._handle is None:
            raise ValueError("operation on a freed fifo")
        return self._handle

    def _check_recsize(self, recsize: int) -> Tuple[int, ...]:
        if self.recsize is not None:
            if recsize != self.recsize:
                raise ValueError(f"this ring's records have a {self.recsize}-byte header, not {recsize}")
            return ()
        return (recsize,)

    def _buffer(self, n: int) -> Any:
        return ctypes.create_string_buffer(max(0, min(n, self._room)))

    def __del__(self) -> None:
        handle, self._handle = getattr(self, "_handle", None), None
        if handle is not None and "free" in self._c:
            self._c["free"](handle)

    def __repr__(self) -> str:
        state = "freed" if self._handle is None else f"at {self._handle:#x}"
        return f"<{type(self).__name__} (C ring) {state}>"


class _CFunction:
    """One mapped C function: checks its arguments fit their declared types,
    and names itself in every error."""

    def __init__(self, op: str, name: str, fn: Any, ret: CType, args: List[CType]) -> None:
        self.op, self.name, self.fn, self.ret, self.args = op, name, fn, ret, args

    def __call__(self, *args: Any) -> Any:
        for value, t in zip(args, self.args):
            if isinstance(value, int) and not t.pointer and t.ctype is not ctypes.c_bool:
                bits = 8 * ctypes.sizeof(t.ctype)
                signed = t.ctype(-1).value == -1
                low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
                if not low <= value <= high:
                    raise OverflowError(f"{value} does not fit the {t.text} parameter of {self.name}() "
                                        f"(mapped to {self.op})")
        try:
            return self.fn(*args)
        except ctypes.ArgumentError as exc:
            raise CFunctionError(f"{self.name}() (mapped to {self.op}): {exc}") from None

    def count(self, value: Any, asked: Optional[int] = None) -> int:
        """A returned count: an int, not negative, at most ``asked``."""
        value = int(value)
        if value < 0:
            raise CFunctionError(f"{self.name}() (mapped to {self.op}) returned {value}, a negative count")
        if asked is not None and value > asked:
            raise CFunctionError(f"{self.name}() (mapped to {self.op}) returned {value}, "
                                 f"more than the {asked} bytes asked for")
        return value


def _c_init_without_start(self: CFifo, size: int) -> None:
    CFifo.__init__(self, size)


def _c_data(data: Any) -> Tuple[Any, int]:
    view = memoryview(data).cast("B")
    return (ctypes.c_char * len(view)).from_buffer_copy(view), len(view)


def _c_in(op: str) -> Callable[..., int]:
    def method(self: CFifo, data: Any) -> int:
        buf, n = _c_data(data)
        fn = self._c[op]
        return fn.count(fn(self._h(), buf, n), n)
    method.__name__ = op
    return method


def _c_out(op: str) -> Callable[..., bytes]:
    def method(self: CFifo, n: int) -> bytes:
        buf = self._buffer(n)
        fn = self._c[op]
        got = fn.count(fn(self._h(), buf, n), n)
        return bytes(buf.raw[:got])
    method.__name__ = op
    return method


def _c_in_rec(op: str) -> Callable[..., int]:
    def method(self: CFifo, data: Any, recsize: int) -> int:
        rec = self._check_recsize(recsize)
        buf, n = _c_data(data)
        return int(self._c[op](self._h(), buf, n, *rec))
    method.__name__ = op
    return method


def _c_out_rec(op: str) -> Callable[..., Tuple[int, bytes, int]]:
    def method(self: CFifo, n: int, recsize: int) -> Tuple[int, bytes, int]:
        rec = self._check_recsize(recsize)
        fn = self._c[op]
        buf, total = self._buffer(n), fn.args[-1].pointee(0)
        ret = int(fn(self._h(), buf, n, *rec, ctypes.byref(total)))
        length = int(total.value)
        if ret == 0 and length > len(buf):
            raise CFunctionError(f"{fn.name}() (mapped to {op}) took a record of {length} bytes "
                                 f"into a buffer of {n}")
        return ret, (buf.raw[:length] if ret == 0 else b""), length
    method.__name__ = op
    return method


def _c_with_recsize(op: str, cast: Callable[[Any], Any]) -> Callable[..., Any]:
    def method(self: CFifo, recsize: int) -> Any:
        rec = self._check_recsize(recsize)
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
    "out": _c_out("out"), "to_user": _c_out("to_user"), "peek": _c_out("peek"), "skip": _c_skip,
    "reset": _c_query("reset", lambda r: None), "reset_out": _c_query("reset_out", lambda r: None),
    "len": _c_query("len", int), "avail": _c_query("avail", int), "size": _c_query("size", int),
    "is_empty": _c_query("is_empty", bool), "is_full": _c_query("is_full", bool),
    "in_rec": _c_in_rec("in_rec"), "from_user_rec": _c_in_rec("from_user_rec"),
    "out_rec": _c_out_rec("out_rec"), "to_user_rec": _c_out_rec("to_user_rec"),
    "peek_rec": _c_with_recsize("peek_rec", int), "skip_rec": _c_with_recsize("skip_rec", lambda r: None),
    "free": _c_free,
}


def _c_in_rec_as(convention: str) -> Callable[[str], Callable[..., Any]]:
    def make(op: str) -> Callable[..., Any]:
        def method(self: CFifo, data: Any, recsize: int) -> Any:
            rec = self._check_recsize(recsize)
            buf, n = _c_data(data)
            ret = self._c[op](self._h(), buf, n, *rec)
            return bool(ret) if convention == "bool" else int(ret)
        method.__name__ = op
        return method
    return make


def _c_out_message(op: str) -> Callable[..., Optional[bytes]]:
    """A message read: ``bool get(R *, void *to, size_t n, size_t *len)``
    (True and the length when one is taken) or ``ssize_t get(R *, void *to,
    size_t n)`` (the length taken, negative if none); bytes or None."""
    def method(self: CFifo, n: int, recsize: int) -> Optional[bytes]:
        rec = self._check_recsize(recsize)
        fn = self._c[op]
        buf = self._buffer(n)
        if fn.args[-1].pointee is not None:  # the length through a pointer
            length = fn.args[-1].pointee(0)
            taken = fn(self._h(), buf, n, *rec, ctypes.byref(length))
            got = int(length.value) if taken else -1
        else:
            got = int(fn(self._h(), buf, n, *rec))
        if got < 0:
            return None
        return bytes(buf.raw[:fn.count(got, n)])
    method.__name__ = op
    return method


_C_CONVENTIONS: Dict[str, Callable[[str], Callable[..., Any]]] = {
    "bool": _c_in_rec_as("bool"), "count": _c_in_rec_as("count"), "message": _c_out_message,
}
