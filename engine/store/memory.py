"""InMemoryStore: a dict of namespaces, for tests and scripts (lost when the process ends).

No semantic index: `search(query=...)` filters and pages like LangGraph's store without an
index does, and every `score` is None. Expired items (`ttl=` minutes) are dropped on read."""
from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from .base import BaseStore, Item, SearchItem, check_namespace, matches_filter

__all__ = ["InMemoryStore"]


class InMemoryStore(BaseStore):
    """Items kept in this process, safe to share between threads."""

    def __init__(self, *, index: Any = None, ttl: Mapping[str, Any] | None = None) -> None:
        if index is not None:
            raise NotImplementedError(
                "InMemoryStore(index=...): semantic search with embeddings is not supported by Retrograph yet; "
                "create the store without an index (search then filters by value)"
            )
        self._data: dict[tuple[str, ...], dict[str, Item]] = {}
        self._expires: dict[tuple[tuple[str, ...], str], tuple[float, float]] = {}
        self._default_ttl = (ttl or {}).get("default_ttl")
        self._lock = threading.RLock()

    def _alive(self, namespace: tuple[str, ...], key: str, refresh: bool | None) -> bool:
        exp = self._expires.get((namespace, key))
        if exp is None:
            return True
        deadline, minutes = exp
        now = time.monotonic()
        if now >= deadline:
            self._data.get(namespace, {}).pop(key, None)
            del self._expires[(namespace, key)]
            return False
        if refresh is not False:
            self._expires[(namespace, key)] = (now + minutes * 60, minutes)
        return True

    def get(self, namespace: tuple[str, ...], key: str, *, refresh_ttl: bool | None = None) -> Item | None:
        with self._lock:
            item = self._data.get(tuple(namespace), {}).get(key)
            if item is None or not self._alive(tuple(namespace), key, refresh_ttl):
                return None
            return item

    def put(self, namespace: tuple[str, ...], key: str, value: Mapping[str, Any] | None,
            index: Any = None, *, ttl: float | None = None) -> None:
        namespace = check_namespace(namespace)
        if not isinstance(key, str):
            raise TypeError(f"a store key is a string, got {type(key).__name__}")
        if value is None:
            self.delete(namespace, key)
            return
        if not isinstance(value, Mapping):
            raise TypeError(f"a store value is a dict, got {type(value).__name__}: {value!r:.60}")
        now = datetime.now(timezone.utc)
        with self._lock:
            items = self._data.setdefault(namespace, {})
            old = items.get(key)
            items[key] = Item(value=dict(value), key=key, namespace=namespace,
                              created_at=old.created_at if old is not None else now, updated_at=now)
            minutes = ttl if ttl is not None else self._default_ttl
            if minutes is not None:
                self._expires[(namespace, key)] = (time.monotonic() + minutes * 60, minutes)
            else:
                self._expires.pop((namespace, key), None)

    def delete(self, namespace: tuple[str, ...], key: str) -> None:
        with self._lock:
            items = self._data.get(tuple(namespace))
            if items is not None:
                items.pop(key, None)
                if not items:
                    del self._data[tuple(namespace)]
            self._expires.pop((tuple(namespace), key), None)

    def search(self, namespace_prefix: tuple[str, ...], /, *, query: str | None = None,
               filter: Mapping[str, Any] | None = None, limit: int = 10, offset: int = 0,
               refresh_ttl: bool | None = None) -> list[SearchItem]:
        prefix = tuple(namespace_prefix)
        found: list[SearchItem] = []
        with self._lock:
            for namespace in list(self._data):
                if namespace[:len(prefix)] != prefix:
                    continue
                for key, item in list(self._data.get(namespace, {}).items()):
                    if not self._alive(namespace, key, refresh_ttl) or not matches_filter(item.value, filter):
                        continue
                    found.append(SearchItem(value=item.value, key=key, namespace=namespace,
                                            created_at=item.created_at, updated_at=item.updated_at))
        return found[offset:offset + limit]

    def list_namespaces(self, *, prefix: Sequence[str] | None = None, suffix: Sequence[str] | None = None,
                        max_depth: int | None = None, limit: int = 100, offset: int = 0) -> list[tuple[str, ...]]:
        with self._lock:
            spaces = [n for n in self._data if self._data[n]]
        out: list[tuple[str, ...]] = []
        for ns in sorted(spaces):
            if prefix is not None and not _match(ns[:len(prefix)], tuple(prefix)):
                continue
            if suffix is not None and (len(ns) < len(suffix) or not _match(ns[len(ns) - len(suffix):], tuple(suffix))):
                continue
            if max_depth is not None:
                ns = ns[:max_depth]
            if ns not in out:
                out.append(ns)
        return out[offset:offset + limit]


def _match(labels: tuple[str, ...], pattern: tuple[str, ...]) -> bool:
    """Labels against a pattern in which "*" matches any one label."""
    return len(labels) == len(pattern) and all(p == "*" or p == lab for lab, p in zip(labels, pattern))
