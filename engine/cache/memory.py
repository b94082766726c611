"""InMemoryCache: node outputs kept in this process."""
from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

from .base import BaseCache, FullKey

__all__ = ["InMemoryCache"]


class InMemoryCache(BaseCache):
    """A dict of entries guarded by a lock (tasks of one superstep may share it)."""

    def __init__(self) -> None:
        self._entries: dict[FullKey, tuple[Any, float | None]] = {}
        self._lock = threading.Lock()

    def get(self, keys: Sequence[FullKey]) -> dict[FullKey, Any]:
        now = time.monotonic()
        found: dict[FullKey, Any] = {}
        with self._lock:
            for key in keys:
                entry = self._entries.get(key)
                if entry is None:
                    continue
                value, expires = entry
                if expires is not None and now >= expires:
                    del self._entries[key]
                    continue
                found[key] = value
        return found

    def set(self, pairs: Mapping[FullKey, tuple[Any, float | None]]) -> None:
        now = time.monotonic()
        with self._lock:
            for key, (value, ttl) in pairs.items():
                self._entries[key] = (value, now + ttl if ttl is not None else None)

    def clear(self, namespaces: Sequence[tuple[str, ...]] | None = None) -> None:
        with self._lock:
            if namespaces is None:
                self._entries.clear()
                return
            spaces = {tuple(n) for n in namespaces}
            for key in [k for k in self._entries if k[0] in spaces]:
                del self._entries[key]
