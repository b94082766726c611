"""Building and compiling graphs."""
from .builder import Branch, NodeSpec, StateGraph
from .compiled import CompiledStateGraph

__all__ = ["StateGraph", "CompiledStateGraph", "NodeSpec", "Branch"]
