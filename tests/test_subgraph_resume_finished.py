"""A resumed run meets a subgraph whose own history is finished: in the superstep the
parent resumes, the subgraph continues that history (nothing is left to run, so its
nodes do not run again and the task gets its state as it stands) instead of starting
over on its input. Later supersteps start subgraphs afresh as usual."""
from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

import pytest

from engine import START, Command, InMemorySaver, Send, StateGraph, interrupt


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


class _Child(TypedDict):
    prompt: str
    answers: Annotated[list, operator.add]


class _Parent(TypedDict):
    prompts: list
    answers: Annotated[list, operator.add]


def _asks(kind: str):
    def node(state: _Child) -> dict:
        return {"answers": [f"{kind}{state['prompt']}={interrupt(kind + state['prompt'])}"]}
    return node


def test_a_subgraph_given_no_new_answer_asks_again():
    """Two sent subgraphs, two interrupts each, answered one id at a time: a subgraph
    whose task got no answer in a run must ask again, never take its old answer for its
    other question. (Which task finished first used to decide it: run it many times.)"""
    child = (StateGraph(_Child).add_node("h", _asks("h")).add_node("d", _asks("d"))
             .add_edge(START, "h").add_edge(START, "d").compile())
    graph = (StateGraph(_Parent).add_node("child", child)
             .add_conditional_edges(START, lambda s: [Send("child", {"prompt": p, "answers": []})
                                                      for p in s["prompts"]], ["child"])
             .compile(checkpointer=InMemorySaver()))
    for attempt in range(15):
        cfg = {"configurable": {"thread_id": f"t{attempt}"}}
        graph.invoke({"prompts": ["a", "b"], "answers": []}, cfg)
        rounds = []
        for n in range(1, 8):
            pending = sorted(graph.get_state(cfg).interrupts, key=lambda i: i.value)
            rounds.append(len(pending))
            if not pending:
                break
            graph.invoke(Command(resume={pending[0].id: f"R{n}"}), cfg)
        assert rounds == [4, 3, 2, 1, 0]
        assert sorted(graph.get_state(cfg).values["answers"]) == ["da=R1", "db=R2", "ha=R3", "hb=R4"]
