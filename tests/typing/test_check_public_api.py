# SPDX-License-Identifier: MIT
"""check_public_api.py is for the type checkers (scripts/check-types.sh);
running it here proves that what it checks is real, working use."""
import unittest

import check_public_api


def test_the_typing_checks_run():
    results = list(check_public_api.run_everything())
    assert results[-1] == check_public_api.kfifo.__version__
    assert issubclass(check_public_api.TestMyFifo, unittest.TestCase)
