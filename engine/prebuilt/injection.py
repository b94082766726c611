"""Tool arguments the model never sees, filled in by ToolNode: the graph's state, its
store, the tool call's id."""
from __future__ import annotations

import inspect
import typing
from dataclasses import dataclass
from typing import Any

from langchain_core.tools import BaseTool, InjectedToolArg, InjectedToolCallId

__all__ = ["InjectedState", "InjectedStore", "InjectedToolCallId", "Injections", "injections_of"]


class InjectedState(InjectedToolArg):  # type: ignore[misc]  # langchain-core (an optional extra) is checked as Any
    """`Annotated[dict, InjectedState]` gets the whole state; `InjectedState("key")` one key."""

    def __init__(self, field: str | None = None) -> None:
        self.field = field


class InjectedStore(InjectedToolArg):  # type: ignore[misc]
    """`Annotated[BaseStore, InjectedStore()]` gets the graph's store (None without one)."""


@dataclass(frozen=True, kw_only=True)
class Injections:
    state: dict[str, str | None]
    """argument -> state key (None: the whole state)."""
    store: tuple[str, ...] = ()
    call_id: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.state or self.store or self.call_id)


def _hints(tool: BaseTool) -> dict[str, Any]:
    """The tool's argument annotations, with their Annotated metadata."""
    out: dict[str, Any] = {}
    schema = getattr(tool, "args_schema", None)
    if isinstance(schema, type):
        try:
            out.update(typing.get_type_hints(schema, include_extras=True))
        except Exception:  # noqa: BLE001 - an unresolvable forward reference: look at the function
            pass
    fn = getattr(tool, "func", None) or getattr(tool, "coroutine", None)
    if fn is not None:
        try:
            hints = typing.get_type_hints(fn, include_extras=True)
        except Exception:  # noqa: BLE001
            hints = {}
        params = inspect.signature(fn).parameters
        out.update({k: v for k, v in hints.items() if k in params})
    return out


def injections_of(tool: BaseTool) -> Injections:
    """Which arguments of `tool` ToolNode fills in, read from their annotations."""
    state: dict[str, str | None] = {}
    store: list[str] = []
    call_id: list[str] = []
    for name, hint in _hints(tool).items():
        for meta in getattr(hint, "__metadata__", ()):
            if meta is InjectedState or isinstance(meta, InjectedState):
                state[name] = getattr(meta, "field", None) if not isinstance(meta, type) else None
            elif meta is InjectedStore or isinstance(meta, InjectedStore):
                store.append(name)
            elif meta is InjectedToolCallId or isinstance(meta, InjectedToolCallId):
                call_id.append(name)
    return Injections(state=state, store=tuple(store), call_id=tuple(call_id))
