"""What a recording run keeps of each task in its checkpoint's metadata.

With `config["record"] = True` a Run adds, to the metadata of every checkpoint it
commits, the list of the superstep's tasks with what each wrote: a recorded replay
(engine/replay) answers a node from this record instead of calling it (no LLM or API
call), and re-runs an interrupted node with the resume values it was given. Routers are
graph code, not the node's output, so only a `Command`'s own goto and Sends are kept
(a replay runs the routers again on the recorded writes).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .task import TaskResult

__all__ = ["RECORD_KEY", "task_records"]

RECORD_KEY = "record"
"""The checkpoint metadata key holding the superstep's task records (a list of dicts)."""


def task_records(results: Sequence[TaskResult]) -> list[dict[str, Any]]:
    """One plain dict per task, in plan order: task id, node, writes, goto, resume."""
    out: list[dict[str, Any]] = []
    for r in results:
        record: dict[str, Any] = {"task": r.task.id, "node": r.task.name, "writes": [[k, v] for k, v in r.writes]}
        goto = [n for n, why in r.routes if why.startswith("command:")]
        if goto:
            record["goto"] = goto
        if r.command_sends:  # the node's Command's own Sends (its routers' are graph code)
            record["sends"] = r.sends[:r.command_sends]
        if r.resume:
            record["resume"] = list(r.resume)
        if r.recorded:
            record["recorded"] = True
        out.append(record)
    return out
