"""Explainer: follows a Run's own events and keeps the explanation of each superstep.

No second scheduler: it only reads what the Run emits (the plan in RunStarted and
StepCommitted, each TaskFinished's writes, each commit's ChannelDiffs and join barriers).
`retrograph run --explain` prints what it collects; the studio shows the superstep in
progress (`current`) on the graph and in its panels.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from ..channels import MISSING
from ..runtime.events import RunEvent, RunStarted, StepCommitted, TaskFinished
from .plan import explain_plan
from .reasons import KeyMerge, PendingWrite, Superstep
from .reducers import find_conflicts, key_reducer, reducer_line

__all__ = ["Explainer", "add_finished", "add_writes", "merges_of"]


def add_writes(step: Superstep, task_id: str, node: str, writes: Sequence[tuple[str, Any]],
               graph: Any = None) -> Superstep:
    """`step` with one more finished task: its writes kept aside as pending, each with the
    reducer that will merge it, and the conflicts the commit will meet."""
    return add_finished(step, [(task_id, node, writes)], graph)


def add_finished(step: Superstep, tasks: Sequence[tuple[str, str, Sequence[tuple[str, Any]]]],
                 graph: Any = None) -> Superstep:
    """`step` with many finished tasks at once, `(task_id, node, writes)` each: one pass
    over the writes and one conflict check, however many tasks (a 300-wide checkpoint
    read back costs as much per task as a narrow one). Tasks already finished are skipped."""
    finished = set(step.finished)
    added_ids: list[str] = []
    added: list[PendingWrite] = []
    reducers_of: dict[str, tuple[str, str]] = {}
    for task_id, node, writes in tasks:
        if task_id in finished:
            continue
        finished.add(task_id)
        added_ids.append(task_id)
        for key, value in writes:
            if key not in reducers_of:
                name, fn = key_reducer(graph, key)
                reducers_of[key] = (name, reducer_line(name, fn))
            name, how = reducers_of[key]
            added.append(PendingWrite(node=node, task_id=task_id, key=key, value=value, reducer=name, how=how))
    if not added_ids:
        return step
    pending = step.pending + tuple(added)
    reducers = {w.key: w.reducer for w in pending}
    return replace(step, finished=step.finished + tuple(added_ids), pending=pending,
                   conflicts=find_conflicts([(w.node, w.key, w.value) for w in pending], reducers))


def merges_of(diffs: Sequence[Any], graph: Any = None) -> tuple[KeyMerge, ...]:
    """A commit's ChannelDiffs (engine records, or anything with key/reducer/writes/before/
    after) as KeyMerges: the reducer, its one-line explanation, the writers in order."""
    out = []
    for d in diffs:
        _, fn = key_reducer(graph, d.key)
        changed = d.before is not d.after  # identity: comparing a 10,000-message list costs per step
        out.append(KeyMerge(key=d.key, reducer=d.reducer, how=reducer_line(d.reducer, fn),
                            writers=tuple(w.node for w in d.writes),
                            before=None if d.before is MISSING else d.before, after=d.after, changed=changed))
    return tuple(out)


class Explainer:
    """Subscribe it to a Run (`run.subscribe(explainer)`) or feed it the `events` stream.

    `steps` holds every committed superstep explained, oldest first; `current` the one
    in progress (its plan, and the pending writes of the tasks that finished);
    `on_commit(step)` is told each superstep as it commits. Events of subgraphs are
    ignored: their runs are explained on their own."""

    def __init__(self, graph: Any = None, *, on_commit: Callable[[Superstep], None] | None = None) -> None:
        self.graph = graph
        self.steps: list[Superstep] = []
        self.current: Superstep | None = None
        self.on_commit = on_commit

    def __call__(self, event: RunEvent) -> None:
        if getattr(event, "namespace", ()):
            return
        if isinstance(event, RunStarted):
            self.current = self._plan(event.step + 1, event.checkpoint_id, event.next, event)
        elif isinstance(event, TaskFinished) and self.current is not None:
            self.current = add_writes(self.current, event.task_id, event.name, event.writes, self.graph)
        elif isinstance(event, StepCommitted):
            done = self.current or self._plan(event.step, event.parent_id or "", (), None)
            done = replace(done, merges=merges_of(event.diffs, self.graph), committed_id=event.checkpoint_id)
            self.steps.append(done)
            self.current = self._plan(event.step + 1, event.checkpoint_id, event.next, event) if event.next else None
            if self.on_commit is not None:
                self.on_commit(done)

    def _plan(self, step: int, snapshot: str, tasks: Sequence[Any], event: Any) -> Superstep:
        return explain_plan(step=step, snapshot_id=snapshot, tasks=tasks,
                            barriers=getattr(event, "barriers", None) or {}, graph=self.graph)
