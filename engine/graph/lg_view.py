"""The graph as LangGraph's `get_graph()` shows it: its nodes, edges, Mermaid text and JSON.

LangGraph finds a graph's edges by a dry run of its supersteps: from START, each step's
nodes trigger the next ones through plain edges, waiting edges (once every source ran)
and the targets a router or a `Command[Literal[...]]` may pick (declared targets count
the first time their node runs). Nodes that are reached but lead nowhere get an edge to
END; a graph that never stops gets a conditional edge to END from its last step when
that step ran one node. `DrawableGraph` (drawing.py) keeps Retrograph's own, richer
structure; this is the view LangGraph users and tools read.

Retrograph's difference (README): a router with neither a path_map nor a `Literal` hint
may go anywhere, so it is not drawn as an edge to END.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from ..constants import END, START
from ..specs import literal_targets
from .nested_state import subgraph_of_node

if TYPE_CHECKING:
    from ..runtime.protocols import CompiledGraph

__all__ = ["LGEdge", "LGNode", "langgraph_view", "mermaid_text", "json_of", "node_metadata"]

_STEPS = 250  # as LangGraph: how far the dry run goes before calling the graph endless


class LGEdge(NamedTuple):
    """An edge of `get_graph().edges`: `data` is its label, None when it has none."""

    source: str
    target: str
    data: str | None = None
    conditional: bool = False


@dataclass(frozen=True)
class LGNode:
    """A node of `get_graph().nodes`: `data` is the function or subgraph behind it."""

    id: str
    name: str
    data: Any = None
    metadata: dict[str, Any] | None = None


class _Trigger(NamedTuple):
    target: str
    conditional: bool
    label: str | None


def _node_triggers(compiled: CompiledGraph) -> tuple[dict[str, list[_Trigger]], dict[str, list[_Trigger]],
                                                          set[str]]:
    """Per node: what it always triggers, what it may trigger (declared once), and the
    nodes with a router that may go anywhere."""
    builder = compiled.builder
    plain: dict[str, list[_Trigger]] = {}
    declared: dict[str, list[_Trigger]] = {}
    anywhere: set[str] = set()
    for src, dst in builder.edges:
        plain.setdefault(src, []).append(_Trigger(dst, False, None))
    for sources, dst in builder.waiting_edges:
        for src in sources:
            plain.setdefault(src, []).append(_Trigger(f"join:{'+'.join(sources)}:{dst}", False, None))
    for source, branches in builder.branches.items():
        for branch in branches.values():
            if branch.path_map is not None:
                for key, target in branch.path_map.items():
                    label = None if str(key) == target else str(key)
                    declared.setdefault(source, []).append(_Trigger(target, True, label))
                continue
            hinted = literal_targets(branch.router)
            if hinted:
                declared.setdefault(source, []).extend(_Trigger(t, True, None) for t in hinted)
            else:
                anywhere.add(source)
    for name, spec in builder.nodes.items():
        for target in spec.destinations:
            declared.setdefault(name, []).append(_Trigger(target, True, spec.destination_labels.get(target)))
    return plain, declared, anywhere


def _dry_run(compiled: CompiledGraph) -> tuple[set[tuple[str, str, bool, str | None]], set[str]]:
    """The edges LangGraph's dry run finds, and the nodes of its last step."""
    plain, declared, _ = _node_triggers(compiled)
    joins = {f"join:{'+'.join(sources)}:{dst}": (set(sources), dst) for sources, dst in compiled.builder.waiting_edges}
    arrived: dict[str, set[str]] = {}
    edges: set[tuple[str, str, bool, str | None]] = set()
    declared_seen: set[str] = set()
    step_sources: dict[str, set[_Trigger]] = {}
    deferred = compiled.deferred
    held: dict[str, list[tuple[str, _Trigger]]] = {}  # deferred nodes waiting for a step of their own
    tasks = [START]
    for _ in range(-1, _STEPS):
        if not tasks:
            break
        step_sources = {name: _triggers_of(name, plain, declared, declared_seen, edges) for name in tasks}
        triggered = _triggered(step_sources, joins, arrived)
        for target in [t for t in triggered if t in deferred]:
            held.setdefault(target, []).extend(triggered.pop(target))
        tasks = sorted(triggered)
        for target in tasks:
            for src, t in triggered[target]:
                edges.add((src, target, t.conditional, t.label))
        if not tasks and held:  # nothing else left: the deferred nodes run
            tasks = _release_deferred(held, step_sources, edges)
    return edges, set(step_sources)


def _triggers_of(name: str, plain: dict[str, list[_Trigger]], declared: dict[str, list[_Trigger]],
                 declared_seen: set[str], edges: set[tuple[str, str, bool, str | None]]) -> set[_Trigger]:
    """What node `name` triggers when it runs in the dry run (its declared routes the first
    time only; a route to END is an edge at once)."""
    out = set(plain.get(name, ()))
    if name in declared_seen:
        return out
    declared_seen.add(name)
    routed = {t.target for t in declared.get(name, ())}
    # as LangGraph: a plain edge to where the router may go is that route (once)
    out = {t for t in out if t.conditional or t.target not in routed}
    for t in declared.get(name, ()):
        if t.target == END:
            edges.add((name, END, True, t.label))
        else:
            out.add(t)
    return out


def _triggered(step_sources: dict[str, set[_Trigger]], joins: dict[str, tuple[set[str], str]],
               arrived: dict[str, set[str]]) -> dict[str, list[tuple[str, _Trigger]]]:
    """The nodes of the next step, each with the (source, trigger) pairs that start it; a
    join starts its target once all its sources arrived."""
    triggered: dict[str, list[tuple[str, _Trigger]]] = {}
    for src, out in step_sources.items():
        for t in out:
            if t.target in joins:
                need, dst = joins[t.target]
                got = arrived.setdefault(t.target, set())
                got.add(src)
                if got >= need and dst != END:  # a join into END triggers nothing
                    arrived[t.target] = set()
                    for s in sorted(need):
                        triggered.setdefault(dst, []).append((s, _Trigger(dst, False, None)))
            elif t.target != END:
                triggered.setdefault(t.target, []).append((src, t))
    return triggered


def _release_deferred(held: dict[str, list[tuple[str, _Trigger]]], step_sources: dict[str, set[_Trigger]],
                      edges: set[tuple[str, str, bool, str | None]]) -> list[str]:
    """Nothing else is left: the held deferred nodes are the next step (returned), with
    their edges."""
    tasks = sorted(held)
    for target in tasks:
        arrivals = held.pop(target)
        for src, t in arrivals:
            edges.add((src, target, t.conditional, t.label))
        if not any(src in step_sources for src, _ in arrivals):
            # as LangGraph: triggered by no node of the step before, it is drawn
            # as a possible next step of every node of that step
            edges.update((src, target, True, None) for src in step_sources)
    return tasks


def langgraph_view(compiled: CompiledGraph, xray: int = 0) -> tuple[dict[str, LGNode], list[LGEdge]]:
    """The nodes and edges of LangGraph's drawing of `compiled`; with `xray` levels, a
    subgraph node is replaced by its inner nodes (ids `node:inner`), as LangGraph does."""
    nodes, edges = _top_level(compiled)
    if xray > 0:
        for name in compiled.builder.nodes:
            sub = subgraph_of_node(compiled, name)  # the node itself, or a graph its function invokes
            if sub is not None and hasattr(sub, "builder") and name in nodes:
                _replace(nodes, edges, name, *langgraph_view(sub, xray - 1))
    return nodes, edges


def _ends(nodes: dict[str, LGNode], edges: list[LGEdge], side: str, exclude: str | None = None) -> str | None:
    """The one node no edge enters (side "first") or leaves ("last"), if there is one."""
    linked = {e.target if side == "first" else e.source for e in edges
              if exclude is None or (e.source if side == "first" else e.target) != exclude}
    found = [n for n in nodes if n not in linked and n != exclude]
    return found[0] if len(found) == 1 else None


def _replace(nodes: dict[str, LGNode], edges: list[LGEdge], name: str, inner_nodes: dict[str, LGNode],
             inner_edges: list[LGEdge]) -> None:
    if len(inner_nodes) <= 1 or not _ends(inner_nodes, inner_edges, "first") or \
            not _ends(inner_nodes, inner_edges, "last"):
        return
    inner_nodes, inner_edges = dict(inner_nodes), list(inner_edges)
    for side in ("first", "last"):  # drop the inner START and END when what remains has one end
        end = _ends(inner_nodes, inner_edges, side)
        if end is not None and _ends(inner_nodes, inner_edges, side, exclude=end):
            del inner_nodes[end]
            inner_edges = [e for e in inner_edges if end not in (e.source, e.target)]
    first, last = _ends(inner_nodes, inner_edges, "first"), _ends(inner_nodes, inner_edges, "last")
    del nodes[name]
    for node_id, node in inner_nodes.items():
        nodes[f"{name}:{node_id}"] = LGNode(f"{name}:{node_id}", f"{name}:{node.name}", node.data, node.metadata)
    edges.extend(e._replace(source=f"{name}:{e.source}", target=f"{name}:{e.target}") for e in inner_edges)
    for i, e in enumerate(edges):
        if e.source == name and last is not None:
            e = e._replace(source=f"{name}:{last}")
        if e.target == name and first is not None:
            e = e._replace(target=f"{name}:{first}")
        edges[i] = e


def node_metadata(compiled: CompiledGraph, name: str, given: dict[str, Any] | None) -> dict[str, Any] | None:
    """A node's metadata as LangGraph shows it: `defer` for a deferred node, and its own
    breakpoints (`__interrupt`: "before", "after" or "before,after"; not those of
    `interrupt_before="*"`)."""
    every: frozenset[str] = getattr(compiled, "every_node_breaks", frozenset())
    pauses = [when for when, names in (("before", compiled.interrupt_before), ("after", compiled.interrupt_after))
              if name in names and when not in every]
    out = dict(given or {})
    if name in compiled.deferred:
        out["defer"] = True
    if pauses:
        out["__interrupt"] = ",".join(pauses)
    return out or None


def _top_level(compiled: CompiledGraph) -> tuple[dict[str, LGNode], list[LGEdge]]:
    builder = compiled.builder
    found, last_step = _dry_run(compiled)
    _, _, anywhere = _node_triggers(compiled)
    nodes: dict[str, LGNode] = {START: LGNode(START, START)}
    for name, spec in builder.nodes.items():
        nodes[name] = LGNode(name, name, spec.fn, node_metadata(compiled, name, spec.metadata))
    edges: list[LGEdge] = []
    pairs: set[tuple[str, str]] = set()
    for s, d, cond, label in sorted(found, key=lambda e: (e[0], e[1], e[2], e[3] or "")):
        if (s, d) not in pairs:  # as LangGraph: one edge per pair, the first in this order
            pairs.add((s, d))
            edges.append(LGEdge(s, d, label if label != d else None, cond))
    targets = {d for _, d, _, _ in found if d != END}
    termini = sorted(targets - {s for s, _, _, _ in found} - anywhere)
    edges += [LGEdge(t, END) for t in termini]
    if not termini and not any(d == END for _, d, _, _ in found) and len(last_step) == 1 \
            and not last_step & anywhere:
        edges.append(LGEdge(next(iter(last_step)), END, None, True))
    if any(e.target == END for e in edges):
        nodes[END] = LGNode(END, END)
    return nodes, edges


# -- Mermaid, as LangGraph writes it ------------------------------------------------------
def _mermaid_id(node_id: str) -> str:
    """Characters Mermaid cannot take in an id, written as CSS escapes (`:` -> `\\3a`)."""
    return "".join(c if c.isalnum() or c in "_-" else f"\\{ord(c):x}" for c in node_id)


def _arrow(edge: LGEdge) -> str:
    if edge.data is not None:
        text = f"&nbsp;{edge.data}&nbsp;"
        return f"-. {text} .->" if edge.conditional else f"-- {text} -->"
    return "-.->" if edge.conditional else "-->"


def mermaid_text(nodes: dict[str, LGNode], edges: Iterable[LGEdge], *, with_styles: bool = True,
                 curve_style: str = "linear", wrap_label_n_words: int = 9) -> str:
    """LangGraph's Mermaid text: `graph TD;`, a line per node (with styles) and per edge;
    a subgraph's inner nodes (`sub:inner` ids, with xray) in a `subgraph` block, a
    block per level, nested as the subgraphs are (an edge goes in the innermost block
    that holds both its ends)."""
    lines: list[str] = []
    if with_styles:
        lines += ["---", "config:", "  flowchart:", f"    curve: {curve_style}", "---"]
    lines.append("graph TD;")
    inner: dict[str, list[str]] = {}  # block prefix -> the node ids right inside it
    for node_id in nodes:
        if ":" in node_id:
            inner.setdefault(node_id.rsplit(":", 1)[0], []).append(node_id)
        elif with_styles:
            lines.append("\t" + _node_line(node_id, nodes[node_id]))
    by_block: dict[str, list[LGEdge]] = {}
    for e in edges:
        by_block.setdefault(_group(e), []).append(e)
    shown: set[str] = set()

    def block(prefix: str, group: list[LGEdge]) -> None:
        framed = bool(prefix) and not (len(group) == 1 and group[0].source == group[0].target)
        if framed:
            shown.add(prefix)
            lines.append(f"\tsubgraph {prefix.rsplit(':', 1)[-1]}")
            if with_styles:
                lines.extend("\t" + _node_line(n, nodes[n]) for n in inner.get(prefix, ()))
        lines.extend(f"\t{_mermaid_id(e.source)} {_arrow(e)} {_mermaid_id(e.target)};" for e in group)
        if prefix:
            for deeper, deeper_group in by_block.items():
                if deeper.startswith(prefix + ":") and ":" not in deeper[len(prefix) + 1:]:
                    block(deeper, deeper_group)
        if framed:
            lines.append("\tend")

    block("", by_block.get("", []))
    for prefix, group in by_block.items():
        if prefix and ":" not in prefix:
            block(prefix, group)
    if with_styles:
        for prefix, ids in inner.items():  # a subgraph block with nodes and no edge inside
            if ":" not in prefix and prefix not in shown:
                lines.append(f"\tsubgraph {prefix}")
                lines.extend("\t" + _node_line(n, nodes[n]) for n in ids)
                lines.append("\tend")
    if with_styles:
        lines += ["\tclassDef default fill:#f2f0ff,line-height:1.2", "\tclassDef first fill-opacity:0",
                  "\tclassDef last fill:#bfb6fc"]
    return "\n".join(lines) + "\n"


def _group(edge: LGEdge) -> str:
    """The block an edge is drawn in: the subgraph levels its two ends share."""
    shared: list[str] = []
    for a, b in zip(edge.source.split(":"), edge.target.split(":")):  # a self-loop: its node's own group
        if a != b:
            break
        shared.append(a)
    return ":".join(shared)


def _node_line(node_id: str, node: LGNode) -> str:
    label = node.name.rsplit(":", 1)[-1]
    if node_id == START:
        return f"{_mermaid_id(node_id)}([<p>{label}</p>]):::first"
    if node_id == END:
        return f"{_mermaid_id(node_id)}([<p>{label}</p>]):::last"
    if label in (START, END):  # a subgraph's own START or END, kept by xray
        return f"{_mermaid_id(node_id)}(<p>{label}</p>)"
    if node.metadata:
        lines = "\n".join(f"{k} = {v}" for k, v in node.metadata.items())
        label = f"{label}<hr/><small><em>{lines}</em></small>"
    return f"{_mermaid_id(node_id)}({label})"


# -- JSON, as LangGraph writes it -----------------------------------------------------------
_FUNCTION_ID = ["langgraph", "_internal", "_runnable", "RunnableCallable"]
_GRAPH_ID = ["langgraph", "graph", "state", "CompiledStateGraph"]


def _kind_id(data: Any) -> list[str]:
    """A node's kind tag: a compiled graph's, a LangChain serializable runnable's own
    `lc_id()` (a prompt | model chain: `RunnableSequence`), else a function's."""
    if hasattr(data, "get_state") and hasattr(data, "get_graph"):
        return _GRAPH_ID
    lc_id = getattr(type(data), "lc_id", None)
    if callable(lc_id) and hasattr(data, "invoke"):
        try:
            found = lc_id()
        except Exception:  # a class whose id cannot be read is drawn as a function
            return _FUNCTION_ID
        if isinstance(found, list) and all(isinstance(x, str) for x in found):
            return found
    return _FUNCTION_ID


def json_of(nodes: dict[str, LGNode], edges: Iterable[LGEdge]) -> dict[str, Any]:
    """`get_graph().to_json()`: LangGraph's node records (a node's `data.id` is the kind
    tag LangGraph's readers expect for a function or a compiled graph) and edges."""
    out_nodes: list[dict[str, Any]] = []
    for node_id, node in nodes.items():
        if node_id == END or node_id.endswith(":" + END):
            out_nodes.append({"id": node_id})
            continue
        record: dict[str, Any] = {"id": node_id, "type": "runnable",
                                  "data": {"id": _kind_id(node.data), "name": node.name}}
        if node.metadata:
            record["metadata"] = node.metadata
        out_nodes.append(record)
    out_edges: list[dict[str, Any]] = []
    for e in edges:
        record = {"source": e.source, "target": e.target}
        if e.data is not None:
            record["data"] = e.data
        if e.conditional:
            record["conditional"] = True
        out_edges.append(record)
    return {"nodes": out_nodes, "edges": out_edges}
