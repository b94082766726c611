"""Committing a superstep: apply every write through the reducers in LangGraph's order,
record a ChannelDiff per key, save the checkpoint and plan the next superstep.

Functions of the run they are given (a `RunHandle`, engine/runtime/protocols.py): `Run`
(run.py) calls them for its `commit()` and `apply_updates()`, and update_state() commits
through the same code. The pure cores are apart: folding.py folds the writes through the
channels into new values and diffs, planning.py plans the next superstep.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..checkpoint.base import Checkpoint, CheckpointSource, PendingWrite, PlannedTask, new_task_id, now_iso
from ..checkpoint.task_status import CONTROL_CHANNELS
from ..constants import START
from ..errors import GraphDrained, GraphRecursionError, InvalidUpdateError
from ..types import Command
from .execute import route_output
from .folding import fold_writes
from .planning import DEFER, next_plan
from .events import RunInterrupted, StepCommitted
from .head import checkpoint_metadata, save_checkpoint, set_checkpoint
from .task import TaskResult, as_items
from .task_record import RECORD_KEY, task_records

if TYPE_CHECKING:
    from .protocols import RunHandle

__all__ = ["commit_checked", "apply_updates", "commit_superstep", "after_commit"]


def commit_checked(run: RunHandle, *, report: bool = True) -> StepCommitted | None:
    """Apply the superstep's writes in LangGraph's order, save the checkpoint, plan the next.

    Returns the StepCommitted event with a ChannelDiff per key; `report=False` (used
    by invoke() when nobody listens) skips building the diffs and returns None."""
    plan = run.plan  # (run.ready_to_commit, spelt out for a one-task superstep that ran)
    if not (run.status == "ready" and len(plan) == 1 and plan[0].id in run.results) and not run.ready_to_commit:
        raise RuntimeError(
            f"cannot commit: {len(run.pending)} task(s) still pending" if run.pending
            else f"cannot commit: the run is {run.status}"
        )
    try:
        return commit_superstep(run, "loop", report or run.listening, report or run.wants_diffs)
    except Exception as exc:
        run.fail(exc)
        raise


def apply_updates(run: RunHandle, base: Checkpoint | None, updates: Sequence[tuple[Any, str | None]], *,
                  keep_writes: bool = False) -> Checkpoint:
    """One superstep of update_state/bulk_update_state: each `(values, as_node)` is
    applied as if that node had returned it, all in one new checkpoint. `keep_writes`:
    also keep each update's writes beside `base` (see `_keep_update_writes`)."""
    graph = run.graph
    if not updates:
        raise ValueError("No updates provided: each superstep needs at least one StateUpdate")
    if len(updates) == 1 and updates[0][1] is None:
        updates = [(updates[0][0], _infer_as_node(run, base))]
    updates = [(v, n) if n is None else (graph.node_update(n, v), n) for v, n in updates]
    tasks: list[PlannedTask] = []
    for i, (values, as_node) in enumerate(updates):
        if as_node is None:
            raise InvalidUpdateError(
                "as_node is required when applying multiple updates: "
                "StateUpdate(values, as_node='<node>') for each update of the superstep"
            )
        if values is not None and not graph.schema.root and not isinstance(values, (Mapping, Command)) \
                and as_items(values) is None:
            raise InvalidUpdateError(
                f"update_state(values={values!r:.60}): expected a dict of state updates "
                f"(e.g. {{'key': value}}) or a Command, got a {type(values).__name__}"
            )
        if as_node not in graph.runners:
            raise InvalidUpdateError(
                f"update_state(as_node={as_node!r}): no such node (nodes: {', '.join(graph.node_names)})"
            )
        tasks.append(PlannedTask(id=new_task_id(base.id if base else "", i), name=as_node,
                                 trigger="update"))
    if base is None:  # a fresh thread: the update is its first checkpoint (step 0)
        base = Checkpoint(id="", thread_id=run.store_key, parent_id=None, step=-1, source="update",
                          created_at=now_iso(), values=graph.schema.initial_values(), versions={})
    elif graph.deferred and any(t.name in graph.deferred for t in base.tasks):
        # a deferred node that was due still is: it waits again until nothing else runs
        waiting = {DEFER + t.name: (t.trigger,) for t in base.tasks if t.name in graph.deferred}
        base = replace(base, barriers={**base.barriers, **waiting})
    set_checkpoint(run, base)
    run.status = "ready"
    results: dict[str, TaskResult] = {}
    for task, (values, _) in zip(tasks, updates):
        result = TaskResult(task=task)
        route_output(run, graph.runners[task.name], task, values, result)  # (task.name: as_node)
        results[task.id] = result
    if keep_writes and base.id and run.saver is not None:
        _keep_update_writes(run, base, list(results.values()))
    run.plan = tuple(tasks)
    run.results = results
    commit_superstep(run, source="update", report=True, diffs=True)
    assert run.checkpoint is not None
    return run.checkpoint


def _keep_update_writes(run: RunHandle, base: Checkpoint, results: list[TaskResult]) -> None:
    """As LangGraph: an update's writes are kept beside the checkpoint it builds on,
    under the id of that checkpoint's planned task for the same node (one per update,
    in order), so that checkpoint's history shows the task's result. A task that
    already has a result there keeps it."""
    assert run.saver is not None
    finished = {w.task_id for w in run.saver.pending_writes(run.store_key, base.id)
                if w.channel not in CONTROL_CHANNELS}
    planned: dict[str, list[str]] = {}
    for t in base.tasks:
        if t.id not in finished:
            planned.setdefault(t.name, []).append(t.id)
    writes = []
    for result in results:
        ids = planned.get(result.task.name)
        if ids and result.writes:
            task_id = ids.pop(0)
            writes += [PendingWrite(task_id=task_id, task_name=result.task.name, channel=k, value=v)
                       for k, v in result.writes]
    if writes:
        run.saver.save_writes(run.store_key, base.id, writes)


def _infer_as_node(run: RunHandle, base: Checkpoint | None) -> str:
    """update_state's default as_node: the node that made the checkpoint."""
    if base is None or not base.nodes_ran:
        return START
    if len(base.nodes_ran) == 1:
        return base.nodes_ran[0]
    raise InvalidUpdateError(
        f"Ambiguous update, specify as_node: {', '.join(base.nodes_ran)} all ran in the last "
        "superstep, so pass as_node='<one of them>' to say whose update this is."
    )


def commit_superstep(run: RunHandle, source: CheckpointSource = "loop", report: bool = True,
                     diffs: bool | None = None) -> StepCommitted | None:
    """Fold the superstep's writes, save its checkpoint, plan the next; with `report`, the
    StepCommitted event (emitted and returned), with a ChannelDiff per key when `diffs`
    (None: when a listener wants them, `run.wants_diffs`)."""
    if diffs is None:
        diffs = run.wants_diffs
    graph = run.graph
    channels = graph.schema.channels
    plan = run.plan
    if len(plan) == 1:  # the usual superstep: one task
        only = run.results[plan[0].id]
        ordered = [only]
        nodes_ran: tuple[str, ...] = (only.task.name,)
    else:
        ordered = [run.results[t.id] for t in plan]
        nodes_ran = tuple(dict.fromkeys(r.task.name for r in ordered))
    parent = run.checkpoint
    assert parent is not None
    cid = run.next_checkpoint_id()
    new_values, versions, changes, appended, wrote = fold_writes(
        channels, run.values, parent.versions, cid, ordered, report and diffs, graph.schema.transient_keys)
    barriers = dict(parent.barriers)
    plan = next_plan(graph, cid, ordered, barriers)
    options = run.options
    metadata = checkpoint_metadata(run) if options.parents or run.config.get("metadata") else {}
    if options.record or options.answers is not None:  # a recording run or a recorded replay (task_record.py)
        metadata[RECORD_KEY] = task_records(ordered)
    ckpt = Checkpoint(
        id=cid, thread_id=run.store_key, parent_id=parent.id or None, step=parent.step + 1,
        source=source, created_at=now_iso() if run.durable_ids else "", values=new_values, versions=versions,
        barriers=barriers, tasks=plan, nodes_ran=nodes_ran, metadata=metadata,
    )
    ckpt = save_checkpoint(run, ckpt, appended=appended)
    set_checkpoint(run, ckpt, owned=True)
    committed = None
    if report:
        committed = StepCommitted(  # (run.event_fields(), spelt out: this runs every superstep of a stream)
            run_id=run.run_id, thread_id=run.thread_id, step=ckpt.step, namespace=run.namespace,
            checkpoint_ns=run.checkpoint_ns, checkpoint_id=cid, parent_id=parent.id or None, source=source,
            diffs=tuple(changes), next=plan, nodes_ran=nodes_ran, values=new_values,
            waiting=tuple(k[len(DEFER):] for k in barriers if k.startswith(DEFER)) if graph.deferred else (),
            barriers=barriers, wrote=wrote,
        )
        run.emit(committed)
    if source == "loop":
        after_commit(run, nodes_ran)
    return committed


def after_commit(run: RunHandle, nodes_ran: tuple[str, ...]) -> None:
    assert run.checkpoint is not None
    if run.checkpoint.step - run.first_step >= run.recursion_limit:
        # as LangGraph: the superstep that reaches the limit is saved, then the run stops,
        # even when nothing is left to run
        error = GraphRecursionError(
            f"Recursion limit of {run.recursion_limit} reached without hitting a stop condition. "
            "You can increase the limit by setting the `recursion_limit` config key."
        )
        run.fail(error)
        raise error
    after = tuple(n for n in nodes_ran if n in run.interrupt_after) if run.interrupt_after else ()
    if not run.plan and not after:  # (a breakpoint after the last node still pauses, as LangGraph)
        run.finish("done")
        return
    control = run.options.control
    if control is not None and control.drain_requested and run.plan:
        drained = GraphDrained(control.drain_reason or "shutdown")
        run.fail(drained)  # saved so far; invoke(None, config) goes on from here
        raise drained
    if not (after or run.interrupt_before):
        return
    before = tuple(t.name for t in run.plan if t.name in run.interrupt_before)
    if after or before:
        run.status = "interrupted"
        run.emit(RunInterrupted(**run.event_fields(step=run.step), checkpoint_id=run.checkpoint.id if run.checkpoint
                                  else "", reason="after" if after else "before", nodes=after or before,
                                  values=run.values))
        run.finish("interrupted")
