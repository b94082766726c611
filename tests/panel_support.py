"""Shared by the panel tests: a small graph with every node and edge kind, and `shot()`,
which saves a panel as a PNG under /tmp/retrograph-panels for a person to look at."""
from __future__ import annotations

import os

from studio.core.records import EdgeShape, GraphShape, NodeShape

SHOTS = "/tmp/retrograph-panels"


def shot(widget, name: str) -> None:
    os.makedirs(SHOTS, exist_ok=True)
    widget.grab().save(f"{SHOTS}/{name}.png")


def N(id: str, kind: str = "node", label: str | None = None, **kw) -> NodeShape:
    return NodeShape(id=id, label=label or id, kind=kind, **kw)


def E(s: str, t: str, kind: str = "edge", label: str = "") -> EdgeShape:
    return EdgeShape(source=s, target=t, kind=kind, label=label)


def sample_graph() -> GraphShape:
    nodes = (N("__start__", "start", "START"), N("agent"), N("tools"), N("a"), N("b"), N("merge"),
             N("sub", "subgraph", subgraph_nodes=("sub:__start__", "sub:x", "sub:__end__")),
             N("sub:__start__", "start", "START"), N("sub:x", label="x"), N("sub:__end__", "end", "END"),
             N("agent|*", "any", "any node"), N("__end__", "end", "END"))
    edges = (E("__start__", "agent"), E("agent", "tools", "conditional", "tools"),
             E("agent", "__end__", "conditional", "end"), E("tools", "agent"), E("tools", "a"), E("tools", "b"),
             E("a", "merge", "join"), E("b", "merge", "join"), E("merge", "sub"), E("sub", "__end__"),
             E("sub:__start__", "sub:x"), E("sub:x", "sub:__end__"), E("agent", "agent|*", "dynamic", "route"))
    return GraphShape(name="sample", nodes=nodes, edges=edges)


def fan_out(width: int, *, end: EdgeShape | None = None) -> GraphShape:
    """START -> plan -> w000..w{width-1} -> join -> END (`end`: join's edge to END, a plain
    edge unless given): the wide fan-out the studio's repaint and zoom tests draw."""
    names = [f"w{i:03d}" for i in range(width)]
    nodes = (N("__start__", "start", "START"), N("plan"), *(N(n) for n in names), N("join"), N("__end__", "end", "END"))
    edges = (E("__start__", "plan"), *(E("plan", n) for n in names), *(E(n, "join") for n in names),
             end or E("join", "__end__"))
    return GraphShape(name="fan", nodes=nodes, edges=edges)
