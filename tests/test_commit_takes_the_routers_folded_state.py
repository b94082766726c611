"""A one-task superstep's commit takes the state its router was shown folded (the snapshot
with the task's own writes) as the new state, instead of folding and copying it again: what
a router or a node does to the state it is given never reaches the state, and the state
is the one the writes make, with reducers, transient keys and several keys written."""
from __future__ import annotations

import operator
from typing import Annotated, Any

from typing_extensions import TypedDict

from engine import END, START, StateGraph
from engine.checkpoint import InMemorySaver


class S(TypedDict, total=False):
    n: int
    log: Annotated[list[str], operator.add]
    note: str


def _graph(router: Any, node: Any = None, checkpointer: Any = None) -> Any:
    g = StateGraph(S)
    g.add_node("step", node or (lambda s: {"n": s["n"] + 1, "log": [f"n{s['n']}"]}))
    g.add_edge(START, "step")
    g.add_conditional_edges("step", router, ["step", END])
    return g.compile(checkpointer=checkpointer)


def test_a_router_that_changes_its_state_changes_nothing() -> None:
    def router(state: dict) -> str:
        done = state["n"] >= 3
        state["n"] = 999  # its own copy
        state["note"] = "router"
        return END if done else "step"

    out = _graph(router).invoke({"n": 0, "log": []})
    assert out == {"n": 3, "log": ["n0", "n1", "n2"]}


def test_a_node_that_changes_its_input_changes_nothing() -> None:
    def node(state: dict) -> dict:
        n = state["n"]
        state["n"] = -1
        state["note"] = "node"
        return {"n": n + 1}

    out = _graph(lambda s: END if s["n"] >= 2 else "step", node).invoke({"n": 0, "log": []})
    assert out == {"n": 2, "log": []}


def test_each_checkpoint_holds_the_state_its_writes_made() -> None:
    saver = InMemorySaver()
    graph = _graph(lambda s: END if s["n"] >= 3 else "step", checkpointer=saver)
    config = {"configurable": {"thread_id": "t"}}
    graph.invoke({"n": 0, "log": []}, config)
    values = [s.values for s in graph.get_state_history(config)]
    states = [(v.get("n"), v.get("log")) for v in values]
    assert states[:4] == [(3, ["n0", "n1", "n2"]), (2, ["n0", "n1"]), (1, ["n0"]), (0, [])]
    assert all(a is not b for a, b in zip(values, values[1:]))  # no two checkpoints share a dict
