"""A saver's `get_delta_channel_history` (the seed a delta channel starts from, and the
writes since, on the parent chain only), a thread whose key moves from a
BinaryOperatorAggregate to a DeltaChannel, and the ids messages written to a DeltaChannel get."""
from __future__ import annotations

import operator
from typing import Annotated

from langchain_core.messages import AIMessage, HumanMessage
from typing_extensions import TypedDict

from engine import END, START, InMemorySaver, SqliteSaver, StateGraph
from engine.compat.channels import BinaryOperatorAggregate, DeltaChannel


def concat(state: list, writes: list) -> list:
    out = list(state)
    for w in writes:
        out.extend(w if isinstance(w, list) else [w])
    return out


class Before(TypedDict):
    items: Annotated[list, BinaryOperatorAggregate(list, operator.add)]


class After(TypedDict):
    items: Annotated[list, DeltaChannel(concat)]


def build(schema, saver):
    return (StateGraph(schema).add_node("noop", lambda s: {}).add_edge(START, "noop").add_edge("noop", END)
            .compile(checkpointer=saver))


def test_history_seeds_from_the_nearest_ancestor_value_and_leaves_the_target_out(tmp_path) -> None:
    for saver in (InMemorySaver(), SqliteSaver(str(tmp_path / "c.sqlite"))):
        cfg = {"configurable": {"thread_id": "t"}}
        app = build(Before, saver)
        app.invoke({"items": ["a"]}, cfg)
        app.invoke({"items": ["b"]}, cfg)
        latest = app.get_state(cfg).config
        history = saver.get_delta_channel_history(config=latest, channels=["items", "absent"])
        assert history["items"] == {"writes": [], "seed": ["a", "b"]}
        assert history["absent"] == {"writes": []}
        assert saver.get_delta_channel_history(config=latest, channels=[]) == {}
        first = [s for s in app.get_state_history(cfg) if s.metadata["step"] == -1][-1].config
        assert saver.get_delta_channel_history(config=first, channels=["items"]) == {"items": {"writes": []}}


def test_a_key_moved_to_a_delta_channel_keeps_the_thread_and_folds_new_writes() -> None:
    saver = InMemorySaver()
    cfg = {"configurable": {"thread_id": "t"}}
    before = build(Before, saver)
    before.invoke({"items": ["a"]}, cfg)
    after = build(After, saver)
    assert after.get_state(cfg).values == {"items": ["a"]}
    assert after.invoke({"items": ["b"]}, cfg) == {"items": ["a", "b"]}
    assert [s.values.get("items") for s in after.get_state_history(cfg) if s.next == ("__start__",)] == [
        ["a"], []]  # each turn's input checkpoint: the state before that turn's input


def test_messages_written_to_a_delta_channel_get_ids_that_stay() -> None:
    class State(TypedDict):
        messages: Annotated[list, DeltaChannel(concat)]

    app = (StateGraph(State).add_node("agent", lambda s: {"messages": [AIMessage("reply", id="ai-1")]})
           .add_edge(START, "agent").compile(checkpointer=InMemorySaver()))
    cfg = {"configurable": {"thread_id": "t"}}
    given = {"role": "user", "content": "hi"}
    app.invoke({"messages": [HumanMessage("hello"), given]}, cfg)
    first = app.get_state(cfg).values["messages"]
    assert [type(m).__name__ for m in first] == ["HumanMessage", "HumanMessage", "AIMessage"]
    assert all(m.id for m in first) and first[-1].id == "ai-1"
    assert [m.id for m in app.get_state(cfg).values["messages"]] == [m.id for m in first]
    assert given == {"role": "user", "content": "hi"}  # the caller's dict is not changed
