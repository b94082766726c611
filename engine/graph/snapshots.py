"""A checkpoint as `get_state()` shows it: a `StateSnapshot` of its values, its next
tasks with what each did (task_results.py), its interrupts and configs."""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..checkpoint.base import Checkpoint, PendingWrite, ns_thread_key, split_thread_key
from ..checkpoint.lg_form import is_lg_form, public_metadata
from ..constants import PULL_PATH, PUSH_PATH, START
from ..runtime.command_input import apply_input_writes, is_input_write
from ..runtime.lg_thread import as_planned
from ..runtime.time_travel import with_map
from ..runtime.task import apply_own_writes
from ..types import StateSnapshot, TaskInfo
from .nested_state import task_state_namespace
from .task_results import superstep_record

if TYPE_CHECKING:
    from ..runtime.protocols import CompiledGraph

__all__ = ["snapshot_of", "task_state_of"]


def snapshot_of(graph: CompiledGraph, ckpt: Checkpoint, pending: Sequence[PendingWrite] = (),
                child: Checkpoint | None = None, *, saver: Any = None, subgraphs: bool = False,
                live: bool = False) -> StateSnapshot:
    """A checkpoint as get_state() shows it. `live` (the thread's head, as get_state()
    without a checkpoint id): the saved writes of tasks that already finished in its
    unfinished superstep are applied, `next` leaves those tasks out and only
    unanswered interrupts show. Otherwise it is the record of its superstep: the values
    it started from, every task with what it did (see task_results.py). `child`, the
    checkpoint its superstep made, tells what a task whose writes were not kept wrote.
    A task of a subgraph node carries the subgraph's config, or with `subgraphs` (and
    the `saver`) the subgraph's own snapshot."""
    if is_lg_form(ckpt):  # put in LangGraph's form: planned as LangGraph plans it, its writes kept are all it did
        ckpt, pending = as_planned(graph, ckpt, pending)
        child = None
    channels = graph.schema.channels
    thread_id, ns = split_thread_key(ckpt.thread_id)
    values: Any = {k: v for k, v in ckpt.values.items() if k in channels}  # a root state: one value
    values, plan, pending = _plan_shown(graph, ckpt, values, pending)
    did = superstep_record(graph, ckpt, plan, pending, child, live=live)
    tasks = tuple(
        TaskInfo(id=t.id, name=t.name, path=_task_path(t, i), error=d.error, interrupts=d.interrupts,
                 result=d.result, state=task_state_of(graph, thread_id, ns, t.id, t.name, saver if subgraphs else None))
        for i, (t, d) in enumerate(zip(plan, did))
    )
    if live:
        values = _with_finished_writes(values, did, channels)
    parents = ckpt.metadata.get("parents") if ns else None
    if graph.schema.root:  # the state is one value
        values = graph.schema.output(values)
        tasks = tuple(t._replace(result=graph.schema.unwrap_update(t.result)) for t in tasks)
    return StateSnapshot(
        values=values,
        next=tuple(t.name for t, d in zip(plan, did) if not (live and d.finished)),
        config=with_map(graph.checkpoint_config(thread_id, ckpt.id, ns) or {}, parents),
        metadata={"source": ckpt.source, "step": ckpt.step, "parents": {}, **public_metadata(ckpt.metadata)},
        created_at=ckpt.created_at,
        parent_config=None if not ckpt.parent_id else with_map(graph.checkpoint_config(thread_id, ckpt.parent_id, ns) or {},
                                                  parents),
        tasks=tasks,
        interrupts=tuple(i for t in tasks for i in t.interrupts),
    )


def _plan_shown(graph: CompiledGraph, ckpt: Checkpoint, values: Any, pending: Sequence[PendingWrite],
                ) -> tuple[Any, tuple[Any, ...], Sequence[PendingWrite]]:
    """(values, plan, pending writes) with a Command given as input applied, the plan in
    LangGraph's order (Sends first, then nodes)."""
    plan = ckpt.tasks
    inputs = [w for w in pending if is_input_write(w, ckpt.id)]
    if inputs:  # a Command given as input: its update and goto act on this checkpoint
        values, plan = apply_input_writes(graph, ckpt.id, values, plan, inputs)
        pending = [w for w in pending if not is_input_write(w, ckpt.id)]
    pushed = [t for t in plan if t.is_send and t.name != START]
    if pushed and len(pushed) < len(plan):
        plan = (*pushed, *(t for t in plan if not t.is_send or t.name == START))
    return values, plan, pending


def _with_finished_writes(values: Any, did: Sequence[Any], channels: Any) -> Any:
    """The head's values with the saved writes of its superstep's finished tasks applied."""
    saved = [(w.channel, w.value) for d in did for w in d.output if w.channel in channels]
    if not saved:
        return values
    try:
        return apply_own_writes(values, saved, channels)[0]
    except Exception:  # conflicting writes: the commit will report them; show the checkpoint
        return values


def task_state_of(graph: CompiledGraph, thread_id: str, ns: str, task_id: str, name: str, saver: Any) -> Any:
    """None for a plain node; a subgraph's config, or (given a saver) its latest snapshot."""
    found = task_state_namespace(graph, ns, name, task_id)
    if found is None:
        return None
    sub, sub_ns = found
    if saver is None:
        return {"configurable": {"thread_id": thread_id, "checkpoint_ns": sub_ns}}
    key = ns_thread_key(thread_id, sub_ns)
    ckpt = saver.load(key)
    if ckpt is None:
        return None
    return sub.snapshot(ckpt, saver.pending_writes(key, ckpt.id), saver=saver, subgraphs=True, live=True)


def _task_path(task: Any, index: int) -> tuple[Any, ...]:
    if task.is_send and task.name != START:  # the input task is kept as a send, shown as LangGraph's pull
        return (PUSH_PATH, index, False)  # Sends come first in a snapshot: index among them
    return (PULL_PATH, task.name)
