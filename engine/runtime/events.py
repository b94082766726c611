"""Events a Run emits. Stream modes and the studio are views over these.

Each is a frozen keyword-only dataclass; subscribers read the fields they know and
ignore the rest, so adding a field never breaks anyone.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..checkpoint.base import CheckpointSource, PlannedTask
from ..fast_init import fast_frozen_init
from ..types import Interrupt, Send
from .diff import ChannelDiff

RunStatus = Literal["new", "ready", "interrupted", "done", "failed", "cancelled"]
"""A Run's status: new -> ready -> interrupted | done | failed | cancelled."""

__all__ = [
    "RunStatus",
    "RunEvent",
    "RunStarted",
    "TaskStarted",
    "TaskFinished",
    "TaskFailed",
    "TaskInterrupted",
    "StepCommitted",
    "RunInterrupted",
    "RunFinished",
    "CustomData",
]


@fast_frozen_init
@dataclass(frozen=True, kw_only=True)
class RunEvent:
    run_id: str
    thread_id: str | None
    step: int
    namespace: tuple[str, ...] = ()
    """Empty for the top graph; ("node",) for events of the subgraph run inside `node`."""
    checkpoint_ns: str = ""
    """The subgraph run's checkpoint namespace ("node:task_id|..."); "" for the top graph."""


@fast_frozen_init
@dataclass(frozen=True, kw_only=True)
class RunStarted(RunEvent):
    """The run is set up: `checkpoint_id` is where it starts from.

    `mode`: "input" (fresh input), "resume" (continue or Command(resume=)),
    "fork" (replay of an older checkpoint, on a new branch)."""

    checkpoint_id: str
    mode: str
    next: tuple[PlannedTask, ...]
    values: Mapping[str, Any]
    parent_id: str | None = None
    """The parent of the checkpoint the run starts from."""
    source: CheckpointSource = ""
    """That checkpoint's source."""
    parents: Mapping[str, str] | None = None
    """A subgraph run's ancestors' checkpoints by namespace (its checkpoints' metadata["parents"])."""
    barriers: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Join barriers of the checkpoint it starts from: join name -> sources arrived so far."""


@fast_frozen_init
@dataclass(frozen=True, kw_only=True)
class TaskStarted(RunEvent):
    task_id: str
    name: str
    trigger: str
    input: Any
    metadata: Mapping[str, Any] | None = None
    """The user-meaningful metadata of the task's config (runtime/task_metadata.py), or None."""


@fast_frozen_init
@dataclass(frozen=True, kw_only=True)
class TaskFinished(RunEvent):
    task_id: str
    name: str
    trigger: str
    update: Any
    """What the node returned, as the `updates` stream shows it (a dict, or None)."""
    writes: tuple[tuple[str, Any], ...]
    """The state writes, in order: (key, value)."""
    routes: tuple[str, ...]
    """Nodes this task triggers next (edges, router, Command goto)."""
    sends: tuple[Send, ...]
    dropped_keys: tuple[str, ...]
    """Keys the node returned that the schema does not have; dropped, as LangGraph does."""
    duration_s: float
    replayed: bool = False
    """True when the result was loaded from the saved pending writes, not run again."""
    cached: bool = False
    """True when the node was not called: its cache_policy found its input in the graph's cache."""
    recorded: bool = False
    """True when the node was not called: a recorded replay answered it from the run's records."""


@fast_frozen_init
@dataclass(frozen=True, kw_only=True)
class TaskFailed(RunEvent):
    task_id: str
    name: str
    error: BaseException
    traceback: str
    duration_s: float


@fast_frozen_init
@dataclass(frozen=True, kw_only=True)
class TaskInterrupted(RunEvent):
    task_id: str
    name: str
    interrupts: tuple[Interrupt, ...]
    duration_s: float


@fast_frozen_init
@dataclass(frozen=True, kw_only=True)
class StepCommitted(RunEvent):
    """A superstep's writes were applied and its checkpoint saved."""

    checkpoint_id: str
    parent_id: str | None
    source: CheckpointSource
    diffs: tuple[ChannelDiff, ...]
    """A ChannelDiff per written key; empty when no listener of the run wants diffs (a
    listener says so with `wants_diffs = False`: a stream of "values", say)."""
    next: tuple[PlannedTask, ...]
    nodes_ran: tuple[str, ...]
    values: Mapping[str, Any]
    wrote: tuple[str, ...] = ()
    """The keys the superstep's tasks wrote, in the order `diffs` has them (always set)."""
    waiting: tuple[str, ...] = ()
    """Deferred nodes (defer=True) already triggered, waiting until nothing else runs."""
    barriers: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """The new checkpoint's join barriers: join name -> the sources that arrived so far."""


@fast_frozen_init
@dataclass(frozen=True, kw_only=True)
class RunInterrupted(RunEvent):
    """The run paused: `reason` is "interrupt" (a node called interrupt()),
    "before" or "after" (a breakpoint on `nodes`)."""

    checkpoint_id: str
    reason: str
    nodes: tuple[str, ...]
    interrupts: tuple[Interrupt, ...] = ()
    values: Mapping[str, Any] = field(default_factory=dict)
    """The state with the writes of the superstep's finished tasks applied (not saved:
    the superstep commits when the interrupted tasks are resumed)."""


@fast_frozen_init
@dataclass(frozen=True, kw_only=True)
class RunFinished(RunEvent):
    """Always the last event: `status` is done, interrupted, failed or cancelled."""

    status: RunStatus
    values: Mapping[str, Any]
    checkpoint_id: str | None
    error: BaseException | None = None


@fast_frozen_init
@dataclass(frozen=True, kw_only=True)
class CustomData(RunEvent):
    """Something a node sent through its stream writer."""

    task_id: str
    name: str
    payload: Any = field(default=None)
