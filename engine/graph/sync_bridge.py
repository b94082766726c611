"""Calling the async Run from sync code: `invoke`/`stream`/`get_state` on a graph run an
event loop of their own on the caller's thread; called inside someone's running loop (a
notebook, a GUI, an async test, a node), that loop waits, as for any sync call."""
from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

from ..runtime.sync_code import as_sync_code

__all__ = ["run_sync", "iterate_sync"]


def loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def run_sync(coro: Any) -> Any:
    """Run a coroutine to the end from sync code on this thread, on a loop of its own; called
    inside a running loop, that loop waits (as for any sync call) and is hidden meanwhile."""
    with as_sync_code():
        loop = asyncio.new_event_loop()
        try:
            return loop.run_until_complete(coro)
        finally:
            _close_loop(loop)


def _close_loop(loop: asyncio.AbstractEventLoop) -> None:
    try:
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.run_until_complete(loop.shutdown_default_executor())
    finally:
        loop.close()


def iterate_sync(agen: Any) -> Iterator[Any]:
    """Iterate an async generator from sync code, chunk by chunk."""
    if loop_running():
        # Inside someone's event loop (a notebook, a GUI): run to the end first, as run_sync.
        yield from run_sync(_collect(agen))
        return
    loop = asyncio.new_event_loop()
    try:
        while True:
            try:
                chunk = loop.run_until_complete(agen.__anext__())
            except StopAsyncIteration:
                break
            yield chunk
    finally:
        try:
            loop.run_until_complete(agen.aclose())
        finally:
            _close_loop(loop)


async def _collect(agen: Any) -> list[Any]:
    return [chunk async for chunk in agen]


