"""Run options: default stream mode, invoke(stream_mode=), version="v2", durability,
strict keywords and retry policy lists."""
from __future__ import annotations

import asyncio
import operator
from typing import Annotated, TypedDict

import pytest

from engine import (
    START,
    Command,
    GraphOutput,
    InMemorySaver,
    RetryPolicy,
    SqliteSaver,
    StateGraph,
    interrupt,
)


class S(TypedDict):
    log: Annotated[list, operator.add]


def chain(ask: bool = False, fail: bool = False) -> StateGraph:
    def b(s):
        if fail:
            raise ValueError("boom")
        return {"log": [interrupt("ok?") if ask else "b"]}

    g = StateGraph(S)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_node("b", b)
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    return g


def cfg(tid: str = "t") -> dict:
    return {"configurable": {"thread_id": tid}}


def test_stream_defaults_to_updates():
    graph = chain().compile()
    assert list(graph.stream({"log": []})) == [{"a": {"log": ["a"]}}, {"b": {"log": ["b"]}}]

    async def collect():
        return [c async for c in graph.astream({"log": []})]

    assert asyncio.run(collect()) == [{"a": {"log": ["a"]}}, {"b": {"log": ["b"]}}]


def test_invoke_with_another_stream_mode_returns_its_chunks():
    graph = chain().compile()
    assert graph.invoke({"log": []}, stream_mode="updates") == [{"a": {"log": ["a"]}}, {"b": {"log": ["b"]}}]
    pairs = graph.invoke({"log": []}, stream_mode=["updates", "values"])
    assert pairs[0] == ("values", {"log": []}) and pairs[-1] == ("values", {"log": ["a", "b"]})
    assert graph.invoke({"log": []}, stream_mode="values") == {"log": ["a", "b"]}


def test_v2_stream_parts_and_graph_output():
    graph = chain(ask=True).compile(checkpointer=InMemorySaver())
    parts = list(graph.stream({"log": []}, cfg("p"), stream_mode=["values", "updates"], version="v2"))
    assert [p["type"] for p in parts] == ["values", "updates", "values", "updates", "values"]
    assert all(p["ns"] == () for p in parts)
    last = parts[-1]
    assert last["data"] == {"log": ["a"]} and [i.value for i in last["interrupts"]] == ["ok?"]
    out = graph.invoke({"log": []}, cfg("o"), version="v2")
    assert isinstance(out, GraphOutput) and out.value == {"log": ["a"]}
    assert [i.value for i in out.interrupts] == ["ok?"]
    done = graph.invoke(Command(resume="yes"), cfg("o"), version="v2")
    assert done == GraphOutput({"log": ["a", "yes"]}, ())
    with pytest.warns(DeprecationWarning):
        assert done["log"] == ["a", "yes"]


def test_bad_version_is_refused():
    with pytest.raises(ValueError, match="version 'v3'"):
        chain().compile().invoke({"log": []}, version="v3")


def _history(graph, tid):
    return [(s.metadata["step"], s.values, s.next) for s in graph.get_state_history(cfg(tid))]


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
def test_durability_exit_saves_only_the_end(saver, tmp_path):
    store = InMemorySaver() if saver == "memory" else SqliteSaver(str(tmp_path / "c.db"))
    graph = chain().compile(checkpointer=store)
    graph.invoke({"log": []}, cfg("x"), durability="exit")
    assert _history(graph, "x") == [(2, {"log": ["a", "b"]}, ())]
    graph.invoke({"log": []}, cfg("x"), durability="exit")  # a second run on the same thread
    hist = _history(graph, "x")
    assert [h[0] for h in hist] == [6, 2] and hist[0][1] == {"log": ["a", "b", "a", "b"]}
    graph.invoke({"log": []}, cfg("s"), durability="sync")
    assert [h[0] for h in _history(graph, "s")] == [2, 1, 0, -1]


def test_durability_exit_keeps_interrupts_and_errors():
    graph = chain(ask=True).compile(checkpointer=InMemorySaver())
    graph.invoke({"log": []}, cfg(), durability="exit")
    assert _history(graph, "t") == [(1, {"log": ["a"]}, ("b",))]
    assert graph.invoke(Command(resume="y"), cfg(), durability="exit") == {"log": ["a", "y"]}
    failing = chain(fail=True).compile(checkpointer=InMemorySaver())
    with pytest.raises(ValueError, match="boom"):
        failing.invoke({"log": []}, cfg(), durability="exit")
    state = failing.get_state(cfg())
    assert state.next == ("b",) and "boom" in state.tasks[0].error


def test_durability_checked():
    with pytest.raises(ValueError, match="durability 'never'"):
        chain().compile().invoke({"log": []}, durability="never")


@pytest.mark.parametrize("call", [
    lambda g: list(g.compile().stream({"log": []}, stream_modes="values")),
    lambda g: g.compile().invoke({"log": []}, strem_mode="values"),
    lambda g: g.compile(interupt_before=["b"]),
    lambda g: g.add_node("c", lambda s: {}, retry_polcy=RetryPolicy()),
    lambda g: g.add_edge("a", "b", weight=2),
    lambda g: g.add_conditional_edges("a", lambda s: "b", pathmap={}),
])
def test_unknown_keywords_raise_type_error_naming_them(call):
    with pytest.raises(TypeError, match="stream_modes|strem_mode|interupt_before|retry_polcy|weight|pathmap"):
        call(chain())


def test_retry_policy_list_uses_first_matching_policy():
    calls = []

    def flaky(s):
        calls.append(1)
        if len(calls) < 3:
            raise KeyError("again")
        return {"log": ["ok"]}

    g = StateGraph(S)
    g.add_node("a", flaky, retry_policy=[
        RetryPolicy(retry_on=ValueError, max_attempts=1, initial_interval=0, jitter=False),
        RetryPolicy(retry_on=KeyError, max_attempts=3, initial_interval=0, jitter=False),
    ])
    g.add_edge(START, "a")
    assert g.compile().invoke({"log": []}) == {"log": ["ok"]} and len(calls) == 3


def test_retry_policy_must_be_a_policy():
    with pytest.raises(TypeError, match="node `a`: retry_policy"):
        StateGraph(S).add_node("a", lambda s: {}, retry_policy=[3])


def test_print_mode_prints_without_yielding(capsys):
    graph = chain().compile()
    out = list(graph.stream({"log": []}, stream_mode="updates", print_mode="values"))
    assert out == [{"a": {"log": ["a"]}}, {"b": {"log": ["b"]}}]
    assert "[values] {'log': ['a', 'b']}" in capsys.readouterr().out


def test_output_keys_restrict_values():
    class T(TypedDict):
        log: Annotated[list, operator.add]
        n: int

    g = StateGraph(T)
    g.add_node("a", lambda s: {"log": ["a"], "n": 1})
    g.add_edge(START, "a")
    graph = g.compile()
    assert graph.invoke({"log": [], "n": 0}, output_keys=["n"]) == {"n": 1}
    assert graph.invoke({"log": [], "n": 0}, output_keys="log") == ["a"]


def test_drain_stops_at_the_superstep_boundary_and_resumes():
    from engine import GraphDrained, RunControl

    control = RunControl()

    def a(s):
        control.request_drain("sigterm")
        return {"log": ["a"]}

    g = StateGraph(S)
    g.add_node("a", a)
    g.add_node("b", lambda s: {"log": ["b"]})
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    graph = g.compile(checkpointer=InMemorySaver())
    with pytest.raises(GraphDrained, match="sigterm"):
        graph.invoke({"log": []}, cfg("d"), durability="exit", control=control)
    assert graph.get_state(cfg("d")).next == ("b",)
    assert graph.invoke(None, cfg("d")) == {"log": ["a", "b"]}


def test_v2_gives_the_state_schema_class():
    from dataclasses import dataclass, field

    @dataclass
    class D:
        value: str
        items: list = field(default_factory=list)

    g = StateGraph(D)
    g.add_node("a", lambda s: {"value": s.value + "_a"})
    g.add_edge(START, "a")
    graph = g.compile()
    assert graph.invoke({"value": "x"}, version="v2").value == D("x_a")
    assert graph.invoke({"value": "x"}) == {"value": "x_a"}
    parts = list(graph.stream({"value": "x"}, stream_mode="values", version="v2"))
    assert [p["data"] for p in parts] == [D("x"), D("x_a")]


def test_batch_and_abatch_keep_input_order():
    graph = chain().compile()
    assert graph.batch([{"log": ["x"]}, {"log": ["y"]}]) == [{"log": ["x", "a", "b"]}, {"log": ["y", "a", "b"]}]
    failing = chain(fail=True).compile()
    out = failing.batch([{"log": []}], return_exceptions=True)
    assert isinstance(out[0], ValueError)
    assert asyncio.run(graph.abatch([{"log": ["1"]}, {"log": ["2"]}])) == [
        {"log": ["1", "a", "b"]}, {"log": ["2", "a", "b"]}]
    with pytest.raises(ValueError, match="2 inputs but 1 configs"):
        graph.batch([{"log": []}, {"log": []}], [cfg()])


def test_invoke_accepts_subgraphs_like_langgraph():
    assert chain().compile().invoke({"log": []}, subgraphs=True) == {"log": ["a", "b"]}
