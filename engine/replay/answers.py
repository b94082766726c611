"""The `Run.answers` hook of a recorded replay, for the replayed run and each subgraph run
inside it.

A node is named by its path from the top graph: `llm` for a node of the top graph,
`research:extract` for the node `extract` of the subgraph node `research` (`outer:inner:leaf`
deeper down; node names cannot hold ":"). One `Answers` serves one run: it answers its
chosen nodes from the recorded branch of that run, hands every re-run node the resume values
its recorded twin was given, and, when a task of the run opens a subgraph, gives the
subgraph's run an `Answers` of its own over the recorded subgraph's checkpoints (kept in the
same thread under the recorded task's namespace).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..checkpoint.base import PlannedTask, ns_thread_key
from ..runtime.nested import stateful_namespace, task_namespace
from ..runtime.run import NOT_ANSWERED, Run
from ..types import Command
from .branch import RecordedBranch, ReplayError, Superstep, TaskRecord, load_branch

if TYPE_CHECKING:
    from ..runtime.context import TaskContext

__all__ = ["Answers", "PATH_SEP"]

PATH_SEP = ":"
"""Between the node names of a path: `research:extract` is `extract` inside `research`."""


class Answers:
    """The `answers` hook of one run of a replay (see the module docstring)."""

    def __init__(self, run: Run, branch: RecordedBranch | None, record: frozenset[str], *, thread_id: str,
                 path: str = "", recorded_ns: str = "", saver: Any = None, offset: int | None = None,
                 missing: str = "") -> None:
        self.run, self.branch, self.record, self.thread_id = run, branch, record, thread_id
        self.path = path
        """This run's node path ("" for the replayed run, `research` for a subgraph's)."""
        self.recorded_ns = recorded_ns
        """The checkpoint namespace of the recorded twin of this run ("" at the top)."""
        self.saver = saver
        self.offset = offset
        """The run's step at the first recorded superstep (a subgraph run's: known once it started)."""
        self.missing = missing
        """Why a subgraph run has no recorded branch (said when one of its nodes is asked for)."""

    def name_of(self, node: str) -> str:
        return f"{self.path}{PATH_SEP}{node}" if self.path else node

    def superstep(self) -> Superstep | None:
        if self.branch is None:
            return None
        if self.offset is None:
            self.offset = self.run.step
        i = self.run.step - self.offset
        steps = self.branch.steps
        return steps[i] if 0 <= i < len(steps) and steps[i].after is not None else None

    def _index(self, task: PlannedTask | str, name: str) -> int:
        """Which task of node `name` this one is in the run's plan (the k-th)."""
        task_id = task if isinstance(task, str) else task.id
        same = [t.id for t in self.run.plan if t.name == name]
        return same.index(task_id) if task_id in same else 0

    def matching(self, task: PlannedTask) -> TaskRecord | None:
        """The record of the same node at the same place (the k-th task of that node)."""
        at = self.superstep()
        if at is None or at.tasks is None or at.edit:
            return None
        candidates = at.of(task.name)
        k = self._index(task, task.name)
        return candidates[k] if k < len(candidates) else None

    def __call__(self, task: PlannedTask) -> Any:
        if self.name_of(task.name) not in self.record:
            found = self.matching(task)
            if found is not None and found.resume:  # its interrupt() calls get the recorded answers
                self.run.preset_resume(task.id, found.resume)
            return NOT_ANSWERED
        found = self.matching(task)
        if found is None:
            raise ReplayError(self._missing(task))
        writes = [(k, v) for k, v in found.writes]
        if self.run.graph.schema.root and len(writes) == 1:
            update: Any = writes[0][1]
        else:
            update = writes or None
        if found.goto:
            return Command(update=update, goto=list(found.goto))
        return update

    def _missing(self, task: PlannedTask) -> str:
        name = self.name_of(task.name)
        if self.branch is None:
            return f"node `{name}`: {self.missing}"
        at = self.superstep()
        if at is None:  # in the recording's step numbers, counted on from its last superstep
            step = self.branch.start.step + 1 + (self.run.step - (self.offset or 0))
            return (f"node `{name}` runs at step {step} of the replay, past the end of the recorded "
                    "branch: no record can answer it (the current code took a longer path)")
        if at.tasks is None:
            return (f"node `{name}` at step {at.step}: the recorded run kept no record of that superstep; "
                    "record runs with config['record']=True (the studio and `retrograph run --db` do)")
        ran = ", ".join(t.node for t in at.tasks) or "nothing"
        return (f"node `{name}` runs at step {at.step} of the replay, but the recording ran {ran} there; "
                "the current code took another path")

    # -- subgraphs ---------------------------------------------------------------------
    def for_child(self, ctx: TaskContext, child: Run) -> Answers:
        """The hook of the subgraph run `child` opened by the task `ctx` of this run: over the
        checkpoints its recorded twin saved (the same node's task at the same place)."""
        path = self.name_of(ctx.name)
        record = frozenset(n for n in self.record if n.startswith(path + PATH_SEP))
        found = self._child_branch(ctx, child)
        if isinstance(found, str):
            return Answers(child, None, record, thread_id=self.thread_id, path=path, missing=found)
        ns, branch = found
        return Answers(child, branch, record, thread_id=self.thread_id, path=path, recorded_ns=ns, saver=self.saver)

    def _child_branch(self, ctx: TaskContext, child: Run) -> tuple[str, RecordedBranch] | str:
        """(recorded namespace, recorded branch) of the subgraph, or why there is none."""
        at = self.superstep()
        if at is None or self.saver is None:
            return "the recording has no superstep here, so no record of its subgraph"
        twins = [t.id for t in at.before.tasks if t.name == ctx.name]
        k = self._index(ctx.task_id, ctx.name)
        if k >= len(twins):
            return f"the recording ran no `{ctx.name}` task at step {at.step}, so no record of its subgraph"
        ns = task_namespace(self.recorded_ns, ctx.name, twins[k])
        if ctx.children > 1:  # the node ran more than one graph: the n-th
            ns = f"{ns}|{ctx.children - 1}"
        stateful = getattr(child.graph, "persistence", None) is True
        if stateful:
            ns = stateful_namespace(ns)
        key = ns_thread_key(self.thread_id, ns)
        headers = list(self.saver.list_headers(key))
        if stateful:  # one history across calls: this call's checkpoints name the recorded parent step
            headers = [h for h in headers
                       if _parent_of(self.saver.load(key, h.id), self.recorded_ns) == at.before.id]
        if not headers:
            return (f"the recording kept no checkpoints of subgraph `{self.name_of(ctx.name)}` at step {at.step} "
                    "(a subgraph compiled with checkpointer=False saves none)")
        newest, oldest = headers[0].id, headers[-1].id
        return ns, load_branch(child.graph, self.saver, key, oldest, newest)


def _parent_of(ckpt: Any, ns: str) -> str | None:
    parents = ckpt.metadata.get("parents") if ckpt is not None and isinstance(ckpt.metadata, Mapping) else None
    return parents.get(ns) if isinstance(parents, Mapping) else None
