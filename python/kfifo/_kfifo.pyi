# SPDX-License-Identifier: MIT
"""The private SWIG extension module behind kfifo (see kfifo/__init__.pyi)."""
from kfifo import Empty as Empty
from kfifo import Full as Full
from kfifo import Kfifo as Kfifo
from kfifo import Notifier as Notifier
from kfifo import SpinLock as SpinLock

VERSION: str
GIL_THRESHOLD: int
