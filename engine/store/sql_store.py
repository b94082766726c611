"""What the SQLite and PostgreSQL stores share above their SQL: the batch in one
transaction after every embedding and JSON encoding is done, TTL, the sweeper.

A subclass gives `_transaction()` (a cursor inside a transaction that commits on exit
and rolls back on error) and its dialect; everything else is here.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime
from typing import Any, cast

from typing_extensions import Self

from .base import BaseStore
from .index import Index, make_index
from .ops import Op, PutOp, Result, SearchOp
from .sql_core import MAX_ITEM_BYTES, Dialect, encode_puts, run_batch, sweep
from .ttl import Sweeper, check_ttl_config

__all__ = ["SqlStore", "Prepared"]

Prepared = tuple[dict[int, str], dict[int, list[tuple[str, list[float]]]], dict[int, list[float]]]
"""A batch's puts as JSON, their vectors, and its searches' query vectors, by position."""


def _puts(ops: list[Op]) -> tuple[list[int], list[PutOp]]:
    positions = [i for i, op in enumerate(ops) if isinstance(op, PutOp)]
    return positions, [ops[i] for i in positions]  # type: ignore[misc]


def _name_fields(texts: list[tuple[int, str, str]], vectors: list[list[float]],
                 positions: list[int]) -> dict[int, list[tuple[str, list[float]]]]:
    out: dict[int, list[tuple[str, list[float]]]] = {p: [] for p in positions}
    seen: dict[tuple[int, str], int] = {}
    for (put_no, path, _text), vec in zip(texts, vectors):
        n = seen.get((put_no, path), 0)
        seen[(put_no, path)] = n + 1
        out[positions[put_no]].append((path if n == 0 else f"{path}#{n}", vec))
    return out


class SqlStore(BaseStore):
    """A store over SQL tables (sql_core.py); subclasses connect and open transactions."""

    supports_ttl = True
    dialect: Dialect

    def __init__(self, *, index: Mapping[str, Any] | None = None, ttl: Mapping[str, Any] | None = None,
                 max_item_bytes: int = MAX_ITEM_BYTES) -> None:
        self.index: Index | None = make_index(index)
        self.index_config: dict[str, Any] | None = self.index.config if self.index else None
        self.embeddings = self.index.embeddings if self.index else None
        self.ttl_config = check_ttl_config(ttl)  # type: ignore[assignment]
        self.max_item_bytes = max_item_bytes
        self._sweeper: Sweeper | None = None

    # opening and closing

    @classmethod
    @contextmanager
    def from_conn_string(cls, conn_string: str, **kwargs: Any) -> Iterator[Any]:
        """`with Store.from_conn_string(url_or_path, index=..., ttl=...) as store:` as LangGraph's
        (closed, its sweeper stopped, at the end)."""
        store = cast(Any, cls)(conn_string, **cls._url_defaults(kwargs))  # a subclass takes a URL or path first
        try:
            yield store
        finally:
            store.close()

    @classmethod
    def _url_defaults(cls, kwargs: dict[str, Any]) -> dict[str, Any]:
        """The constructor's arguments for `from_conn_string(url, **kwargs)` (a subclass adds its defaults)."""
        return kwargs

    def close(self) -> None:
        self.stop_ttl_sweeper()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # subclasses

    def _transaction(self) -> AbstractContextManager[Any]:
        raise NotImplementedError

    def _cursor(self) -> AbstractContextManager[Any]:
        """A cursor inside one transaction (committed on exit), for a caller's own statements."""
        return self._transaction()

    @property
    def _ranked_in_sql(self) -> bool:
        return False

    # batches

    def prepare(self, ops: list[Op]) -> Prepared:
        """Encode and embed before any write: an error here leaves the store unchanged."""
        texts = encode_puts(ops, self.max_item_bytes)
        if self.index is None:
            return texts, {}, {}
        positions, puts = _puts(ops)
        found = self.index.texts(puts)
        vectors = _name_fields(found, self.index.embed(found), positions)
        queries = {i: self.index.embed_query(op.query) for i, op in enumerate(ops)
                   if isinstance(op, SearchOp) and op.query}
        return texts, vectors, queries

    async def aprepare(self, ops: list[Op]) -> Prepared:
        texts = encode_puts(ops, self.max_item_bytes)
        if self.index is None:
            return texts, {}, {}
        positions, puts = _puts(ops)
        found = self.index.texts(puts)
        vectors = _name_fields(found, await self.index.aembed(found), positions)
        queries = {i: await self.index.aembed_query(op.query) for i, op in enumerate(ops)
                   if isinstance(op, SearchOp) and op.query}
        return texts, vectors, queries

    def run_prepared(self, ops: list[Op], prepared: Prepared) -> list[Result]:
        texts, vectors, queries = prepared
        with self._transaction() as cur:
            return run_batch(cur, self.dialect, ops, texts, vectors, queries,
                             indexed=self.index is not None, ranked_in_sql=self._ranked_in_sql,
                             omit_expired=self._omits_expired())

    omit_expired_default = True
    """Whether reads skip an expired item not yet swept when `ttl` sets no `omit_expired`
    (read at each batch, so `store.ttl_config["omit_expired"] = ...` takes effect at once)."""

    def _omits_expired(self) -> bool:
        omit = (self.ttl_config or {}).get("omit_expired")
        return self.omit_expired_default if omit is None else bool(omit)

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        return self.run_prepared(ops, self.prepare(ops))

    # time to live

    def expires_at(self, namespace: tuple[str, ...], key: str) -> datetime | None:
        """When the item expires (None: never, or no such item); does not refresh it."""
        with self._transaction() as cur:
            cur.execute(self.dialect.sql("SELECT expires_at FROM store WHERE prefix = ? AND key = ?"),
                        (".".join(namespace), key))
            row = cur.fetchone()
        return self.dialect.read_stamp(row[0]) if row and row[0] is not None else None

    def sweep_ttl(self) -> int:
        """Delete the expired items now; how many were deleted."""
        with self._transaction() as cur:
            return sweep(cur, self.dialect, indexed=self.index is not None)

    def start_ttl_sweeper(self, sweep_interval_minutes: float | None = None) -> Sweeper:
        """Sweep every `sweep_interval_minutes` (default the ttl config's, else 5) in a thread."""
        minutes = sweep_interval_minutes or (self.ttl_config or {}).get("sweep_interval_minutes") or 5
        self.stop_ttl_sweeper()
        self._sweeper = Sweeper(self.sweep_ttl, minutes)
        return self._sweeper

    def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        sweeper, self._sweeper = self._sweeper, None
        return sweeper.stop(timeout) if sweeper is not None else True
