"""AsyncBatchedBaseStore: concurrent async calls gathered into one `abatch`.

Every `aget`/`aput`/`asearch`/... queues its operation; a background task takes all that
are waiting, runs each distinct one once (identical reads once, several puts to one key:
the last), and hands every caller its result. A cancelled caller does not stop the
others, and a cancelled background task is started again by the next call.
"""
from __future__ import annotations

import asyncio
from typing import Any

from .base import BaseStore
from .ops import Op, PutOp, Result

__all__ = ["AsyncBatchedBaseStore"]

Waiting = tuple[asyncio.Future[Result], Op]


def _identity(op: Op) -> Any:
    if isinstance(op, PutOp):
        return ("put", tuple(op.namespace), op.key)
    return (type(op).__name__, repr(op))


def dedupe(ops: list[Op]) -> tuple[list[Op], list[int]]:
    """The distinct operations (a later put to a key replaces an earlier one) and, for
    each given operation, the position of its distinct one."""
    distinct: list[Op] = []
    where: dict[Any, int] = {}
    slots: list[int] = []
    for op in ops:
        ident = _identity(op)
        if ident in where:
            if isinstance(op, PutOp):
                distinct[where[ident]] = op
        else:
            where[ident] = len(distinct)
            distinct.append(op)
        slots.append(where[ident])
    return distinct, slots


class AsyncBatchedBaseStore(BaseStore):
    """A store whose async calls are batched; subclasses implement `batch` and `abatch`."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._queue: asyncio.Queue[Waiting] | None = None
        self._task: asyncio.Task[None] | None = None

    def _ensure_task(self) -> asyncio.Queue[Waiting]:
        loop = asyncio.get_running_loop()
        if self._task is None or self._task.done() or self._loop is not loop or self._queue is None:
            self._loop, self._queue = loop, asyncio.Queue()
            self._task = loop.create_task(self._serve(self._queue))
        return self._queue

    async def _aone(self, op: Op) -> Result:
        queue = self._ensure_task()
        future: asyncio.Future[Result] = asyncio.get_running_loop().create_future()
        queue.put_nowait((future, op))
        return await future

    async def _serve(self, queue: asyncio.Queue[Waiting]) -> None:
        while True:
            waiting = [await queue.get()]
            await asyncio.sleep(0)  # let the callers started with this one queue theirs
            while not queue.empty():
                waiting.append(queue.get_nowait())
            waiting = [(f, op) for f, op in waiting if not f.done()]
            if not waiting:
                continue
            distinct, slots = dedupe([op for _, op in waiting])
            try:
                results = await self.abatch(distinct)
            except asyncio.CancelledError:
                for future, _ in waiting:
                    future.cancel()
                raise
            except Exception as exc:
                for future, _ in waiting:
                    if not future.done():
                        future.set_exception(exc)
                continue
            for (future, _), slot in zip(waiting, slots):
                if not future.done():
                    future.set_result(results[slot])

