"""Errors in LangGraph's families (what a ported `except` or `pytest.raises` catches),
and Overwrite in every form LangGraph recognises."""
from __future__ import annotations

import json
import operator
from typing import Annotated, TypedDict

import orjson
import pytest

from engine import START, Command, InMemorySaver, InvalidUpdateError, Overwrite, StateGraph, interrupt
from engine.errors import EmptyChannelError, ErrorCode, GraphBubbleUp, GraphInterrupt, ParentCommand


class S(TypedDict):
    a: str
    b: str


def test_one_resume_value_for_two_pending_interrupts_is_a_runtime_error():
    g = StateGraph(S)
    g.add_node("x", lambda s: {"a": interrupt("qa")})
    g.add_node("y", lambda s: {"b": interrupt("qb")})
    g.add_edge(START, "x")
    g.add_edge(START, "y")
    graph = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "1"}}
    graph.invoke({"a": "", "b": ""}, cfg)
    with pytest.raises(RuntimeError, match="When there are multiple pending interrupts, you must specify"):
        graph.invoke(Command(resume="one"), cfg)
    answers = {i.id: f"re {i.value}" for i in graph.get_state(cfg).interrupts}
    assert graph.invoke(Command(resume=answers), cfg) == {"a": "re qa", "b": "re qb"}


def test_an_invalid_checkpointer_is_a_type_error_naming_it():
    g = StateGraph(S)
    g.add_node("x", lambda s: {})
    g.add_edge(START, "x")

    class NotASaver:
        pass

    with pytest.raises(TypeError, match="Invalid checkpointer provided.*NotASaver"):
        g.compile(checkpointer=NotASaver())
    assert g.compile(checkpointer=True).checkpointer is None  # True/False/None stay accepted


def test_a_parent_command_with_no_parent_leaves_invoke_as_parent_command():
    g = StateGraph(S)
    g.add_node("x", lambda s: Command(graph=Command.PARENT, goto="elsewhere", update={"a": "v"}))
    g.add_edge(START, "x")
    with pytest.raises(ParentCommand) as caught:
        g.compile(checkpointer=InMemorySaver()).invoke({"a": ""}, {"configurable": {"thread_id": "1"}})
    assert (caught.value.args[0].goto, caught.value.args[0].update) == ("elsewhere", {"a": "v"})


def test_error_families_match_langgraph():
    assert issubclass(ParentCommand, GraphBubbleUp) and issubclass(GraphInterrupt, GraphBubbleUp)
    assert issubclass(EmptyChannelError, Exception)
    assert ErrorCode.INVALID_CONCURRENT_GRAPH_UPDATE.value == "INVALID_CONCURRENT_GRAPH_UPDATE"


class Log(TypedDict):
    messages: Annotated[list, operator.add]


def _diamond(write_b, write_c=lambda s: {"messages": ["c"]}):
    g = StateGraph(Log)
    g.add_node("a", lambda s: {"messages": ["a"]})
    g.add_node("b", write_b)
    g.add_node("c", write_c)
    g.add_node("d", lambda s: {"messages": ["d"]})
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("a", "c")
    g.add_edge("b", "d")
    g.add_edge("c", "d")
    return g.compile(checkpointer=InMemorySaver())


@pytest.mark.parametrize("form", [
    Overwrite(["b"]),
    {"__overwrite__": ["b"]},
    json.loads(json.dumps({"value": ["b"], "type": "__overwrite__"})),  # an Overwrite after a JSON trip
], ids=["object", "sentinel-dict", "json-erased"])
def test_an_overwrite_wins_over_a_parallel_append(form):
    graph = _diamond(lambda s: {"messages": form})
    assert graph.invoke({"messages": ["START"]}, {"configurable": {"thread_id": "1"}}) == {"messages": ["b", "d"]}


def test_two_overwrites_in_one_step_are_refused_as_langgraph_words_it():
    graph = _diamond(lambda s: {"messages": Overwrite(["b"])}, lambda s: {"messages": {"__overwrite__": ["c"]}})
    with pytest.raises(InvalidUpdateError, match="Can receive only one Overwrite value per super-step"):
        graph.invoke({"messages": ["START"]}, {"configurable": {"thread_id": "1"}})


def test_an_overwrite_keeps_its_discriminator_through_json():
    erased = orjson.loads(orjson.dumps(Overwrite(["x"])))  # a dataclass becomes a plain dict
    assert erased == {"value": ["x"], "type": "__overwrite__"}


def test_build_errors_use_langgraphs_words():
    g = StateGraph(S)
    g.add_node("start", lambda s: s)
    g.add_edge(START, "start")
    g.add_edge("unknown", "start")
    with pytest.raises(ValueError, match="Found edge starting at unknown node `unknown`"):
        g.compile()

    def bad(a):
        return a

    with pytest.raises(ValueError, match=r"Invalid reducer signature for key `a`: .*bad\(a\)"):
        StateGraph(TypedDict("Bad", {"a": Annotated[str, bad]}))


def test_graph_interrupt_raised_bare_carries_no_interrupts_and_is_caught_as_a_bubble_up():
    # a middleware re-raising `raise GraphInterrupt` (no arguments), as LangGraph allows
    with pytest.raises(GraphBubbleUp) as caught:
        raise GraphInterrupt
    assert caught.value.interrupts == ()
