"""Recorded replay: re-run a recorded branch from any checkpoint, answering chosen nodes
from their records (no LLM or API call) and running the others with the current code.

The replay is an ordinary `Run` of the one stepper, started on the chosen checkpoint (so
the engine forks it onto a new branch) and driven by the one loop, `drive()`, with hooks
(`_Steps`) that note each superstep and make recorded edits again. Two hooks of the Run
do the rest: `run.answers` (answers.py) gives a chosen node's recorded output
instead of calling it, hands a re-run node the values its `interrupt()` calls were resumed
with (`run.preset_resume`), and gives each subgraph run a hook of its own over the
recorded subgraph's checkpoints, so nodes inside subgraphs are answered too. Where a
person edited the recorded branch (`update_state`), the replay makes the same edit at the
same place with `run.apply_updates`, so it follows the recorded branch. A task answered
from records is marked (`TaskFinished.recorded`, and `recorded: true` in its checkpoint's
`metadata["record"]`), and `ReplayResult.marks` lists them by checkpoint, subgraphs' too.
"""
from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..runtime.drive import DriveHooks
from ..runtime.events import RunEvent, StepCommitted, TaskFinished
from ..runtime.protocols import RunHandle
from ..runtime.run import Run
from ..runtime.task import TaskResult
from .answers import PATH_SEP, Answers
from .branch import RecordedBranch, ReplayError, Superstep, load_branch

if TYPE_CHECKING:
    from ..graph.compiled import CompiledStateGraph

__all__ = ["ReplayStep", "ReplayResult", "replay", "areplay", "check_nodes", "node_paths"]

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
    marks: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Checkpoint id -> the nodes answered from records in the superstep that made it, for
    every checkpoint the replay wrote, subgraphs' included (a timeline's "(rec)" marks)."""


def check_nodes(graph: CompiledStateGraph, nodes: Iterable[str]) -> tuple[str, ...]:
    """The node names or paths (`research:extract`: a node inside the subgraph node
    `research`), or ReplayError naming the ones the graph lacks."""
    names = tuple(dict.fromkeys(n.strip() for n in nodes if n and n.strip()))
    unknown = [n for n in names if not _known(graph, n)]
    if unknown:
        known = ", ".join(node_paths(graph))
        raise ReplayError(f"unknown node{'s' if len(unknown) > 1 else ''} "
                          f"{', '.join(f'`{n}`' for n in unknown)} to answer from records; "
                          f"the graph's nodes are {known}")
    return names


def _subgraph(graph: Any, node: str) -> Any:
    runner = graph.runners.get(node)
    return runner.fn if runner is not None and runner.is_subgraph else None


def _known(graph: Any, path: str) -> bool:
    head, sep, rest = path.partition(PATH_SEP)
    if head not in graph.runners or head.startswith("__"):
        return False
    if not sep:
        return True
    inner = _subgraph(graph, head)
    return inner is not None and bool(rest) and _known(inner, rest)


def node_paths(graph: Any, prefix: str = "", depth: int = 0) -> list[str]:
    """Every node a replay can answer, by its path: subgraphs' nodes as `sub:node`."""
    out: list[str] = []
    for name in graph.node_names:
        if name.startswith("__"):
            continue
        out.append(prefix + name)
        inner = _subgraph(graph, name)
        if inner is not None and depth < 8:
            out += node_paths(inner, f"{prefix}{name}{PATH_SEP}", depth + 1)
    return out


async def areplay(graph: CompiledStateGraph, thread_id: str, checkpoint_id: str | None = None, *,
                  record: Iterable[str] = (), head_id: str | None = None, saver: Any = None,
                  listener: Callable[[RunEvent], None] | None = None, context: Any = None,
                  metadata: Mapping[str, Any] | None = None) -> ReplayResult:
    """Replay thread `thread_id` from `checkpoint_id` (default: its first checkpoint) on a
    new branch, answering the nodes in `record` (paths such as `research:extract` for
    nodes inside subgraphs) from the recorded branch ending at `head_id` (default: the
    newest one after the start). Edits made on the recorded branch (`update_state`) are
    made again at the same place, as the same node. `context`: the run context the replay's
    nodes get (as `invoke(context=...)`); `metadata`: more metadata for its checkpoints."""
    saver = saver if saver is not None else graph.checkpointer
    if saver is None:
        raise ReplayError("a replay needs the run's checkpoint store: compile(checkpointer=...) or saver=")
    nodes = check_nodes(graph, record)
    branch = load_branch(graph, saver, thread_id, checkpoint_id, head_id)
    start = branch.start
    config = {"configurable": {"thread_id": thread_id, "checkpoint_id": start.id},
              "metadata": {**dict(metadata or {}), REPLAY_OF: start.id}}
    run = graph.new_run(None, config, interrupt_before=(), interrupt_after=(), checkpointer=saver, checkpoint_ns="",
                        context=context)
    marks = _Marks()
    run.subscribe(marks)  # also what hands the subgraph runs' events up to this run's listeners
    if listener is not None:
        run.subscribe(listener)
    await run.start()
    fork_id = run.checkpoint.id if run.checkpoint is not None else start.id
    answers = Answers(run, branch, frozenset(nodes), thread_id=thread_id, saver=saver, offset=run.step)
    run.set_options(answers=answers)
    steps = _Steps(answers)
    try:
        await run.drive(steps)
    except ReplayError:
        run.cancel()
        raise
    except Exception as exc:  # a re-run node raised: the replay failed there, like the run would
        if run.status != "failed":
            run.cancel()
        return _result(run, branch, fork_id, steps.steps, exc, marks.marks)
    if isinstance(run.error, ReplayError):  # asked of a subgraph's node, inside the subgraph's task
        raise run.error
    return _result(run, branch, fork_id, steps.steps, run.error, marks.marks)


class _Steps(DriveHooks):
    """The replay's hooks on `drive()`: where a person edited the recorded branch, the edit
    is made again in place of the superstep; each superstep is noted as a `ReplayStep`."""

    def __init__(self, answers: Answers) -> None:
        self.answers = answers
        self.steps: list[ReplayStep] = []
        self._done: list[TaskResult] = []

    async def before_superstep(self, run: RunHandle) -> bool:
        at = self.answers.superstep()
        if at is not None and at.edit:  # a person edited the recorded branch here: so does the replay
            self._note(run, _edit_again(run, at), ())
        return False

    async def after_tasks(self, run: RunHandle) -> bool:
        self._done = [run.results[t.id] for t in run.plan] if run.ready_to_commit else []
        return False

    async def after_commit(self, run: RunHandle, committed: StepCommitted | None) -> bool:
        done, self._done = self._done, []
        self._note(run, [(r.task.name, tuple(r.writes)) for r in done],
                   tuple(r.task.name for r in done if r.recorded))
        return False

    def _note(self, run: RunHandle, tasks: list[tuple[str, tuple[tuple[str, Any], ...]]], answered: tuple[str, ...]) -> None:
        assert run.checkpoint is not None
        self.steps.append(ReplayStep(step=run.step, checkpoint_id=run.checkpoint.id, tasks=tuple(tasks),
                                     recorded=answered))


def _edit_again(run: RunHandle, at: Superstep) -> list[tuple[str, tuple[tuple[str, Any], ...]]]:
    """Apply the recorded edit `at` to the replay's head, as the same node(s); its writes."""
    if at.tasks is None:
        assert at.after is not None
        raise ReplayError(
            f"the edit at step {at.step} of the recording (checkpoint {at.after.id}, update_state) cannot be made "
            "again: it was a bulk edit as several nodes, or a clear, and the recording kept no record of it; "
            "replay from a checkpoint after it")
    run.apply_updates(run.checkpoint, [(dict(t.writes), t.node) for t in at.tasks])
    run.after_commit(())  # as a commit would: nothing left to run ends the run
    return [(t.node, t.writes) for t in at.tasks]


class _Marks:
    """Listens to the replay (subgraph runs included): checkpoint id -> the nodes of its
    superstep that were answered from records, for a timeline's "(rec)" marks."""

    def __init__(self) -> None:
        self.marks: dict[str, tuple[str, ...]] = {}
        self._answered: dict[str, list[str]] = {}

    def __call__(self, event: RunEvent) -> None:
        if isinstance(event, TaskFinished):
            if event.recorded:
                self._answered.setdefault(event.checkpoint_ns, []).append(event.name)
        elif isinstance(event, StepCommitted):
            answered = self._answered.pop(event.checkpoint_ns, None)
            if answered:
                self.marks[event.checkpoint_id] = tuple(answered)


def _result(run: Run, branch: RecordedBranch, fork_id: str, steps: list[ReplayStep],
            error: BaseException | None, marks: Mapping[str, tuple[str, ...]]) -> ReplayResult:
    status = "failed" if error is not None else ("interrupted" if run.status == "interrupted" else run.status)
    return ReplayResult(thread_id=branch.thread_id, start_id=branch.start.id, fork_id=fork_id,
                        head_id=run.checkpoint.id if run.checkpoint is not None else fork_id, status=status,
                        values=dict(run.preview or run.values), steps=tuple(steps), branch=branch, error=error,
                        marks=dict(marks))


def replay(graph: CompiledStateGraph, thread_id: str, checkpoint_id: str | None = None, **options: Any) -> ReplayResult:
    """`areplay` for synchronous code (not inside a running event loop)."""
    return asyncio.run(areplay(graph, thread_id, checkpoint_id, **options))
