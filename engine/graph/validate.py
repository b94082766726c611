"""Checks a StateGraph before it runs, reporting every problem in one error."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..constants import DEFAULT_ERROR_HANDLER, END, ERROR_HANDLER_PREFIX, START
from ..errors import GraphCompileError

if TYPE_CHECKING:
    from ..specs import GraphDefinition

__all__ = ["validate_graph"]


def _did_you_mean(name: str, known: Sequence[str]) -> str:
    import difflib

    close = difflib.get_close_matches(name, list(known), n=1)
    return f" Did you mean `{close[0]}`?" if close else ""


Unknown = Callable[[str, str], None]
"""`unknown(name, where)`: notes a reference to a node that does not exist."""


def validate_graph(graph: GraphDefinition, interrupt_nodes: Sequence[str] = ()) -> None:
    """Raise GraphCompileError (a ValueError) naming every node or edge at fault."""
    problems: list[str] = []
    known = sorted(graph.nodes)

    def unknown(name: str, where: str) -> None:
        problems.append(
            f"{where} refers to unknown node `{name}`.{_did_you_mean(name, known)} "
            f"Add it with add_node({name!r}, fn) or fix the name."
        )

    _check_edges(graph, unknown)
    _check_routes(graph, unknown)
    has_entry = any(src == START for src, _ in graph.edges) or START in graph.branches
    if not has_entry:
        problems.append(
            "The graph has no entry point: add an edge from START, e.g. "
            "add_edge(START, 'first_node'), or set_entry_point('first_node')."
        )
    _check_interrupts(graph, interrupt_nodes, unknown)
    if problems:
        raise GraphCompileError(problems)


def _check_edges(graph: GraphDefinition, unknown: Unknown) -> None:
    """Plain and waiting (join) edges."""
    nodes = graph.nodes
    for src, dst in graph.edges:
        if src != START and src not in nodes:  # LangGraph's words first, for code that matches them
            unknown(src, f"Found edge starting at unknown node `{src}`: edge `{src}` -> `{dst}`")
        if dst != END and dst not in nodes:
            unknown(dst, f"Found edge ending at unknown node `{dst}`: edge `{src}` -> `{dst}`")
    for sources, dst in graph.waiting_edges:
        label = "[" + ", ".join(f"`{s}`" for s in sources) + f"] -> `{dst}`"
        for s in sources:
            if s not in nodes:
                unknown(s, f"Waiting edge {label}")
        if dst != END and dst not in nodes:
            unknown(dst, f"Waiting edge {label}")


def _check_routes(graph: GraphDefinition, unknown: Unknown) -> None:
    """Conditional edges (their sources and path maps) and nodes' declared destinations."""
    nodes = graph.nodes
    for source, branches in graph.branches.items():
        if source != START and source not in nodes:
            unknown(source, f"Conditional edges from `{source}`")
        for branch in branches.values():
            if branch.path_map is None:
                continue
            for key, target in branch.path_map.items():
                if target != END and target not in nodes:
                    unknown(target, f"The path_map of the router `{branch.name}` after `{source}` (key {key!r})")
    for name, spec in nodes.items():
        for dest in spec.destinations:
            if dest != END and dest not in nodes:
                unknown(dest, f"The destinations of node `{name}`")


def _check_interrupts(graph: GraphDefinition, interrupt_nodes: Sequence[str], unknown: Unknown) -> None:
    """interrupt_before/interrupt_after name nodes (or their error handlers)."""
    nodes = graph.nodes
    handlers = {f"{ERROR_HANDLER_PREFIX}{n}" for n, spec in nodes.items() if spec.error_handler is not None}
    if graph.node_defaults.get("error_handler") is not None:
        handlers.add(DEFAULT_ERROR_HANDLER)
    for name in dict.fromkeys(interrupt_nodes):
        # an error handler may be named (as in LangGraph): it runs within its node's
        # superstep, so only interrupt_after stops the run after it
        if name not in nodes and name not in handlers:
            unknown(name, "interrupt_before/interrupt_after")
