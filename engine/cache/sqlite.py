"""SqliteCache: node outputs in a SQLite file, shared by runs and processes."""
from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..checkpoint.serde import Serializer
from .base import BaseCache, FullKey

__all__ = ["SqliteCache"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS retrograph_cache (
    ns TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL, expires REAL,
    PRIMARY KEY (ns, key)
)
"""


class SqliteCache(BaseCache):
    """`SqliteCache(path=...)`: values encoded by the no-pickle serializer; a value it
    cannot encode is simply not cached (the node runs again next time)."""

    def __init__(self, *, path: str | Path, serde: Serializer | None = None) -> None:
        self.path = str(path)
        self.serde = serde or Serializer()
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute(_SCHEMA)

    @staticmethod
    def _ns(namespace: tuple[str, ...]) -> str:
        return json.dumps(list(namespace))

    def get(self, keys: Sequence[FullKey]) -> dict[FullKey, Any]:
        now = time.time()
        found: dict[FullKey, Any] = {}
        with self._lock:
            for full in keys:
                row = self._conn.execute("SELECT value, expires FROM retrograph_cache WHERE ns = ? AND key = ?",
                                         (self._ns(full[0]), full[1])).fetchone()
                if row is None:
                    continue
                if row[1] is not None and now >= row[1]:
                    self._conn.execute("DELETE FROM retrograph_cache WHERE ns = ? AND key = ?",
                                       (self._ns(full[0]), full[1]))
                    continue
                found[full] = self.serde.loads(row[0])
        return found

    def set(self, pairs: Mapping[FullKey, tuple[Any, float | None]]) -> None:
        now = time.time()
        rows = []
        for (namespace, key), (value, ttl) in pairs.items():
            try:
                data = self.serde.dumps(value)
            except Exception:  # not encodable without pickle: leave it uncached
                continue
            rows.append((self._ns(namespace), key, data, now + ttl if ttl is not None else None))
        with self._lock:
            self._conn.executemany("INSERT OR REPLACE INTO retrograph_cache VALUES (?, ?, ?, ?)", rows)

    def clear(self, namespaces: Sequence[tuple[str, ...]] | None = None) -> None:
        with self._lock:
            if namespaces is None:
                self._conn.execute("DELETE FROM retrograph_cache")
            else:
                self._conn.executemany("DELETE FROM retrograph_cache WHERE ns = ?",
                                       [(self._ns(tuple(n)),) for n in namespaces])

    def close(self) -> None:
        with self._lock:
            self._conn.close()
