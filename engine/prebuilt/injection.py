"""Tool arguments the model never sees, filled in by ToolNode: the graph's state, its
store, the tool call's id, the whole `ToolRuntime`, and any other `InjectedToolArg`.

An injected argument only ever comes from the graph: whatever the model's tool call
holds under an injected argument's name is dropped before the tool runs (`strip`), and
the graph's value is put in its place (`inject`).
"""
from __future__ import annotations

import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, Union

from langchain_core.tools import BaseTool, InjectedToolArg, InjectedToolCallId
from langchain_core.tools.base import _DirectlyInjectedToolArg, _is_injected_arg_type, get_all_basemodel_annotations
from typing_extensions import TypeVar

from ..runtime.tool_events import current_tool_writer

__all__ = ["InjectedState", "InjectedStore", "InjectedToolCallId", "ToolRuntime", "Injections", "injections_of",
           "inject", "STORE_MISSING"]

ContextT = TypeVar("ContextT", default=None)
StateT = TypeVar("StateT", default=dict[str, Any])  # a default, as LangGraph's: ToolRuntime[Ctx]

STORE_MISSING = ("Cannot inject store into tools with InjectedStore annotations - "
                 "please compile your graph with a store.")
"""The error of a tool that asks for the store in a graph compiled without one (LangGraph's words)."""


class InjectedState(InjectedToolArg):  # type: ignore[misc]  # langchain-core (an optional extra) is checked as Any
    """`Annotated[dict, InjectedState]` gets the whole state; `InjectedState("key")` one key."""

    def __init__(self, field: str | None = None) -> None:
        self.field = field


class InjectedStore(InjectedToolArg):  # type: ignore[misc]
    """`Annotated[BaseStore, InjectedStore()]` gets the graph's store."""


def _drop(_chunk: Any) -> None:
    """The stream writer of a ToolRuntime made outside a run."""


@dataclass
class ToolRuntime(_DirectlyInjectedToolArg, Generic[ContextT, StateT]):  # type: ignore[misc]
    """What a tool with a `runtime: ToolRuntime` parameter is given: the state, the tool
    call's id, the config, the run's context, store and stream writer, and the tools of
    its ToolNode. Never part of the schema the model sees."""

    state: StateT
    context: ContextT
    config: dict[str, Any]
    stream_writer: Callable[[Any], None]
    tool_call_id: str | None
    store: Any
    tools: list[BaseTool] = field(default_factory=list)
    execution_info: Any = None
    server_info: Any = None

    def emit_output_delta(self, delta: Any) -> None:
        """A partial output of this tool call on the `tools` stream (dropped when the run
        does not stream `tools`, as in LangGraph)."""
        write = current_tool_writer.get()
        if write is not None:
            write(delta)


@dataclass(frozen=True, kw_only=True)
class Injections:
    """Which arguments of one tool the graph fills in."""

    state: dict[str, str | None] = field(default_factory=dict)
    """argument -> state key (None: the whole state)."""
    store: str | None = None
    runtime: str | None = None
    call_id: tuple[str, ...] = ()
    hidden: frozenset[str] = frozenset()
    """Every argument the model may not set (all the injected kinds, custom ones too)."""
    optional_state: frozenset[str] = frozenset()
    """State arguments with a default: a state without their key leaves them out."""

    def __bool__(self) -> bool:
        return bool(self.hidden or self.state or self.store or self.runtime or self.call_id)


def _marks(hint: Any, kind: type) -> list[Any]:
    """The `kind` markers of an annotation: Annotated metadata, Optional/Union members, a
    `kind` class itself (ToolRuntime) or a parametrized one (ToolRuntime[Ctx])."""
    if isinstance(hint, kind) or (isinstance(hint, type) and issubclass(hint, kind)):
        return [hint]
    origin = typing.get_origin(hint)
    if origin is typing.Annotated:
        args = typing.get_args(hint)
        found = [m for m in args[1:] if isinstance(m, kind) or (isinstance(m, type) and issubclass(m, kind))]
        return found or _marks(args[0], kind)
    if origin is Union or origin is types.UnionType:
        return [m for a in typing.get_args(hint) for m in _marks(a, kind)]
    if isinstance(origin, type) and issubclass(origin, kind):
        return [hint]
    return []


def _annotations(tool: BaseTool) -> dict[str, Any]:
    """The tool's argument annotations, with their Annotated metadata (schema wins)."""
    out: dict[str, Any] = {}
    fn = getattr(tool, "func", None) or getattr(tool, "coroutine", None)
    if fn is not None:
        try:
            out.update(typing.get_type_hints(fn, include_extras=True))
        except Exception:  # noqa: BLE001 - an unresolvable forward reference: read the schema
            pass
        out.pop("return", None)
    try:
        out.update(get_all_basemodel_annotations(tool.get_input_schema()))
    except Exception:  # noqa: BLE001 - a schema langchain-core cannot read: the function's hints
        pass
    return out


def injections_of(tool: BaseTool) -> Injections:
    """Which arguments of `tool` ToolNode fills in, read from their annotations."""
    state: dict[str, str | None] = {}
    store = runtime = None
    call_id: list[str] = []
    hidden: set[str] = set()
    optional: set[str] = set()
    try:
        fields = getattr(tool.get_input_schema(), "model_fields", {})
    except Exception:  # noqa: BLE001
        fields = {}
    for name, hint in _annotations(tool).items():
        if _is_injected_arg_type(hint) or _marks(hint, InjectedToolArg) or _marks(hint, _DirectlyInjectedToolArg):
            hidden.add(name)
        if name == "runtime":
            runtime = name
            hidden.add(name)
        for mark in _marks(hint, InjectedState)[:1]:
            state[name] = mark.field if isinstance(mark, InjectedState) else None
            info = fields.get(name)
            if state[name] and info is not None and not info.is_required():
                optional.add(name)
        if _marks(hint, InjectedStore):
            store = name
        if _marks(hint, ToolRuntime):
            runtime = name
        if _marks(hint, InjectedToolCallId):
            call_id.append(name)
    return Injections(state=state, store=store, runtime=runtime, call_id=tuple(call_id),
                      hidden=frozenset(hidden), optional_state=frozenset(optional))


def _state_values(inj: Injections, state: Any, tool: str, messages_key: str) -> dict[str, Any]:
    if isinstance(state, list):
        fields = list(inj.state.values())
        if fields[0] is None or fields == [messages_key]:
            state = {messages_key: state}
        else:
            wanted = ", ".join(f for f in fields if f)
            raise ValueError(f"Invalid input to ToolNode. Tool {tool} requires graph state dict as input."
                             + (f" State should contain fields {wanted}." if wanted else ""))
    out: dict[str, Any] = {}
    for arg, key in inj.state.items():
        if key is None:
            out[arg] = state
        elif isinstance(state, dict):
            if key in state:
                out[arg] = state[key]
            elif arg not in inj.optional_state:
                raise KeyError(key)
        elif hasattr(state, key):
            out[arg] = getattr(state, key)
        elif arg not in inj.optional_state:
            raise AttributeError(key)
    return out


def inject(call: dict[str, Any], inj: Injections, runtime: ToolRuntime[Any, Any], messages_key: str) -> dict[str, Any]:
    """The tool call the tool is invoked with: the model's arguments without any injected
    one, then the graph's values for them."""
    if not inj:
        return call
    given: dict[str, Any] = {}
    if inj.state:
        given.update(_state_values(inj, runtime.state, call["name"], messages_key))
    if inj.store:
        if runtime.store is None:
            raise ValueError(STORE_MISSING)
        given[inj.store] = runtime.store
    if inj.runtime:
        given[inj.runtime] = runtime
    # InjectedToolCallId: langchain-core fills it in from the call's id (the model's value is dropped here)
    args = {k: v for k, v in (call.get("args") or {}).items() if k not in inj.hidden and k not in inj.call_id}
    return {**call, "args": {**args, **given}}
