"""`compiled.nodes[name]` is a node object as LangGraph's (`.bound`, `.metadata`,
`.copy(update)`), still callable; `compiled.copy(update)` copies the compiled graph."""
from __future__ import annotations

from typing import TypedDict

import pytest

from engine import START, InMemorySaver, RetryPolicy, StateGraph


class S(TypedDict):
    foo: str


def agent(state: S) -> dict:
    return {"foo": "agent"}


def on_error(state: S) -> dict:
    return {"foo": "handled"}


def _graph(**compile_kw):
    inner = StateGraph(S).add_node("x", agent).add_edge(START, "x").compile()
    return (StateGraph(S)
            .add_node("agent", agent, metadata={"team": "a"}, retry_policy=RetryPolicy(max_attempts=2),
                      error_handler=on_error)
            .add_node("sub", inner)
            .add_edge(START, "agent").add_edge("agent", "sub")
            .compile(**compile_kw))


def test_nodes_are_node_objects_with_their_options():
    graph = _graph()
    assert list(graph.nodes) == ["__start__", "__error_handler__agent", "agent", "sub"]
    node = graph.nodes["agent"]
    assert node.bound is agent and node.fn is agent
    assert node.triggers == ["branch:to:agent"] and node.metadata == {"team": "a"}
    assert node.retry_policy[0].max_attempts == 2 and node.error_handler == "__error_handler__agent"
    assert graph.nodes["__error_handler__agent"].bound is on_error
    assert graph.nodes["sub"].subgraphs == [graph.nodes["sub"].bound] and node.subgraphs == []
    assert node({"foo": ""}) == {"foo": "agent"}  # still callable: calls the function


def test_node_copy_replaces_fields_and_leaves_the_graph_alone():
    graph = _graph()
    node = graph.nodes["agent"]
    changed = node.copy({"metadata": {"team": "b"}})
    assert changed.metadata == {"team": "b"} and changed.bound is agent
    assert graph.nodes["agent"].metadata == {"team": "a"}
    assert node.copy({}).metadata == node.metadata
    with pytest.raises(TypeError, match="'colour'"):
        node.copy({"colour": "red"})
    with pytest.raises(TypeError, match="no function"):
        graph.nodes["__start__"]({})


def test_compiled_graph_copy():
    graph = _graph()
    graph.invoke({"foo": ""})
    same = graph.copy()
    assert same is not graph and same.invoke({"foo": ""}) == {"foo": "agent"}
    saver = InMemorySaver()
    saved = graph.copy({"name": "copied", "checkpointer": saver, "interrupt_before_nodes": ["sub"]})
    cfg = {"configurable": {"thread_id": "t"}}
    saved.invoke({"foo": ""}, cfg)
    assert saved.name == "copied" and saved.get_state(cfg).next == ("sub",)
    assert graph.name == "LangGraph" and graph.checkpointer is None and graph.interrupt_before == ()
    with pytest.raises(TypeError, match="'colour'"):
        graph.copy({"colour": "red"})
    with pytest.raises(ValueError, match="nope"):
        graph.copy({"interrupt_after_nodes": ["nope"]})
