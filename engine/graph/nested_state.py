"""Finding a subgraph's state: which compiled graph a checkpoint namespace belongs to,
and the subgraph snapshots that get_state(subgraphs=True) nests in its tasks.

A namespace is "node:task_id|node:task_id..." (LangGraph's form); each segment names a
node of the graph above it, which is either a compiled graph added as a node or a
function that invokes one (found among the names the function's code refers to).
"""
from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

from ..specs import is_subgraph, subgraph_in_closure
from ..runtime.nested import node_of_segment, stateful_namespace, task_namespace

if TYPE_CHECKING:
    from ..runtime.protocols import CompiledGraph

__all__ = ["subgraph_of_node", "graph_for_namespace", "task_state_namespace", "task_state_config"]


def subgraph_of_node(graph: CompiledGraph, name: str) -> Any:
    """The compiled graph that node `name` runs (as the node itself, or invoked inside its
    function), or None. Cached on the graph: a node's code does not change."""
    cache = graph.__dict__.setdefault("_subgraph_of", {})
    if name in cache:
        return cache[name]
    runner = graph.runners.get(name)
    found = None
    if runner is not None and runner.fn is not None:
        if runner.is_subgraph:
            found = runner.fn
        else:
            found = _graph_in_code(runner.fn)
    cache[name] = found
    return found


def _graph_in_code(fn: Any) -> Any:
    """A compiled graph that a node function refers to by a free or global name."""
    fn = inspect.unwrap(getattr(fn, "__func__", fn)) if callable(fn) else fn
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    closed_over = subgraph_in_closure(fn)
    if closed_over is not None:
        return closed_over
    globals_ = getattr(fn, "__globals__", {})
    for name in code.co_names:
        value = globals_.get(name)
        if is_subgraph(value):
            return value
    return None


def task_state_namespace(graph: CompiledGraph, parent_ns: str, name: str, task_id: str) -> tuple[Any, str] | None:
    """(subgraph, its namespace) for a task of `graph` whose node runs a subgraph, else None."""
    sub = subgraph_of_node(graph, name)
    if sub is None:
        return None
    ns = task_namespace(parent_ns, name, task_id)
    if getattr(sub, "persistence", None) is True:
        ns = stateful_namespace(ns)
    return sub, ns


def graph_for_namespace(graph: CompiledGraph, ns: str) -> Any:
    """The compiled graph whose checkpoints live in namespace `ns` under `graph`."""
    current = graph
    for segment in ns.split("|"):
        name = node_of_segment(segment)
        if name.isdigit() and name not in current.runners:
            continue  # "|k": the k-th graph invoked inside the same node
        sub = subgraph_of_node(current, name)
        if sub is None:
            raise ValueError(
                f"checkpoint_ns {ns!r}: `{name}` is not a subgraph node of graph {current.name!r} "
                f"(nodes: {', '.join(current.node_names)}); take the namespace from get_state(subgraphs=True)"
            )
        current = sub
    return current


def task_state_config(graph: CompiledGraph, ns: str, below: str, name: str, task_id: str,
                      thread_id: str) -> Any:
    """The `state` a checkpoint shows for a task of the graph at namespace `ns` (`below`
    `graph`): the config of the subgraph the task runs, or None for a plain node."""
    try:
        owner = graph_for_namespace(graph, below) if below else graph
    except ValueError:
        return None
    found = task_state_namespace(owner, ns, name, task_id)
    if found is None:
        return None
    return {"configurable": {"thread_id": thread_id, "checkpoint_ns": found[1]}}
