"""Per-node policies given to add_node(): caching and timeouts (RetryPolicy is in types)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Literal

__all__ = ["CachePolicy", "TimeoutPolicy"]


@dataclass(frozen=True, kw_only=True)
class CachePolicy:
    """Reuse a node's (or task's) output for the same input: `key_func(input)` (default:
    a canonical text of the input) names the entry; `ttl` seconds (None: for ever).
    Used only when the graph is compiled with `cache=` (InMemoryCache, SqliteCache)."""

    key_func: Callable[..., Any] | None = None
    ttl: float | None = None


def _seconds(value: float | timedelta | None, what: str) -> float | None:
    if value is None:
        return None
    seconds = value.total_seconds() if isinstance(value, timedelta) else float(value)
    if not seconds > 0:
        raise ValueError(f"TimeoutPolicy({what}={value!r}): {what} must be greater than 0 (a number of seconds)")
    return seconds


@dataclass(frozen=True, kw_only=True)
class TimeoutPolicy:
    """Limit one attempt of an async node: `run_timeout` is a hard cap in seconds;
    `idle_timeout` is reset whenever the node shows progress (a stream write or
    `runtime.heartbeat()`). A timed-out attempt raises NodeTimeoutError, which the retry
    policy may retry. Sync nodes cannot be stopped safely, so only async nodes are timed."""

    run_timeout: float | timedelta | None = None
    idle_timeout: float | timedelta | None = None
    refresh_on: Literal["auto", "heartbeat"] = "auto"

    def __post_init__(self) -> None:
        object.__setattr__(self, "run_timeout", _seconds(self.run_timeout, "run_timeout"))
        object.__setattr__(self, "idle_timeout", _seconds(self.idle_timeout, "idle_timeout"))
        if self.refresh_on not in ("auto", "heartbeat"):
            raise ValueError(f"TimeoutPolicy(refresh_on={self.refresh_on!r}): use 'auto' or 'heartbeat'")

    @classmethod
    def coerce(cls, value: float | timedelta | TimeoutPolicy | None) -> TimeoutPolicy | None:
        """A number or timedelta becomes a hard `run_timeout`."""
        if value is None:
            return None
        if isinstance(value, TimeoutPolicy):  # one with neither limit set limits nothing
            return value if value.run_timeout is not None or value.idle_timeout is not None else None
        if isinstance(value, (int, float, timedelta)) and not isinstance(value, bool):
            return cls(run_timeout=value)
        raise TypeError(f"timeout must be seconds, a timedelta or a TimeoutPolicy, got {value!r:.60}")
