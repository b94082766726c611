"""AsyncPostgresStore: `PostgresStore` with awaitable calls, as LangGraph's async store.

`async with AsyncPostgresStore.from_conn_string(url) as store: await store.setup()`.
Each batch is one transaction run in a worker thread on a sync pooled connection.
"""
from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

from .postgres import BasePostgresStore, PostgresStore
from .sql_async import AsyncSqlStore

__all__ = ["AsyncPostgresStore"]


class AsyncPostgresStore(BasePostgresStore, AsyncSqlStore):
    """Items in PostgreSQL, with `aget`/`aput`/`asearch`/... that do not block the loop."""

    inner: PostgresStore

    def __init__(self, conn: Any, *, index: Mapping[str, Any] | None = None,
                 ttl: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        super().__init__(PostgresStore(conn, index=index, ttl=ttl, **kwargs))

    @classmethod
    @asynccontextmanager
    async def from_conn_string(cls, conn_string: str, *, pipeline: bool = False,
                               pool_config: Mapping[str, Any] | None = None,
                               index: Mapping[str, Any] | None = None, ttl: Mapping[str, Any] | None = None,
                               **kwargs: Any) -> AsyncIterator[AsyncPostgresStore]:
        """`async with AsyncPostgresStore.from_conn_string(url) as store:` (closed at the end)."""
        store = cls(conn_string, index=index, ttl=ttl, pool_config=pool_config or {"min_size": 1, "max_size": 4},
                    **kwargs)
        try:
            yield store
        finally:
            await store.aclose()
