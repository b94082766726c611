"""Building, compiling and drawing graphs."""
from .builder import Branch, NodeSpec, StateGraph, is_subgraph
from .compiled import CompiledStateGraph
from .drawing import DrawableGraph
from .render import Layout, layout

__all__ = ["StateGraph", "CompiledStateGraph", "NodeSpec", "Branch", "DrawableGraph", "Layout", "layout", "is_subgraph"]
