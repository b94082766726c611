"""Long-term memory for the Store panel, as plain records: namespaces, items, who wrote what.

Two sources answer the same calls, a page at a time: `LiveMemory` over the store a graph
was compiled with (any engine store; its writes recorded by a RecordingStore), and
`MemoryFile` over a SQLite store file (LangGraph's or Retrograph's, the same tables),
opened read-only (`mode=ro`): browsing never changes the file and runs no code from it.
"""
from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

__all__ = ["MemoryRow", "MemoryWrite", "LiveMemory", "MemoryFile", "is_store_file", "PAGE"]

PAGE = 200
"""Items a namespace shows at first (more on demand)."""


@dataclass(frozen=True, kw_only=True)
class MemoryRow:
    """One item: where it lives, its value as JSON text, when written, when it expires."""

    namespace: tuple[str, ...]
    key: str
    value: str
    updated_at: str
    expires_at: str | None


@dataclass(frozen=True, kw_only=True)
class MemoryWrite:
    """One put or delete a node made during the run."""

    node: str
    task_id: str
    step: int | None
    kind: str
    namespace: tuple[str, ...]
    key: str
    value: str


def _json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return repr(value)


def _stamp(value: Any) -> str:
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S")
    return str(value or "")[:19]


def _matches(row: MemoryRow, text: str) -> bool:
    return not text or text.lower() in (row.key + " " + row.value).lower()


class LiveMemory:
    """The store of the loaded graph (`store` may be a RecordingStore)."""

    def __init__(self, store: Any) -> None:
        self.store = store

    def describe(self) -> str:
        inner = getattr(self.store, "inner", self.store)
        return f"{type(inner).__name__} of the loaded graph (shared by every thread that uses it)"

    def namespaces(self, limit: int = 1000) -> list[tuple[str, ...]]:
        return [tuple(ns) for ns in self.store.list_namespaces(limit=limit)]

    def items(self, namespace: tuple[str, ...], text: str = "", limit: int = PAGE) -> list[MemoryRow]:
        expires = getattr(getattr(self.store, "inner", self.store), "expires_at", None)
        rows = []
        for it in self.store.search(namespace, limit=max(limit * 5, 1000), refresh_ttl=False):
            if tuple(it.namespace) != tuple(namespace):
                continue
            at = expires(it.namespace, it.key) if callable(expires) else None
            row = MemoryRow(namespace=tuple(it.namespace), key=it.key, value=_json(it.value),
                            updated_at=_stamp(it.updated_at), expires_at=_stamp(at) if at else None)
            if _matches(row, text):
                rows.append(row)
            if len(rows) >= limit:
                break
        return rows

    def writes(self) -> list[MemoryWrite]:
        recorded = getattr(self.store, "writes", None)
        if not callable(recorded):
            return []
        return [MemoryWrite(node=w.node or "(outside a node)", task_id=w.task_id or "", step=w.step, kind=w.kind,
                            namespace=w.namespace, key=w.key, value=_json(w.value) if w.value is not None else "")
                for w in recorded()]


def is_store_file(path: str | Path) -> bool:
    """Whether `path` is a SQLite file holding a long-term memory `store` table and no checkpoints."""
    p = Path(path)
    if not p.is_file() or p.stat().st_size < 100:
        return False
    try:
        with open(p, "rb") as f:
            if f.read(16) != b"SQLite format 3\x00":
                return False
        conn = sqlite3.connect(f"file:{p}?mode=ro", uri=True)
        try:
            names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            conn.close()
    except (OSError, sqlite3.Error):
        return False
    return "store" in names and not any("checkpoint" in n for n in names)


class MemoryFile:
    """A SQLite store file, read-only."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, check_same_thread=False)

    def describe(self) -> str:
        return f"store file {self.path.name} (read-only)"

    def close(self) -> None:
        self.conn.close()

    def namespaces(self, limit: int = 1000) -> list[tuple[str, ...]]:
        rows = self.conn.execute("SELECT DISTINCT prefix FROM store ORDER BY prefix LIMIT ?", (limit,))
        return [tuple(str(r[0]).split(".")) for r in rows]

    def items(self, namespace: tuple[str, ...], text: str = "", limit: int = PAGE) -> list[MemoryRow]:
        cur = self.conn.execute("SELECT key, value, updated_at, expires_at FROM store WHERE prefix = ? "
                                "ORDER BY updated_at DESC", (".".join(namespace),))
        out = []
        for key, value, updated, expires in cur:
            raw = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
            try:
                shown = _json(json.loads(raw))
            except ValueError:
                shown = raw
            row = MemoryRow(namespace=namespace, key=str(key), value=shown, updated_at=_stamp(updated),
                            expires_at=_stamp(expires) if expires else None)
            if _matches(row, text):
                out.append(row)
            if len(out) >= limit:
                break
        return out

    def writes(self) -> list[MemoryWrite]:
        return []
