"""A node on a worker thread that invokes an inner graph: the inner run's events reach the
stream through the loop, and the callback chunks of its tools (`stream_mode="tools"`) and
tokens go the same way, in the order they were made. Here the loop is held busy while the
inner graph runs, so a chunk taking a shorter path would overtake the inner run's events."""
from __future__ import annotations

import asyncio
import threading
import time
from typing import Annotated

from langchain_core.messages import AIMessage, AnyMessage
from langchain_core.tools import tool
from typing_extensions import TypedDict

from engine import START, StateGraph, add_messages
from engine.prebuilt import ToolNode


class Chat(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


@tool
def echo(text: str) -> str:
    """Echo the text."""
    return text


def _inner():
    call = AIMessage("", tool_calls=[{"name": "echo", "args": {"text": "hi"}, "id": "call-1"}])
    return (StateGraph(Chat).add_node("prep", lambda s: {"messages": [call]})
            .add_node("tools", ToolNode([echo])).add_edge(START, "prep").add_edge("prep", "tools").compile())


def test_an_inner_tool_call_comes_after_the_inner_runs_earlier_steps() -> None:
    inner = _inner()
    started = threading.Event()

    def outer_node(state: Chat) -> dict:
        started.set()
        time.sleep(0.05)  # the loop is now held (below) while the inner graph runs
        out = inner.invoke({"messages": []})
        return {"messages": out["messages"][-1:]}

    outer = StateGraph(Chat).add_node("outer", outer_node).add_edge(START, "outer").compile()

    async def main() -> list[tuple]:
        async def hold_the_loop() -> None:
            while not started.is_set():
                await asyncio.sleep(0.001)
            time.sleep(0.5)  # blocks the loop: what the worker thread sends now waits in its queue

        holder = asyncio.ensure_future(hold_the_loop())
        chunks = [c async for c in outer.astream({"messages": []}, stream_mode=["updates", "tools"], subgraphs=True)]
        await holder
        return chunks

    chunks = asyncio.run(main())
    inner_moves = [(mode, next(iter(data)) if mode == "updates" else data["event"])
                   for ns, mode, data in chunks if ns]
    assert inner_moves.index(("updates", "prep")) < inner_moves.index(("tools", "tool-started")), inner_moves
    assert inner_moves.index(("tools", "tool-finished")) < inner_moves.index(("updates", "tools")), inner_moves
