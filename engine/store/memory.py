"""InMemoryStore: dicts in this process, for tests and scripts (lost when the process ends).

With `index={"dims": ..., "embed": ..., "fields": [...]}` a put embeds the texts at those
fields and `search(query=...)` ranks items by cosine similarity (the best of an item's
vectors); items without vectors follow, unscored. Without a query, items come in the order
they were first put (LangGraph's in-memory order; the SQL stores give newest first). Time to live (`ttl=`) as the SQL
stores: expired items are invisible at once and deleted by `sweep_ttl()` or the sweeper.
"""
from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from .base import BaseStore, namespace_matches
from .embed import cosine
from .index import Index, make_index
from .items import Item, SearchItem, matches_filter
from .ops import GetOp, ListNamespacesOp, Op, PutOp, Result, SearchOp
from .ttl import Sweeper, check_ttl_config, current, expiry

__all__ = ["InMemoryStore"]

Where = tuple[tuple[str, ...], str]


class InMemoryStore(BaseStore):
    """Items kept in this process, safe to share between threads."""

    supports_ttl = True

    def __init__(self, *, index: Mapping[str, Any] | None = None, ttl: Mapping[str, Any] | None = None) -> None:
        self.index: Index | None = make_index(index)
        self.index_config: dict[str, Any] | None = self.index.config if self.index else None
        self.embeddings = self.index.embeddings if self.index else None
        self.ttl_config = check_ttl_config(ttl)  # type: ignore[assignment]
        self._data: dict[tuple[str, ...], dict[str, Item]] = {}
        self._vectors: dict[Where, list[list[float]]] = {}
        self._expires: dict[Where, tuple[datetime, float]] = {}
        self._lock = threading.RLock()
        self._sweeper: Sweeper | None = None

    # operations

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        puts = [op for op in ops if isinstance(op, PutOp)]
        vectors = self.index.embed(self.index.texts(puts)) if self.index else []
        queries = {i: self.index.embed_query(op.query) for i, op in enumerate(ops)
                   if self.index and isinstance(op, SearchOp) and op.query}
        return self._run(ops, puts, vectors, queries)

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        puts = [op for op in ops if isinstance(op, PutOp)]
        vectors = await self.index.aembed(self.index.texts(puts)) if self.index else []
        queries = {i: await self.index.aembed_query(op.query) for i, op in enumerate(ops)
                   if self.index and isinstance(op, SearchOp) and op.query}
        return self._run(ops, puts, vectors, queries)

    def _run(self, ops: list[Op], puts: list[PutOp], vectors: list[list[float]],
             queries: dict[int, list[float]]) -> list[Result]:
        by_put: dict[int, list[list[float]]] = {}
        if self.index:
            for (pos, _path, _text), vec in zip(self.index.texts(puts), vectors):
                by_put.setdefault(pos, []).append(vec)
        results: list[Result] = []
        put_no = 0
        with self._lock:
            for i, op in enumerate(ops):
                if isinstance(op, GetOp):
                    results.append(self._get(op))
                elif isinstance(op, PutOp):
                    self._put(op, by_put.get(put_no))
                    put_no += 1
                    results.append(None)
                elif isinstance(op, SearchOp):
                    results.append(self._search(op, queries.get(i)))
                elif isinstance(op, ListNamespacesOp):
                    results.append(self._list(op))
                else:
                    raise TypeError(f"not a store operation: {op!r:.80}")
        return results

    def _alive(self, where: Where, refresh: bool) -> bool:
        exp = self._expires.get(where)
        if exp is None:
            return True
        at = current()
        if at >= exp[0]:
            return False
        if refresh:
            self._expires[where] = (expiry(exp[1], at) or exp[0], exp[1])
        return True

    def _get(self, op: GetOp) -> Item | None:
        namespace = tuple(op.namespace)
        item = self._data.get(namespace, {}).get(op.key)
        if item is None or not self._alive((namespace, op.key), op.refresh_ttl):
            return None
        return item

    def _put(self, op: PutOp, vectors: list[list[float]] | None) -> None:
        namespace, key = tuple(op.namespace), op.key
        if op.value is None:
            items = self._data.get(namespace)
            if items is not None:
                items.pop(key, None)
                if not items:
                    del self._data[namespace]
            self._vectors.pop((namespace, key), None)
            self._expires.pop((namespace, key), None)
            return
        at = current()
        items = self._data.setdefault(namespace, {})
        old = items.get(key)
        fresh = old is None or not self._alive((namespace, key), False)
        items[key] = Item(value=dict(op.value), key=key, namespace=namespace,
                          created_at=at if fresh or old is None else old.created_at, updated_at=at)
        if vectors or op.index is not False or fresh:
            self._vectors[(namespace, key)] = vectors or []
        if op.ttl is not None:
            self._expires[(namespace, key)] = (expiry(op.ttl, at) or at, op.ttl)
        else:
            self._expires.pop((namespace, key), None)

    def _search(self, op: SearchOp, query: list[float] | None) -> list[SearchItem]:
        prefix = tuple(op.namespace_prefix)
        found: list[tuple[Item, float | None]] = []
        for namespace, items in self._data.items():
            if namespace[:len(prefix)] != prefix:
                continue
            for key, item in items.items():
                if not self._alive((namespace, key), False) or not matches_filter(item.value, op.filter):
                    continue
                score = None
                if query is not None:
                    vecs = self._vectors.get((namespace, key)) or []
                    score = max((cosine(query, v) for v in vecs), default=None)
                found.append((item, score))
        if query is not None:
            found.sort(key=lambda pair: (pair[1] is None, -(pair[1] or 0.0)))
        page = found[op.offset:op.offset + op.limit]
        for item, _ in page:
            self._alive((item.namespace, item.key), op.refresh_ttl)
        return [SearchItem(item.namespace, item.key, item.value, item.created_at, item.updated_at, score)
                for item, score in page]

    def _list(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        out: dict[tuple[str, ...], None] = {}
        for namespace in sorted(self._data):
            if not any(self._alive((namespace, k), False) for k in self._data[namespace]):
                continue
            if not namespace_matches(namespace, op.match_conditions):
                continue
            out[namespace[:op.max_depth] if op.max_depth is not None else namespace] = None
        return list(out)[op.offset:op.offset + op.limit]

    # time to live

    def expires_at(self, namespace: tuple[str, ...], key: str) -> datetime | None:
        """When the item expires (None: never, or no such item); does not refresh it."""
        with self._lock:
            exp = self._expires.get((tuple(namespace), key))
        return exp[0] if exp else None

    def sweep_ttl(self) -> int:
        """Delete the expired items; how many were deleted."""
        with self._lock:
            gone = [w for w in list(self._expires) if not self._alive(w, False)]
            for namespace, key in gone:
                self._put(PutOp(namespace, key, None), None)
        return len(gone)

    async def asweep_ttl(self) -> int:
        return self.sweep_ttl()

    def start_ttl_sweeper(self, sweep_interval_minutes: float | None = None) -> Sweeper:
        minutes = sweep_interval_minutes or (self.ttl_config or {}).get("sweep_interval_minutes") or 5
        self.stop_ttl_sweeper()
        self._sweeper = Sweeper(self.sweep_ttl, minutes)
        return self._sweeper

    def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        sweeper, self._sweeper = self._sweeper, None
        return sweeper.stop(timeout) if sweeper is not None else True
