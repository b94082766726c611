"""The async SQL stores: a sync store (`inner`) whose statements run in a worker thread.

Embedding runs on the event loop (an async embeddings function is awaited there), then
the batch's one transaction runs in a thread, so the loop never waits on the database.
`setup`, `sweep_ttl` and the sweeper are coroutines, as LangGraph's async stores have them.
"""
from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

from .base import BaseStore
from .ops import Op, Result
from .sql_store import SqlStore
from .ttl import AsyncSweeper

__all__ = ["AsyncSqlStore"]


class AsyncSqlStore(BaseStore):
    """Awaitable calls over a `SqlStore`; the sync calls work too (they run on the caller's thread)."""

    supports_ttl = True

    def __init__(self, inner: SqlStore) -> None:
        self.inner = inner
        self.ttl_config = inner.ttl_config
        self.index_config = inner.index_config
        self.embeddings = inner.embeddings
        self._sweeper: AsyncSweeper | None = None

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return self.inner.batch(ops)

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        prepared = await self.inner.aprepare(ops)
        return await asyncio.to_thread(self.inner.run_prepared, ops, prepared)

    async def setup(self) -> None:
        await asyncio.to_thread(self.inner.setup)  # type: ignore[attr-defined]

    async def sweep_ttl(self) -> int:
        return await asyncio.to_thread(self.inner.sweep_ttl)

    async def start_ttl_sweeper(self, sweep_interval_minutes: float | None = None) -> asyncio.Task[None]:
        """Sweep every `sweep_interval_minutes` (default the ttl config's, else 5) in a task."""
        minutes = sweep_interval_minutes or (self.ttl_config or {}).get("sweep_interval_minutes") or 5
        await self.stop_ttl_sweeper()
        self._sweeper = AsyncSweeper(self.sweep_ttl, minutes)
        return self._sweeper.task

    async def stop_ttl_sweeper(self, timeout: float | None = None) -> bool:
        sweeper, self._sweeper = self._sweeper, None
        return await sweeper.stop(timeout) if sweeper is not None else True

    async def aclose(self) -> None:
        await self.stop_ttl_sweeper()
        await asyncio.to_thread(self.inner.close)  # type: ignore[attr-defined]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.inner!r})"
