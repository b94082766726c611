"""Node timeouts: one attempt of an async node is cancelled when it runs past its
TimeoutPolicy's `run_timeout`, or goes `idle_timeout` seconds without progress (a stream
write, or `runtime.heartbeat()`); the attempt then raises NodeTimeoutError, which the
node's retry policy may retry. Only paid by nodes that have a timeout."""
from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from typing import Any, Protocol

from ..errors import NodeTimeoutError
from .workers import Exited, contained

__all__ = ["run_timed"]


class Progress(Protocol):
    """What an attempt's progress is read from: a TaskContext, or a task call's own clock."""

    last_progress: float


async def run_timed(call: Awaitable[Any], policy: Any, node: str, ctx: Progress) -> Any:
    """Await `call` under `policy` (a TimeoutPolicy); cancel it and raise on a timeout."""
    started = time.monotonic()
    ctx.last_progress = started
    task = asyncio.ensure_future(contained(call))
    run_cap, idle = policy.run_timeout, policy.idle_timeout
    try:
        while True:
            now = time.monotonic()
            waits = []
            if run_cap is not None:
                waits.append(started + run_cap - now)
            if idle is not None:
                waits.append(ctx.last_progress + idle - now)
            done, _ = await asyncio.wait({task}, timeout=max(0.0, min(waits)))
            if done:
                result = task.result()
                if isinstance(result, Exited):  # raised here, in the node's own task, not the loop
                    raise result.exc
                return result
            now = time.monotonic()
            if run_cap is not None and now - started >= run_cap:
                kind = "run"
            elif idle is not None and now - ctx.last_progress >= idle:
                kind = "idle"
            else:
                continue  # progress was made: the idle deadline moved
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            raise NodeTimeoutError(node, now - started, kind=kind, idle_timeout=idle, run_timeout=run_cap)
    except asyncio.CancelledError:
        task.cancel()
        raise
