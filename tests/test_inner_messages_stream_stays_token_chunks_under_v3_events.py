"""A graph streamed with `stream_mode="messages"` inside a node of a graph run under
`stream_events(version="v3")` still yields token chunks (AIMessageChunk), not the v3
protocol: the outer stream's protocol handler is not inherited by the inner v1 stream.
The outer v3 stream itself keeps its protocol events."""
from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("langchain_core")

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel  # noqa: E402
from langchain_core.messages import AIMessageChunk  # noqa: E402
from langchain_core.runnables import RunnableConfig  # noqa: E402
from typing_extensions import TypedDict  # noqa: E402

from engine import END, START, MessagesState, StateGraph  # noqa: E402


class Outer(TypedDict, total=False):
    kinds: list[str]
    text: str


def _graphs(reply: str) -> tuple[Any, Any]:
    model = GenericFakeChatModel(messages=iter([reply, reply]))

    def call_model(state: MessagesState) -> dict[str, Any]:
        return {"messages": model.invoke(state["messages"])}

    inner = StateGraph(MessagesState).add_node("call_model", call_model).add_edge(START, "call_model") \
        .add_edge("call_model", END).compile()

    def call_inner(state: Outer, config: RunnableConfig) -> Outer:
        payloads = [p for p, _meta in inner.stream({"messages": "hi"}, config, stream_mode="messages")]
        return {"kinds": sorted({type(p).__name__ for p in payloads}),
                "text": "".join(p.content for p in payloads if isinstance(p, AIMessageChunk))}

    outer = StateGraph(Outer).add_node("call_inner", call_inner).add_edge(START, "call_inner") \
        .add_edge("call_inner", END).compile()
    return inner, outer


def test_the_inner_stream_yields_token_chunks_under_an_outer_v3_stream() -> None:
    _, outer = _graphs("nested legacy path")
    result = outer.stream_events({}, version="v3").output
    assert result == {"kinds": ["AIMessageChunk"], "text": "nested legacy path"}


def test_the_same_inner_stream_under_a_plain_invoke() -> None:
    _, outer = _graphs("plain path")
    assert outer.invoke({}) == {"kinds": ["AIMessageChunk"], "text": "plain path"}


def test_a_v3_stream_of_the_model_graph_itself_still_gets_protocol_events() -> None:
    inner, _ = _graphs("direct v3")
    run = inner.stream_events({"messages": "hi"}, version="v3")
    texts = []
    for message in run.messages:
        texts.append("".join(message.text))
    assert texts == ["direct v3"]
