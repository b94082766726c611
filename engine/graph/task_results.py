"""What each task of a checkpoint's superstep wrote, for history (`tasks[].result`).

LangGraph keeps every task's writes beside the checkpoint forever. Retrograph keeps a
task's writes only until its superstep commits (and a one-task superstep run by the
sync invoke() never saves them), so history derives them instead, at no cost to a run:

- the `__start__` task wrote the run's input, which its plan keeps;
- a superstep of one task made the next checkpoint: the keys it changed hold what the
  task wrote (a plain key's new value; the appended items of an `operator.add` list).

A result that cannot be derived exactly (several tasks, another reducer) is None.
"""
from __future__ import annotations

import operator
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..channels import LastValue, ReducerChannel
from ..checkpoint.base import Checkpoint
from ..constants import START
from ..types import Command

if TYPE_CHECKING:
    from .compiled import CompiledStateGraph

__all__ = ["derive_results"]


def derive_results(graph: CompiledStateGraph, ckpt: Checkpoint, child: Checkpoint | None) -> dict[str, Any]:
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
        elif (type(channel) is ReducerChannel and channel.fn is operator.add and type(new) is list
              and type(old := ckpt.values.get(key)) is list and len(new) >= len(old)):
            result[key] = new[len(old):]
        else:
            return out
    out[task.id] = result
    return out


def _input_result(graph: CompiledStateGraph, arg: Any) -> dict[str, Any] | None:
    if isinstance(arg, Command):
        arg = arg.update
    if not isinstance(arg, Mapping):
        return None
    keys = graph.schema.input_keys
    return {k: v for k, v in arg.items() if k in keys}
