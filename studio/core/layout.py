"""Graphviz `dot` layout of a `GraphShape`, as plain coordinates (Qt-free).

The graph panel calls `layout_graph` on a worker thread and draws the result as Qt items.
Coordinates are in points with y pointing down (Qt's convention), origin top-left.

The DOT is written and run by the engine's one builder (`engine.graph.dot`, which also
holds graphviz's lock: graphviz is not thread-safe); this module describes the shape for
it (measured box sizes, blank label boxes, join points, back-edge ports). Big graphs use a fast
mode: dot still ranks and orders the nodes, but edges are straight segments and their
labels float beside them (`xlabel`), which keeps a 200-node graph well under a second
where full spline routing can take a minute on a tangled graph.
"""
from __future__ import annotations

import math
import time
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from engine.constants import END, START
from engine.graph.dot import DotCluster, DotEdge, DotGraph, DotNode, Html, laid_out, parse_point, parse_spline

from .records import EdgeShape, GraphShape, NodeKind, NodeShape

__all__ = ["NodeBox", "EdgePath", "ClusterBox", "GraphLayout", "layout_graph", "estimate_size",
           "FAST_NODES", "FAST_EDGES", "JOIN_PREFIX"]

FAST_NODES = 60
FAST_EDGES = 120
"""Above either size, `layout_graph` uses the fast mode unless told otherwise."""

JOIN_PREFIX = "⋈"
"""Id prefix of the join points drawn where the edges of a waiting edge meet."""

_DPI = 72.0

Point = tuple[float, float]

_BACK_EDGE = {"tailport": "e", "headport": "e"}
"""A loop back to a node above leaves and enters on the right side, so it bends around
the forward edges instead of running on top of them."""


@dataclass(frozen=True, kw_only=True)
class NodeBox:
    id: str
    label: str
    kind: str
    """A NodeShape kind ("start", "end", "node", "subgraph", "any"), or "join"."""
    x: float
    """Centre."""
    y: float
    w: float
    h: float


@dataclass(frozen=True, kw_only=True)
class EdgePath:
    source: str
    target: str
    """The ends as the GraphShape names them (a join point's segments name the join)."""
    kind: str
    label: str
    points: tuple[Point, ...]
    """A cubic Bézier chain: start, then three points per segment."""
    arrow: tuple[Point, Point] | None
    """(base, tip) of the arrowhead, or None for a segment into a join point."""
    label_pos: Point | None
    index: int
    """The edge's position in `GraphShape.edges`, or -1 for a join point's exit segment."""


@dataclass(frozen=True, kw_only=True)
class ClusterBox:
    id: str
    """The subgraph node this cluster stands for."""
    label: str
    x: float
    """Top-left corner."""
    y: float
    w: float
    h: float
    label_pos: Point | None


@dataclass(frozen=True, kw_only=True)
class GraphLayout:
    nodes: Mapping[str, NodeBox]
    edges: tuple[EdgePath, ...]
    clusters: tuple[ClusterBox, ...]
    width: float
    height: float
    fast: bool
    seconds: float
    """Time spent in graphviz (and building its graph)."""


def estimate_size(node: NodeShape) -> tuple[float, float]:
    """A box size in points when the caller has no font metrics."""
    if node.kind in ("start", "end"):
        return 64.0, 26.0
    if node.kind == "any":
        return 84.0, 30.0
    return max(64.0, 7.2 * len(node.label) + 30.0), 32.0


class _Plan:
    """The GraphShape turned into what dot sees: clusters, redirected ends, join points."""

    def __init__(self, view: GraphShape) -> None:
        self.nodes: dict[str, NodeShape] = {n.id: n for n in view.nodes}
        self.members: dict[str, tuple[str, ...]] = {}
        for node in view.nodes:
            if node.subgraph_nodes:
                self.members[node.id] = node.subgraph_nodes
        for inner in {m for ms in self.members.values() for m in ms}:
            if inner not in self.nodes:  # named in subgraph_nodes only: draw it anyway
                short = inner.rsplit(":", 1)[-1]
                kind: NodeKind = "start" if short == START else "end" if short == END else "node"
                label = {"start": "START", "end": "END"}.get(kind, short)
                self.nodes[inner] = NodeShape(id=inner, label=label, kind=kind)
        self.parent: dict[str, str] = {m: sub for sub, ms in self.members.items() for m in ms}
        for edge in view.edges:
            for end in (edge.source, edge.target):
                if end not in self.nodes:
                    self.nodes[end] = NodeShape(id=end, label="any node", kind="any")

    def drawn(self) -> list[NodeShape]:
        """The nodes dot places (a subgraph with members is a cluster, not a box)."""
        return [n for n in self.nodes.values() if n.id not in self.members]

    def entry(self, node_id: str) -> str:
        seen = set()
        while node_id in self.members and node_id not in seen:
            seen.add(node_id)
            ms = self.members[node_id]
            node_id = next((m for m in ms if m.endswith(START)), ms[0])
        return node_id

    def exit(self, node_id: str) -> str:
        seen = set()
        while node_id in self.members and node_id not in seen:
            seen.add(node_id)
            ms = self.members[node_id]
            node_id = next((m for m in ms if m.endswith("__end__")), ms[-1])
        return node_id


def back_edges(view: GraphShape) -> set[int]:
    """Indices of the edges that go back up the graph (a loop closing on a node above),
    found by a depth-first walk from START in edge order; self-loops are not included."""
    out: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for i, e in enumerate(view.edges):
        if e.source != e.target:
            out[e.source].append((i, e.target))
    found: set[int] = set()
    state: dict[str, int] = {}  # 1: on the walk's path, 2: done
    roots = [n.id for n in view.nodes if n.kind == "start"] + [n.id for n in view.nodes]
    for root in roots:
        if root in state:
            continue
        state[root] = 1
        stack = [(root, iter(out[root]))]
        while stack:
            node, edges = stack[-1]
            step = next(edges, None)
            if step is None:
                state[node] = 2
                stack.pop()
                continue
            i, target = step
            seen = state.get(target)
            if seen == 1:
                found.add(i)
            elif seen is None:
                state[target] = 1
                stack.append((target, iter(out[target])))
    return found


def _cluster_name(index: int) -> str:
    return f"cluster_{index}"


def layout_graph(view: GraphShape, sizes: Mapping[str, tuple[float, float]] | None = None, *,
                 fast: bool | None = None,
                 label_sizes: Mapping[str, tuple[float, float]] | None = None) -> GraphLayout:
    """Lay out `view` with graphviz dot; `sizes` gives node box sizes in points and
    `label_sizes` the size of each edge label as drawn (dot keeps that much room free)."""
    started = time.perf_counter()
    plan = _Plan(view)
    if not plan.nodes:
        return GraphLayout(nodes={}, edges=(), clusters=(), width=0.0, height=0.0, fast=False, seconds=0.0)
    if fast is None:
        fast = len(plan.nodes) > FAST_NODES or len(view.edges) > FAST_EDGES
    clusters = {sub: _cluster_name(i) for i, sub in enumerate(plan.members)}  # subgraph node -> cluster name
    body = _node_body(plan, sizes or {}, clusters)
    join_points = _join_points(view, plan, clusters, body)
    body += _edge_body(view, plan, clusters, join_points, fast, label_sizes)
    graph_attrs = _graph_attrs(plan, fast)
    g = laid_out(DotGraph(name="G", graph=graph_attrs, body=tuple(body),
                          node=dict(fixedsize="true", label="", shape="box"),
                          edge=dict(fontsize="9", fontname="Helvetica", arrowsize="0.7")))
    return _read(g, view, plan, clusters, join_points, fast, time.perf_counter() - started)


def _graph_attrs(plan: _Plan, fast: bool) -> dict[str, str]:
    graph_attrs = dict(rankdir="TB", nodesep="0.35", ranksep="0.45", fontsize="10", fontname="Helvetica",
                       compound="true", splines="false" if fast else "true", outputorder="edgesfirst")
    if fast:  # fewer network-simplex and crossing-minimisation passes
        graph_attrs.update(mclimit="0.05", searchsize="10")
        if not plan.members:
            # graphviz frees memory twice (and the process dies) when a graph with clusters
            # is ranked under so low a network-simplex limit: only cluster-free graphs get it
            graph_attrs.update(nslimit="0.05", nslimit1="0.05")
    return graph_attrs


def _node_body(plan: _Plan, sizes: Mapping[str, tuple[float, float]],
               clusters: dict[str, str]) -> list[DotNode | DotCluster | DotEdge]:
    """The drawn nodes as dot boxes of their sizes, and the subgraphs' clusters around them."""

    def cluster(sub: str) -> DotCluster:
        members: list[DotCluster | str] = [m for m in plan.members[sub] if m not in plan.members]
        members += [cluster(inner) for inner in plan.members[sub] if inner in plan.members]
        return DotCluster(name=clusters[sub], body=tuple(members), attrs=dict(
            label=plan.nodes[sub].label, labeljust="l", fontsize="10", margin="12"))

    body: list[DotNode | DotCluster | DotEdge] = []
    for node in plan.drawn():
        w, h = sizes.get(node.id) or estimate_size(node)
        shape = "ellipse" if node.kind in ("start", "end", "any") else "box"
        body.append(DotNode(id=node.id, attrs=dict(width=f"{w / _DPI:.3f}", height=f"{h / _DPI:.3f}", shape=shape)))
    body += [cluster(sub) for sub in plan.members if sub not in plan.parent]
    return body


def _join_points(view: GraphShape, plan: _Plan, clusters: dict[str, str],
                 body: list[DotNode | DotCluster | DotEdge]) -> dict[str, str]:
    """Target -> the point where the sources of its join meet (a join of two or more edges),
    each point and its one arrow to the target added to `body`."""
    joins: dict[str, list[int]] = defaultdict(list)
    for i, edge in enumerate(view.edges):
        if edge.kind == "join":
            joins[edge.target].append(i)
    join_points = {t: JOIN_PREFIX + t for t, idx in joins.items() if len(idx) > 1}
    for target, point in join_points.items():
        body.append(DotNode(id=point, attrs=dict(shape="point", width="0.1", height="0.1")))
        body.append(DotEdge(tail=point, head=plan.entry(target), attrs=dict(
            key="j" + point, id=f"x{len(view.edges)}", **_ends(plan, clusters, point, target))))
    return join_points


def _edge_body(view: GraphShape, plan: _Plan, clusters: dict[str, str], join_points: dict[str, str], fast: bool,
               label_sizes: Mapping[str, tuple[float, float]] | None) -> list[DotEdge]:
    """Each edge of the view as a dot edge (into its join point when it has one)."""
    label_attr = "xlabel" if fast else "label"
    backs = back_edges(view) if not fast else set()
    out = []
    for i, edge in enumerate(view.edges):
        target = join_points.get(edge.target, edge.target) if edge.kind == "join" else edge.target
        attrs: dict[str, object] = {"key": str(i), "id": f"e{i}", **_ends(plan, clusters, edge.source, target)}
        if target != edge.target:
            attrs["arrowhead"] = "none"  # the sources meet at the join point; one arrow leaves it
        if edge.label:
            attrs[label_attr] = _label(edge.label, label_sizes)
        if edge.kind in ("dynamic",) and plan.nodes[edge.target].kind == "any":
            attrs["weight"] = "0"
        if i in backs:
            attrs.update(_BACK_EDGE)
        out.append(DotEdge(tail=plan.exit(edge.source), head=plan.entry(target), attrs=attrs))
    return out


def _label(text: str, sizes: Mapping[str, tuple[float, float]] | None) -> str | Html:
    """The label as dot sees it: a blank box of the drawn size when it is known (dot's own
    font metrics differ from Qt's), else the text."""
    size = (sizes or {}).get(text)
    if size is None:
        return text
    w, h = (max(1, math.ceil(v)) for v in size)
    return Html(f'<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="0" FIXEDSIZE="TRUE" '
                f'WIDTH="{w}" HEIGHT="{h}"><TR><TD> </TD></TR></TABLE>')


def _ends(plan: _Plan, clusters: Mapping[str, str], source: str, target: str) -> dict[str, str]:
    attrs = {}
    if source in plan.members:
        attrs["ltail"] = clusters[source]
    if target in plan.members:
        attrs["lhead"] = clusters[target]
    return attrs


def _read(g: object, view: GraphShape, plan: _Plan, clusters: Mapping[str, str],
          join_points: Mapping[str, str], fast: bool, seconds: float) -> GraphLayout:
    llx, lly, urx, ury = (float(v) for v in g.graph_attr["bb"].split(","))  # type: ignore[attr-defined]

    def flip(p: Point) -> Point:
        return p[0] - llx, ury - p[1]

    boxes: dict[str, NodeBox] = {}
    for n in g.nodes():  # type: ignore[attr-defined]
        name = str(n)
        x, y = flip(parse_point(n.attr["pos"]))
        w, h = float(n.attr["width"]) * _DPI, float(n.attr["height"]) * _DPI
        if name.startswith(JOIN_PREFIX) and name not in plan.nodes:
            boxes[name] = NodeBox(id=name, label="", kind="join", x=x, y=y, w=w, h=h)
        else:
            node = plan.nodes[name]
            boxes[name] = NodeBox(id=name, label=node.label, kind=node.kind, x=x, y=y, w=w, h=h)

    paths = []
    for e in g.edges():  # type: ignore[attr-defined]
        ident = e.attr.get("id") or ""
        points, arrow = _spline(e.attr.get("pos") or "", flip)
        if not points:
            continue
        lp = e.attr.get("lp") or e.attr.get("xlp")
        label_pos = flip(parse_point(lp)) if lp else None
        if ident.startswith("x"):  # a join point's exit
            point = str(e[0])
            target = next(t for t, p in join_points.items() if p == point)
            paths.append(EdgePath(source=point, target=target, kind="join", label="", points=points,
                                  arrow=arrow, label_pos=None, index=-1))
            continue
        i = int(ident[1:])
        edge: EdgeShape = view.edges[i]
        into_join = edge.kind == "join" and edge.target in join_points
        paths.append(EdgePath(source=edge.source, target=join_points[edge.target] if into_join else edge.target,
                              kind=edge.kind, label=edge.label, points=points,
                              arrow=None if into_join else arrow, label_pos=label_pos, index=i))

    boxes_out = []
    by_name = {name: sub for sub, name in clusters.items()}

    def walk(graph: object) -> None:
        for sg in graph.subgraphs():  # type: ignore[attr-defined]
            sub = by_name.get(sg.name)
            bb = sg.graph_attr.get("bb")
            if sub is not None and bb:
                x0, y0, x1, y1 = (float(v) for v in bb.split(","))
                lp = sg.graph_attr.get("lp")
                boxes_out.append(ClusterBox(id=sub, label=plan.nodes[sub].label, x=x0 - llx, y=ury - y1,
                                            w=x1 - x0, h=y1 - y0, label_pos=flip(parse_point(lp)) if lp else None))
            walk(sg)

    walk(g)
    return GraphLayout(nodes=boxes, edges=tuple(paths), clusters=tuple(boxes_out), width=urx - llx,
                       height=ury - lly, fast=fast, seconds=seconds)


def _spline(pos: str, flip: Callable[[Point], Point]) -> tuple[tuple[Point, ...], tuple[Point, Point] | None]:
    """dot's `pos` of an edge, flipped to the scene: its points and its arrow (last point,
    tip); nothing for a spline of fewer than two points."""
    points, end = parse_spline(pos, lambda text: flip(parse_point(text)))
    if len(points) < 2:
        return (), None
    return points, ((points[-1], end) if end is not None else None)
