"""`AsyncPostgresSaver` and `AsyncShallowPostgresSaver`: the PostgreSQL savers as LangGraph's
async savers are written:

    async with AsyncPostgresSaver.from_conn_string(url) as saver:
        await saver.setup()
        graph = builder.compile(checkpointer=saver)

or `AsyncPostgresSaver(conn)` / `AsyncPostgresSaver(pool)` with a psycopg `AsyncConnection` or
an `AsyncConnectionPool` (and LangGraph's `pipe=`). The engine's runs save between supersteps
through the saver's synchronous protocol (async runs included), so the statements run on
sync connections to the same database: the saver's own pool for a URL, a short-lived
connection per call for an async connection or pool handed in (postgres_conns.py), which
therefore stays free for the caller's own statements. Reads awaited here (`aget_tuple`,
`alist`, `aget`) run in a worker thread, so they do not block the event loop.
"""
from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from .langgraph_api import CheckpointTuple
from .postgres import PostgresSaver
from .postgres_conns import PerCallConnections, is_async_connection, sync_conninfo
from .base import NS_SEP
from .postgres_shallow import ShallowPostgresSaver, keep_latest

__all__ = ["AsyncPostgresSaver", "AsyncShallowPostgresSaver"]


def _sync_side(conn: Any) -> Any:
    """What the sync saver runs on for `conn` (an async connection: a connection per call)."""
    return PerCallConnections(sync_conninfo(conn)) if is_async_connection(conn) else conn


class AsyncPostgresSaver(PostgresSaver):
    """`PostgresSaver` taking what LangGraph's async saver takes: a URL, an `AsyncConnection`
    or `AsyncConnectionPool` (or their sync kinds), with awaitable `setup` and reads."""

    def __init__(self, conn: Any, pipe: Any = None, serde: Any = None, **kwargs: Any) -> None:
        super().__init__(_sync_side(conn), pipe=pipe, serde=serde, **kwargs)

    def __repr__(self) -> str:
        return "Async" + super().__repr__()

    @classmethod
    def from_conn_string(cls, conn_string: str, *, pipeline: bool = False, serde: Any = None,  # type: ignore[override]
                         **kwargs: Any) -> Any:
        """`async with AsyncPostgresSaver.from_conn_string(url) as saver:` (closed at the end)."""
        return cls(conn_string, serde=serde, **kwargs)

    async def setup(self) -> None:  # type: ignore[override]
        """LangGraph's saver creates its tables here; this one did when it was made."""

    async def __aenter__(self) -> Any:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()

    async def aclose(self) -> None:
        self.close()

    async def aget_tuple(self, config: Mapping[str, Any]) -> CheckpointTuple | None:
        return await asyncio.to_thread(self.get_tuple, config)

    async def aget(self, config: Mapping[str, Any]) -> dict[str, Any] | None:
        return await asyncio.to_thread(self.get, config)

    async def alist(self, config: Mapping[str, Any] | None, *, filter: Mapping[str, Any] | None = None,
                    before: Mapping[str, Any] | None = None, limit: int | None = None) -> AsyncIterator[CheckpointTuple]:
        found = await asyncio.to_thread(lambda: list(self.list(config, filter=filter, before=before, limit=limit)))
        for item in found:
            yield item

    async def adelete_thread(self, thread_id: str) -> None:
        await asyncio.to_thread(self.delete_thread, str(thread_id))

    def prune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        """LangGraph's prune: keep only the latest checkpoint of each thread and namespace
        (`keep_latest`), or delete the threads (`delete`)."""
        if strategy not in ("keep_latest", "delete"):
            raise ValueError(f"prune(strategy={strategy!r}): use 'keep_latest' or 'delete'")
        with self.maintenance_transaction():  # every thread named, or none
            for thread_id in map(str, thread_ids):
                if strategy == "delete":
                    self.delete_thread(thread_id)
                    continue
                for key in [thread_id, *(thread_id + NS_SEP + ns for ns in self.namespaces(thread_id))]:
                    keep_latest(self, key)

    async def aprune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest") -> None:
        await asyncio.to_thread(self.prune, list(thread_ids), strategy=strategy)


class AsyncShallowPostgresSaver(AsyncPostgresSaver, ShallowPostgresSaver):
    """`ShallowPostgresSaver` (only each thread's latest checkpoint) with the async spellings."""
