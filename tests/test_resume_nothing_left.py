"""Runs whose last superstep leaves nothing to run: a breakpoint after the last node still
pauses the run (and a subgraph's pauses its parent), and a resume with nothing left
streams the state once, as LangGraph does."""
from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from engine import START, Command, InMemorySaver, RunInterrupted, StateGraph


class S(TypedDict):
    log: Annotated[list, operator.add]


def _one(**compile_kw: Any):
    return StateGraph(S).add_node("a", lambda s: {"log": ["a"]}).add_edge(START, "a").compile(**compile_kw)


def test_breakpoint_after_the_last_node_pauses_the_run():
    graph = _one(checkpointer=InMemorySaver(), interrupt_after=["a"])
    cfg = {"configurable": {"thread_id": "t"}}
    chunks = list(graph.stream({"log": []}, cfg, stream_mode=["updates", "events"]))
    assert ("updates", {"__interrupt__": ()}) in chunks
    paused = [c for m, c in chunks if m == "events" and isinstance(c, RunInterrupted)]
    assert [(e.reason, e.nodes) for e in paused] == [("after", ("a",))]
    assert graph.get_state(cfg).next == ()
    assert graph.invoke(None, cfg) == {"log": ["a"]}  # nothing left: it ends at once


def test_breakpoint_after_a_subgraphs_last_node_pauses_the_parent():
    calls: list[str] = []

    def after(state: S) -> dict:
        calls.append("after")
        return {"log": ["after"]}

    parent = (StateGraph(S).add_node("sub", _one(interrupt_after=["a"])).add_node("after", after)
              .add_edge(START, "sub").add_edge("sub", "after").compile(checkpointer=InMemorySaver()))
    cfg = {"configurable": {"thread_id": "t"}}
    assert list(parent.stream({"log": []}, cfg, stream_mode="updates"))[-1] == {"__interrupt__": ()}
    assert parent.get_state(cfg).next == ("sub",) and calls == []
    # on resume the finished subgraph hands back its state; its node does not run again
    assert list(parent.stream(None, cfg, stream_mode="updates")) == [{"sub": {"log": ["a"]}},
                                                                     {"after": {"log": ["after"]}}]
    assert parent.get_state(cfg).values == {"log": ["a", "after"]}


def test_resume_with_nothing_left_streams_the_values_once():
    graph = _one(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    graph.invoke({"log": []}, cfg)
    assert list(graph.stream(None, cfg, stream_mode=["values", "updates"])) == [("values", {"log": ["a"]})]
    assert list(graph.stream(Command(resume="late"), cfg, stream_mode="values")) == [{"log": ["a"]}]
    assert len(list(graph.get_state_history(cfg))) == 3  # and saves nothing
