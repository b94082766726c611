"""Running a compiled graph that is a node of another graph, as a child Run.

The child's events flow to the parent's listeners with a `namespace` naming the node
path, so a debugger can show the inner steps; a `gate` (a coroutine the debugger
supplies) is awaited before each inner move, which is how "step into" works. Without a
gate the child runs at full speed, as invoke() would run it.
"""
from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from ..errors import GraphInterrupt, ParentCommand
from .context import current_task

if TYPE_CHECKING:
    from ..checkpoint.base import PlannedTask
    from .run import Run

__all__ = ["run_subgraph", "Gate", "ParentCommand"]

Gate = Callable[["Run"], Awaitable[None]]
"""Awaited with the (child) run before each of its moves: a task, or a commit."""


async def run_subgraph(parent: Run, subgraph: Any, task: PlannedTask, state: Any) -> Any:
    """Run `subgraph` on `state` as a child of `parent`'s task; returns its output state."""
    ctx = current_task.get()  # the subgraph's own task: its config carries the task's callbacks
    outer = ctx.config if ctx is not None else parent.config
    config = {k: v for k, v in outer.items() if k not in ("configurable", "recursion_limit")}
    child = subgraph.new_run(state, config, inline_sync=parent.inline_sync, checkpointer=None)
    child.namespace = parent.namespace + (task.name,)
    child.gate = parent.gate
    for listener in parent.listeners:
        child.subscribe(listener)
    parent.child = child
    try:
        await child.start()
        while child.status == "ready":
            if child.gate is not None:
                await child.gate(child)
                if child.status != "ready":
                    break
                if child.pending:
                    await child.run_task()
                elif child.ready_to_commit:
                    child.commit()
            elif child.pending:
                await child.run_pending()
            elif child.ready_to_commit:
                child.commit()
            else:
                break
    finally:
        parent.child = None
    if child.status == "failed" and isinstance(child.error, ParentCommand):
        return child.error.command
    if child.status == "failed" and child.error is not None:
        raise child.error
    if child.status == "interrupted" and child.interrupts:
        # the pause belongs to the parent's task, which re-runs the subgraph on resume
        raise GraphInterrupt(child.interrupts)
    if child.status == "cancelled":
        raise RuntimeError(f"the subgraph `{task.name}` was cancelled")
    return subgraph.schema.output(child.values)
