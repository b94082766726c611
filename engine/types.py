"""Values users hand to the engine or get back from it: Send, Command, Interrupt, snapshots."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Literal, NamedTuple, TypeVar

from .outputs import Durability, GraphOutput, StreamMode, StreamPart
from .policies import CachePolicy, TimeoutPolicy
from .tool_output import ToolOutputBase, adopt_tool_output_mixin
from .warnings import deprecated

__all__ = ["Send", "Command", "Interrupt", "StateSnapshot", "TaskInfo", "RunnableConfig", "RetryPolicy", "Overwrite",
           "GraphOutput", "StreamPart", "StreamMode", "Durability", "StateUpdate", "PregelTask", "CachePolicy",
           "TimeoutPolicy", "StreamWriter", "All"]

StreamWriter = Callable[[Any], None]
"""What `get_stream_writer()` returns (and a node's `writer` parameter): sends to `custom`."""

All = Literal["*"]
"""`interrupt_before="*"` / `interrupt_after="*"`: every node."""

RunnableConfig = dict[str, Any]
"""A run's config: `{"configurable": {"thread_id": ...}, "recursion_limit": ...}`."""


@dataclass(frozen=True, eq=True)
class Send:
    """Run `node` in the next superstep with `arg` as its input instead of the state.

    `timeout` (seconds, a timedelta or a TimeoutPolicy) limits this task instead of the
    node's own timeout."""

    node: str
    arg: Any
    timeout: TimeoutPolicy | None = None

    def __post_init__(self) -> None:
        if self.timeout is not None:
            object.__setattr__(self, "timeout", TimeoutPolicy.coerce(self.timeout))

    def __repr__(self) -> str:
        if self.timeout is None:
            return f"Send(node={self.node!r}, arg={self.arg!r})"
        return f"Send(node={self.node!r}, arg={self.arg!r}, timeout={self.timeout!r})"


Destination = TypeVar("Destination")


@dataclass(frozen=True, kw_only=True)
class Command(ToolOutputBase, Generic[Destination]):
    """Returned by a node to update the state and choose where to go, or passed to
    invoke() to resume an interrupted run (`resume=`).

    `-> Command[Literal["a", "b"]]` on a node tells the drawing where it may go. Once
    langchain-core is loaded, a Command is its `ToolOutputMixin` (engine/tool_output.py): a
    tool that returns one gives it back as it is, not wrapped in a ToolMessage."""

    update: Any = None
    goto: str | Send | Sequence[str | Send] = ()
    resume: Any = None
    graph: str | None = None

    PARENT: ClassVar[str] = "__parent__"

    def __repr__(self) -> str:
        """As LangGraph shows a Command: only the fields that are set (truthy)."""
        shown = ", ".join(f"{name}={value!r}" for name in ("update", "goto", "resume", "graph")
                          if (value := getattr(self, name)))
        return f"Command({shown})"

    def goto_targets(self) -> list[str | Send]:
        if isinstance(self.goto, (str, Send)):
            return [self.goto]
        return list(self.goto or ())


adopt_tool_output_mixin(Command)


@dataclass(frozen=True)
class Overwrite:
    """A write that replaces a reducer key's value instead of going through its reducer:
    `{"log": Overwrite([])}` empties an `Annotated[list, operator.add]` key.

    Its JSON forms, `{"__overwrite__": v}` and `{"value": v, "type": "__overwrite__"}`
    (what a JSON encoder makes of an Overwrite), are recognised too."""

    value: Any
    type: Literal["__overwrite__"] = "__overwrite__"
    """Lets an Overwrite be recognised after a JSON round trip erased its class."""


_LEGACY_INTERRUPT_KWARGS = frozenset({"ns", "when", "resumable", "interrupt_id"})


@dataclass(frozen=True, init=False)
class Interrupt:
    """A pause requested by `interrupt(value)`; `id` names it for a targeted resume.

    `response_schema` is the schema of the answer expected, when the graph gives one.
    LangGraph's older keyword arguments (`ns`, `when`, `resumable`) are accepted, as in
    saved data of older versions: an `ns` without an `id` gives the id that namespace had."""

    value: Any
    id: str = ""
    response_schema: Any = None

    def __init__(self, value: Any, id: str = "", *, response_schema: Any = None, **legacy: Any) -> None:  # noqa: A002
        unknown = sorted(set(legacy) - _LEGACY_INTERRUPT_KWARGS)
        if unknown:
            raise TypeError(f"Interrupt() got an unexpected keyword argument {unknown[0]!r}")
        ns = legacy.get("ns")
        if not id and isinstance(ns, Sequence) and not isinstance(ns, str):
            id = namespace_interrupt_id("|".join(ns))  # noqa: A001
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "id", id)
        object.__setattr__(self, "response_schema", response_schema)

    @property
    def interrupt_id(self) -> str:
        """Deprecated (LangGraph 1.0): the interrupt's `id`."""
        deprecated("`interrupt_id` is deprecated. Use `id` instead.", "1.0")
        return self.id

    @classmethod
    def from_ns(cls, value: Any, ns: str, *, response_schema: Any = None) -> Interrupt:
        """The interrupt a task of checkpoint namespace `ns` raised first (LangGraph's ids)."""
        return cls(value=value, id=namespace_interrupt_id(ns), response_schema=response_schema)


def namespace_interrupt_id(ns: str) -> str:
    """LangGraph's id of the first interrupt of the task at namespace `ns` (an xxh3-128
    hash), which older saved interrupts carry implicitly."""
    import xxhash  # noqa: PLC0415 - only legacy ids need it

    return xxhash.xxh3_128_hexdigest(ns.encode())


class PregelTask(NamedTuple):
    """A task of the superstep that a snapshot is about to run (or stopped in), with
    LangGraph's fields: `path` says why it runs (`("__pregel_pull", node)` for a node
    triggered by an edge or a router, `("__pregel_push", i, False)` for the i-th Send), `error` the
    text of the error it failed with, `result` what it wrote once finished."""

    id: str
    name: str
    path: tuple[Any, ...] = ()
    error: str | None = None
    interrupts: tuple[Interrupt, ...] = ()
    state: Any = None
    result: Any = None


TaskInfo = PregelTask
"""Retrograph's earlier name for PregelTask."""


class StateSnapshot(NamedTuple):
    """The state of a thread at one checkpoint, as get_state() returns it."""

    values: Any
    """The state's keys and values (a dict); for a graph whose state is one value (a root
    state, an entrypoint), that value."""
    next: tuple[str, ...]
    config: RunnableConfig
    metadata: dict[str, Any]
    created_at: str | None
    parent_config: RunnableConfig | None
    tasks: tuple[TaskInfo, ...] = ()
    interrupts: tuple[Interrupt, ...] = ()


class StateUpdate(NamedTuple):
    """One update of `bulk_update_state`: `values` as if node `as_node` had returned them."""

    values: Any
    as_node: str | None = None
    task_id: str | None = None


def _retry_by_default(exc: BaseException) -> bool:
    """Retry errors that are usually transient; not the ones a bug in the node causes."""
    return not isinstance(exc, (ValueError, TypeError, ArithmeticError, ImportError, LookupError,
                                NameError, SyntaxError, RuntimeError, AttributeError))


@dataclass(frozen=True, kw_only=True)
class RetryPolicy:
    """Run a node again when it raises: `add_node("fetch", fetch, retry_policy=RetryPolicy())`."""

    initial_interval: float = 0.5
    backoff_factor: float = 2.0
    max_interval: float = 128.0
    max_attempts: int = 3
    jitter: bool = True
    retry_on: type[BaseException] | Sequence[type[BaseException]] | Callable[[BaseException], bool] = (
        _retry_by_default
    )

    def should_retry(self, exc: BaseException) -> bool:
        rule = self.retry_on
        if isinstance(rule, type):
            return isinstance(exc, rule)
        if isinstance(rule, Sequence):
            return isinstance(exc, tuple(rule))
        return bool(rule(exc))

    def delay(self, attempt: int) -> float:
        """Seconds to wait before attempt `attempt + 1` (attempt counts from 1)."""
        import random

        wait = min(self.max_interval, self.initial_interval * self.backoff_factor ** (attempt - 1))
        return wait + (random.uniform(0, 1) if self.jitter else 0.0)

# a node's trace: `add_node(..., trace_policy=TracePolicy(...))` (engine/trace_policy.py)
from .trace_policy import TracePolicy, omit_payload  # noqa: E402

__all__ += ["TracePolicy", "omit_payload"]
