"""The one DOT builder: a graph described for graphviz `dot`, its DOT text, its layout.

Both drawings of a graph go through here: the engine's exports (`to_dot`, PNG/SVG,
`get_graph().layout()`, in `render`) and the studio's canvas (`studio.core.layout`, which
describes boxes of measured size, blank label boxes, join points and back-edge ports).
Each describes its graph as a `DotGraph`; this module alone writes DOT text, calls
pygraphviz and reads dot's points and splines back. pygraphviz is imported only when a
layout or a rendering is asked for, so importing the engine never loads graphviz.
Graphviz is not thread-safe (the studio lays out on a worker thread), so every call into
it holds one lock.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Union

__all__ = ["DotCluster", "DotEdge", "DotGraph", "DotNode", "Html", "draw", "dot_text", "laid_out",
           "parse_point", "parse_spline"]

Point = tuple[float, float]

_LOCK = threading.Lock()


@dataclass(frozen=True)
class Html:
    """An HTML-like attribute value (graphviz `<...>`), written without quotes."""

    text: str


@dataclass(frozen=True, kw_only=True)
class DotNode:
    """A node statement: declares `id` where it appears (root or cluster) with `attrs`."""

    id: str
    attrs: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class DotEdge:
    """An edge statement (`attrs` may hold `key`, which graphviz takes as the edge's name)."""

    tail: str
    head: str
    attrs: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class DotCluster:
    """A subgraph (a cluster when `name` starts with "cluster"); a plain string in `body`
    puts a node declared elsewhere into it."""

    name: str
    attrs: Mapping[str, Any] = field(default_factory=dict)
    body: tuple[Union[DotNode, DotCluster, DotEdge, str], ...] = ()


@dataclass(frozen=True, kw_only=True)
class DotGraph:
    """A directed graph for dot: graph/node/edge defaults, then statements in order
    (dot's result depends on the order nodes and edges are declared in)."""

    name: str
    graph: Mapping[str, Any] = field(default_factory=dict)
    node: Mapping[str, Any] = field(default_factory=dict)
    edge: Mapping[str, Any] = field(default_factory=dict)
    body: tuple[Union[DotNode, DotCluster, DotEdge], ...] = ()


# -- DOT text -----------------------------------------------------------------------------
_ESCAPED = frozenset({"label", "xlabel", "tooltip"})


def _quote(text: Any) -> str:
    """A DOT id: graphviz keeps backslashes in ids as they are and unescapes only `\\"`."""
    return '"' + str(text).replace('"', '\\"') + '"'


def _quote_text(text: Any) -> str:
    """A DOT label-like value (label, xlabel, tooltip), where backslash sequences mean something."""
    s = str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{s}"'


def _value(key: str, value: Any) -> str:
    if isinstance(value, Html):
        return f"<{value.text}>"
    return _quote_text(value) if key in _ESCAPED else _quote(value)


def _attrs(attrs: Mapping[str, Any]) -> str:
    return "[" + ", ".join(f"{k}={_value(k, v)}" for k, v in attrs.items() if v is not None) + "]"


def _statements(body: tuple[Any, ...], indent: str, out: list[str]) -> None:
    for item in body:
        if isinstance(item, str):
            out.append(f"{indent}{_quote(item)};")
        elif isinstance(item, DotNode):
            out.append(f"{indent}{_quote(item.id)} {_attrs(item.attrs)};")
        elif isinstance(item, DotEdge):
            out.append(f"{indent}{_quote(item.tail)} -> {_quote(item.head)} {_attrs(item.attrs)};")
        else:
            out.append(f"{indent}subgraph {_quote(item.name)} {{")
            if item.attrs:
                out.append(f"{indent}  graph {_attrs(item.attrs)};")
            _statements(item.body, indent + "  ", out)
            out.append(f"{indent}}}")


def dot_text(graph: DotGraph) -> str:
    """The DOT text of `graph`."""
    out = [f"digraph {_quote(graph.name)} {{"]
    for kind, attrs in (("graph", graph.graph), ("node", graph.node), ("edge", graph.edge)):
        if attrs:
            out.append(f"  {kind} {_attrs(attrs)};")
    _statements(graph.body, "  ", out)
    out.append("}")
    return "\n".join(out) + "\n"


# -- graphviz -----------------------------------------------------------------------------
def _agraph(dot: str) -> Any:
    try:
        import pygraphviz
    except ImportError as exc:  # pragma: no cover - a dependency of the package
        raise ImportError(
            "drawing PNG/SVG or laying out needs pygraphviz: pip install 'pygraphviz>=2.0'"
        ) from exc
    return pygraphviz.AGraph(string=dot)


def draw(graph: DotGraph, fmt: str) -> bytes:
    """`graph` rendered by dot to `fmt` (png, svg, pdf...)."""
    with _LOCK:
        data: bytes = _agraph(dot_text(graph)).draw(format=fmt, prog="dot")
    return data


def laid_out(graph: DotGraph) -> Any:
    """The pygraphviz AGraph of `graph` after dot placed it: every node has `pos`,
    `width`, `height`, every edge `pos` (and `lp`/`xlp`), every cluster `bb`."""
    with _LOCK:
        agraph = _agraph(dot_text(graph))
        agraph.layout(prog="dot")
    return agraph


# -- reading dot's output -------------------------------------------------------------------
def parse_point(text: str) -> Point:
    """A graphviz point ("x,y" or "x,y,z"), in dot's coordinates (y grows upwards)."""
    x, y = text.split(",")[:2]
    return float(x), float(y)


def parse_spline(pos: str, point: Callable[[str], Point]) -> tuple[tuple[Point, ...], Point | None]:
    """An edge's `pos` ("e,x,y s,x,y x,y x,y ..."): its control points and its arrow tip
    (the "e," point), each read by `point`. Only the first spline is kept (several appear
    only with `concentrate`, which neither layout sets)."""
    points: list[Point] = []
    tip: Point | None = None
    for token in pos.split(";")[0].split():
        if token.startswith("e,"):
            tip = point(token[2:])
        elif token.startswith("s,"):
            continue
        else:
            points.append(point(token))
    return tuple(points), tip
