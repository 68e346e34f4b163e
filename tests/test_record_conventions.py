# SPDX-License-Identifier: MIT
"""Message APIs with other conventions than kfifo's record calls: a store
that returns a bool or a count, a read that returns the message (or None)
with its length separately -- in Python and in C (CFifo)."""
from __future__ import annotations

import pathlib

import pytest
from hypothesis import HealthCheck, Phase, settings

from kfifo.testing import CFifo, KfifoMismatch, make_state_machine, run_machine
from test_third_party_rings import BASE, _build_c_ring

RUN = settings(max_examples=100, stateful_step_count=40, deadline=None, database=None, derandomize=True,
               suppress_health_check=list(HealthCheck), phases=[Phase.generate])


class MessageRing:
    """Messages with a 2-byte length, a bool store and a read that returns bytes or None."""

    recsizes = (2,)
    record_convention = {"in_rec": "bool", "out_rec": "message"}

    def __init__(self, size, start=0):
        self.cap = 1 << (size - 1).bit_length()
        self.data = b""

    def len(self):
        return len(self.data)

    def in_rec(self, msg, recsize):
        msg = bytes(msg)
        if len(msg) > 0xFFFF or len(msg) + 2 > self.cap - len(self.data):
            return False
        self.data += len(msg).to_bytes(2, "little") + msg
        return True

    def out_rec(self, n, recsize):
        if len(self.data) < 2:
            return None
        length = int.from_bytes(self.data[:2], "little")
        if length > n or len(self.data) < 2 + length:
            return None
        msg, self.data = self.data[2:2 + length], self.data[2 + length:]
        return msg


class CountsWrong(MessageRing):
    """Its store says True for a message it refused when it is exactly full."""

    def in_rec(self, msg, recsize):
        stored = super().in_rec(msg, recsize)
        return stored or len(bytes(msg)) + 2 == self.cap - len(self.data) + 1


def test_a_python_message_ring_passes_and_its_bug_is_caught():
    run_machine(make_state_machine(MessageRing), settings=RUN)
    with pytest.raises(KfifoMismatch, match=r"f.in_rec\(.*\) returned True; expected False"):
        run_machine(make_state_machine(CountsWrong), settings=settings(RUN, max_examples=400))


def test_an_unknown_convention_is_refused():
    bad = type("Bad", (MessageRing,), {"record_convention": {"in_rec": "errno"}})
    with pytest.raises(ValueError, match="must be one of"):
        make_state_machine(bad)


MESSAGES = """
#include <stdbool.h>
bool msg_put(struct ring *r, const void *from, size_t n) { return ring_put_rec(r, from, (unsigned)n) == 0; }
/* ring_get_rec answers 0 for a record taken and for n = 0 on too few
 * bytes: taken is what changes the fill level. */
long msg_get(struct ring *r, void *to, size_t n)
{
	unsigned int before = ring_len(r), total;

	ring_get_rec(r, to, (unsigned)n, &total);
	return ring_len(r) != before ? (long)total : -1;
}
bool msg_get_len(struct ring *r, void *to, size_t n, size_t *len)
{
	unsigned int before = ring_len(r), total;

	ring_get_rec(r, to, (unsigned)n, &total);
	*len = total;
	return ring_len(r) != before;
}
size_t msg_put_count(struct ring *r, const void *from, size_t n) { return ring_put_rec(r, from, (unsigned)n) ? 0 : n; }
"""


@pytest.mark.parametrize("put, get", [
    ("bool msg_put(struct ring *r, const void *from, size_t n)", "long msg_get(struct ring *r, void *to, size_t n)"),
    ("size_t msg_put_count(struct ring *r, const void *from, size_t n)",
     "bool msg_get_len(struct ring *r, void *to, size_t n, size_t *len)"),
])
def test_a_c_message_api_passes_through_cfifo(put, get):
    lib = _build_c_ring(MESSAGES)
    convention = {"in_rec": "bool" if put.startswith("bool") else "count", "out_rec": "message"}
    ring = type("CMessages", (CFifo,), {
        "library": lib, "recsize": 2, "record_convention": convention,
        "functions": dict(BASE, len="unsigned int ring_len(const struct ring *r)", in_rec=put, out_rec=get)})
    run_machine(make_state_machine(ring), settings=RUN)


def test_a_convention_needs_the_prototype():
    lib = _build_c_ring(MESSAGES)
    with pytest.raises(TypeError, match="needs the C prototype"):
        type("NoProto", (CFifo,), {"library": lib, "recsize": 2, "record_convention": {"in_rec": "bool"},
                                   "functions": dict(BASE, in_rec="msg_put")})
