"""Node input schemas: the node sees only its schema's keys; private keys pass between nodes."""
from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Annotated, TypedDict

import pytest
from pydantic import BaseModel

from engine import START, InMemorySaver, StateGraph


class S(TypedDict):
    a: str
    log: Annotated[list, operator.add]


class Scratch(TypedDict):
    scratch: Annotated[list, operator.add]
    a: str


def test_input_schema_argument_and_private_reducer_key():
    seen = []

    def writer(state):
        return {"scratch": [state["a"]], "log": ["w"]}

    def reader(state):
        seen.append(dict(state))
        return {"log": [len(state["scratch"])]}

    g = StateGraph(S)
    g.add_node("w1", writer)
    g.add_node("w2", writer)
    g.add_node("r", reader, input_schema=Scratch)
    g.add_edge(START, "w1")
    g.add_edge(START, "w2")
    g.add_edge(["w1", "w2"], "r")
    graph = g.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    assert graph.invoke({"a": "x", "log": []}, cfg) == {"a": "x", "log": ["w", "w", 2]}
    assert seen == [{"scratch": ["x", "x"], "a": "x"}]
    # private keys are kept in checkpoints (a resume needs them) but never in the output
    assert graph.get_state(cfg).values["scratch"] == ["x", "x"]


@dataclass
class OnlyA:
    a: str


class Model(BaseModel):
    a: str


def test_first_parameter_hint_as_dataclass_and_pydantic():
    got = []

    def d(state: OnlyA):
        got.append(state)
        return {"log": [state.a]}

    def p(state: Model):
        got.append(state)
        return {"log": [state.a.upper()]}

    g = StateGraph(S)
    g.add_node("d", d)
    g.add_node("p", p)
    g.add_edge(START, "d")
    g.add_edge("d", "p")
    assert g.compile().invoke({"a": "q", "log": []}) == {"a": "q", "log": ["q", "Q"]}
    assert got == [OnlyA("q"), Model(a="q")]


def test_hint_equal_to_the_state_schema_changes_nothing():
    def n(state: S):
        return {"log": [sorted(state)]}

    g = StateGraph(S)
    g.add_node("n", n)
    g.add_edge(START, "n")
    assert g.compile().invoke({"a": "z", "log": []})["log"] == [["a", "log"]]


def test_bad_input_schema_is_refused_at_add_node():
    class Broken(TypedDict):
        x: "NoSuchType"  # noqa: F821

    with pytest.raises(TypeError, match="NoSuchType"):
        StateGraph(S).add_node("n", lambda s: {}, input_schema=Broken)


class Overall(TypedDict):
    foo: Annotated[int, operator.add]
    bar: str


class RouterIn(TypedDict):
    baz: str


def test_a_router_hinted_with_its_own_schema_sees_only_its_keys_private_ones_included():
    seen = []

    def first(state: Overall):
        return {"foo": 1, "baz": "meow"}  # `baz` is no key of the graph's state: the router's own

    def route(state: RouterIn):
        seen.append(dict(state))
        return "second" if state["baz"] == "meow" else "__end__"

    g = StateGraph(Overall)
    g.add_node("first", first)
    g.add_node("second", lambda s: {"foo": 1, "bar": "done"})
    g.add_edge(START, "first")
    g.add_conditional_edges("first", route)
    graph = g.compile()
    assert graph.invoke({"foo": 0}) == {"foo": 2, "bar": "done"} and seen == [{"baz": "meow"}]
    assert set(graph.channels) >= {"foo", "bar", "baz"}
