"""`AsyncSqliteSaver`: the SQLite store as LangGraph's async saver is used.

The engine's runs call their saver between supersteps (async runs included), so this is
`SqliteSaver` plus the async spellings LangGraph code writes:
`async with AsyncSqliteSaver.from_conn_string("run.db") as saver:` and awaitable reads.
No aiosqlite: the writes are short transactions on the saver's own connection.
"""
from __future__ import annotations

import asyncio
import os
import sqlite3
from collections.abc import AsyncIterator
from typing import Any

from .base import Checkpoint, PendingWrite, ThreadInfo
from .langgraph_api import LangGraphSaverAPI
from .sqlite import SqliteSaver

__all__ = ["AsyncSqliteSaver"]


class AsyncSqliteSaver(SqliteSaver):
    """A `SqliteSaver` that is also an async context manager with awaitable reads."""

    # LangGraph's awaitable reads, which the sync SqliteSaver refuses (sqlite_sync_only.py)
    aget_tuple = LangGraphSaverAPI.aget_tuple
    aget = LangGraphSaverAPI.aget
    alist = LangGraphSaverAPI.alist

    def __init__(self, conn: str | os.PathLike[str] | sqlite3.Connection, **kwargs: Any) -> None:
        if not isinstance(conn, (str, os.PathLike, sqlite3.Connection)):
            raise TypeError(
                f"AsyncSqliteSaver takes a file path, ':memory:' or a sqlite3.Connection, not "
                f"{type(conn).__name__} (Retrograph does not use aiosqlite): write "
                "`async with AsyncSqliteSaver.from_conn_string(path) as saver:`"
            )
        super().__init__(conn, **kwargs)

    @classmethod
    def from_conn_string(cls, path: str | os.PathLike[str], **kwargs: Any) -> AsyncSqliteSaver:
        """`async with AsyncSqliteSaver.from_conn_string(path) as saver:` (closed at the end)."""
        return cls(path, **kwargs)

    def __repr__(self) -> str:
        return f"AsyncSqliteSaver({self.path!r})"

    async def __aenter__(self) -> AsyncSqliteSaver:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()

    async def aload(self, thread_id: str, checkpoint_id: str | None = None) -> Checkpoint | None:
        return await asyncio.to_thread(self.load, thread_id, checkpoint_id)

    async def ahistory(self, thread_id: str, *, before: str | None = None,
                       limit: int | None = None) -> AsyncIterator[Checkpoint]:
        for checkpoint in await asyncio.to_thread(lambda: list(self.history(thread_id, before=before, limit=limit))):
            yield checkpoint

    async def apending_writes(self, thread_id: str, checkpoint_id: str) -> list[PendingWrite]:
        return await asyncio.to_thread(self.pending_writes, thread_id, checkpoint_id)

    async def athreads(self) -> list[ThreadInfo]:
        return await asyncio.to_thread(self.threads)

    async def adelete_thread(self, thread_id: str) -> None:
        await asyncio.to_thread(self.delete_thread, thread_id)

    async def aclose(self) -> None:
        self.close()
