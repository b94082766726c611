"""A debugger's "step into" gate, awaited on its own loop from whichever loop a child run is on.

A graph invoked from inside a node may run on another event loop than the debugger's: a
sync tool (deepagents' `task`, an "agent as a tool") calls `agent.invoke()` on a worker
thread, and `invoke` drives the child on a loop of its own there. The debugger's gate
(`RunOptions.gate`) waits on asyncio objects of the debugger's loop, so the child must
not await it directly: `HomeGate` runs each call of the gate on the loop it belongs to
(the loop of the run the debugger gave it to) and the child's loop waits for the answer.

When that home loop is the one blocked by the very call that runs the child (a sync
invoke made on the home loop's own thread), nobody could ever release the gate: the
child then runs without stopping, as it would without a debugger.
"""
from __future__ import annotations

import asyncio
import threading
from typing import Any

from .options import Gate
from .protocols import DriveHooks, RunHandle

__all__ = ["HomeGate", "child_gate", "GatedMoves", "gated_hooks"]


class HomeGate:
    """`gate`, always awaited on `loop` (whose thread is `thread`)."""

    __slots__ = ("gate", "loop", "thread")

    def __init__(self, gate: Gate, loop: asyncio.AbstractEventLoop, thread: int) -> None:
        self.gate, self.loop, self.thread = gate, loop, thread

    async def __call__(self, run: Any) -> None:
        here = asyncio.get_running_loop()
        if here is self.loop:
            await self.gate(run)
            return
        if threading.get_ident() == self.thread or self.loop.is_closed():
            return  # the home loop waits for this very thread (or is gone): nobody can release it
        await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(self._on_home(run), self.loop))

    async def _on_home(self, run: Any) -> None:
        await self.gate(run)


def child_gate(parent: RunHandle) -> Gate | None:
    """The gate a child of `parent` awaits: the parent's, bound to the loop it was given on."""
    gate = parent.options.gate
    if gate is None or isinstance(gate, HomeGate) or parent.loop is None or parent.loop_thread is None:
        return gate
    return HomeGate(gate, parent.loop, parent.loop_thread)


class GatedMoves(DriveHooks):
    """A debugger's gate awaited before each move of a child run, one task at a time."""

    stepwise = True

    def __init__(self, gate: Gate) -> None:
        self.gate = gate

    async def before_move(self, run: RunHandle) -> None:
        await self.gate(run)


def gated_hooks(run: RunHandle) -> DriveHooks | None:
    """The drive hooks of a graph invoked inside a node: its gate's, when a debugger steps into it."""
    gate = run.options.gate if run.namespace else None
    return None if gate is None else GatedMoves(gate)
