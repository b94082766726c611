"""What each task of a checkpoint's superstep did, for snapshots (`tasks[]`).

The stores keep the writes of a superstep's tasks beside its checkpoint (read with
`task_statuses`): outputs, errors, interrupts. A one-task superstep run by the sync
invoke() commits without saving its task's writes (no extra store call per superstep),
so its result is derived instead, at no cost to a run:

- the `__start__` task wrote the run's input, which its plan keeps;
- a superstep of one task made the next checkpoint: the keys it changed hold what the
  task wrote (a plain key's new value; the appended items of an `operator.add` list).

A result that is neither kept nor derivable exactly (another reducer) is None.
"""
from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..channels import LastValue, ReducerChannel
from ..checkpoint.base import Checkpoint, PendingWrite, PlannedTask
from ..checkpoint.task_status import TaskStatus, task_statuses, writes_result
from ..constants import START
from ..types import Command

if TYPE_CHECKING:
    from ..runtime.protocols import CompiledGraph

__all__ = ["derive_results", "superstep_record", "TaskRecord"]

_NOT_RUN = TaskStatus()


@dataclass(frozen=True, slots=True)
class TaskRecord:
    """What a snapshot shows of one planned task."""

    output: tuple[PendingWrite, ...]
    """Its kept output writes (empty when none were kept)."""
    finished: bool
    result: Any
    error: str | None
    interrupts: tuple[Any, ...]


def superstep_record(graph: CompiledGraph, ckpt: Checkpoint, plan: Sequence[PlannedTask],
                     pending: Sequence[PendingWrite], child: Checkpoint | None, *, live: bool) -> list[TaskRecord]:
    """One record per task of `plan`, from the writes kept beside `ckpt` (and, for a task
    whose writes were not kept, from `child`). `live`: only unanswered interrupts."""
    statuses = task_statuses(pending) if pending else {}
    channels = graph.schema.channels
    derived: dict[str, Any] | None = None
    out = []
    for task in plan:
        status = statuses.get(task.id, _NOT_RUN)
        if status.finished:
            result: Any = writes_result([(w.channel, w.value) for w in status.output if w.channel in channels])
        else:
            if derived is None:
                derived = derive_results(graph, ckpt, child)
            result = derived.get(task.id)
        out.append(TaskRecord(
            output=status.output, finished=status.finished, result=result,
            error=_error_text(status.error) if status.error is not None else None,
            interrupts=status.pending_interrupts if live else status.interrupts,
        ))
    return out


def _error_text(value: Any) -> str:
    """A saved task error as LangGraph shows it: `KeyError('no such tool')`."""
    if isinstance(value, dict):
        return f"{value.get('type', 'Exception')}({value.get('message', '')!r})"
    return str(value)


def derive_results(graph: CompiledGraph, ckpt: Checkpoint, child: Checkpoint | None) -> dict[str, Any]:
    """Task id -> what the task wrote, for the tasks of `ckpt` whose writes can be derived."""
    out: dict[str, Any] = {}
    for task in ckpt.tasks:
        if task.name == START and task.is_send:
            found = _input_result(graph, task.arg)
            if found is not None:
                out[task.id] = found
    if child is None or child.parent_id != ckpt.id or len(ckpt.tasks) != 1:
        return out
    task = ckpt.tasks[0]
    if task.id in out or child.nodes_ran != (task.name,) or child.source not in ("loop", "update"):
        return out
    channels = graph.schema.channels
    result: dict[str, Any] = {}
    for key, version in child.versions.items():
        if version != child.id or key not in child.values:
            continue
        channel = channels.get(key)
        new = child.values[key]
        if type(channel) is LastValue:
            result[key] = new
        elif type(channel) is ReducerChannel and channel.fn is operator.add and type(new) is list:
            old = ckpt.values.get(key, [])
            if type(old) is not list or len(new) < len(old):
                return out
            if key not in ckpt.versions and not new:  # an empty list stored for the first time
                continue
            result[key] = new[len(old):]
        else:
            return out
    out[task.id] = result
    return out


def _input_result(graph: CompiledGraph, arg: Any) -> dict[str, Any] | None:
    if isinstance(arg, Command):
        arg = arg.update
    if not isinstance(arg, Mapping):
        return None
    keys = graph.schema.input_keys
    return {k: v for k, v in arg.items() if k in keys}
