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
  so the fifo is not drained more often than it is filled;
* a rule of its own leaves fewer bytes than a header stored (one byte of a
  2-byte header, by byte calls) and then peeks and reads a record: records
  alone never leave a fifo there.

Shrinking stops after :data:`SHRINK_SECONDS` (10 s; None: no limit), and
the shortest failing sequence found by then is printed.

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

The package is split by concern, and everything public is imported here:

- ``catalogue``, every operation in one table (role, feature, C shape,
  doc), the edges and the kinds of bad argument;
- ``profiles``, the Hypothesis profiles;
- ``strategies``, sizes, starts, lengths, records, bad calls;
- ``machine``, :func:`make_state_machine` and the rules;
- ``reproduction``, the runnable snippet, :class:`KfifoMismatch`, :data:`STATS`;
- ``c_adapter``, :class:`CFifo`.
"""
from __future__ import annotations

from typing import Optional

from kfifo.testing.catalogue import (
    ARGUMENT_ERRORS, C_SIGNATURES, CATALOGUE, EDGES, FEATURES, OPERATIONS, RECORD_CONVENTIONS, Operation,
)
from kfifo.testing.profiles import PROFILE_ENV, PROFILES, load_profile, register_profiles
from kfifo.testing.reproduction import STATS, KfifoMismatch, Stats, Trace, pattern
from kfifo.testing.machine import KfifoStateMachine, find_operations, make_state_machine, run_machine
from kfifo.testing.c_adapter import CFifo, CFunctionError
from kfifo.testing.isolation import RingCrashed

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
    "CATALOGUE",
    "Operation",
    "RECORD_CONVENTIONS",
    "run_machine",
    "RingCrashed",
    "CFunctionError",
]

#: Whether the machines print a line to stderr when they find a mismatch
#: (shrinking it may take seconds); the measuring scripts turn it off.
PROGRESS = True
#: Whether the machines print the shrunk reproduction to stderr, clean, in
#: the final run; ``kfifo fuzz`` prints it itself.
PRINT_REPRODUCTION = True
#: The most seconds Hypothesis spends shrinking a mismatch (wall-clock, from
#: the start of its shrink phase); then the shortest failing sequence found
#: so far is printed.  None: no limit but Hypothesis's own five minutes.
#: Read when a ``TestCase`` or :func:`run_machine` starts.
SHRINK_SECONDS: Optional[float] = 10
