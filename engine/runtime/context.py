"""What a running node can reach: interrupt(), its stream writer and its config."""
from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import GraphInterrupt, mark_invalid_resume
from ..types import Interrupt
from .events import CustomData

if TYPE_CHECKING:
    from ..checkpoint.base import Checkpoint
    from .options import RunOptions

__all__ = ["interrupt", "get_stream_writer", "get_config", "TaskContext", "RunScope"]


class RunScope(Protocol):
    """What a running node's Runtime (engine/runtime/injected.py) reads of the run that
    executes it: the run's own shape is engine/runtime/protocols.py's RunHandle."""

    checkpoint: Checkpoint | None
    config: dict[str, Any]
    context: Any
    options: RunOptions
    store: Any
    thread_id: str | None


class TaskContext:
    """A running task's own context (current_task): built once per task on the
    per-superstep path, so the fields that usually keep their default are class-level
    defaults and making one sets only what each task has of its own."""

    task_id: str
    name: str
    config: dict[str, Any]
    resume: list[Any]
    """Resume values handed to this task, in order; the n-th interrupt() returns the n-th."""
    calls: int = 0
    parent: TaskContext | None = None
    """The task of the enclosing graph when this one runs inside a subgraph."""
    run: Any = None
    """The Run executing this task: the functional API saves its task calls through it,
    get_runtime() reads it, and a graph invoked inside the node becomes its child."""
    attempt: int = 1
    first_attempt_time: float | None = None
    runtime: Any = None
    """The Runtime built for this attempt, once a node asked for it."""
    previous: Any = None
    node_error: Any = None
    """For an error handler's task: the NodeError it handles."""
    last_progress: float = 0.0
    """When the node last showed progress (monotonic seconds), for idle timeouts."""
    children: int = 0
    """Graphs invoked inside the node so far: the k-th gets namespace suffix "|k"."""
    resume_map: dict[str, Any] | None = None
    """Resume values by interrupt id handed to this task (for the subgraph inside it)."""
    pushed: list[tuple[str, Any]] | None = None
    """State writes the node made while it ran (`push_message`), before what it returns."""
    _writer: Callable[[Any], None] | None = None

    def __init__(self, task_id: str, name: str, config: dict[str, Any], writer: Callable[[Any], None] | None = None,
                 resume: list[Any] | None = None, parent: TaskContext | None = None, run: Any = None,
                 resume_map: dict[str, Any] | None = None) -> None:
        self.task_id, self.name, self.config = task_id, name, config
        self.resume = [] if resume is None else resume
        if writer is not None:
            self._writer = writer
        if parent is not None:
            self.parent = parent
        if run is not None:
            self.run = run
        if resume_map is not None:
            self.resume_map = resume_map

    @property
    def writer(self) -> Callable[[Any], None]:
        """The task's stream writer (the `custom` stream mode): made when first asked for
        (most nodes never write), from the run's task it belongs to."""
        writer = self._writer
        if writer is None:
            writer = self._writer = custom_writer(self.run, self.task_id, self.name)
        return writer

    @writer.setter
    def writer(self, writer: Callable[[Any], None]) -> None:
        self._writer = writer

    def __repr__(self) -> str:
        return f"TaskContext(task_id={self.task_id!r}, name={self.name!r}, attempt={self.attempt})"

    def heartbeat(self) -> None:
        """Record progress of the running attempt (resets its idle timeout)."""
        self.last_progress = time.monotonic()

    def root(self) -> TaskContext:
        ctx = self
        while ctx.parent is not None:
            ctx = ctx.parent
        return ctx


def custom_writer(run: Any, task_id: str, name: str) -> Callable[[Any], None]:
    """A stream writer of `run`'s task: each payload a CustomData event, emitted on the
    run's loop thread (from a worker thread, handed to its loop)."""
    if run is None:
        return lambda _payload: None

    def write(payload: Any) -> None:
        event = CustomData(**run.event_fields(), task_id=task_id, name=name, payload=payload)
        if threading.get_ident() == run.loop_thread or run.loop is None:
            run.emit(event)
        else:
            run.loop.call_soon_threadsafe(run.emit, event)

    return write


current_task: ContextVar[TaskContext | None] = ContextVar("retrograph_task", default=None)


def _require(what: str) -> TaskContext:
    ctx = current_task.get()
    if ctx is None:
        raise RuntimeError(f"{what} can only be called inside a node while a graph runs it")
    return ctx


def interrupt_id(task_id: str, index: int) -> str:
    return hashlib.blake2b(f"{task_id}:{index}".encode(), digest_size=16).hexdigest()


def interrupt(value: Any, *, response_schema: Any = None) -> Any:
    """Pause the run and show `value` to a human; returns the value they resume with.

    The node runs again from the top on resume: its n-th interrupt() call returns the
    n-th resume value, so code before the call must be safe to repeat.

    `response_schema` describes the answer expected: a JSON schema dict, shown as it is,
    or a type (pydantic model, TypedDict, dataclass...), shown as its JSON schema, which
    the answer is also validated (and converted) with: an answer that does not fit raises
    pydantic's ValidationError, marked so (`is_invalid_resume`) that a ToolNode lets it
    fail the run, and the interrupt can be answered again.
    """
    ctx = _require("interrupt()")
    adapter = _adapter(response_schema)
    index = ctx.calls
    ctx.calls += 1
    if index < len(ctx.resume):
        return _checked(adapter, ctx.resume[index])
    run = ctx.run
    held = run.options.null_resume if run is not None else None
    if held is not None and run.checkpoint is not None and held[0] == run.checkpoint.id:
        run.set_options(null_resume=None)  # a resume value no paused task took: the first interrupt takes it
        ctx.resume.append(held[1])
        return _checked(adapter, held[1])
    shown = adapter.json_schema() if adapter is not None else response_schema
    raise GraphInterrupt([Interrupt(value=value, id=interrupt_id(ctx.task_id, index), response_schema=shown)])


def _adapter(schema: Any) -> Any:
    """A pydantic TypeAdapter for a response_schema type (None for no schema or a dict)."""
    if schema is None or isinstance(schema, dict):
        return None
    from pydantic import TypeAdapter

    return TypeAdapter(schema)


def _checked(adapter: Any, value: Any) -> Any:
    if adapter is None:
        return value
    from pydantic import ValidationError

    try:
        return adapter.validate_python(value)
    except ValidationError as exc:
        mark_invalid_resume(exc)
        raise


def get_stream_writer() -> Callable[[Any], None]:
    """A function that sends data to the `custom` stream mode from inside a node."""
    ctx = current_task.get()
    if ctx is None:
        return lambda _payload: None
    return ctx.writer


def get_config() -> dict[str, Any]:
    """The config of the run the calling node belongs to."""
    return _require("get_config()").config
