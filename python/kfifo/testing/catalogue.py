# SPDX-License-Identifier: MIT
"""The catalogue: every operation the machine can call, in one table.

Each :class:`Operation` says which feature it belongs to, which rule of the
machine drives it (its *role*), its C shape for :class:`~kfifo.testing.CFifo`
and one line of documentation.  The machine (which rules exist), the model
checks (which method of the model answers), the C adapter (the ``ctypes``
types and the checks of a declared prototype) and the docs
(``OPERATIONS``, ``FEATURES``, ``C_SIGNATURES``) are all read from here, so
adding an operation is one entry here and one method on the model.
"""
from __future__ import annotations

from typing import Dict, NamedTuple, Optional, Tuple

__all__ = ["Operation", "CATALOGUE", "OPERATIONS", "FEATURES", "C_SIGNATURES", "EDGES",
           "ARGUMENT_ERRORS", "roles", "RECORD_CONVENTIONS", "record_conventions", "project"]


class Operation(NamedTuple):
    """One operation of the catalogue."""

    #: The Python method name (that of :class:`kfifo.Kfifo` where it has one).
    name: str
    #: The feature it belongs to (a key of :data:`FEATURES`).
    feature: str
    #: What the machine does with it: ``put``, ``get``, ``get_into``, ``peek``,
    #: ``drop``, ``put_rec``, ``get_rec``, ``peek_rec``, ``drop_rec``, ``query``,
    #: ``locked``, ``batch``, ``release``, or ``c`` (C only: ``new``, ``start``).
    role: str
    #: The C shape: return type then argument types, as tokens ``R`` (the
    #: ring, a pointer), ``in`` (``const void *``, the data), ``out``
    #: (``void *``, the buffer to fill), ``u`` (a count), ``rec`` (the
    #: recsize, absent when the adapter's ``recsize`` is fixed), ``u*`` (an
    #: ``unsigned int *`` result), ``bool`` and ``void``; None: no C form.
    c: Optional[Tuple[str, ...]]
    #: One line for the docs; for C, what the function returns.
    doc: str


def _op(name: str, feature: str, role: str, c: Optional[str], doc: str) -> Operation:
    return Operation(name, feature, role, tuple(c.split()) if c else None, doc)


#: Every operation, in the order the docs list them and the machine prefers
#: them (the first of a role is the one used to drain and refill).
CATALOGUE: Dict[str, Operation] = {op.name: op for op in (
    _op("new", "creation", "c", "R u", "R *new(u size) - NULL on failure"),
    _op("start", "creation", "c", "void R u", "void set_start(R *, u start) - both indices to start (a test hook)"),
    _op("in_", "byte stream", "put", "u R in u", "u in(R *, const void *from, u n) - bytes stored"),
    _op("from_user", "byte stream", "put", "u R in u", "u from_user(R *, const void *from, u n)"),
    _op("out", "byte stream", "get", "u R out u", "u out(R *, void *to, u n) - bytes copied to `to` and removed"),
    _op("to_user", "byte stream", "get", "u R out u", "u to_user(R *, void *to, u n)"),
    _op("out_into", "byte stream", "get_into", None, "out_into(buffer) -> bytes written into buffer"),
    _op("peek", "byte stream", "peek", "u R out u",
        "u peek(R *, void *to, u n) - bytes copied to `to`, nothing removed"),
    _op("skip", "byte stream", "drop", "void R u", "void skip(R *, u n)"),
    _op("in_rec", "records", "put_rec", "u R in u rec", "u in_rec(R *, const void *from, u n, u recsize) - 0 if stored"),
    _op("from_user_rec", "records", "put_rec", "u R in u rec", "u from_user_rec(R *, const void *from, u n, u recsize)"),
    _op("out_rec", "records", "get_rec", "u R out u rec u*",
        "u out_rec(R *, void *to, u n, u recsize, u *total) - 0 if taken"),
    _op("to_user_rec", "records", "get_rec", "u R out u rec u*",
        "u to_user_rec(R *, void *to, u n, u recsize, u *total)"),
    _op("peek_rec", "records", "peek_rec", "u R rec", "u peek_rec(R *, u recsize)"),
    _op("skip_rec", "records", "drop_rec", "void R rec", "void skip_rec(R *, u recsize)"),
    _op("reset_out", "emptying", "drop", "void R", "void reset_out(R *)"),
    _op("reset", "emptying", "drop", "void R", "void reset(R *)"),
    _op("len", "queries", "query", "u R", "u len(R *)"),
    _op("avail", "queries", "query", "u R", "u avail(R *)"),
    _op("size", "queries", "query", "u R", "u size(R *) - the capacity: the most bytes it holds"),
    _op("is_empty", "queries", "query", "bool R", "int is_empty(R *)"),
    _op("is_full", "queries", "query", "bool R", "int is_full(R *)"),
    _op("free", "release", "release", "void R", "void free(R *)"),
    _op("in_locked", "locked calls", "locked", None, "in_locked(data, lock)"),
    _op("out_locked", "locked calls", "locked", None, "out_locked(n, lock)"),
    _op("put_recs", "batches of records", "batch", None, "put_recs(records, recsize, timeout)"),
    _op("get_recs", "batches of records", "batch", None, "get_recs(max, recsize, timeout)"),
)}

#: Every operation the machine can call on a Python fifo (the public API of
#: kfifo.Kfifo, and ``peek``); the locked calls only when the machine has a
#: ``lock_factory``.
OPERATIONS: Tuple[str, ...] = tuple(op.name for op in CATALOGUE.values() if op.role != "c")

#: What each feature needs: the machine tests a feature when the fifo has
#: its first operation; the others of the group are tested when present.
FEATURES: Dict[str, Tuple[str, ...]] = {}
for _o in CATALOGUE.values():
    if _o.role != "c":
        FEATURES.setdefault(_o.feature, ())
        FEATURES[_o.feature] += (_o.name,)

#: The C shape each operation of a :class:`~kfifo.testing.CFifo` has by
#: default; ``R`` is the ring (any pointer), ``u`` is ``unsigned int``.  A
#: fixed ``recsize`` drops the ``recsize`` argument of the record calls.
#: Other C types are declared with a prototype (see :class:`~kfifo.testing.CFifo`).
C_SIGNATURES: Dict[str, str] = {op.name: op.doc for op in CATALOGUE.values() if op.c is not None}


def roles(ops: "frozenset[str] | set[str]", *wanted: str) -> list:
    """The operations of ``ops`` with one of the roles ``wanted``, in catalogue order."""
    return [op.name for op in CATALOGUE.values() if op.role in wanted and op.name in ops]


#: The kinds of bad argument, keys of a ``check_arguments`` mapping.
ARGUMENT_ERRORS = ("wrong type", "negative count", "count >= 2**32", "invalid recsize")

#: Edge cases the machine looks for, with a short description and the
#: operations (any of them) a fifo needs to be able to reach it.
EDGES: Dict[str, str] = {
    "size 1": "a fifo of one byte",
    "start near 2**32": "indices start less than 64 KiB before the 32-bit wrap",
    "in wraps 2**32": "the producer index crosses 2**32",
    "out wraps 2**32": "the consumer index crosses 2**32",
    "copy crosses buffer end": "a copy in or out continues at the buffer's start",
    "fifo full": "an operation leaves the fifo full",
    "partial in": "in_ stores fewer bytes than offered",
    "out of empty fifo": "out/out_rec on an empty fifo",
    "peek then take": "peek(n) shows bytes that are then taken",
    "zero-length record": "a record of 0 bytes stored",
    "header max stored": "a record of 255 (recsize 1) or 65535 (recsize 2) bytes stored",
    "header max + 1 refused": "a record of 256 / 65536 bytes refused for its header",
    "record refused for room": "in_rec refused because it does not fit",
    "2-byte header split": "a recsize-2 header straddles the buffer's end",
    "fewer bytes than a header": "a record call on a fifo holding 1 byte of a 2-byte header",
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

#: What a fifo must have for each edge to be reachable (any one of the
#: operations; an edge not listed is reachable by every fifo).  ``kfifo
#: fuzz`` hints "run longer" only for reachable edges.
EDGE_NEEDS: Dict[str, Tuple[str, ...]] = {
    "start near 2**32": ("start",),
    "in wraps 2**32": ("start",),
    "out wraps 2**32": ("start",),
    "out of empty fifo": ("out", "to_user", "out_into", "out_rec", "to_user_rec"),
    "peek then take": ("peek",),
    "zero-length record": ("in_rec", "from_user_rec"),
    "header max stored": ("in_rec", "from_user_rec"),
    "header max + 1 refused": ("in_rec", "from_user_rec"),
    "record refused for room": ("in_rec", "from_user_rec"),
    "2-byte header split": ("in_rec", "from_user_rec"),
    "fewer bytes than a header": ("in_rec", "from_user_rec"),
    "out_rec buffer too small": ("out_rec", "to_user_rec"),
    "out_rec incomplete": ("out_rec", "to_user_rec"),
    "out_rec success": ("out_rec", "to_user_rec"),
    "out_rec buffer larger": ("out_rec", "to_user_rec"),
    "skip_rec one record": ("skip_rec",),
    "skip_rec empties": ("skip_rec",),
    "skip past len": ("skip",),
    "invalid recsize": ("check_arguments",),
    "negative count": ("check_arguments",),
    "count >= 2**32": ("check_arguments",),
    "wrong type": ("check_arguments",),
    "content drained": ("out", "to_user"),
    "batch stored whole": ("put_recs",),
    "batch stopped for room": ("put_recs",),
    "batch taken": ("get_recs",),
    "calls after free": ("check_arguments",),
}


def reachable_edges(ops: "frozenset[str] | set[str]", with_start: bool, checks: bool) -> Tuple[str, ...]:
    """The edges of :data:`EDGES` a fifo with ``ops`` can reach."""
    have = set(ops) | ({"start"} if with_start else set()) | ({"check_arguments"} if checks else set())
    return tuple(e for e in EDGES if not EDGE_NEEDS.get(e) or have & set(EDGE_NEEDS[e]))


# ----------------------------------------------------------------------
# Other conventions for record (message) calls
# ----------------------------------------------------------------------
#: What a record call of a fifo with another convention than kfifo's
#: returns, per operation; the machine compares the model's answer as the
#: convention can say it (:func:`project`).
RECORD_CONVENTIONS: Dict[str, Dict[str, str]] = {
    "in_rec": {
        "kfifo": "0 if stored, else n + 1",
        "bool": "True if stored, False if refused",
        "count": "n (the bytes of the record) if stored, 0 if refused",
    },
    "out_rec": {
        "kfifo": "(ret, data, total): 0 and the record if taken; L > n if too long; n if incomplete",
        "message": "the record's bytes if one was taken, None if not (empty, incomplete, buffer too small)",
    },
}
RECORD_CONVENTIONS["from_user_rec"] = RECORD_CONVENTIONS["in_rec"]
RECORD_CONVENTIONS["to_user_rec"] = RECORD_CONVENTIONS["out_rec"]


def record_conventions(given: "Dict[str, str]") -> Dict[str, str]:
    """Check a ``record_convention`` mapping (operation -> convention); the
    operations it leaves out keep kfifo's."""
    for op, convention in given.items():
        if op not in RECORD_CONVENTIONS:
            raise ValueError(f"record_convention: {op!r} has no other convention; "
                             f"those that do: {sorted(RECORD_CONVENTIONS)}")
        if convention not in RECORD_CONVENTIONS[op]:
            raise ValueError(f"record_convention[{op!r}] must be one of {sorted(RECORD_CONVENTIONS[op])}, "
                             f"got {convention!r}")
    return {op: c for op, c in given.items() if c != "kfifo"}


def project(convention: str, answer: object, args: tuple, moved: bool) -> object:
    """The model's ``answer`` to a record call, as ``convention`` says it;
    ``moved`` says whether the call changed what the model holds (kfifo's
    ``out_rec`` answers 0 both for a record of 0 bytes taken and for an
    empty fifo asked with ``n = 0``)."""
    if convention == "bool":
        return answer == 0
    if convention == "count":
        return len(memoryview(args[0]).cast("B")) if answer == 0 else 0
    if convention == "message":
        _, data, _ = answer  # type: ignore[misc]
        return data if moved else None
    return answer
