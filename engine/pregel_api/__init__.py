"""LangGraph's low-level graph API (`langgraph.pregel`), a layer over the engine's graph.

`Pregel(nodes=..., channels=..., input_channels=..., output_channels=...)` with nodes built
by `NodeBuilder` is translated onto an engine graph (graph.py) and runs on the one `Run`.
"""
from .graph import Pregel
from .nodes import PASSTHROUGH, Channel, ChannelWrite, ChannelWriteEntry, NodeBuilder, PregelNode

__all__ = ["Pregel", "NodeBuilder", "PregelNode", "Channel", "ChannelWrite", "ChannelWriteEntry", "PASSTHROUGH"]
