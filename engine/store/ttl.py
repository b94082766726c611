"""Time to live: the stores' clock, expiry times, and the sweeper that deletes expired items.

Every store reads the time from `now()` (one function a test patches to move time), and
stores an item's expiry as `expires_at` plus its `ttl_minutes` (so a read can restart it).
"""
from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Mapping
from datetime import datetime, timedelta, timezone
from typing import Any

__all__ = ["now", "current", "expiry", "check_ttl_config", "Sweeper", "AsyncSweeper"]


def now() -> datetime:
    """The current UTC time (the one clock of every store)."""
    return datetime.now(timezone.utc)


def current() -> datetime:
    """`now()` looked up at each call, so a test that patches `ttl.now` moves every store's time."""
    return now()


def expiry(minutes: float | None, at: datetime | None = None) -> datetime | None:
    return None if minutes is None else (at or now()) + timedelta(minutes=minutes)


def check_ttl_config(ttl: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The `ttl=` dict of a store, checked: unknown keys and non-positive minutes are errors."""
    if ttl is None:
        return None
    if not isinstance(ttl, Mapping):
        raise TypeError(f"ttl= is a dict such as {{'default_ttl': 60}}, got {type(ttl).__name__}")
    known = {"default_ttl", "refresh_on_read", "sweep_interval_minutes", "omit_expired"}
    unknown = sorted(set(ttl) - known)
    if unknown:
        raise ValueError(f"ttl= has unknown keys {unknown}: use {sorted(known)}")
    for key in ("default_ttl", "sweep_interval_minutes"):
        v = ttl.get(key)
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0):
            raise ValueError(f"ttl={{'{key}': {v!r}}}: a positive number of minutes, or None")
    return dict(ttl)


class Sweeper:
    """A daemon thread calling `sweep()` every `minutes` until `stop()`."""

    def __init__(self, sweep: Callable[[], int], minutes: float) -> None:
        self._sweep, self._seconds = sweep, minutes * 60
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="retrograph-store-ttl", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(self._seconds):
            try:
                self._sweep()
            except Exception:  # a closed or busy store: the next round tries again
                continue

    def stop(self, timeout: float | None = None) -> bool:
        self._stop.set()
        self._thread.join(timeout)
        return not self._thread.is_alive()


class AsyncSweeper:
    """An asyncio task awaiting `sweep()` every `minutes` until `stop()`."""

    def __init__(self, sweep: Callable[[], Awaitable[int]], minutes: float) -> None:
        self._sweep, self._seconds = sweep, minutes * 60
        self._stop = asyncio.Event()
        self.task: asyncio.Task[None] = asyncio.get_running_loop().create_task(self._loop())

    async def _loop(self) -> None:
        while True:
            try:
                await asyncio.wait_for(self._stop.wait(), self._seconds)
                return
            except asyncio.TimeoutError:
                pass
            try:
                await self._sweep()
            except Exception:  # a closed or busy store: the next round tries again
                continue

    async def stop(self, timeout: float | None = None) -> bool:
        self._stop.set()
        try:
            await asyncio.wait_for(asyncio.shield(self.task), timeout)
        except asyncio.TimeoutError:
            return False
        return True
