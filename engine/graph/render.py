"""Graphviz for the drawable graph: DOT text, PNG/SVG rendering and `dot` layout.

`describe()` turns the drawable graph into a `DotGraph`; the one DOT builder (`.dot`)
writes its text and runs graphviz, for the engine and the studio alike. `to_dot()` is
pure text. `layout()` (also `get_graph().layout()`) gives node boxes, edge splines and label positions, in points with the origin at the top left
and y growing downwards (a canvas's convention). The studio describes its own records in
`studio.core.layout` (sizes measured by Qt, join points, back-edge ports) through the same
`.dot` builder.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import networkx as nx

from ..constants import END, START
from .dot import DotCluster, DotEdge, DotGraph, DotNode, draw, dot_text, laid_out, parse_point, parse_spline

__all__ = ["LARGE_GRAPH_EDGES", "EdgeGeometry", "Layout", "NodeGeometry", "describe", "layout", "render", "to_dot"]

Point = tuple[float, float]

LARGE_GRAPH_EDGES = 80
"""Above this many edges, `dot` runs with bounded effort and edge labels no longer take
part in ranking (they become `xlabel`s), which keeps a 400-edge layout well under a second."""

_FONT = "Helvetica"
_GRAPH = {
    "rankdir": "TB", "bgcolor": "white", "pad": "0.2", "nodesep": "0.35", "ranksep": "0.45",
    "fontname": _FONT, "compound": "true",
}
_FAST = {"mclimit": "0.1", "nslimit": "2", "nslimit1": "2", "searchsize": "20"}
_NODE_DEFAULT = {
    "shape": "box", "style": "rounded,filled", "fillcolor": "#f2f0ff", "color": "#6d5dfc",
    "fontname": _FONT, "fontsize": "12", "height": "0.4", "margin": "0.16,0.06",
}
_EDGE_DEFAULT = {"fontname": _FONT, "fontsize": "10", "color": "#4b5563", "arrowsize": "0.8"}
_NODE_STYLE: dict[str, dict[str, str]] = {
    "node": {},
    "start": {"fillcolor": "#1f2937", "color": "#1f2937", "fontcolor": "white", "fontsize": "10"},
    "end": {"fillcolor": "#bfb6fc", "color": "#6d5dfc", "fontsize": "10"},
    "subgraph": {"style": "rounded,filled,bold", "fillcolor": "#e0f2fe", "color": "#0369a1"},
    "any": {"style": "rounded,dashed", "color": "#d97706", "fontcolor": "#b45309", "fontsize": "10"},
}
_EDGE_STYLE: dict[str, dict[str, str]] = {
    "edge": {},
    "join": {"style": "bold", "penwidth": "2.2", "color": "#059669"},
    "conditional": {"style": "dashed", "color": "#2563eb", "fontcolor": "#1d4ed8"},
    "command": {"style": "dashed", "color": "#7c3aed", "fontcolor": "#6d28d9", "arrowhead": "vee"},
    "dynamic": {"style": "dotted", "penwidth": "1.6", "color": "#d97706", "fontcolor": "#b45309"},
}
_TAKEN = {"style": "dashed", "penwidth": "1.6", "color": "#d97706"}
_CLUSTER = {"style": "rounded,filled", "fillcolor": "#f8fafc", "color": "#0369a1", "fontsize": "11",
            "labeljust": "l", "margin": "10"}


# -- DOT --------------------------------------------------------------------------------
def _is_cluster(data: Mapping[str, Any]) -> bool:
    return data.get("kind") == "subgraph" and bool(data.get("subgraph_nodes"))


def _anchor(g: nx.DiGraph, node: str, end: str) -> str:
    """The DOT node an edge touching `node` attaches to: an expanded subgraph is a
    cluster, so edges go into its START and leave from its END (`end` is "head"/"tail")."""
    while _is_cluster(g.nodes[node]):
        node = f"{node}:{START if end == 'head' else END}"
    return node


def describe(g: nx.DiGraph, name: str = "graph", *, large: bool | None = None) -> DotGraph:
    """The drawable DiGraph described for dot; `large` (default: by edge count) trades
    layout effort and in-rank edge labels for speed."""
    if large is None:
        large = g.number_of_edges() > LARGE_GRAPH_EDGES
    children: dict[str | None, list[str]] = {}
    for n, d in g.nodes(data=True):
        children.setdefault(d.get("parent"), []).append(n)

    def members(parent: str | None) -> tuple[DotNode | DotCluster, ...]:
        out: list[DotNode | DotCluster] = []
        for n in children.get(parent, ()):
            d = g.nodes[n]
            if _is_cluster(d):
                out.append(DotCluster(name="cluster_" + n, attrs={**_CLUSTER, "label": d.get("label", n)},
                                      body=members(n)))
                continue
            kind = d.get("kind", "node")
            attrs = {"label": d.get("label", n), **_NODE_STYLE.get(kind, {}), "class": f"node-{kind}"}
            if kind == "subgraph":
                attrs["tooltip"] = f"subgraph {d.get('label', n)}"
            out.append(DotNode(id=n, attrs=attrs))
        return tuple(out)

    edges: list[DotEdge] = []
    seen: set[tuple[str, str]] = set()
    for u, v, d in g.edges(data=True):
        kind = d.get("kind", "edge")
        attrs: dict[str, Any] = dict(_TAKEN) if d.get("taken") else dict(_EDGE_STYLE.get(kind, {}))
        label = d.get("label")
        if label:
            attrs["xlabel" if large else "label"] = f" {label} "
        attrs["class"] = f"edge-{kind}" + (" taken" if d.get("taken") else "")
        if u != v and (v, u) in seen:
            # The second edge of a two-node cycle: route it around the right-hand side
            # instead of on top of the first one.
            attrs.update(tailport="e", headport="e")
        seen.add((u, v))
        tail, head = _anchor(g, u, "tail"), _anchor(g, v, "head")
        if tail != u and not _inside(g, v, u):
            attrs["ltail"] = "cluster_" + u
        if head != v and not _inside(g, u, v):
            attrs["lhead"] = "cluster_" + v
        edges.append(DotEdge(tail=tail, head=head, attrs=attrs))
    return DotGraph(name=name, graph={**_GRAPH, **(_FAST if large else {})}, node=_NODE_DEFAULT,
                    edge=_EDGE_DEFAULT, body=(*members(None), *edges))


def to_dot(g: nx.DiGraph, name: str = "graph", *, large: bool | None = None) -> str:
    """DOT text for a drawable DiGraph (see `describe`)."""
    return dot_text(describe(g, name, large=large))


def _inside(g: nx.DiGraph, node: str, cluster: str) -> bool:
    """Whether `node` is `cluster` or nested in it (graphviz refuses lhead/ltail then)."""
    while node is not None:
        if node == cluster:
            return True
        node = g.nodes[node].get("parent")
    return False


# -- rendering ----------------------------------------------------------------------------
def render(g: nx.DiGraph, name: str, fmt: str, path: str | Path | None = None) -> bytes:
    """The graph rendered by graphviz `dot` to `fmt` (png, svg, pdf...); written to `path` too."""
    data = draw(describe(g, name), fmt)
    if path is not None:
        Path(path).write_bytes(data)
    return data


# -- layout -------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class NodeGeometry:
    """Where a node sits: its centre and size in points. For an expanded subgraph
    (`cluster=True`) the box is the cluster around its inner nodes."""

    id: str
    kind: str
    label: str
    x: float
    y: float
    width: float
    height: float
    cluster: bool = False

    @property
    def rect(self) -> tuple[float, float, float, float]:
        """(left, top, width, height)."""
        return (self.x - self.width / 2, self.y - self.height / 2, self.width, self.height)


@dataclass(frozen=True, kw_only=True)
class EdgeGeometry:
    """An edge's route: cubic Bezier control points (p0, c1, c2, p1, c1, c2, p2...),
    the arrowhead's tip (None when there is no arrowhead) and where its label goes."""

    source: str
    target: str
    kind: str
    label: str | None
    points: tuple[Point, ...]
    arrow_tip: Point | None
    label_pos: Point | None
    taken: bool = False


@dataclass(frozen=True, kw_only=True)
class Layout:
    """A graphviz `dot` layout of a drawable graph, in points, origin top left."""

    width: float
    height: float
    nodes: Mapping[str, NodeGeometry]
    edges: Mapping[tuple[str, str], EdgeGeometry]


def layout(g: nx.DiGraph, name: str = "graph") -> Layout:
    """Lay `g` out with graphviz `dot` and read back every node box and edge spline."""
    agraph = laid_out(describe(g, name))
    llx, lly, urx, ury = _floats(agraph.graph_attr["bb"])

    def point(text: str) -> Point:
        x, y = parse_point(text)
        return (x - llx, ury - y)

    clusters: dict[str, tuple[float, float, float, float]] = {}
    stack = list(agraph.subgraphs())
    while stack:
        sub = stack.pop()
        if sub.name.startswith("cluster_"):
            x0, y0, x1, y1 = _floats(sub.graph_attr["bb"])
            clusters[sub.name[len("cluster_"):]] = (x0, y0, x1, y1)
        stack.extend(sub.subgraphs())

    nodes: dict[str, NodeGeometry] = {}
    for n, d in g.nodes(data=True):
        kind, label = d.get("kind", "node"), str(d.get("label", n))
        if n in clusters:
            x0, y0, x1, y1 = clusters[n]
            nodes[n] = NodeGeometry(id=n, kind=kind, label=label, x=(x0 + x1) / 2 - llx,
                                    y=ury - (y0 + y1) / 2, width=x1 - x0, height=y1 - y0, cluster=True)
            continue
        attr = agraph.get_node(n).attr
        x, y = point(attr["pos"])
        nodes[n] = NodeGeometry(id=n, kind=kind, label=label, x=x, y=y,
                                width=float(attr["width"]) * 72, height=float(attr["height"]) * 72)

    edges: dict[tuple[str, str], EdgeGeometry] = {}
    for u, v, d in g.edges(data=True):
        attr = agraph.get_edge(_anchor(g, u, "tail"), _anchor(g, v, "head")).attr
        points, tip = parse_spline(attr.get("pos") or "", point)
        edge_label: str | None = d.get("label") or None
        lp = attr.get("lp") or attr.get("xlp")
        label_pos = point(lp) if lp else (points[len(points) // 2] if edge_label and points else None)
        edges[(u, v)] = EdgeGeometry(source=u, target=v, kind=d.get("kind", "edge"), label=edge_label,
                                     points=points, arrow_tip=tip, label_pos=label_pos,
                                     taken=bool(d.get("taken")))
    return Layout(width=urx - llx, height=ury - lly, nodes=nodes, edges=edges)


def _floats(text: str) -> tuple[float, ...]:
    return tuple(float(part) for part in text.split(","))
