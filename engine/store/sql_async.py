"""The async SQL stores: a sync store (`inner`) whose statements run in a worker thread.

Embedding runs on the event loop (an async embeddings function is awaited there), then
the batch's one transaction runs in a thread, so the loop never waits on the database.
`setup`, `sweep_ttl` and the sweeper are coroutines, as LangGraph's async stores have them.
"""
from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager, suppress
from typing import Any

from .batched import AsyncBatchedBaseStore
from .ops import Op, Result
from .sql_store import SqlStore
from .ttl import AsyncSweeper

__all__ = ["AsyncSqlStore", "AsyncCursor"]


class AsyncCursor:
    """A sync DB-API cursor whose calls are awaited (each runs on the cursor's one thread)."""

    def __init__(self, cur: Any, worker: ThreadPoolExecutor) -> None:
        self._cur, self._worker = cur, worker

    async def _call(self, name: str, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self._worker, getattr(self._cur, name), *args)

    async def execute(self, sql: Any, params: Any = None) -> AsyncCursor:
        await self._call("execute", sql, params) if params is not None else await self._call("execute", sql)
        return self

    async def fetchone(self) -> Any:
        return await self._call("fetchone")

    async def fetchall(self) -> list[Any]:
        return list(await self._call("fetchall"))

    @property
    def rowcount(self) -> int:
        return int(self._cur.rowcount)


class AsyncSqlStore(AsyncBatchedBaseStore):
    """Awaitable calls over a `SqlStore`; the sync calls work too (they run on the caller's thread).
    Concurrent awaited calls (`asyncio.gather` of many `aput`/`aget`) go as one batch: one
    transaction, not one each (batched.py)."""

    supports_ttl = True

    def __init__(self, inner: SqlStore) -> None:
        super().__init__()
        self.inner = inner
        self.ttl_config = inner.ttl_config
        self.index_config = inner.index_config
        self.embeddings = inner.embeddings
        self._sweeper: AsyncSweeper | None = None

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """The sync calls, from a thread without a running event loop (on the loop's own
        thread they would block it: use the `a` methods there)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return self.inner.batch(ops)
        raise asyncio.InvalidStateError(
            f"a sync call to {type(self).__name__} on the event loop's thread would block the loop: "
            "await its async twin (aget, aput, asearch, ...) or call from another thread")

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
        task, self._task = self._task, None  # the batching task (batched.py): ended with the store
        if task is not None and not task.done() and task.get_loop() is asyncio.get_running_loop():
            task.cancel()
            with suppress(asyncio.CancelledError):
                await task
        await asyncio.to_thread(self.inner.close)

    @asynccontextmanager
    async def _cursor(self) -> AsyncIterator[AsyncCursor]:
        """A cursor inside one transaction of the store's connection, with awaitable calls
        (for a caller's own statements: migrations, checks). One worker thread holds it."""
        worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="retrograph-store-cursor")
        loop = asyncio.get_running_loop()
        opened = self.inner._cursor()
        try:
            cur = await loop.run_in_executor(worker, opened.__enter__)
            try:
                yield AsyncCursor(cur, worker)
            except BaseException as exc:
                await loop.run_in_executor(worker, opened.__exit__, type(exc), exc, exc.__traceback__)
                raise
            await loop.run_in_executor(worker, opened.__exit__, None, None, None)
        finally:
            worker.shutdown(wait=True)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.inner!r})"
