"""What a node can ask for besides its state: `Runtime` (context, store, stream writer,
execution info), `get_runtime()` and `get_store()`.

A node receives them by parameter name (`runtime`, `store`) or annotation
(`runtime: Runtime[Ctx]`); the Runtime is built only for nodes that ask for it, so
graphs that never use it pay nothing.
"""
from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from .context import TaskContext, current_task

if TYPE_CHECKING:
    from .context import RunScope

__all__ = ["Runtime", "ExecutionInfo", "ServerInfo", "RunControl", "get_runtime", "get_store",
           "DEFAULT_RUNTIME", "coerce_context", "run_context", "runtime_for"]

ContextT = TypeVar("ContextT")


def _no_writer(_chunk: Any) -> None:
    """The stream writer outside a run: drops what it is given."""


def _no_heartbeat() -> None:
    """Progress signal for idle timeouts; nothing listens outside a timed attempt."""


@dataclass(frozen=True, slots=True)
class ExecutionInfo:
    """Where the calling node runs: checkpoint, namespace, task, thread, attempt."""

    checkpoint_id: str
    checkpoint_ns: str
    task_id: str
    thread_id: str | None = None
    run_id: str | None = None
    node_attempt: int = 1
    node_first_attempt_time: float | None = None

    def patch(self, **changes: Any) -> ExecutionInfo:
        return replace(self, **changes)


@dataclass(frozen=True, slots=True)
class ServerInfo:
    """Set by a LangGraph server deployment; always None when Retrograph runs a graph."""

    assistant_id: str
    graph_id: str
    user: Any = None


class RunControl:
    """A flag a caller can raise to ask a run to stop after its current superstep."""

    __slots__ = ("_reason",)

    def __init__(self) -> None:
        self._reason: str | None = None

    def request_drain(self, reason: str = "shutdown") -> None:
        self._reason = reason

    @property
    def drain_requested(self) -> bool:
        return self._reason is not None

    @property
    def drain_reason(self) -> str | None:
        return self._reason


@dataclass(frozen=True, kw_only=True)
class Runtime(Generic[ContextT]):
    """The run-scoped things a node may use: `context` (invoke(context=...)), `store`
    (compile(store=...)), `stream_writer`, `execution_info` and `previous`."""

    context: ContextT = field(default=None)  # type: ignore[assignment]
    store: Any = None
    stream_writer: Callable[[Any], None] = field(default=_no_writer)
    heartbeat: Callable[[], None] = field(default=_no_heartbeat)
    previous: Any = None
    execution_info: ExecutionInfo | None = None
    server_info: ServerInfo | None = None
    control: RunControl | None = None

    def override(self, **changes: Any) -> Runtime[ContextT]:
        """A copy with the given fields replaced."""
        return replace(self, **changes)

    def merge(self, other: Runtime[ContextT]) -> Runtime[ContextT]:
        """`other`'s fields where it sets them (non-empty), this one's elsewhere."""
        return Runtime(
            context=other.context or self.context,
            store=other.store or self.store,
            stream_writer=self.stream_writer if other.stream_writer is _no_writer else other.stream_writer,
            heartbeat=self.heartbeat if other.heartbeat is _no_heartbeat else other.heartbeat,
            previous=self.previous if other.previous is None else other.previous,
            execution_info=other.execution_info or self.execution_info,
            server_info=other.server_info or self.server_info,
            control=other.control or self.control,
        )

    def patch_execution_info(self, **changes: Any) -> Runtime[ContextT]:
        if self.execution_info is None:
            raise RuntimeError("this Runtime has no execution_info to patch (it is set while a node runs)")
        return replace(self, execution_info=self.execution_info.patch(**changes))

    @property
    def drain_requested(self) -> bool:
        return self.control is not None and self.control.drain_requested

    @property
    def drain_reason(self) -> str | None:
        return self.control.drain_reason if self.control is not None else None


DEFAULT_RUNTIME: Runtime[Any] = Runtime()


def runtime_for(ctx: TaskContext) -> Runtime[Any]:
    """The Runtime of the task `ctx` (built on demand, once per attempt)."""
    cached: Runtime[Any] | None = ctx.runtime
    if cached is not None and cached.execution_info is not None \
            and cached.execution_info.node_attempt == ctx.attempt:
        return cached
    run: RunScope | None = ctx.run
    if run is None:
        rt: Runtime[Any] = Runtime(stream_writer=ctx.writer, heartbeat=ctx.heartbeat)
    else:
        cp = run.checkpoint
        if ctx.first_attempt_time is None:
            ctx.first_attempt_time = time.time()
        chain = [ctx]  # this task, then the tasks of the graphs it runs inside
        while chain[-1].parent is not None:
            chain.append(chain[-1].parent)
        thread_id = next((c.run.thread_id for c in chain if c.run is not None and c.run.thread_id), None)
        info = ExecutionInfo(
            checkpoint_id=cp.id if cp is not None else "",
            checkpoint_ns="|".join(f"{c.name}:{c.task_id}" for c in reversed(chain)),
            task_id=ctx.task_id, thread_id=thread_id, run_id=run.config.get("run_id"),
            node_attempt=ctx.attempt, node_first_attempt_time=ctx.first_attempt_time,
        )
        conf = run.config.get("configurable") or chain[-1].config.get("configurable") or {}
        server = None
        if conf.get("assistant_id") is not None or conf.get("graph_id") is not None:
            server = ServerInfo(assistant_id=str(conf.get("assistant_id", "")), graph_id=str(conf.get("graph_id", "")),
                                user=conf.get("langgraph_auth_user"))
        rt = Runtime(context=run.context, store=run.store, stream_writer=ctx.writer, execution_info=info,
                     previous=ctx.previous, control=run.options.control, heartbeat=ctx.heartbeat, server_info=server)
    ctx.runtime = rt
    return rt


def get_runtime(context_schema: type[ContextT] | None = None) -> Runtime[ContextT]:
    """The Runtime of the node that calls it (the argument only helps type checkers)."""
    ctx = current_task.get()
    if ctx is None:
        raise RuntimeError("get_runtime() can only be called inside a node while a graph runs it")
    return runtime_for(ctx)


def get_store() -> Any:
    """The store given to compile(store=...) (None without one), from inside a node."""
    return get_runtime().store


def coerce_context(schema: Any, context: Any) -> Any:
    """A dict given as `context=` becomes the context schema's dataclass or Pydantic model;
    missing or unknown fields raise TypeError (or Pydantic's ValidationError)."""
    if context is None or schema is None or not isinstance(context, dict):
        return context
    if dataclasses.is_dataclass(schema) and isinstance(schema, type):
        return schema(**context)
    validate = getattr(schema, "model_validate", None)
    if validate is not None:
        return validate(context)
    return context


def run_context(schema: Any, context: Any, seeded: Any, outer: Any) -> Any:
    """A new run's context: the one given (coerced to the graph's `context_schema` when it
    has one), else that of a runtime object the caller put in the config (`seeded`, as it
    is, as LangGraph takes it), else the enclosing run's (`outer`: a subgraph shares it)."""
    if context is not None and schema is not None:
        return coerce_context(schema, context)
    if context is None and seeded is not None and getattr(seeded, "context", None) is not None:
        return seeded.context
    if context is None and outer is not None:
        return outer.context
    return context

