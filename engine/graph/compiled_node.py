"""What `compiled.nodes[name]` gives: a node as the compiled graph runs it.

LangGraph code reads a compiled graph's nodes as node objects (`.bound`, `.metadata`,
`.retry_policy`, `.copy(update)`), not as bare functions. A CompiledNode carries the node's
function and the options the graph runs it with; it is a read-only description (changing
a copy changes nothing in the graph). It stays callable: calling it calls the node's
function, as `compiled.nodes[name](state)` did when `nodes` held the functions.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..constants import START
from ..specs import is_subgraph
from .subgraph_refs import referenced_subgraphs

__all__ = ["CompiledNode", "compiled_nodes"]


@dataclass(frozen=True, eq=False)
class CompiledNode:
    """One node of a compiled graph: its function (`bound`) and how it runs."""

    name: str
    bound: Any
    """The function, Runnable or compiled subgraph the node runs (None for `__start__`)."""
    triggers: list[str] = field(default_factory=list)
    """What makes it run, in LangGraph's words (`branch:to:<name>`)."""
    metadata: Mapping[str, Any] = field(default_factory=dict)
    retry_policy: Any = None
    cache_policy: Any = None
    timeout: Any = None
    error_handler: str | None = None
    """The node of its error handler (`__error_handler__<name>`), if it has one."""

    @property
    def fn(self) -> Any:
        """The node's function (the same as `bound`)."""
        return self.bound

    @property
    def subgraphs(self) -> list[Any]:
        """The compiled graph this node runs as a subgraph, if it is one, or those its
        function's code reaches (a graph it invokes itself: subgraph_refs.py), as LangGraph's."""
        if is_subgraph(self.bound):
            return [self.bound]
        return referenced_subgraphs(self.bound) if callable(self.bound) else []

    def copy(self, update: Mapping[str, Any] | None = None) -> CompiledNode:
        """A copy with the fields in `update` replaced (an unknown field is a TypeError)."""
        update = dict(update or {})
        known = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(k for k in update if k not in known)
        if unknown:
            raise TypeError(f"CompiledNode.copy() got unknown field(s) {', '.join(map(repr, unknown))}; "
                            f"known: {', '.join(sorted(known))}")
        return dataclasses.replace(self, **update)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.bound is None:
            raise TypeError(f"node `{self.name}` has no function to call")
        return self.bound(*args, **kwargs)

    def invoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        """Run the node on `input` alone, outside the graph (its Runnable's `invoke`, or its function)."""
        if self.bound is None:
            raise TypeError(f"node `{self.name}` has no function to call")
        if hasattr(self.bound, "invoke"):
            return self.bound.invoke(input, config, **kwargs)
        return self.bound(input)

    async def ainvoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        """The async form of `invoke`."""
        if self.bound is not None and hasattr(self.bound, "ainvoke"):
            return await self.bound.ainvoke(input, config, **kwargs)
        out = self.invoke(input, config, **kwargs)
        return await out if hasattr(out, "__await__") else out

    def __repr__(self) -> str:
        return f"CompiledNode({self.name!r}, bound={self.bound!r})"


def compiled_nodes(graph: Any) -> dict[str, CompiledNode]:
    """The CompiledNodes of a compiled graph, in LangGraph's order: `__start__`, then each
    node (its error handler just before it); a handler for every node comes first."""
    runners = graph.runners
    specs = graph.builder.nodes
    views: dict[str, CompiledNode] = {START: CompiledNode(START, None, [START])}
    for name, runner in runners.items():
        if name == START or name not in specs:
            continue
        handler = runner.error_handler
        if handler is not None and handler not in views:
            views[handler] = CompiledNode(handler, runners[handler].fn, [f"branch:to:{handler}"])
        views[name] = CompiledNode(name, runner.fn, [f"branch:to:{name}"], metadata=dict(specs[name].metadata),
                               retry_policy=runner.retry, cache_policy=runner.cache_policy, timeout=runner.timeout,
                               error_handler=handler)
    return views
