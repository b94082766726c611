"""Building, compiling and drawing graphs.

The drawing side (`DrawableGraph`, `Layout`, `layout`) loads networkx and is imported on
first use (`import engine` stays light: issue 24's import budget)."""
from typing import TYPE_CHECKING, Any

from .builder import Branch, StateGraph, is_subgraph
from ..specs import NodeSpec
from .compiled import CompiledStateGraph
from .message_graph import MessageGraph

if TYPE_CHECKING:
    from .drawing import DrawableGraph
    from .render import Layout, layout

__all__ = ["StateGraph", "MessageGraph", "CompiledStateGraph", "NodeSpec", "Branch", "DrawableGraph", "Layout", "layout", "is_subgraph"]


def __getattr__(name: str) -> Any:
    if name == "DrawableGraph":
        from .drawing import DrawableGraph

        return DrawableGraph
    if name in ("Layout", "layout"):
        from . import render

        return getattr(render, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
