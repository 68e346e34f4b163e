# SPDX-License-Identifier: MIT
"""The private SWIG extension module behind kfifo (see kfifo/__init__.pyi)."""
import sys
from collections.abc import Callable
from typing import final

from kfifo import Empty as Empty
from kfifo import Full as Full
from kfifo import Kfifo as Kfifo
from kfifo import Notifier as Notifier
from kfifo import SpinLock as SpinLock

VERSION: str
GIL_THRESHOLD: int

# the block under a shared Kfifo (private: kfifo._shm and the tests use it)
@final
class _Block:
    def __new__(cls, name: str | int, *, trust_unsealed: bool = False) -> _Block: ...
    def close(self) -> None: ...
    @staticmethod
    def unlink(name: str, /) -> None: ...
    @property
    def name(self) -> str | None: ...
    @property
    def sealed(self) -> bool: ...
    @property
    def buf(self) -> memoryview: ...
    if sys.version_info >= (3, 12):
        def __buffer__(self, flags: int, /) -> memoryview: ...
        def __release_buffer__(self, buffer: memoryview, /) -> None: ...

def _set_shm_hooks(
    created: Callable[[str], object],
    release: Callable[[str], object],
    reduce_fd: Callable[[int], tuple[Callable[..., Kfifo], tuple[object, ...]]],
    /,
) -> None: ...
