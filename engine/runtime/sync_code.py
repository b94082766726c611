"""Sync code called from inside a running event loop, run as sync code.

`invoke()` called inside someone's running loop (an async test, a notebook cell, a node of
another graph), and a sync node that `invoke()` runs on its own thread, are sync calls:
the loop they are called in is blocked until they return, whatever they do. LangGraph runs
them on the caller's thread with no loop in sight, so inside them `asyncio.run()` works and
a blocking call (`time.sleep`, a file read, a lock) is not a call made *on* the event loop.
`as_sync_code()` gives the engine's sync paths that same view: the caller's loop is hidden
while the body runs on this thread, and is back when it returns or raises.
"""
from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["as_sync_code", "call_as_sync"]

_get_running_loop = asyncio._get_running_loop
_set_running_loop = asyncio._set_running_loop


@contextmanager
def as_sync_code() -> Iterator[None]:
    """Run the body on this thread with no running event loop visible (restored after)."""
    loop = asyncio._get_running_loop()
    if loop is None:
        yield
        return
    asyncio._set_running_loop(None)
    try:
        yield
    finally:
        asyncio._set_running_loop(loop)


def call_as_sync(fn: Callable[..., Any], *args: Any) -> Any:
    """`fn(*args)` as `as_sync_code()` runs its body (no running loop visible while it
    runs); the same without a context manager, for the per-superstep path."""
    loop = _get_running_loop()
    if loop is None:
        return fn(*args)
    _set_running_loop(None)
    try:
        return fn(*args)
    finally:
        _set_running_loop(loop)
