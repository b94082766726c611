"""The drawable structure of a compiled graph: `compiled.get_graph()`.

A `DrawableGraph` holds a networkx `DiGraph` (`.nx`) whose nodes and edges carry a `kind`,
a `label` and, for edges, a `conditional` flag. DOT, Mermaid, PNG and SVG are rendered
from it, and `layout()` gives graphviz coordinates for the studio's interactive canvas.

Node kinds: `start`, `end`, `node`, `subgraph`, and `any`, the marker that dynamic routers
point at (see below). Edge kinds:

- `edge`: a plain edge, always taken.
- `join`: a waiting edge; one edge from each source, the target runs once all ran.
- `conditional`: a router with a path_map (labelled by its key) or a `Literal[...]`
  return hint (labelled by the router's name).
- `command`: a node's `Command(goto=...)` destinations, from `destinations=` or its
  `Command[Literal[...]]` return hint.
- `dynamic`: a router with neither a path_map nor a Literal hint may go to any node, so
  it is drawn as one dotted edge to an "any node" marker of its source (labelled with the
  router's name), never as an edge to END. A node hinted `-> Command` with no targets
  gets the same, labelled "Command". One marker per source keeps the dotted edge short
  and says "decided at run time" without fanning out to every node. Routes seen at run
  time are added with `add_taken_route()` (`taken=True`).

With `xray`, a subgraph node lists its inner nodes in `subgraph_nodes`; those nodes are
in the same DiGraph, named `"<subgraph>:<inner>"`, with `parent` set to the subgraph node.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_origin, get_type_hints

import networkx as nx

from ..constants import END, START
from ..types import Command
from ..specs import GraphDefinition, literal_targets
from .render import EdgeGeometry, Layout, NodeGeometry, layout, render, to_dot

if TYPE_CHECKING:
    from ..runtime.protocols import CompiledGraph

__all__ = [
    "DrawableGraph",
    "Edge",
    "EdgeGeometry",
    "EdgeKind",
    "Layout",
    "Node",
    "NodeGeometry",
    "NodeKind",
    "any_marker",
    "layout",
    "to_mermaid",
]

NodeKind = Literal["start", "end", "node", "subgraph", "any"]
EdgeKind = Literal["edge", "join", "conditional", "command", "dynamic"]

# When two rules connect the same pair of nodes, the edge keeps the kind a reader most
# needs to see: an edge that is always taken beats one that may be.
_PRIORITY: dict[str, int] = {"edge": 0, "join": 1, "conditional": 2, "command": 3, "dynamic": 4}


def any_marker(source: str) -> str:
    """The id of the "any node" marker a dynamic router of `source` points at.

    `|` cannot appear in node names, so the id never clashes with a real node.
    """
    return f"{source}|*"


@dataclass(frozen=True, kw_only=True)
class Node:
    """A node as LangGraph's `get_graph().nodes` shows it (`id`, `name`, `data`)."""

    id: str
    name: str
    kind: NodeKind
    data: Any = None
    metadata: dict[str, Any] | None = None


class Edge(tuple):  # type: ignore[type-arg]
    """An edge as LangGraph's `get_graph().edges` shows it: the tuple `(source, target,
    data, conditional)` (so it equals LangChain's `Edge`), `data` being its label; `kind`
    (see the module docstring) rides beside it."""

    kind: EdgeKind

    def __new__(cls, source: str, target: str, data: str | None = None, conditional: bool = False, *,
                kind: EdgeKind = "edge") -> Edge:
        edge = super().__new__(cls, (source, target, data, conditional))
        edge.kind = kind
        return edge

    @property
    def source(self) -> str:
        return self[0]  # type: ignore[no-any-return]

    @property
    def target(self) -> str:
        return self[1]  # type: ignore[no-any-return]

    @property
    def data(self) -> str | None:
        return self[2]  # type: ignore[no-any-return]

    @property
    def conditional(self) -> bool:
        return self[3]  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        return (f"Edge(source={self.source!r}, target={self.target!r}, data={self.data!r}, "
                f"conditional={self.conditional!r}, kind={self.kind!r})")


@dataclass
class DrawableGraph:
    """A compiled graph's structure, as a networkx DiGraph plus renderers."""

    nx: nx.DiGraph
    name: str = "LangGraph"
    functions: dict[str, Any] = field(default_factory=dict, repr=False)
    """Node id -> the function (or compiled subgraph) behind it, for `nodes[...].data`."""
    compiled: Any = field(default=None, repr=False, compare=False)
    """The compiled graph drawn, for LangGraph's view of it (draw_mermaid, to_json)."""
    xray: int = 0
    """How many levels of subgraphs LangGraph's view expands."""

    # -- building -------------------------------------------------------------------
    @classmethod
    def from_compiled(cls, compiled: CompiledGraph, *, xray: bool | int = False) -> DrawableGraph:
        """The structure of `compiled`; `xray` expands subgraphs (True: all levels, n: n levels)."""
        builder = compiled.builder
        g, functions = _structure(compiled)
        depth = _depth(xray)
        if depth:
            for name, spec in builder.nodes.items():
                if spec.is_subgraph and hasattr(spec.fn, "builder"):
                    inner = cls.from_compiled(spec.fn, xray=depth - 1 if depth > 1 else False)
                    _expand(g, name, inner, functions)
        return cls(nx=g, name=compiled.name, functions=functions, compiled=compiled, xray=depth)

    def add_taken_route(self, source: str, target: str) -> bool:
        """Record that `source` went to `target` at run time; True when the drawing changed.

        The studio calls this for routers drawn as dynamic. An edge already drawn between
        the two is left as it is; otherwise a dynamic edge marked `taken=True` is added.
        """
        g = self.nx
        if source not in g or source == END or (target not in g and target != END) or target == START:
            raise ValueError(
                f"cannot add the route `{source}` -> `{target}`: both must be nodes of this graph "
                "(and the route cannot leave END or enter START)"
            )
        if g.has_edge(source, target):
            return False
        if target == END:
            g.add_node(END, kind="end", label="END")
        if g.nodes[source].get("subgraph_nodes") and f"{source}:{END}" not in g:
            _give_end(g, source)
        g.add_edge(source, target, kind="dynamic", label=None, conditional=True, taken=True)
        return True

    # -- LangGraph-compatible views ------------------------------------------------
    @property
    def nodes(self) -> dict[str, Node]:
        """Node id -> Node, like LangGraph's `get_graph().nodes`."""
        return {
            n: Node(id=n, name=n if d["kind"] in ("start", "end") else d.get("label", n),
                    kind=d["kind"], data=self.functions.get(n), metadata=self._metadata(n, d.get("metadata")))
            for n, d in self.nx.nodes(data=True)
        }

    def _metadata(self, node: str, given: dict[str, Any] | None) -> dict[str, Any] | None:
        """A node's metadata, plus its breakpoints as LangGraph shows them (`__interrupt`)."""
        if self.compiled is None:
            return given
        from .lg_view import node_metadata

        return node_metadata(self.compiled, node, given)

    @property
    def edges(self) -> list[Edge]:
        """Every edge, as LangGraph's `get_graph().edges` lists them (its dry run of the
        supersteps: a node that leads nowhere gets an edge to END; a router that may go
        anywhere gets none), each with the `kind` this drawing gives it."""
        if self.compiled is None:
            return [Edge(u, v, d.get("label"), d["conditional"], kind=d["kind"])
                    for u, v, d in self.nx.edges(data=True)]
        _, edges = self._langgraph_view()
        drawn = self.nx.edges
        return [Edge(e.source, e.target, e.data, e.conditional,
                     kind=drawn[e.source, e.target]["kind"] if (e.source, e.target) in drawn
                     else "conditional" if e.conditional else "edge")
                for e in edges]

    def first_node(self) -> str | None:
        """The only node START leads to, or None when there are several or none."""
        succ = list(self.nx.successors(START)) if START in self.nx else []
        return succ[0] if len(succ) == 1 else None

    # -- renderers ------------------------------------------------------------------
    def to_dot(self) -> str:
        """The graph in graphviz DOT: conditional edges dashed and labelled, dynamic
        dotted, joins bold, subgraphs (with xray) as clusters."""
        return to_dot(self.nx, self.name)

    def to_mermaid(self) -> str:
        """Retrograph's Mermaid flowchart: joins, dynamic routers and Commands styled apart."""
        return to_mermaid(self.nx)

    def draw_mermaid(self, *, with_styles: bool = True, curve_style: Any = "linear", **_styling: Any) -> str:
        """The graph in Mermaid as LangGraph writes it (same text for the same graph; see
        lg_view.py). Colour options are accepted and ignored; `to_mermaid()` gives
        Retrograph's richer flowchart."""
        from .lg_view import mermaid_text

        nodes, edges = self._langgraph_view()
        curve = getattr(curve_style, "value", curve_style)
        return mermaid_text(nodes, edges, with_styles=with_styles, curve_style=str(curve))

    def to_json(self) -> dict[str, Any]:
        """The graph as LangGraph's `get_graph().to_json()` gives it: nodes and edges."""
        from .lg_view import json_of

        return json_of(*self._langgraph_view())

    def _langgraph_view(self) -> tuple[dict[str, Any], list[Any]]:
        if self.compiled is None:
            raise ValueError("this drawing was not made from a compiled graph: no LangGraph view of it")
        from .lg_view import langgraph_view

        return langgraph_view(self.compiled, self.xray)

    def draw_png(self, path: str | Path | None = None) -> bytes:
        """PNG bytes laid out by graphviz `dot`; also written to `path` when given."""
        return render(self.nx, self.name, "png", path)

    def draw_mermaid_png(self, output_file_path: str | Path | None = None, **_styling: Any) -> bytes:
        """For ported code: the same PNG as `draw_png`, made offline by graphviz rather
        than by a Mermaid web service."""
        return self.draw_png(output_file_path)

    def draw_svg(self, path: str | Path | None = None) -> str:
        """SVG text laid out by graphviz `dot`; also written to `path` when given."""
        return render(self.nx, self.name, "svg", path).decode("utf-8")

    def layout(self) -> Layout:
        """Positions and splines for every node and edge (see `layout`)."""
        return layout(self.nx)

    def __repr__(self) -> str:
        return f"<DrawableGraph {self.name!r} nodes={self.nx.number_of_nodes()} edges={self.nx.number_of_edges()}>"


def _structure(compiled: CompiledGraph) -> tuple[nx.DiGraph, dict[str, Any]]:
    """The top level of a compiled graph as a drawable DiGraph (subgraphs not expanded)."""
    builder = compiled.builder
    g = nx.DiGraph(name=compiled.name)
    functions: dict[str, Any] = {}
    g.add_node(START, kind="start", label="START")
    for name, spec in builder.nodes.items():
        g.add_node(name, kind="subgraph" if spec.is_subgraph else "node", label=name)
        if spec.metadata:
            g.nodes[name]["metadata"] = dict(spec.metadata)
        functions[name] = spec.fn
    known = set(builder.nodes) | {END}
    for src, dst in builder.edges:
        _connect(g, src, dst, "edge")
    for sources, dst in builder.waiting_edges:
        for src in sources:
            _connect(g, src, dst, "join")
    _draw_branches(g, builder, known)
    _draw_commands(g, builder, known)
    if g.out_degree(START) == 0:
        g.remove_node(START)
    if END in g:  # keep END last, where a reader looks for it
        attrs = dict(g.nodes[END])
        ins = [(u, d) for u, _, d in g.in_edges(END, data=True)]
        g.remove_node(END)
        g.add_node(END, **attrs)
        g.add_edges_from((u, END, d) for u, d in ins)
    return g, functions


def _connect(g: nx.DiGraph, src: str, dst: str, kind: EdgeKind, label: str | None = None) -> None:
    if dst == END and END not in g:
        g.add_node(END, kind="end", label="END")
    _add_edge(g, src, dst, kind, label)


def _anywhere(g: nx.DiGraph, src: str, label: str) -> None:
    """An edge from `src` to its "any node" marker: it may go anywhere."""
    marker = any_marker(src)
    if marker not in g:
        g.add_node(marker, kind="any", label="any node", source=src)
    _add_edge(g, src, marker, "dynamic", label)


def _draw_branches(g: nx.DiGraph, builder: GraphDefinition, known: set[str]) -> None:
    """Each router's edges: its path map, else the targets its code names, else "any node"."""
    for source, branches in builder.branches.items():
        for branch in branches.values():
            if branch.path_map is not None:
                for key, target in branch.path_map.items():
                    _connect(g, source, target, "conditional", branch.name if str(key) == target else str(key))
                continue
            hinted = [t for t in literal_targets(branch.router) or () if t in known]
            for target in hinted:
                _connect(g, source, target, "conditional", branch.name)
            if not hinted:
                _anywhere(g, source, branch.name)


def _draw_commands(g: nx.DiGraph, builder: GraphDefinition, known: set[str]) -> None:
    """Where nodes go by returning a Command: their declared destinations, else "any node"
    when the return hint is a bare Command."""
    for name, spec in builder.nodes.items():
        if spec.destinations:
            for target in spec.destinations:
                if target in known:
                    _connect(g, name, target, "command", spec.destination_labels.get(target))
        elif not spec.is_subgraph and _returns_command(spec.fn):
            _anywhere(g, name, "Command")


def _returns_command(fn: Any) -> bool:
    """Whether a node's return hint is `Command` without `Literal` targets: it may go anywhere."""
    try:
        hint = get_type_hints(fn).get("return")
    except (NameError, TypeError, AttributeError, SyntaxError):  # unresolvable hints: read them raw
        hint = getattr(fn, "__annotations__", {}).get("return")
    if isinstance(hint, str):
        return hint.split("[")[0].strip().endswith("Command")
    return hint is Command or get_origin(hint) is Command


def _depth(xray: bool | int) -> int:
    if xray is True:
        return 1_000_000
    if xray is False or xray is None:
        return 0
    if not isinstance(xray, int) or xray < 0:
        raise ValueError(f"xray must be True, False or a number of levels >= 0, got {xray!r}")
    return xray


def _add_edge(g: nx.DiGraph, src: str, dst: str, kind: EdgeKind, label: str | None) -> None:
    conditional = kind in ("conditional", "command", "dynamic")
    if g.has_edge(src, dst):
        data = g.edges[src, dst]
        labels = [x for x in (data.get("label"), label) if x]
        merged = ", ".join(dict.fromkeys(labels)) or None
        if _PRIORITY[kind] < _PRIORITY[data["kind"]]:
            data.update(kind=kind, conditional=conditional)
        data["label"] = merged if data["kind"] != "edge" else None
        return
    g.add_edge(src, dst, kind=kind, label=label, conditional=conditional)


def _expand(g: nx.DiGraph, name: str, inner: DrawableGraph, functions: dict[str, Any]) -> None:
    """Put `inner`'s nodes into `g` as children of the subgraph node `name`."""
    prefix = f"{name}:"

    def rename(node_id: str) -> str:
        return prefix + node_id

    children: list[str] = []
    for n, d in inner.nx.nodes(data=True):
        attrs = dict(d)
        if "subgraph_nodes" in attrs:
            attrs["subgraph_nodes"] = tuple(rename(c) for c in attrs["subgraph_nodes"])
        if "source" in attrs:
            attrs["source"] = rename(attrs["source"])
        attrs["parent"] = rename(attrs["parent"]) if "parent" in attrs else name
        if attrs["parent"] == name:
            children.append(rename(n))
        g.add_node(rename(n), **attrs)
    for u, v, d in inner.nx.edges(data=True):
        g.add_edge(rename(u), rename(v), **d)
    for n, fn in inner.functions.items():
        functions[rename(n)] = fn
    # The parent's edges leave the subgraph from its END; give it one even when the
    # inner graph never routes there explicitly.
    g.nodes[name]["subgraph_nodes"] = tuple(children)
    if g.out_degree(name) and rename(END) not in g:
        _give_end(g, name)


def _give_end(g: nx.DiGraph, subgraph: str) -> None:
    inner_end = f"{subgraph}:{END}"
    g.add_node(inner_end, kind="end", label="END", parent=subgraph)
    g.nodes[subgraph]["subgraph_nodes"] = (*g.nodes[subgraph]["subgraph_nodes"], inner_end)


# -- Mermaid ------------------------------------------------------------------------------
_MERMAID_RESERVED = {"end", "graph", "subgraph", "flowchart", "style", "class", "classdef", "click",
                     "linkstyle", "direction", "default"}
_MERMAID_ARROW = {"edge": "-->", "join": "==>", "conditional": "-.->", "command": "-.->", "dynamic": "-.->"}
_MERMAID_LINK_COLOR = {"join": "#059669", "conditional": "#2563eb", "command": "#7c3aed", "dynamic": "#d97706"}
_MERMAID_SHAPE = {
    "start": '(["{}"]):::startNode', "end": '(["{}"]):::endNode', "node": '["{}"]',
    "subgraph": '[["{}"]]', "any": '{{{{"{}"}}}}:::anyNode',
}


def _mermaid_text(text: Any) -> str:
    return (str(text).replace("&", "#amp;").replace('"', "#quot;").replace("<", "#lt;")
            .replace(">", "#gt;").replace("\n", " "))


def _mermaid_ids(g: nx.DiGraph) -> dict[str, str]:
    """A Mermaid-safe, unique id for every node (letters, digits and underscores)."""
    ids: dict[str, str] = {}
    used: set[str] = set()
    for n in g.nodes:
        base = re.sub(r"[^0-9A-Za-z_]", "_", n.replace("|*", "_any")) or "node"
        if base.lower() in _MERMAID_RESERVED:
            base += "_"
        candidate, i = base, 2
        while candidate in used:
            candidate, i = f"{base}_{i}", i + 1
        used.add(candidate)
        ids[n] = candidate
    return ids


def to_mermaid(g: nx.DiGraph) -> str:
    """A Mermaid flowchart of a drawable DiGraph: conditional and dynamic edges dotted
    and labelled, joins thick, expanded subgraphs as Mermaid subgraphs."""
    ids = _mermaid_ids(g)
    lines = ["flowchart TD"]
    children: dict[str | None, list[str]] = {}
    for n, d in g.nodes(data=True):
        children.setdefault(d.get("parent"), []).append(n)

    def emit(parent: str | None, indent: str) -> None:
        for n in children.get(parent, ()):
            d = g.nodes[n]
            label = _mermaid_text(d.get("label", n))
            if d.get("subgraph_nodes"):
                lines.append(f'{indent}subgraph {ids[n]}["{label}"]')
                emit(n, indent + "    ")
                lines.append(f"{indent}end")
            else:
                lines.append(indent + ids[n] + _MERMAID_SHAPE[d.get("kind", "node")].format(label))

    emit(None, "    ")
    link_styles: list[str] = []
    for i, (u, v, d) in enumerate(g.edges(data=True)):
        kind = d.get("kind", "edge")
        label = f'|"{_mermaid_text(d["label"])}"|' if d.get("label") else ""
        lines.append(f"    {ids[u]} {_MERMAID_ARROW[kind]}{label} {ids[v]}")
        if kind in _MERMAID_LINK_COLOR:
            link_styles.append(f"    linkStyle {i} stroke:{_MERMAID_LINK_COLOR[kind]}")
    lines.extend(link_styles)
    lines += [
        "    classDef default fill:#f2f0ff,stroke:#6d5dfc",
        "    classDef startNode fill:#1f2937,stroke:#1f2937,color:#ffffff",
        "    classDef endNode fill:#bfb6fc,stroke:#6d5dfc",
        "    classDef anyNode fill:#fff7ed,stroke:#d97706,stroke-dasharray:4 3,color:#b45309",
    ]
    return "\n".join(lines) + "\n"

