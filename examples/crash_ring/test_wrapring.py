# SPDX-License-Identifier: MIT
"""Test wrapring.c with kfifo.testing: it crashes (or, built with
WRAPRING_GARBAGE=1, returns bytes it never stored).

    python -m pytest test_wrapring.py                    # fails: the ring crashed, reproduction printed
    WRAPRING_GARBAGE=1 python -m pytest test_wrapring.py # fails: bytes nobody wrote, reproduction printed
"""
import os
import pathlib
import subprocess
import tempfile

from kfifo.testing import CFifo, make_state_machine

HERE = pathlib.Path(__file__).resolve().parent


def build(garbage: bool = False) -> pathlib.Path:
    """Compile wrapring.c into a shared library; return its path."""
    out = pathlib.Path(tempfile.mkdtemp(prefix="wrapring-")) / "libwrapring.so"
    flags = ["-DWRAPRING_GARBAGE"] if garbage else []
    cc = os.environ.get("CC", "cc")
    subprocess.run([cc, "-std=c11", "-O1", "-shared", "-fPIC", *flags, "-o", str(out), str(HERE / "wrapring.c")],
                   check=True)
    return out


class WrapRing(CFifo):
    library = build(garbage=os.environ.get("WRAPRING_GARBAGE") == "1")
    functions = {
        "new": "struct wrapring *wrapring_new(unsigned int size)",
        "free": "void wrapring_free(struct wrapring *r)",
        "start": "void wrapring_set_start(struct wrapring *r, unsigned int start)",
        "in_": "unsigned int wrapring_put(struct wrapring *r, const void *from, unsigned int n)",
        "out": "unsigned int wrapring_get(struct wrapring *r, void *to, unsigned int n)",
        "len": "unsigned int wrapring_len(const struct wrapring *r)",
    }


TestWrapRing = make_state_machine(WrapRing).TestCase
