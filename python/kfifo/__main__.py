# SPDX-License-Identifier: MIT
"""``python -m kfifo``: the command line (see :mod:`kfifo.cli`)."""
import sys

from kfifo.cli import main

if __name__ == "__main__":  # importing the module (stubtest, docs) runs nothing
    sys.exit(main())
