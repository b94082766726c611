"""`compiled.nodes[n].subgraphs` names the graphs a function node invokes itself, found in
its code (closure, globals and attribute chains from them, `__wrapped__`), never by
running it; shapes no reference chain reaches give none."""
from __future__ import annotations

import operator
from typing import Annotated, Any

from typing_extensions import TypedDict

from engine import END, START, StateGraph


class S(TypedDict):
    log: Annotated[list, operator.add]


def leaf(tag: str) -> Any:
    g = StateGraph(S).add_node(tag, lambda s: {"log": [tag]}).add_edge(START, tag).add_edge(tag, END).compile()
    g.name = tag
    return g


class Box:
    def __init__(self, payload: Any) -> None:
        self.payload = payload


GLOBAL_GRAPH = leaf("global")
CHAIN = Box(Box(leaf("chain")))
IN_LIST = [leaf("listed")]


def found(node: Any) -> list[str]:
    app = StateGraph(S).add_node("n", node).add_edge(START, "n").compile()
    return [g.name for g in app.nodes["n"].subgraphs]


def test_graphs_reached_by_closure_globals_chains_and_wrapped() -> None:
    sub = leaf("closure")
    holder = Box(leaf("nested"))

    def by_closure(state: S) -> Any:
        return sub.invoke(state)

    def by_global(state: S) -> Any:
        return GLOBAL_GRAPH.invoke(state)

    def by_chain(state: S) -> Any:
        return CHAIN.payload.payload.invoke(state)

    def by_nested(state: S) -> Any:
        def inner() -> Any:
            return holder.payload.invoke(state)
        return inner()

    def wrapper(state: S) -> Any:
        return {"log": []}

    wrapper.__wrapped__ = by_closure  # type: ignore[attr-defined]
    assert [found(f) for f in (by_closure, by_global, by_chain, by_nested, wrapper)] == [
        ["closure"], ["global"], ["chain"], ["nested"], ["closure"]]
    assert found(GLOBAL_GRAPH) == ["global"]  # a graph added as the node itself


def test_unreachable_shapes_give_none_and_never_run_the_node() -> None:
    ran: list[str] = []

    def plain(state: S) -> Any:
        ran.append("plain")
        return {"log": [len("abc")]}

    def by_subscript(state: S) -> Any:
        return IN_LIST[0].invoke(state)

    def broken(state: S) -> Any:
        return CHAIN.payload.missing.invoke(state)

    def nested_global(state: S) -> Any:
        def inner() -> Any:
            return GLOBAL_GRAPH.invoke(state)
        return inner()

    assert [found(f) for f in (plain, by_subscript, broken, nested_global, len)] == [[], [], [], [], []]
    assert ran == []
