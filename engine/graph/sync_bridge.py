"""Calling the async Run from sync code: `invoke`/`stream`/`get_state` on a graph run an
event loop of their own, or, called inside someone's running loop (a notebook, a GUI, a
node), a helper thread with one."""
from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Iterator
from typing import Any

__all__ = ["run_sync", "iterate_sync"]


def loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def run_sync(coro: Any) -> Any:
    """Run a coroutine to the end from sync code, also when called inside a running loop."""
    if not loop_running():
        loop = asyncio.new_event_loop()
        try:
            return loop.run_until_complete(coro)
        finally:
            _close_loop(loop)
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = run_sync(coro)
        except BaseException as exc:  # re-raised on the caller's thread
            box["error"] = exc

    context = contextvars.copy_context()  # a graph invoked inside a node finds its task
    thread = threading.Thread(target=context.run, args=(target,), name="retrograph-invoke")
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


def _close_loop(loop: asyncio.AbstractEventLoop) -> None:
    try:
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.run_until_complete(loop.shutdown_default_executor())
    finally:
        loop.close()


def iterate_sync(agen: Any) -> Iterator[Any]:
    """Iterate an async generator from sync code, chunk by chunk."""
    if loop_running():
        # Inside someone's event loop (a notebook, a GUI): collect on a helper thread.
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


