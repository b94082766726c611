"""The two shapes the compiled graph and its runs meet through, in a leaf module.

`CompiledGraph` is what a run, and the helpers a compiled graph delegates to (snapshots,
updates, drawing...), read of the graph; `RunHandle` is what a run's collaborators
(starting, committing, executing tasks, driving, nesting, saving in the background) use of
the run. `DriveHooks` is what a caller adds around a drive's moves.

The concrete classes (`engine.graph.compiled.CompiledStateGraph`, `engine.runtime.run.Run`)
match these structurally and are never imported by the modules that use the shapes, so
neither the graph nor the run knows the other's class, and no module imports one that
imports it back (tests/test_architecture.py counts type-only imports too). This module
imports only leaves: records, events, options, schema, node runners.
"""
from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from typing import Any, Protocol

from ..checkpoint.base import Checkpoint, PendingWrite, PlannedTask
from ..schema import StateSchema
from ..specs import GraphDefinition
from ..types import Interrupt
from .events import RunEvent, RunStarted, RunStatus, StepCommitted
from .options import RunOptions
from .resume_values import ResumeValues
from .task import NodeRunner, TaskResult
from .tracing import GraphTrace

__all__ = ["CompiledGraph", "RunHandle", "HeldWrites", "DriveHooks"]


class CompiledGraph(Protocol):
    """A compiled graph as its runs and its helper modules read it."""

    name: str
    builder: GraphDefinition
    schema: StateSchema
    runners: dict[str, NodeRunner]
    joins: Any
    deferred: frozenset[str]
    node_names: tuple[str, ...]
    node_set: frozenset[str]
    checkpointer: Any
    persistence: bool | None
    store: Any
    cache: Any
    step_timeout: float | None
    interrupt_before: tuple[str, ...]
    interrupt_after: tuple[str, ...]

    def new_run(self, input: Any = None, config: Mapping[str, Any] | None = None, *,
                interrupt_before: Sequence[str] | None = None, interrupt_after: Sequence[str] | None = None,
                inline_sync: bool = False, durability: str | None = None, context: Any = None,
                control: Any = None, checkpointer: Any = ..., checkpoint_ns: str | None = None,
                options: RunOptions | None = None) -> RunHandle: ...

    def invoke(self, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any) -> Any: ...

    async def ainvoke(self, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any) -> Any: ...

    def stream(self, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any) -> Iterator[Any]: ...

    def astream(self, input: Any, config: Mapping[str, Any] | None = None, **kwargs: Any) -> AsyncIterator[Any]: ...

    def get_graph(self, xray: bool | int = False) -> Any: ...

    def node_update(self, node: str, values: Any) -> Any: ...

    def with_checkpointer(self, checkpointer: Any) -> CompiledGraph: ...

    def require_saver(self) -> Any: ...

    def thread_of(self, config: Mapping[str, Any] | None) -> tuple[str, str | None]: ...

    def scope_of(self, config: Mapping[str, Any] | None) -> tuple[CompiledGraph, str, str]: ...

    def checkpoint_config(self, thread_id: str, checkpoint_id: str | None,
                          checkpoint_ns: str = "") -> dict[str, Any] | None: ...

    def snapshot(self, ckpt: Checkpoint, pending: Sequence[PendingWrite] = (),
                 child: Checkpoint | None = None, *, saver: Any = None, subgraphs: bool = False,
                 live: bool = False) -> Any: ...


class HeldWrites(Protocol):
    """Where a run's saves go under durability "exit" (held) or "async" (a writer thread)."""

    def save(self, run: RunHandle, ckpt: Checkpoint,
             appended: Mapping[str, tuple[str, Sequence[Any]]] | None) -> None: ...

    def put_writes(self, run: RunHandle, writes: list[PendingWrite]) -> None: ...

    def flush(self, run: RunHandle) -> None: ...

    def settle(self) -> None: ...


class RunHandle(Protocol):
    """A Run as its collaborators use it: its fields, its public moves, and the moves that
    starting, committing and executing share (see engine/runtime/run.py)."""

    graph: CompiledGraph
    config: dict[str, Any]
    input: Any
    interrupt_before: frozenset[str]
    interrupt_after: frozenset[str]
    recursion_limit: int
    inline_sync: bool
    saver: Any
    namespace: tuple[str, ...]
    checkpoint_ns: str
    options: RunOptions
    run_id: str
    thread_id: str | None
    store_key: str
    status: RunStatus
    error: BaseException | None
    checkpoint: Checkpoint | None
    values: dict[str, Any]
    plan: tuple[PlannedTask, ...]
    results: dict[str, TaskResult]
    preview: dict[str, Any] | None
    durability: str | None
    context: Any
    tracer: GraphTrace | None
    store: Any
    listening: bool
    task_events: bool
    wants_diffs: bool
    wants_ids: bool
    values_sink: Callable[[tuple[str, ...], Any, tuple[str, ...]], bool] | None
    first_step: int
    loop_thread: int | None
    loop: asyncio.AbstractEventLoop | None
    resumes: ResumeValues
    durable_ids: bool
    held: HeldWrites | None
    node_finished: Callable[[str], Any] | None
    unsaved_result: TaskResult | None

    @property
    def pending(self) -> tuple[PlannedTask, ...]: ...
    @property
    def step(self) -> int: ...
    @property
    def ready_to_commit(self) -> bool: ...
    @property
    def listeners(self) -> tuple[Callable[[RunEvent], None], ...]: ...
    @property
    def interrupts(self) -> tuple[Interrupt, ...]: ...
    @property
    def stop_step(self) -> int: ...

    # public moves
    async def start(self) -> RunStarted: ...
    async def run_task(self, task_id: str | None = None) -> TaskResult: ...
    async def run_pending(self, *, commit_follows: bool = False) -> list[TaskResult]: ...
    def save_unsaved(self) -> None: ...
    def commit(self, *, report: bool = True) -> StepCommitted | None: ...
    def apply_updates(self, base: Checkpoint | None, updates: Sequence[tuple[Any, str | None]], *,
                      keep_writes: bool = False) -> Checkpoint: ...
    async def drive(self, hooks: DriveHooks | None = None) -> RunStatus: ...
    def cancel(self) -> None: ...
    def fail(self, error: BaseException | None) -> None: ...
    def subscribe(self, listener: Callable[[RunEvent], None]) -> Callable[[], None]: ...
    def forward(self, event: RunEvent) -> None: ...
    def set_options(self, **changes: Any) -> RunOptions: ...
    def gave_resume(self, task_id: str) -> bool: ...
    def preset_resume(self, task_id: str, values: Sequence[Any]) -> None: ...

    # what starting, committing and executing share (public, so no module reaches into
    # another's private names: tests/test_architecture.py checks)
    def event_fields(self, **fields: Any) -> dict[str, Any]: ...
    def emit(self, event: RunEvent) -> None: ...
    def emit_finished(self, result: TaskResult) -> None: ...
    def finish(self, status: RunStatus) -> None: ...
    def next_checkpoint_id(self) -> str: ...
    def keep_result(self, result: TaskResult, *, durable: bool) -> None: ...
    def check_after_tasks(self) -> None: ...
    def handler_task(self, failed: TaskResult) -> PlannedTask | None: ...
    def plan_error_handler(self, failed: TaskResult, handler: str) -> None: ...
    def save_writes(self, writes: list[PendingWrite]) -> None: ...
    def after_commit(self, nodes_ran: tuple[str, ...]) -> None: ...


class DriveHooks:
    """What a caller adds around the moves of `drive()` (engine/runtime/drive.py). Each hook
    may end the drive early by returning True; the run then stays `ready`, to be driven
    again (or dropped). Subclass and override what you need: the defaults do nothing."""

    stepwise = False
    """True: the tasks of a superstep run one at a time, and `before_move` is awaited
    before each task and before each commit (a debugger's "step into" gate)."""

    async def before_move(self, run: RunHandle) -> None:
        """With `stepwise`: awaited before each move; the run may have ended meanwhile."""

    async def before_superstep(self, run: RunHandle) -> bool:
        """Once per superstep, before its first task runs (the plan is `run.pending`). A
        hook that moves the run itself (applies an edit in place of the superstep, as a
        recorded replay does) is asked again about the superstep that follows."""
        return False

    async def after_tasks(self, run: RunHandle) -> bool:
        """After tasks ran (the whole superstep, or one task with `stepwise`), while the run
        is still `ready` (a task's error a handler deals with leaves it ready)."""
        return False

    async def after_commit(self, run: RunHandle, committed: StepCommitted | None) -> bool:
        """After each commit; `committed` carries the superstep's diffs and new values."""
        return False
