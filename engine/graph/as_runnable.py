"""A compiled graph as a LangChain Runnable, for `graph | other` chains (LangGraph's
compiled graphs are Runnables).

The graph itself is not a Runnable (langchain-core is an optional extra); piping one
wraps it in `GraphRunnable`, whose invoke/stream/ainvoke/astream are the graph's own,
so a chain streams the graph's chunks ("updates" by default) as LangGraph's does.
A chain that starts with a LangChain runnable (`runnable | graph`) is built by
LangChain, which accepts only its own Runnables there: write
`runnable | as_runnable(graph)`.
"""
from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..runtime.protocols import CompiledGraph

__all__ = ["as_runnable"]

_CLASS: Any = None


def as_runnable(graph: CompiledGraph) -> Any:
    """`graph` wrapped as a langchain-core Runnable (needs `retrograph[langchain]`)."""
    global _CLASS
    if _CLASS is None:
        _CLASS = _make_class()
    return _CLASS(graph)


def _make_class() -> Any:
    try:
        from langchain_core.runnables import Runnable
    except ImportError:
        raise ImportError(
            "chaining a graph with `|` needs langchain-core: pip install 'retrograph[langchain]'"
        ) from None

    class GraphRunnable(Runnable):  # type: ignore[misc]
        """A compiled graph in a LangChain chain: every call goes to the graph."""

        def __init__(self, graph: CompiledGraph) -> None:
            self.graph = graph
            self.name = graph.name

        def invoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
            return self.graph.invoke(input, config, **kwargs)

        async def ainvoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
            return await self.graph.ainvoke(input, config, **kwargs)

        def stream(self, input: Any, config: Any = None, **kwargs: Any) -> Iterator[Any]:
            yield from self.graph.stream(input, config, **kwargs)

        async def astream(self, input: Any, config: Any = None, **kwargs: Any) -> AsyncIterator[Any]:
            async for chunk in self.graph.astream(input, config, **kwargs):
                yield chunk

        def get_graph(self, config: Any = None) -> Any:
            return self.graph.get_graph()

        def __repr__(self) -> str:
            return f"GraphRunnable({self.graph!r})"

    return GraphRunnable
