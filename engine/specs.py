"""What the builder records and the runtime reads, with no dependency on either: a node as
added (`NodeSpec`), a conditional edge (`Branch`), the builder's fields as compiling,
validating and drawing read them (`GraphDefinition`, so none of them names `StateGraph`), and what is learnt from a user's callable (does it take
`config`/`writer`, which `Literal` targets does its return hint name, is it a subgraph or a
LangChain Runnable).

A leaf module: `graph` and `runtime` both import it, and it imports neither, so the
direction runtime -> graph never needs an import hidden in a function.
"""
from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, get_args, get_origin, get_type_hints

__all__ = ["NodeSpec", "NodeCallable", "GraphDefinition", "Branch", "accepts_config", "injected_params",
           "literal_targets", "is_subgraph", "is_runnable", "subgraph_in_closure"]


@dataclass(frozen=True, kw_only=True)
class Branch:
    """A conditional edge: `router(state)` decides where to go after `source`."""

    source: str
    router: Callable[..., Any]
    path_map: dict[Hashable, str] | None
    name: str
    input_schema: Any = None
    """The schema hinted on the router's first parameter, when not the state's: the router
    sees only its keys (private state keys included), as a node with an input schema does."""


def literal_targets(fn: Callable[..., Any], *, commands_only: bool = False) -> tuple[str, ...] | None:
    """The names in a `-> Literal["a", "b"]` return hint (also inside Command[...]); with
    `commands_only` (a node's hint, as LangGraph reads it) only those inside `Command[...]`:
    a node hinted `-> Literal["a"]` returns a state update, not a destination."""
    try:
        hints = get_type_hints(fn)
    except Exception:
        hints = getattr(fn, "__annotations__", {}) or {}
    ret = hints.get("return")
    if ret is None:
        return None
    if commands_only:
        from .types import Command

        members = get_args(ret) if get_origin(ret) is not Command else (ret,)
        commands = [m for m in members if get_origin(m) is Command]
        if not commands:
            return None
        ret = tuple[tuple(commands)]  # type: ignore[misc]  # walked below like any hint
    found: list[str] = []

    def walk(tp: Any) -> None:
        if get_origin(tp) is Literal:
            found.extend(str(a) for a in get_args(tp))
        else:
            for a in get_args(tp):
                walk(a)

    walk(ret)
    return tuple(found) if found else None


_INJECTED = ("writer", "runtime", "store", "error")


def accepts_config(fn: Callable[..., Any]) -> tuple[bool, bool]:
    """Whether a node or router function takes `config` and/or `writer` besides the state."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return False, False
    params = list(sig.parameters.values())
    names = {p.name for p in params}
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    wants_config = "config" in names or (
        len(positional) >= 2 and positional[1].default is inspect.Parameter.empty
        and positional[1].name not in _INJECTED and not _is_runtime_hint(positional[1].annotation)
        and not _hint_named(positional[1].annotation, "NodeError")
    )
    return wants_config, "writer" in names


def injected_params(fn: Callable[..., Any]) -> tuple[tuple[str, str], ...]:
    """(parameter, what) pairs a run fills in for a node: what is "runtime" (a parameter
    named `runtime` or hinted `Runtime[...]`) or "store" (a parameter named `store`)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return ()
    out: list[tuple[str, str]] = []
    for i, p in enumerate(sig.parameters.values()):
        if i == 0 or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if p.name == "runtime" or _is_runtime_hint(p.annotation):
            out.append((p.name, "runtime"))
        elif p.name == "error" or _hint_named(p.annotation, "NodeError"):
            out.append((p.name, "error"))
        elif p.name == "store":
            out.append(("store", "store"))
    return tuple(out)


def _is_runtime_hint(annotation: Any) -> bool:
    return _hint_named(annotation, "Runtime")


def _hint_named(annotation: Any, name: str) -> bool:
    """Whether a parameter's hint is the class `name` (also `name[...]` or as a string)."""
    if annotation is inspect.Parameter.empty:
        return False
    if isinstance(annotation, str):
        return annotation.split("[", 1)[0].rsplit(".", 1)[-1] == name
    origin = get_origin(annotation) or annotation
    return getattr(origin, "__name__", "") == name


def is_subgraph(fn: Any) -> bool:
    """Whether a node is a compiled graph run as a child Run (not a LangChain Runnable,
    which also has `ainvoke` and `get_graph` but is simply invoked). Asked of the class, so
    that an object answering every attribute (a test's Mock) is a plain callable."""
    cls = type(fn)
    return hasattr(cls, "new_run") and hasattr(cls, "get_graph") and hasattr(fn, "schema")


def subgraph_in_closure(fn: Any) -> Any:
    """The compiled graph a function closes over (a wrapper that runs an agent), or None."""
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:  # a cell not filled yet
            continue
        if is_subgraph(value):
            return value
    return None


def is_runnable(fn: Any) -> bool:
    """Whether `fn` is a LangChain Runnable (a chain, a RunnableLambda, a tool). Only true
    when langchain-core was imported by someone: the engine never imports it for this."""
    runnables = sys.modules.get("langchain_core.runnables.base")
    return runnables is not None and isinstance(fn, runnables.Runnable) and not is_subgraph(fn)


@dataclass(frozen=True, kw_only=True)
class NodeSpec:
    """A node as added: its function (or compiled subgraph) and options."""

    name: str
    fn: Any
    metadata: dict[str, Any] = field(default_factory=dict)
    destinations: tuple[str, ...] = ()
    """Where a node returning Command(goto=...) may go (from `destinations=` or a
    `Command[Literal[...]]` return hint), for drawing."""
    destination_labels: dict[str, str] = field(default_factory=dict)
    """Edge labels of `destinations={target: label}`, for drawing."""
    retry: Any = None
    """A tuple of RetryPolicy (the first whose `retry_on` matches the error applies), or None."""
    defer: bool = False
    """Run only when nothing else is left to run (LangGraph's `defer=True`)."""
    input_schema: Any = None
    """The keys the node sees (from `input_schema=` or its first parameter's hint)."""
    cache_policy: Any = None
    error_handler: Any = None
    timeout: Any = None
    trace_policy: Any = None
    """What the node's own callback (trace) run records of its input and output (a TracePolicy)."""

    @property
    def is_subgraph(self) -> bool:
        return is_subgraph(self.fn)

    @property
    def runnable(self) -> NodeCallable:
        """LangGraph's `StateNodeSpec.runnable`, for code that reaches the function a node
        was given through it: `.func` (sync) or `.afunc` (async)."""
        fn = self.fn
        if inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None)):
            return NodeCallable(name=self.name, func=None, afunc=fn)
        return NodeCallable(name=self.name, func=fn, afunc=None)


@dataclass(frozen=True)
class NodeCallable:
    """A node's function as `NodeSpec.runnable` shows it (nothing runs through it)."""

    name: str
    func: Any
    afunc: Any


class GraphDefinition(Protocol):
    """The fields of a graph's builder that compiling, validating and drawing it read."""

    state_schema: Any
    input_schema: Any
    output_schema: Any
    context_schema: Any
    nodes: dict[str, NodeSpec]
    edges: list[tuple[str, str]]
    waiting_edges: list[tuple[tuple[str, ...], str]]
    branches: dict[str, dict[str, Branch]]
    node_defaults: dict[str, Any]

    def validate(self, interrupt: Sequence[str] = ()) -> None: ...
