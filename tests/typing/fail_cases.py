# SPDX-License-Identifier: MIT
"""Calls that fail at run time and that the type checkers must refuse too.

Every line whose comment starts with a capital E must get an error from mypy (--strict
--enable-error-code deprecated) and from basedpyright (strict), and no
other line may get one: check_fail_cases.py runs both and compares
(scripts/check-types.sh).  Never run: each call here raises.
"""
import array
from typing import Literal

import kfifo
from kfifo.aio import AsyncKfifo


def bad_calls(f: kfifo.Kfifo, n: int) -> None:
    f.in_rec(b"x", 3)  # E  recsize is 0, 1 or 2
    f.put_rec(b"x", n)  # E  an int that may be anything is not a recsize
    f.get_rec(0)  # E  a record of recsize 0 has no length to wait for
    f.get_recs(4, 0)  # E
    f.records(3)  # E
    f.get_into(b"read-only")  # E  bytes is not writable
    f.out_into(b"read-only")  # E
    f.get_frame_into(b"read-only")  # E
    f.get(4, False)  # E  queue.Queue's block argument is not a timeout
    f.put(b"x", True)  # E
    f.get_exactly(4, timeout=False)  # E
    f.wait_len(1, True)  # E
    f.put_frame(b"x", timeout=True)  # E
    f.get_into(bytearray(4), "1")  # E  seconds are a number


async def bad_async_calls(af: AsyncKfifo) -> None:
    await af.get_into(b"read-only")  # E
    await af.get_rec(0)  # E


def good_calls(f: kfifo.Kfifo, n: int) -> None:
    # the right forms of the calls above, for contrast: no error here
    f.in_rec(b"x", 2)
    rs: Literal[0, 1, 2] = 1  # a recsize in a variable: typed as one
    f.put_rec(b"x", rs, timeout=0.5)
    f.get_into(bytearray(4), 0)
    f.get_into(memoryview(bytearray(4)), None, True)
    f.get_into(array.array("B", b"abcd"), timeout=1)
    f.get(4, n)
    f.get_frame_into(bytearray(8))
