# SPDX-License-Identifier: MIT
"""Test the C ring of ring.c against kfifo's model, through ctypes.

Run it from this directory::

    python -m pytest test_ring.py                        # passes
    RING_PLANTED_BUG=1 python -m pytest test_ring.py     # fails: the planted bug is caught

It compiles ring.c with the system C compiler (``$CC``, else ``cc``) into
a temporary directory; with ``RING_PLANTED_BUG=1`` it compiles it with
``-DRING_PLANTED_BUG``, an off-by-one at the buffer's end.  The failure
prints a Python reproduction that imports ``Ring`` from this file: save it
and run it here with the same ``RING_PLANTED_BUG=1``.
"""
import os
import pathlib
import subprocess
import tempfile

from kfifo.testing import CFifo, make_state_machine

HERE = pathlib.Path(__file__).resolve().parent


def build(planted_bug: bool = False) -> pathlib.Path:
    """Compile ring.c into a shared library; return its path."""
    out = pathlib.Path(tempfile.mkdtemp(prefix="c_ring-")) / "libring.so"
    flags = ["-DRING_PLANTED_BUG"] if planted_bug else []
    cc = os.environ.get("CC", "cc")
    subprocess.run([cc, "-std=c11", "-O1", "-shared", "-fPIC", *flags, "-o", str(out), str(HERE / "ring.c")],
                   check=True)
    return out


class Ring(CFifo):
    """ring.c seen as a fifo: each operation of the machine -> a C function."""

    library = build(planted_bug=os.environ.get("RING_PLANTED_BUG") == "1")
    recsize = 2  # ring_put_rec & co. have a fixed 2-byte header, no recsize argument
    functions = {
        "new": "ring_new", "free": "ring_free", "start": "ring_set_start",
        "in_": "ring_put", "out": "ring_get", "skip": "ring_drop",
        "len": "ring_len", "avail": "ring_avail", "size": "ring_size",
        "in_rec": "ring_put_rec", "out_rec": "ring_get_rec",
        "peek_rec": "ring_peek_rec", "skip_rec": "ring_skip_rec",
    }


TestRing = make_state_machine(Ring).TestCase
