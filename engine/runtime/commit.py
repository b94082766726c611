"""Committing a superstep: apply every write through the reducers in LangGraph's order,
record a ChannelDiff per key, save the checkpoint and plan the next superstep.

A mixin of `Run` (run.py; its fields are declared in run_fields.py); update_state()
commits through the same code.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

from ..checkpoint.base import Checkpoint, CheckpointSource, PendingWrite, PlannedTask, new_task_id, now_iso
from ..checkpoint.task_status import CONTROL_CHANNELS
from ..constants import START
from ..errors import GraphDrained, GraphRecursionError, InvalidUpdateError
from ..types import Command
from .execute import route_output
from .folding import fold_writes
from .planning import DEFER, next_plan
from .run_fields import RunFields
from .events import RunInterrupted, StepCommitted
from .task import TaskResult, _as_items
from .task_record import RECORD_KEY, task_records

if TYPE_CHECKING:
    from .run import Run

__all__ = ["RunCommit"]


class RunCommit(RunFields):
    """commit() and update_state(): the only code that changes a thread's state."""

    # -- 3. commit --------------------------------------------------------------------
    @property
    def ready_to_commit(self) -> bool:
        return self.status == "ready" and bool(self.plan) and not self.pending

    def commit(self, *, report: bool = True) -> StepCommitted | None:
        """Apply the superstep's writes in LangGraph's order, save the checkpoint, plan the next.

        Returns the StepCommitted event with a ChannelDiff per key; `report=False` (used
        by invoke() when nobody listens) skips building the diffs and returns None."""
        if not self.ready_to_commit:
            raise RuntimeError(
                f"cannot commit: {len(self.pending)} task(s) still pending" if self.pending
                else f"cannot commit: the run is {self.status}"
            )
        try:
            return self._commit(report=report or bool(self._listeners))
        except Exception as exc:
            self._fail(exc)
            raise

    def apply_update(self, base: Checkpoint | None, values: Any, as_node: str | None) -> Checkpoint:
        """update_state(): apply `values` as if `as_node` had written them, on a new
        checkpoint (source "update") whose next tasks follow `as_node`'s edges."""
        return self.apply_updates(base, [(values, as_node)])

    def apply_updates(self, base: Checkpoint | None, updates: Sequence[tuple[Any, str | None]], *,
                      keep_writes: bool = False) -> Checkpoint:
        """One superstep of update_state/bulk_update_state: each `(values, as_node)` is
        applied as if that node had returned it, all in one new checkpoint. `keep_writes`:
        also keep each update's writes beside `base` (see `_keep_update_writes`)."""
        graph = self.graph
        if not updates:
            raise ValueError("No updates provided: each superstep needs at least one StateUpdate")
        if len(updates) == 1 and updates[0][1] is None:
            updates = [(updates[0][0], self._infer_as_node(base))]
        tasks: list[PlannedTask] = []
        for i, (values, as_node) in enumerate(updates):
            if as_node is None:
                raise InvalidUpdateError(
                    "as_node is required when applying multiple updates: "
                    "StateUpdate(values, as_node='<node>') for each update of the superstep"
                )
            if values is not None and not graph.schema.root and not isinstance(values, (Mapping, Command)) \
                    and _as_items(values) is None:
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
            base = Checkpoint(id="", thread_id=self.store_key, parent_id=None, step=-1, source="update",
                              created_at=now_iso(), values=graph.schema.initial_values(), versions={})
        elif graph.deferred and any(t.name in graph.deferred for t in base.tasks):
            # a deferred node that was due still is: it waits again until nothing else runs
            waiting = {DEFER + t.name: (t.trigger,) for t in base.tasks if t.name in graph.deferred}
            base = replace(base, barriers={**base.barriers, **waiting})
        self._set_checkpoint(base)
        self.status = "ready"
        results: dict[str, TaskResult] = {}
        for task, (values, _) in zip(tasks, updates):
            result = TaskResult(task=task)
            route_output(cast("Run", self), graph.runners[task.name], task, values, result)  # (task.name: as_node)
            results[task.id] = result
        if keep_writes and base.id and self.saver is not None:
            self._keep_update_writes(base, list(results.values()))
        self.plan = tuple(tasks)
        self.results = results
        self._commit(source="update", report=True)
        assert self.checkpoint is not None
        return self.checkpoint

    def _keep_update_writes(self, base: Checkpoint, results: list[TaskResult]) -> None:
        """As LangGraph: an update's writes are kept beside the checkpoint it builds on,
        under the id of that checkpoint's planned task for the same node (one per update,
        in order), so that checkpoint's history shows the task's result. A task that
        already has a result there keeps it."""
        assert self.saver is not None
        finished = {w.task_id for w in self.saver.pending_writes(self.store_key, base.id)
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
            self.saver.save_writes(self.store_key, base.id, writes)

    def _infer_as_node(self, base: Checkpoint | None) -> str:
        """update_state's default as_node: the node that made the checkpoint."""
        if base is None or not base.nodes_ran:
            return START
        if len(base.nodes_ran) == 1:
            return base.nodes_ran[0]
        raise InvalidUpdateError(
            f"Ambiguous update, specify as_node: {', '.join(base.nodes_ran)} all ran in the last "
            "superstep, so pass as_node='<one of them>' to say whose update this is."
        )

    def _commit(self, source: CheckpointSource = "loop", report: bool = True) -> StepCommitted | None:
        graph = self.graph
        channels = graph.schema.channels
        ordered = [self.results[t.id] for t in self.plan]
        parent = self.checkpoint
        assert parent is not None
        cid = self._new_id()
        new_values, versions, diffs, appended = fold_writes(channels, self.values, parent.versions, cid, ordered,
                                                            report, graph.schema.transient_keys)
        barriers = dict(parent.barriers)
        plan = next_plan(graph, cid, ordered, barriers)
        nodes_ran = (ordered[0].task.name,) if len(ordered) == 1 else tuple(dict.fromkeys(r.task.name for r in ordered))
        metadata = self._metadata()
        options = self.options
        if options.record or options.answers is not None:  # a recording run or a recorded replay (task_record.py)
            metadata[RECORD_KEY] = task_records(ordered)
        ckpt = Checkpoint(
            id=cid, thread_id=self.store_key, parent_id=parent.id or None, step=parent.step + 1,
            source=source, created_at=now_iso() if self._durable_ids else "", values=new_values, versions=versions,
            barriers=barriers, tasks=plan, nodes_ran=nodes_ran, metadata=metadata,
        )
        self._save(ckpt, appended=appended)
        self._set_checkpoint(ckpt, owned=True)
        committed = None
        if report:
            committed = StepCommitted(
                **self._base(step=ckpt.step), checkpoint_id=cid, parent_id=parent.id or None, source=source,
                diffs=tuple(diffs), next=plan, nodes_ran=nodes_ran, values=new_values,
                waiting=tuple(k[len(DEFER):] for k in barriers if k.startswith(DEFER)) if graph.deferred else (),
                barriers=barriers,
            )
            self._emit(committed)
        if source == "loop":
            self._after_commit(nodes_ran)
        return committed

    def _after_commit(self, nodes_ran: tuple[str, ...]) -> None:
        if self.step - self._first_step >= self.recursion_limit:
            # as LangGraph: the superstep that reaches the limit is saved, then the run stops,
            # even when nothing is left to run
            error = GraphRecursionError(
                f"Recursion limit of {self.recursion_limit} reached without hitting a stop condition. "
                "You can increase the limit by setting the `recursion_limit` config key."
            )
            self._fail(error)
            raise error
        after = tuple(n for n in nodes_ran if n in self.interrupt_after) if self.interrupt_after else ()
        if not self.plan and not after:  # (a breakpoint after the last node still pauses, as LangGraph)
            self._finish("done")
            return
        control = self.options.control
        if control is not None and control.drain_requested and self.plan:
            drained = GraphDrained(control.drain_reason or "shutdown")
            self._fail(drained)  # saved so far; invoke(None, config) goes on from here
            raise drained
        if not (after or self.interrupt_before):
            return
        before = tuple(t.name for t in self.plan if t.name in self.interrupt_before)
        if after or before:
            self.status = "interrupted"
            self._emit(RunInterrupted(**self._base(step=self.step), checkpoint_id=self.checkpoint.id if self.checkpoint
                                      else "", reason="after" if after else "before", nodes=after or before,
                                      values=self.values))
            self._finish("interrupted")

    def _save(self, ckpt: Checkpoint,
              appended: Mapping[str, tuple[str, Sequence[Any]]] | None = None) -> None:
        """Store the checkpoint (channels whose version is its id changed in it)."""
        if self.saver is None:
            return
        unsaved = self.graph.schema.unsaved_keys
        if unsaved:
            ckpt = _without(ckpt, unsaved)
            if appended:
                appended = {k: v for k, v in appended.items() if k not in unsaved}
        if self._held is not None:
            self._held.save(cast("Run", self), ckpt, appended or None)
            return
        self.saver.save(ckpt, appended=appended or None)


def _without(ckpt: Checkpoint, keys: frozenset[str]) -> Checkpoint:
    """The checkpoint as stored: without the values of the run-only keys, nor those keys
    in the state a Send carries."""
    tasks = ckpt.tasks
    if any(t.is_send and isinstance(t.arg, Mapping) and keys.intersection(t.arg) for t in tasks):
        tasks = tuple(replace(t, arg={k: v for k, v in t.arg.items() if k not in keys})
                      if t.is_send and isinstance(t.arg, Mapping) else t for t in tasks)
    return replace(ckpt, values={k: v for k, v in ckpt.values.items() if k not in keys},
                   versions={k: v for k, v in ckpt.versions.items() if k not in keys}, tasks=tasks)
