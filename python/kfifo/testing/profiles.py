# SPDX-License-Identifier: MIT
"""Hypothesis settings profiles of :mod:`kfifo.testing` (registered on request only)."""
from __future__ import annotations

import os
from typing import Any, Dict, Optional

from hypothesis import HealthCheck, Phase, settings

__all__ = ["PROFILE_ENV", "PROFILES", "register_profiles", "load_profile"]

#: Environment variable naming the Hypothesis profile to load.
PROFILE_ENV = "KFIFO_HYPOTHESIS_PROFILE"

_QUIET_CHECKS = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
#: Every phase but "explain": the machine prints its own reproduction.
_PHASES = (Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink)
#: The profiles :func:`register_profiles` registers (name -> settings keywords).
PROFILES: Dict[str, Dict[str, Any]] = {
    "kfifo-dev": dict(max_examples=100, stateful_step_count=50),
    "kfifo-ci": dict(max_examples=200, stateful_step_count=50, print_blob=True),
    "kfifo-long": dict(max_examples=20_000, stateful_step_count=100),
}


def register_profiles() -> None:
    """Register the ``kfifo-dev``, ``kfifo-ci`` and ``kfifo-long`` profiles
    (no other profile is touched)."""
    for name, kwargs in PROFILES.items():
        settings.register_profile(
            name, deadline=None, suppress_health_check=_QUIET_CHECKS, phases=_PHASES, **kwargs
        )


def load_profile(name: Optional[str] = None) -> str:
    """Load the profile ``name``, or the one named by ``$KFIFO_HYPOTHESIS_PROFILE``
    (``kfifo-dev`` if unset); return the name loaded.

    ``dev``, ``ci`` and ``long`` are short for ``kfifo-dev``, ``kfifo-ci`` and
    ``kfifo-long`` (Hypothesis has a ``ci`` profile of its own); any other
    name is a profile you registered.
    """
    register_profiles()
    name = name or os.environ.get(PROFILE_ENV) or "kfifo-dev"
    if "kfifo-" + name in PROFILES:
        name = "kfifo-" + name
    settings.load_profile(name)
    return name

