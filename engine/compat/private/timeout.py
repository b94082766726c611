"""`langgraph._internal._timeout.coerce_timeout_policy`: a number of seconds, a timedelta
or a TimeoutPolicy as a TimeoutPolicy (None stays None), which is `TimeoutPolicy.coerce`."""
from __future__ import annotations

from datetime import timedelta

from ...policies import TimeoutPolicy

__all__ = ["coerce_timeout_policy"]


def coerce_timeout_policy(value: float | timedelta | TimeoutPolicy | None) -> TimeoutPolicy | None:
    """`value` as a TimeoutPolicy (its errors name a bad value)."""
    return TimeoutPolicy.coerce(value)
