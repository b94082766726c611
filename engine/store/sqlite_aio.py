"""AsyncSqliteStore: `SqliteStore` with awaitable calls, as LangGraph's async SQLite store.

`async with AsyncSqliteStore.from_conn_string("memory.db") as store: await store.setup()`.
No aiosqlite: each batch is one short transaction run in a worker thread.
"""
from __future__ import annotations

import os
import sqlite3
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

from .sql_async import AsyncSqlStore
from .sqlite import BaseSqliteStore, SqliteStore

__all__ = ["AsyncSqliteStore"]


class AsyncSqliteStore(BaseSqliteStore, AsyncSqlStore):
    """Items in a SQLite file, with `aget`/`aput`/`asearch`/... that do not block the loop."""

    inner: SqliteStore

    def __init__(self, conn: sqlite3.Connection | str | os.PathLike[str], *,
                 index: Mapping[str, Any] | None = None, ttl: Mapping[str, Any] | None = None,
                 **kwargs: Any) -> None:
        if not isinstance(conn, (str, os.PathLike, sqlite3.Connection)):
            raise TypeError(
                f"AsyncSqliteStore takes a file path or a sqlite3.Connection, not {type(conn).__name__} "
                "(Retrograph does not use aiosqlite): write "
                "`async with AsyncSqliteStore.from_conn_string(path) as store:`")
        super().__init__(SqliteStore(conn, index=index, ttl=ttl, **kwargs))

    @classmethod
    @asynccontextmanager
    async def from_conn_string(cls, conn_string: str, *, index: Mapping[str, Any] | None = None,
                               ttl: Mapping[str, Any] | None = None,
                               **kwargs: Any) -> AsyncIterator[AsyncSqliteStore]:
        """`async with AsyncSqliteStore.from_conn_string(path) as store:` (closed at the end)."""
        store = cls(conn_string, index=index, ttl=ttl, **kwargs)
        try:
            yield store
        finally:
            await store.aclose()
