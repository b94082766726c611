"""A small graph with every node and edge kind, shared by the graph panel and layout tests."""
from __future__ import annotations

from studio.viewmodel import EdgeView, GraphView, NodeView


def N(id: str, kind: str = "node", label: str | None = None, **kw) -> NodeView:
    return NodeView(id=id, label=label or id, kind=kind, **kw)


def E(s: str, t: str, kind: str = "edge", label: str = "") -> EdgeView:
    return EdgeView(source=s, target=t, kind=kind, label=label)


def sample_graph() -> GraphView:
    nodes = (N("__start__", "start", "START"), N("agent"), N("tools"), N("a"), N("b"), N("merge"),
             N("sub", "subgraph", subgraph_nodes=("sub:__start__", "sub:x", "sub:__end__")),
             N("sub:__start__", "start", "START"), N("sub:x", label="x"), N("sub:__end__", "end", "END"),
             N("agent|*", "any", "any node"), N("__end__", "end", "END"))
    edges = (E("__start__", "agent"), E("agent", "tools", "conditional", "tools"),
             E("agent", "__end__", "conditional", "end"), E("tools", "agent"), E("tools", "a"), E("tools", "b"),
             E("a", "merge", "join"), E("b", "merge", "join"), E("merge", "sub"), E("sub", "__end__"),
             E("sub:__start__", "sub:x"), E("sub:x", "sub:__end__"), E("agent", "agent|*", "dynamic", "route"))
    return GraphView(name="sample", nodes=nodes, edges=edges)
