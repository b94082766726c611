"""A resumed run meets a subgraph whose own history is finished: in the superstep the
parent resumes, the subgraph continues that history (nothing is left to run, so its
nodes do not run again and the task gets its state as it stands) instead of starting
over on its input. Later supersteps start subgraphs afresh as usual."""
from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

import pytest

from engine import START, Command, InMemorySaver, StateGraph, interrupt


class S(TypedDict, total=False):
    log: Annotated[list, operator.add]
    city: str


def _inner(calls: list[str], **compile_kw: Any):
    def pick(state: S) -> dict:
        calls.append("pick")
        return {"log": ["pick"], "city": "sf"}

    def report(state: S) -> dict:
        calls.append("report")
        return {"log": [f"report {state['city']}"]}

    g = StateGraph(S)
    g.add_node("pick", pick)
    g.add_node("report", report)
    g.add_edge(START, "pick")
    g.add_edge("pick", "report")
    return g.compile(**compile_kw)


def test_subgraph_finished_by_update_state_gives_its_state_on_resume():
    calls: list[str] = []
    inner = _inner(calls, interrupt_before=["report"])
    g = StateGraph(S)
    g.add_node("first", lambda s: {"log": ["first"]})
    g.add_node("call_inner", lambda s: inner.invoke(s))
    g.add_edge(START, "first")
    g.add_edge("first", "call_inner")
    graph = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    first = list(graph.stream({"log": ["in"]}, cfg, stream_mode="updates", subgraphs=True))
    assert first[-1] == ((), {"__interrupt__": ()})
    sub = graph.get_state(cfg, subgraphs=True).tasks[0].state
    assert sub.next == ("report",)
    graph.update_state(sub.config, {"log": ["edited"]}, as_node="report")
    assert graph.get_state(cfg, subgraphs=True).tasks[0].state.next == ()
    calls.clear()
    second = list(graph.stream(None, cfg, stream_mode="updates", subgraphs=True))
    assert calls == []  # neither "pick" again nor "report"
    assert second == [((), {"call_inner": {"log": ["in", "first", "pick", "edited"], "city": "sf"}})]
    assert graph.get_state(cfg).next == ()


@pytest.mark.parametrize("stateful", [None, True])
def test_subgraph_finished_before_the_node_paused_is_not_run_again(stateful):
    calls: list[str] = []
    inner = _inner(calls, checkpointer=stateful)

    def ask(state: S) -> dict:
        got = inner.invoke({"log": ["x"]})
        return {"log": [interrupt("question"), len(got["log"])]}

    def later(state: S) -> dict:  # a later superstep: a new subgraph call runs
        got = inner.invoke({"log": ["y"]})
        return {"log": ["later", len(got["log"])]}

    g = StateGraph(S)
    g.add_node("ask", ask)
    g.add_node("later", later)
    g.add_edge(START, "ask")
    g.add_edge("ask", "later")
    graph = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    graph.invoke({"log": []}, cfg)
    assert calls == ["pick", "report"]
    out = graph.invoke(Command(resume="answer"), cfg)
    # the resume value reached the node's interrupt(), not the finished subgraph
    assert out["log"] == ["answer", 3, "later", 3]
    assert calls == ["pick", "report", "pick", "report"]  # only `later`'s call ran
