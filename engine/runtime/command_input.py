"""A Command given as input to a thread that already has a checkpoint.

As in LangGraph, such a Command works on the thread where it stands instead of starting
a new run: its `update` is applied to the state before the pending tasks run, and its
`goto` adds tasks to the pending superstep (a run paused at a static breakpoint goes on
with them). Both are kept as pending writes of a pseudo task of the checkpoint, so that
get_state() shows them and a crash before the commit loses nothing.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..checkpoint.base import ROUTE, SEND, PendingWrite, PlannedTask
from ..constants import END, START
from ..errors import InvalidRouteError
from ..types import Command, Send
from .task import apply_own_writes, normalize_update

if TYPE_CHECKING:
    from .protocols import CompiledGraph

__all__ = ["command_writes", "input_task_id", "apply_input_writes", "is_input_write"]

_TRIGGER = "command:" + START


def input_task_id(checkpoint_id: str) -> str:
    """The id under which a Command input's writes are kept beside `checkpoint_id`."""
    return f"{checkpoint_id}/input"


def is_input_write(write: PendingWrite, checkpoint_id: str) -> bool:
    return write.task_name == START and write.task_id == input_task_id(checkpoint_id)


def command_writes(graph: CompiledGraph, command: Command[Any], checkpoint_id: str) -> list[PendingWrite]:
    """The pending writes that stand for `command`'s update and goto (none for resume)."""
    tid = input_task_id(checkpoint_id)
    update = graph.schema.wrap_update(Command(update=command.update))
    writes, _, _, _ = normalize_update(START, update, graph.schema.channels)
    out = [PendingWrite(task_id=tid, task_name=START, channel=k, value=v) for k, v in writes]
    for goto in command.goto_targets():
        if isinstance(goto, Send):
            out.append(PendingWrite(task_id=tid, task_name=START, channel=SEND, value=goto))
        elif goto == END:
            continue
        elif goto not in graph.runners or goto == START:
            raise InvalidRouteError(
                f"the input Command(goto={goto!r}) names no node of this graph "
                f"(nodes: {', '.join(graph.node_names)})"
            )
        else:
            out.append(PendingWrite(task_id=tid, task_name=START, channel=ROUTE, value=[goto, _TRIGGER]))
    return out


def apply_input_writes(
    graph: CompiledGraph, checkpoint_id: str, values: Mapping[str, Any],
    plan: Sequence[PlannedTask], writes: Sequence[PendingWrite],
) -> tuple[dict[str, Any] | Mapping[str, Any], tuple[PlannedTask, ...]]:
    """The state and plan of a checkpoint once a Command input's writes are applied:
    the update through the reducers, the goto targets as extra tasks (a node already
    planned is not planned twice), then the Sends."""
    channels = graph.schema.channels
    state = [(w.channel, w.value) for w in writes if w.channel in channels]
    if state:
        values = apply_own_writes(values, state, channels)[0]
    tasks = list(plan)
    planned = {t.name for t in tasks if not t.is_send}
    for w in writes:
        if w.channel == ROUTE and w.value[0] not in planned:
            planned.add(w.value[0])
            tasks.append(PlannedTask(id=f"{checkpoint_id}/{len(tasks)}", name=w.value[0], trigger=w.value[1]))
    for w in writes:
        if w.channel == SEND and isinstance(w.value, Send):
            tasks.append(PlannedTask(id=f"{checkpoint_id}/{len(tasks)}", name=w.value.node,
                                     trigger=_TRIGGER.replace("command", "send"), is_send=True, arg=w.value.arg,
                                     timeout=w.value.timeout))
    return values, tuple(tasks)
