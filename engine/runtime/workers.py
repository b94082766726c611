"""The threads sync nodes run on: daemon workers that nobody waits for.

A sync node that never returns cannot be killed: Python has no way to stop a thread.
What the engine can do is not wait for it. Sync nodes therefore run on this pool instead
of the event loop's default executor: cancelling a run hands control back at once (the
task is abandoned, its result ignored), `asyncio.run()` returns (it joins the default
executor's threads, not these), and the interpreter exits (the workers are daemon
threads). An abandoned thread keeps running until its node returns; a new task gets
another worker.
"""
from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from queue import SimpleQueue
from typing import Any

__all__ = ["WorkerPool", "WORKERS", "NODE_EXITS", "Exited", "Mailbox", "carried", "contained"]

NODE_EXITS = (SystemExit, KeyboardInterrupt, GeneratorExit)
"""What a node may raise that is no Exception: each is the node's failure, never the loop's end."""


class Exited:
    """One of NODE_EXITS a node raised, carried back as a value: thrown into an awaiting
    asyncio task it would stop the event loop (SystemExit) or close the awaiting
    coroutines past their handlers (GeneratorExit). The awaiting code raises `exc` itself."""

    __slots__ = ("exc",)

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


def carried(fn: Callable[..., Any], *args: Any) -> Any:
    """`fn(*args)`, or an `Exited` carrying the NODE_EXITS it raised."""
    try:
        return fn(*args)
    except NODE_EXITS as exc:
        return Exited(exc)


async def contained(call: Awaitable[Any]) -> Any:
    """`await call`, or an `Exited` carrying the NODE_EXITS it raised (for a call run as its own task)."""
    try:
        return await call
    except NODE_EXITS as exc:
        return Exited(exc)


class Mailbox:
    """Worker threads `post` values; the loop `take`s every value posted so far. Only the
    post that finds the box empty wakes the loop, so a burst of quick results costs one
    loop wake-up, not one each (`call_soon_threadsafe` writes to the loop's self-pipe)."""

    __slots__ = ("_loop", "_lock", "_items", "_waiter")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._lock = threading.Lock()
        self._items: list[Any] = []
        self._waiter: asyncio.Future[None] | None = None

    def post(self, value: Any) -> None:
        with self._lock:
            self._items.append(value)
            waiter = self._waiter
            self._waiter = None
        if waiter is not None:
            self._loop.call_soon_threadsafe(_wake, waiter)

    async def take(self) -> list[Any]:
        """Every value posted since the last take (at least one; waits for it)."""
        while True:
            with self._lock:
                if self._items:
                    items, self._items = self._items, []
                    return items
                waiter = self._waiter = self._loop.create_future()
            await waiter


def _wake(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


class WorkerPool:
    """`submit(fn, *args) -> Future`: run on an idle daemon worker, or a new one."""

    def __init__(self, name: str = "engine-worker", keep: int = 8) -> None:
        self._name = name
        self._keep = keep
        self._jobs: SimpleQueue[tuple[Future[Any], Callable[..., Any], tuple[Any, ...]]] = SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0
        self._count = 0

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        future: Future[Any] = Future()
        with self._lock:
            start = self._idle == 0
            if start:
                self._count += 1
                number = self._count
            else:
                self._idle -= 1
        self._jobs.put((future, fn, args))
        if start:
            threading.Thread(target=self._work, name=f"{self._name}-{number}", daemon=True).start()
        return future

    def _work(self) -> None:
        while True:
            future, fn, args = self._jobs.get()
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(fn(*args))
                except BaseException as exc:  # noqa: BLE001 - handed to whoever awaits
                    future.set_exception(exc)
            del future, fn, args
            with self._lock:
                if self._idle >= self._keep:
                    return  # enough idle workers already
                self._idle += 1


WORKERS = WorkerPool()
"""The process's pool for sync nodes."""
