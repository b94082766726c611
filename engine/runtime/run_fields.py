"""What a Run holds, declared once for the type checker: `Run` (run.py) is assembled from
mixins (`RunStart` in start.py, `RunCommit` in commit.py), and each mixin's code reads
fields that `Run.__init__` sets and calls moves that another part defines.

Annotations only: nothing here exists at run time (no class attribute shadows Run's
slots, no stub shadows a real method), so a Run's speed is unchanged.
"""
from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..checkpoint.base import Checkpoint, CheckpointSource, PendingWrite, PlannedTask
    from ..graph.compiled import CompiledStateGraph
    from .durability import BackgroundSaves, HeldSaves
    from .events import RunEvent, RunStatus, StepCommitted
    from .options import RunOptions
    from .task import TaskResult
    from .tracing import GraphTrace

__all__ = ["RunFields"]


class RunFields:
    """The fields and moves of a Run that its mixins use (see the module's docstring)."""

    graph: CompiledStateGraph
    config: dict[str, Any]
    input: Any
    interrupt_before: frozenset[str]
    interrupt_after: frozenset[str]
    recursion_limit: int
    saver: Any
    namespace: tuple[str, ...]
    checkpoint_ns: str
    options: RunOptions
    thread_id: str | None
    store_key: str
    status: RunStatus
    error: BaseException | None
    checkpoint: Checkpoint | None
    values: dict[str, Any]
    plan: tuple[PlannedTask, ...]
    results: dict[str, TaskResult]
    _listeners: list[Callable[[RunEvent], None]]
    _first_step: int
    _loop_thread: int | None
    _loop: asyncio.AbstractEventLoop | None
    _resume_for: dict[str, list[Any]]
    _resume_map: dict[str, dict[str, Any]]
    _resume_new: set[str] | None
    _durable_ids: bool
    _held: HeldSaves | BackgroundSaves | None
    tracer: GraphTrace | None

    if TYPE_CHECKING:  # moves defined by Run itself or by the other mixin
        @property
        def pending(self) -> tuple[PlannedTask, ...]: ...
        @property
        def step(self) -> int: ...
        @property
        def ready_to_commit(self) -> bool: ...
        def set_options(self, **changes: Any) -> RunOptions: ...
        def _base(self, **fields: Any) -> dict[str, Any]: ...
        def _emit(self, event: RunEvent) -> None: ...
        def _emit_finished(self, result: TaskResult) -> None: ...
        def _fail(self, error: BaseException | None) -> None: ...
        def _finish(self, status: RunStatus) -> None: ...
        def _new_id(self) -> str: ...
        def _after_tasks_check(self) -> None: ...
        def _plan_error_handler(self, failed: TaskResult, handler: str) -> None: ...
        def _put_writes(self, writes: list[PendingWrite]) -> None: ...
        def _save(self, ckpt: Checkpoint, appended: Mapping[str, tuple[str, Sequence[Any]]] | None = None) -> None: ...
        def _metadata(self) -> dict[str, Any]: ...
        def _set_checkpoint(self, ckpt: Checkpoint, owned: bool = False) -> None: ...
        def _commit(self, source: CheckpointSource = "loop", report: bool = True) -> StepCommitted | None: ...
