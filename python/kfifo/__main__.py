# SPDX-License-Identifier: MIT
"""``python -m kfifo``: the command line (see :mod:`kfifo.cli`)."""
import sys

from kfifo.cli import main

sys.exit(main())
