# SPDX-License-Identifier: MIT
"""Three third-party rings under kfifo.testing, each with its capacity model.

* JACK's ``jack_ringbuffer_t``, mapped directly onto CFifo from
  ``<jack/ringbuffer.h>`` (``libjack-jackd2-dev``): it keeps one byte free
  (``"pow2-1"``), has a byte peek, and its ``read_advance`` must not skip
  more than is stored;
* Boost.Lockfree's ``spsc_queue<unsigned char>`` through ``boost_spsc.cpp``,
  a small ``extern "C"`` file (``libboost-dev``): it holds exactly the size
  it is made with (``"exact"``);
* Concurrency Kit's ``ck_ring`` through ``ck_bytes.c`` (``libck-dev``), one
  byte per slot: ``"pow2-1"``, with a start hook to cross the 2**32 wrap.

Run them from this directory::

    python -m pytest rings.py

A ring whose library or headers are missing is skipped, saying which
Debian package provides it.
"""
import ctypes.util
import os
import pathlib
import shutil
import subprocess
import tempfile

from kfifo.testing import CFifo, make_state_machine

HERE = pathlib.Path(__file__).resolve().parent

#: ring -> (Debian package, why it is missing) for the rings that cannot be built here.
MISSING = {}


def _compile(compiler, source, out_name, *flags):
    """Compile ``source`` into a shared library; return its path, or None."""
    exe = shutil.which(os.environ.get("CXX" if compiler == "c++" else "CC", compiler))
    if exe is None:
        return None, f"no {compiler} compiler"
    out = pathlib.Path(tempfile.mkdtemp(prefix="kfifo-rings-")) / out_name
    proc = subprocess.run([exe, "-O1", "-shared", "-fPIC", "-o", str(out), str(HERE / source), *flags],
                          capture_output=True, text=True)
    if proc.returncode:
        return None, proc.stderr.strip().splitlines()[0] if proc.stderr.strip() else "compile failed"
    return out, ""


class JackRing(CFifo):
    """JACK's ringbuffer, each operation mapped to its own function."""

    library = ctypes.util.find_library("jack")
    capacity = "pow2-1"
    skip_past_len = False  # jack_ringbuffer_read_advance(cnt) needs cnt <= read space
    functions = {
        "new": "jack_ringbuffer_t *jack_ringbuffer_create(size_t sz)",
        "free": "void jack_ringbuffer_free(jack_ringbuffer_t *rb)",
        "in_": "size_t jack_ringbuffer_write(jack_ringbuffer_t *rb, const char *src, size_t cnt)",
        "out": "size_t jack_ringbuffer_read(jack_ringbuffer_t *rb, char *dest, size_t cnt)",
        "peek": "size_t jack_ringbuffer_peek(jack_ringbuffer_t *rb, char *dest, size_t cnt)",
        "skip": "void jack_ringbuffer_read_advance(jack_ringbuffer_t *rb, size_t cnt)",
        "len": "size_t jack_ringbuffer_read_space(const jack_ringbuffer_t *rb)",
        "avail": "size_t jack_ringbuffer_write_space(const jack_ringbuffer_t *rb)",
        "reset": "void jack_ringbuffer_reset(jack_ringbuffer_t *rb)",
    } if library else {}
    if not library:
        MISSING["JackRing"] = ("libjack-jackd2-dev", "libjack is not installed")


_boost, _why = _compile("c++", "boost_spsc.cpp", "libboost_spsc.so")


class BoostSpscRing(CFifo):
    """boost::lockfree::spsc_queue<unsigned char>(n) through boost_spsc.cpp."""

    library = _boost
    capacity = "exact"
    functions = {
        "new": "queue *spsc_new(size_t n)",
        "free": "void spsc_free(queue *q)",
        "in_": "size_t spsc_push(queue *q, const unsigned char *from, size_t n)",
        "out": "size_t spsc_pop(queue *q, unsigned char *to, size_t n)",
        "len": "size_t spsc_read_available(const queue *q)",
        "avail": "size_t spsc_write_available(const queue *q)",
        "reset": "void spsc_reset(queue *q)",
        "is_empty": "bool spsc_empty(queue *q)",
    } if _boost else {}
    if not _boost:
        MISSING["BoostSpscRing"] = ("libboost-dev", _why)


_ck, _why = _compile("cc", "ck_bytes.c", "libck_bytes.so")


class CkRing(CFifo):
    """ck_ring (one byte per slot) through ck_bytes.c."""

    library = _ck
    capacity = "pow2-1"
    functions = {
        "new": "struct ck_bytes *ck_bytes_new(unsigned int size)",
        "free": "void ck_bytes_free(struct ck_bytes *b)",
        "start": "void ck_bytes_set_start(struct ck_bytes *b, unsigned int start)",
        "in_": "unsigned int ck_bytes_put(struct ck_bytes *b, const unsigned char *from, unsigned int n)",
        "out": "unsigned int ck_bytes_get(struct ck_bytes *b, unsigned char *to, unsigned int n)",
        "len": "unsigned int ck_bytes_len(const struct ck_bytes *b)",
        "avail": "unsigned int ck_bytes_avail(const struct ck_bytes *b)",
        "size": "unsigned int ck_bytes_capacity(const struct ck_bytes *b)",
    } if _ck else {}
    if not _ck:
        MISSING["CkRing"] = ("libck-dev", _why)


RINGS = {"JackRing": JackRing, "BoostSpscRing": BoostSpscRing, "CkRing": CkRing}

# pytest collects these from this file (a ring that cannot be built has none).
for _name, _ring in RINGS.items():
    if _name not in MISSING:
        globals()["Test" + _name] = make_state_machine(_ring).TestCase
