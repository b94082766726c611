"""Every bad input gets a clear error naming the culprit, and loses nothing already saved."""
from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest

from engine import (
    END,
    START,
    Command,
    EmptyInputError,
    GraphCompileError,
    GraphRecursionError,
    InMemorySaver,
    InvalidRouteError,
    InvalidUpdateError,
    MissingThreadIdError,
    ResumeError,
    SerializationError,
    SqliteSaver,
    StateGraph,
    interrupt,
)


class S(TypedDict):
    log: Annotated[list, operator.add]
    n: int


def chain(*names):
    g = StateGraph(S)
    for name in names:
        g.add_node(name, lambda s, name=name: {"log": [name]})
    g.add_edge(START, names[0])
    for a, b in zip(names, names[1:]):
        g.add_edge(a, b)
    return g


# -- compile -------------------------------------------------------------------------
def test_compile_reports_every_problem_at_once():
    g = chain("plan", "act")
    g.add_edge("act", "revieww")
    g.add_edge("ghost", "plan")
    g.add_conditional_edges("plan", lambda s: "x", {"x": "nowhere"})
    with pytest.raises(GraphCompileError) as info:
        g.compile(interrupt_before=["acts"])
    err = info.value
    assert isinstance(err, ValueError)
    assert len(err.problems) == 4
    text = str(err)
    assert "4 problems in the graph" in text
    assert "Found edge ending at unknown node `revieww`: edge `act` -> `revieww` refers to unknown node `revieww`" in text
    assert "Found edge starting at unknown node `ghost`: edge `ghost` -> `plan` refers to unknown node `ghost`" in text
    assert "path_map of the router `condition` after `plan` (key 'x') refers to unknown node `nowhere`" in text
    assert "interrupt_before/interrupt_after refers to unknown node `acts`. Did you mean `act`?" in text


def test_compile_without_entry_point():
    g = StateGraph(S)
    g.add_node("a", lambda s: {})
    with pytest.raises(ValueError, match="no entry point: add an edge from START"):
        g.compile()


def test_duplicate_and_reserved_node_names():
    g = StateGraph(S)
    g.add_node("a", lambda s: {})
    with pytest.raises(ValueError, match="Node `a` already present"):
        g.add_node("a", lambda s: {})
    with pytest.raises(ValueError, match="`__end__` is reserved"):
        g.add_node(END, lambda s: {})


def test_unreachable_nodes_and_dead_ends_are_accepted():
    g = chain("a")
    g.add_node("island", lambda s: {})
    assert g.compile().invoke({"log": []}) == {"log": ["a"]}


# -- running -------------------------------------------------------------------------
def test_router_returning_unknown_name_names_router_and_choices():
    g = chain("a", "b")

    def pick(s):
        return "c"

    g.add_conditional_edges("a", pick)
    with pytest.raises(InvalidRouteError) as info:
        g.compile().invoke({"log": []})
    assert str(info.value) == (
        "the router `pick` after `a` returned 'c', which is not a node of this graph "
        "(nodes: a, b). Return one of them or END."
    )


def test_router_returning_none():
    g = chain("a")
    g.add_conditional_edges("a", lambda s: None)
    with pytest.raises(InvalidRouteError, match="the router `condition` after `a` returned None"):
        g.compile().invoke({"log": []})


def test_router_value_missing_from_path_map_is_a_key_error():
    g = chain("a", "b")
    g.add_conditional_edges("a", lambda s: "maybe", {"yes": "b", "no": END})
    with pytest.raises(KeyError, match="returned 'maybe', which is not in its path_map \\(keys: 'yes', 'no'\\)"):
        g.compile().invoke({"log": []})


def test_node_returning_a_non_dict():
    g = StateGraph(S)
    g.add_node("talk", lambda s: "hello")
    g.add_edge(START, "talk")
    with pytest.raises(InvalidUpdateError) as info:
        g.compile().invoke({"log": []})
    assert "node `talk` returned a str" in str(info.value)
    assert "must return a dict of state updates" in str(info.value)


def test_two_writes_to_a_plain_key_in_one_step_keeps_earlier_checkpoints():
    g = StateGraph(S)
    g.add_node("a", lambda s: {"n": 1})
    g.add_node("b", lambda s: {"n": 2})
    g.add_edge(START, "a")
    g.add_edge(START, "b")
    graph = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "w"}}
    with pytest.raises(InvalidUpdateError, match="At key 'n': Can receive only one value per step"):
        graph.invoke({"log": [], "n": 0}, cfg)
    history = list(graph.get_state_history(cfg))
    assert [h.metadata["step"] for h in history] == [0, -1], "what was saved before stays"
    # both tasks' writes were kept: continuing replays them (no node runs twice) and
    # reports the same conflict, until the state is fixed with update_state
    with pytest.raises(InvalidUpdateError, match="At key 'n'"):
        graph.invoke(None, cfg)
    assert len(list(graph.get_state_history(cfg))) == 2


def test_recursion_limit_message():
    g = StateGraph(S)
    g.add_node("spin", lambda s: {"n": s["n"] + 1})
    g.add_edge(START, "spin")
    g.add_edge("spin", "spin")
    with pytest.raises(GraphRecursionError, match="Recursion limit of 5 reached without hitting a stop condition"):
        g.compile().invoke({"log": [], "n": 0}, {"recursion_limit": 5})


def test_missing_thread_id_with_a_checkpointer():
    graph = chain("a").compile(checkpointer=InMemorySaver())
    with pytest.raises(MissingThreadIdError, match="pass config=\\{'configurable': \\{'thread_id'"):
        graph.invoke({"log": []})


def test_no_input_and_nothing_to_continue():
    graph = chain("a").compile(checkpointer=InMemorySaver())
    with pytest.raises(EmptyInputError, match="Received no input"):
        graph.invoke(None, {"configurable": {"thread_id": "empty"}})


def test_input_that_is_not_a_dict():
    with pytest.raises(InvalidUpdateError, match="the graph's input must be a dict"):
        chain("a").compile().invoke("hello")


def test_resume_without_a_pending_interrupt_goes_on_as_langgraph():
    # LangGraph accepts a resume value with no interrupt pending: it is how a run paused
    # at a static breakpoint goes on; on a finished thread nothing runs
    graph = chain("a").compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "r"}}
    done = graph.invoke({"log": []}, cfg)
    assert graph.invoke(Command(resume="yes"), cfg) == done


def test_resume_for_an_interrupt_that_no_longer_exists():
    def ask(s):
        return {"log": [interrupt("ok?")]}

    g = StateGraph(S)
    g.add_node("x", ask)
    g.add_node("y", ask)
    g.add_edge(START, "x")
    g.add_edge(START, "y")
    graph = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "stale"}}
    graph.invoke({"log": []}, cfg)
    with pytest.raises(ResumeError, match="may have been resumed already"):
        graph.invoke(Command(resume={"0" * 32: "late"}), cfg)
    with pytest.raises(RuntimeError, match="multiple pending interrupts, you must specify the interrupt id"):
        graph.invoke(Command(resume="which one?"), cfg)


def test_resume_without_a_checkpointer():
    with pytest.raises(RuntimeError, match="without a checkpointer"):
        chain("a").compile().invoke(Command(resume=1))


def test_value_that_cannot_be_checkpointed_names_key_and_type(tmp_path):
    class Opaque:
        pass

    class T(TypedDict):
        log: Annotated[list, operator.add]
        blob: object

    g = StateGraph(T)
    g.add_node("ok", lambda s: {"log": ["ok"]})
    g.add_node("bad", lambda s: {"blob": Opaque()})
    g.add_edge(START, "ok")
    g.add_edge("ok", "bad")
    graph = g.compile(checkpointer=SqliteSaver(tmp_path / "runs.sqlite"))
    cfg = {"configurable": {"thread_id": "s"}}
    with pytest.raises(SerializationError) as info:
        graph.invoke({"log": []}, cfg)
    text = str(info.value)
    assert "blob" in text and "Opaque" in text and "register_type" in text
    state = graph.get_state(cfg)
    assert state.values["log"] == ["ok"], "the checkpoints saved before the bad value stay"
    assert state.next == ("bad",)
