"""Building, compiling and drawing graphs."""
from .builder import Branch, NodeSpec, StateGraph
from .compiled import CompiledStateGraph
from .drawing import DrawableGraph
from .render import Layout, layout

__all__ = ["StateGraph", "CompiledStateGraph", "NodeSpec", "Branch", "DrawableGraph", "Layout", "layout"]
