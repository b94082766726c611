"""LangGraph's `_messages_delta_reducer` (served under engine.compat): a superstep's message
writes folded at once: converted to langchain-core messages, replaced in place by id,
removed by `RemoveMessage`, cut at the last remove-all; folding in one call or in parts
gives the same list; used as a `DeltaChannel` reducer in a StateGraph."""

from collections.abc import Iterator
from typing import Annotated, Any

import pytest

pytest.importorskip("langchain_core")

from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage  # noqa: E402

from engine import compat  # noqa: E402
from engine.messages import REMOVE_ALL_MESSAGES  # noqa: E402


@pytest.fixture
def reducer() -> Iterator[Any]:
    was = compat.installed()
    compat.install()
    from langgraph.graph.message import _messages_delta_reducer

    yield _messages_delta_reducer
    if not was:
        compat.uninstall()


def test_converts_replaces_and_removes(reducer: Any) -> None:
    state = [HumanMessage("hi", id="1"), AIMessage("old", id="2")]
    out = reducer(state, [[AIMessage("new", id="2"), {"role": "user", "content": "more", "id": "3"}],
                          RemoveMessage(id="1"), RemoveMessage(id="unknown")])
    assert [(type(m).__name__, m.content, m.id) for m in out] == [("AIMessage", "new", "2"),
                                                                  ("HumanMessage", "more", "3")]


def test_remove_all_keeps_only_what_follows_the_last_one(reducer: Any) -> None:
    state = [HumanMessage("a", id="1")]
    writes = [[HumanMessage("b", id="2"), RemoveMessage(id=REMOVE_ALL_MESSAGES), HumanMessage("c", id="3")]]
    assert [m.id for m in reducer(state, writes)] == ["3"]


def test_messages_without_ids_are_appended_as_they_are(reducer: Any) -> None:
    out = reducer([], ["plain text", ("ai", "reply")])
    assert [(type(m).__name__, m.content, m.id) for m in out] == [("HumanMessage", "plain text", None),
                                                                  ("AIMessage", "reply", None)]


def test_one_fold_equals_two(reducer: Any) -> None:
    state = [HumanMessage("a", id="1")]
    xs = [[AIMessage("b", id="2")], RemoveMessage(id="1")]
    ys = [[AIMessage("b2", id="2"), HumanMessage("c", id="3")]]
    assert reducer(reducer(state, xs), ys) == reducer(state, xs + ys)


def test_as_a_delta_channel_reducer_in_a_graph(reducer: Any) -> None:
    from langgraph.channels.delta import DeltaChannel
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START, StateGraph
    from typing_extensions import TypedDict

    class State(TypedDict):
        messages: Annotated[list, DeltaChannel(reducer)]

    def reply(state: State) -> dict[str, Any]:
        return {"messages": [AIMessage(f"seen {len(state['messages'])}", id=f"ai-{len(state['messages'])}")]}

    builder = StateGraph(State)
    builder.add_node("reply", reply)
    builder.add_edge(START, "reply")
    graph = builder.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    graph.invoke({"messages": [HumanMessage("hi", id="h1")]}, cfg)
    out = graph.invoke({"messages": [HumanMessage("again", id="h2")]}, cfg)
    assert [m.content for m in out["messages"]] == ["hi", "seen 1", "again", "seen 3"]
