"""Recorded replay: re-run a recorded branch from any checkpoint, answering chosen nodes
from their records (no LLM or API call) and running the others with the current code.

The replay is an ordinary `Run` of the one stepper, started on the chosen checkpoint (so
the engine forks it onto a new branch) and driven with the Run's own moves. Two hooks of
the Run do the rest: `run.answers` gives a chosen node's recorded output instead of
calling it, and `run.preset_resume` hands a re-run node the values its `interrupt()`
calls were resumed with. A task answered from records is marked (`TaskFinished.recorded`,
and `recorded: true` in its checkpoint's `metadata["record"]`), so a timeline can show it.
"""
from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..checkpoint.base import PlannedTask
from ..runtime.events import RunEvent
from ..runtime.run import NOT_ANSWERED, Run
from ..types import Command
from .records import RecordedBranch, ReplayError, Superstep, TaskRecord, load_branch

if TYPE_CHECKING:
    from ..graph.compiled import CompiledStateGraph

__all__ = ["ReplayStep", "ReplayResult", "replay", "areplay", "check_nodes"]

REPLAY_OF = "replay_of"
"""Metadata key of every checkpoint a replay writes: the checkpoint it started from."""


@dataclass(frozen=True, kw_only=True)
class ReplayStep:
    """One superstep of the replay: each task's node and writes, in the plan's order."""

    step: int
    checkpoint_id: str
    """The checkpoint the superstep made (on the replay's branch)."""
    tasks: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...]
    recorded: tuple[str, ...]
    """The nodes of this superstep that were answered from records."""


@dataclass(frozen=True, kw_only=True)
class ReplayResult:
    thread_id: str
    start_id: str
    """The recorded checkpoint the replay started from."""
    fork_id: str
    """The replay's first checkpoint: the fork of `start_id` (its branch)."""
    head_id: str
    status: str
    """done, interrupted or failed."""
    values: Mapping[str, Any]
    steps: tuple[ReplayStep, ...]
    branch: RecordedBranch
    error: BaseException | None = None


def check_nodes(graph: CompiledStateGraph, nodes: Iterable[str]) -> tuple[str, ...]:
    """The node names, or ReplayError naming the ones the graph lacks."""
    names = tuple(dict.fromkeys(n.strip() for n in nodes if n and n.strip()))
    unknown = [n for n in names if n not in graph.runners or n.startswith("__")]
    if unknown:
        known = ", ".join(n for n in graph.node_names if not n.startswith("__"))
        raise ReplayError(f"unknown node{'s' if len(unknown) > 1 else ''} "
                          f"{', '.join(f'`{n}`' for n in unknown)} to answer from records; "
                          f"the graph's nodes are {known}")
    return names


class _Answers:
    """The Run's `answers` hook: a chosen node's output rebuilt from its record."""

    def __init__(self, run: Run, branch: RecordedBranch, record: tuple[str, ...], fork_step: int) -> None:
        self.run, self.branch, self.record, self.fork_step = run, branch, frozenset(record), fork_step

    def superstep(self) -> Superstep | None:
        i = self.run.step - self.fork_step
        steps = self.branch.steps
        return steps[i] if 0 <= i < len(steps) and steps[i].after is not None else None

    def matching(self, task: PlannedTask) -> TaskRecord | None:
        """The record of the same node at the same place (the k-th task of that node)."""
        at = self.superstep()
        if at is None or at.tasks is None:
            return None
        same = [t.id for t in self.run.plan if t.name == task.name]
        candidates = at.of(task.name)
        k = same.index(task.id) if task.id in same else 0
        return candidates[k] if k < len(candidates) else None

    def __call__(self, task: PlannedTask) -> Any:
        if task.name not in self.record:
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
        at = self.superstep()
        if at is None:  # in the recording's step numbers, counted on from its last superstep
            step = self.branch.start.step + 1 + (self.run.step - self.fork_step)
            return (f"node `{task.name}` runs at step {step} of the replay, past the end of the recorded "
                    "branch: no record can answer it (the current code took a longer path)")
        if at.tasks is None:
            return (f"node `{task.name}` at step {at.step}: the recorded run kept no record of that superstep; "
                    "record runs with config['record']=True (the studio and `retrograph run --db` do)")
        ran = ", ".join(t.node for t in at.tasks) or "nothing"
        return (f"node `{task.name}` runs at step {at.step} of the replay, but the recording ran {ran} there; "
                "the current code took another path")


async def areplay(graph: CompiledStateGraph, thread_id: str, checkpoint_id: str | None = None, *,
                  record: Iterable[str] = (), head_id: str | None = None, saver: Any = None,
                  listener: Callable[[RunEvent], None] | None = None) -> ReplayResult:
    """Replay thread `thread_id` from `checkpoint_id` (default: its first checkpoint) on a
    new branch, answering the nodes in `record` from the recorded branch ending at
    `head_id` (default: the newest one after the start)."""
    saver = saver if saver is not None else graph.checkpointer
    if saver is None:
        raise ReplayError("a replay needs the run's checkpoint store: compile(checkpointer=...) or saver=")
    nodes = check_nodes(graph, record)
    branch = load_branch(graph, saver, thread_id, checkpoint_id, head_id)
    start = branch.start
    config = {"configurable": {"thread_id": thread_id, "checkpoint_id": start.id},
              "metadata": {REPLAY_OF: start.id}}
    run = graph.new_run(None, config, interrupt_before=(), interrupt_after=(), checkpointer=saver, checkpoint_ns="")
    if listener is not None:
        run.subscribe(listener)
    steps: list[ReplayStep] = []
    await run.start()
    fork_id = run.checkpoint.id if run.checkpoint is not None else start.id
    answers = _Answers(run, branch, nodes, run.step)
    run.answers = answers
    try:
        while run.status == "ready":
            at = answers.superstep()
            for task in run.pending:
                if task.name in answers.record:
                    continue
                found = answers.matching(task) if at is not None else None
                if found is not None and found.resume:
                    run.preset_resume(task.id, found.resume)
            await run.run_pending()
            if not run.ready_to_commit:
                break
            done = [run.results[t.id] for t in run.plan]
            run.commit()
            assert run.checkpoint is not None
            steps.append(ReplayStep(step=run.step, checkpoint_id=run.checkpoint.id,
                                    tasks=tuple((r.task.name, tuple(r.writes)) for r in done),
                                    recorded=tuple(r.task.name for r in done if r.recorded)))
    except ReplayError:
        run.cancel()
        raise
    except Exception as exc:  # a re-run node raised: the replay failed there, like the run would
        if run.status != "failed":
            run.cancel()
        return _result(run, branch, fork_id, steps, exc)
    return _result(run, branch, fork_id, steps, run.error)


def _result(run: Run, branch: RecordedBranch, fork_id: str, steps: list[ReplayStep],
            error: BaseException | None) -> ReplayResult:
    status = "failed" if error is not None else ("interrupted" if run.status == "interrupted" else run.status)
    return ReplayResult(thread_id=branch.thread_id, start_id=branch.start.id, fork_id=fork_id,
                        head_id=run.checkpoint.id if run.checkpoint is not None else fork_id, status=status,
                        values=dict(run.preview or run.values), steps=tuple(steps), branch=branch, error=error)


def replay(graph: CompiledStateGraph, thread_id: str, checkpoint_id: str | None = None, **options: Any) -> ReplayResult:
    """`areplay` for synchronous code (not inside a running event loop)."""
    return asyncio.run(areplay(graph, thread_id, checkpoint_id, **options))
