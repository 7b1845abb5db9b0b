"""The settings of the property searches (hypothesis), one place for every test module that searches."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings


def search_settings(examples: int) -> settings:
    """``examples`` examples, derandomized (a red search is red again); ``LM_EXAMPLES`` scales every search
    (e.g. ``LM_EXAMPLES=20`` for twenty times the examples)."""
    scale = float(os.environ.get("LM_EXAMPLES", "1"))
    return settings(
        max_examples=int(examples * scale),
        derandomize=True,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
