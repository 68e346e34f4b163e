# SPDX-License-Identifier: MIT
"""The C core, through kfifo.Kfifo, against the reference model.

The number of examples and steps comes from the Hypothesis profile
(``KFIFO_HYPOTHESIS_PROFILE``: ``dev``, ``ci`` or ``long``, see
:mod:`kfifo.testing`).  A campaign::

    KFIFO_HYPOTHESIS_PROFILE=long python -m pytest tests/test_state_machine.py
    python -m kfifo fuzz --seconds 600
"""
import threading

from kfifo.model import KfifoModel
from kfifo.testing import make_state_machine


# The documented idiom: make_state_machine() defaults to kfifo.Kfifo.  No
# skip when the extension is missing: that must fail, not pass quietly.
assert make_state_machine().__name__ == "KfifoStateMachine_Kfifo"
TestKfifoAgainstModel = make_state_machine().TestCase


# The machine accepts any factory; against the model itself it must find
# nothing (a false alarm here would be a bug in the machine).
TestModelAgainstItself = make_state_machine(
    KfifoModel, lock_factory=threading.Lock, check_arguments="kfifo"
).TestCase


def test_machine_class_is_named_after_its_factory():
    assert make_state_machine(KfifoModel).__name__ == "KfifoStateMachine_KfifoModel"
