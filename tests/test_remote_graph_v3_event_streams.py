"""RemoteGraph's v3 event streams (`stream_events(version="v3")`, `astream_events(version="v3")`)
against a real HTTP server speaking the thread streaming protocol (tests/remote_api_protocol.py),
through langgraph-sdk's real thread streams, each run a real engine run on the server: a
ReAct agent's tool calls and messages, an interrupt answered, a subgraph's handle, a failed
run, and what is refused before anything is sent."""
from __future__ import annotations

import asyncio
import operator
from collections.abc import Iterator
from typing import Annotated, Any

import pytest

pytest.importorskip("langgraph_sdk")
pytest.importorskip("langchain_core")

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage  # noqa: E402
from langchain_core.tools import tool  # noqa: E402
from typing_extensions import TypedDict  # noqa: E402

from engine import END, START, StateGraph, interrupt  # noqa: E402
from engine.checkpoint.memory import InMemorySaver  # noqa: E402
from engine.prebuilt import create_react_agent  # noqa: E402
from engine.remote import RemoteGraph  # noqa: E402
from engine.types import Command  # noqa: E402
from tests.remote_api_server import ApiServer, serve  # noqa: E402
from tests.scripted_chat import ScriptedChat  # noqa: E402


class Log(TypedDict):
    log: Annotated[list[str], operator.add]


@tool
def shout(text: str) -> str:
    """Say `text` louder."""
    return text.upper() + "!"


def _reply(messages: list[Any]) -> AIMessage:
    if isinstance(messages[-1], HumanMessage):
        return AIMessage("", id="ai-call", tool_calls=[{"name": "shout", "args": {"text": "hi"}, "id": "call_1"}])
    said = [m.content for m in messages if isinstance(m, ToolMessage)]
    return AIMessage("the tool said " + ", ".join(said), id="ai-done")


def _asker() -> Any:
    builder = StateGraph(Log)
    builder.add_node("first", lambda s: {"log": ["first"]})
    builder.add_node("ask", lambda s: {"log": [interrupt("go on?")]})
    builder.add_edge(START, "first")
    builder.add_edge("first", "ask")
    builder.add_edge("ask", END)
    return builder.compile(checkpointer=InMemorySaver())


def _nested() -> Any:
    inner = StateGraph(Log)
    inner.add_node("step", lambda s: {"log": ["inner step"]})
    inner.add_edge(START, "step")
    outer = StateGraph(Log)
    outer.add_node("child", inner.compile())
    outer.add_edge(START, "child")
    return outer.compile(checkpointer=InMemorySaver())


def _failing() -> Any:
    def boom(state: Log) -> dict[str, Any]:
        raise ValueError("the remote node failed")

    builder = StateGraph(Log)
    builder.add_node("boom", boom)
    builder.add_edge(START, "boom")
    return builder.compile(checkpointer=InMemorySaver())


@pytest.fixture
def server() -> Iterator[ApiServer]:
    agent = create_react_agent(ScriptedChat(reply=_reply), [shout], checkpointer=InMemorySaver())
    api = serve({"agent": agent, "asker": _asker(), "nested": _nested(), "failing": _failing()})
    yield api
    api.close()


def _commands(server: ApiServer) -> list[dict[str, Any]]:
    return [r["json"] for r in server.requests if r["path"].endswith("/commands")]



# langgraph-sdk reads a remote run's projections (values, lifecycle) on separate HTTP streams:
# on a loaded machine their relative order changes and a projection can miss or end early
# (a race in the SDK against this test server, not in the engine); a failure must repeat 3 times
pytestmark = pytest.mark.flaky(reruns=2)

def test_a_remote_agents_tool_calls_and_final_state(server: ApiServer) -> None:
    remote = RemoteGraph("agent", url=server.url)
    config = {"configurable": {"thread_id": "agent-1"}}
    with remote.stream_events({"messages": [("user", "shout hi")]}, config, version="v3") as run:
        calls = list(run.tool_calls)
        final = run.output
    [call] = calls
    assert (call.name, call.tool_call_id, call.input) == ("shout", "call_1", {"text": "hi"})
    assert call.output["content"] == "HI!"
    assert final["messages"][-1]["content"] == "the tool said HI!"
    [start] = _commands(server)
    assert start["method"] == "run.start" and start["params"]["assistant_id"] == "agent"
    assert start["params"]["config"] == {"configurable": {}}  # the thread goes in the path
    assert run.run_id is not None and run.thread_id == "agent-1"


def test_interrupted_answered_and_resumed_by_a_new_call(server: ApiServer) -> None:
    remote = RemoteGraph("asker", url=server.url)
    config = {"configurable": {"thread_id": "ask-1"}}
    run = remote.stream_events({"log": ["in"]}, config, version="v3")  # starts when first read
    seen = list(run.values)  # ends when the run pauses
    assert seen[-1] == {"log": ["in", "first"]}
    assert run.interrupted
    [pending] = run.interrupts
    assert pending["value"] == "go on?"
    run.respond("yes")
    assert run.output == {"log": ["in", "first", "yes"]}
    assert [c["method"] for c in _commands(server)] == ["run.start", "input.respond"]
    run.abort()

    # a paused thread, resumed by a new v3 call with Command(resume=...)
    again = {"configurable": {"thread_id": "ask-2"}}
    # read lazily (the run starts when `values` subscribes): entered with `with`, the run
    # starts at once and langgraph-sdk's `values`, subscribed after the pause, is never woken
    first = remote.stream_events({"log": []}, again, version="v3")
    list(first.values)
    assert first.interrupted
    first.abort()
    with remote.stream_events(Command(resume="later"), again, version="v3") as second:
        assert second.output == {"log": ["first", "later"]}
    assert _commands(server)[-1]["params"]["input"] == "later"  # the resume value itself goes


def test_a_subgraphs_handle_and_the_plain_projections(server: ApiServer) -> None:
    remote = RemoteGraph("nested", url=server.url)
    with remote.stream_events({"log": []}, {"configurable": {"thread_id": "n-1"}}, version="v3") as run:
        got = list(run.interleave("updates", "subgraphs"))
        assert run.output == {"log": ["inner step"]}
    handles = [item for name, item in got if name == "subgraphs"]
    assert [h.graph_name for h in handles] == ["child"]
    assert handles[0].status == "completed"
    assert ("updates", {"child": {"log": ["inner step"]}}) in got
    assert set(run.extensions) == {"values", "messages", "tool_calls", "subgraphs", "updates", "checkpoints",
                                   "tasks", "custom"}


def test_the_plain_data_channels_yield_each_events_data(server: ApiServer) -> None:
    remote = RemoteGraph("nested", url=server.url)
    with remote.stream_events({"log": []}, {"configurable": {"thread_id": "n-2"}}, version="v3") as run:
        updates = list(run.extensions["updates"])
    assert {"child": {"log": ["inner step"]}} in updates
    assert {"step": {"log": ["inner step"]}} in updates  # the subgraph's own, under its namespace


def test_a_failed_remote_run_raises_when_its_output_is_read(server: ApiServer) -> None:
    remote = RemoteGraph("failing", url=server.url)
    with remote.stream_events({"log": []}, {"configurable": {"thread_id": "f-1"}}, version="v3") as run:
        assert list(run.values)[-1] == {"log": []}  # the input's values, then the run fails
        with pytest.raises(RuntimeError, match="the remote node failed"):
            _ = run.output


def test_the_async_stream(server: ApiServer) -> None:
    async def main() -> None:
        remote = RemoteGraph("agent", url=server.url)
        config = {"configurable": {"thread_id": "agent-a"}}
        async with await remote.astream_events({"messages": [("user", "go")]}, config, version="v3") as run:
            names = [call.name async for call in run.tool_calls]
            final = await run.output()
        assert names == ["shout"]
        assert final["messages"][-1]["content"] == "the tool said HI!"

        lazy = await RemoteGraph("asker", url=server.url).astream_events(
            {"log": []}, {"configurable": {"thread_id": "ask-a"}}, version="v3")
        values = [v async for v in lazy.values]  # not entered: iterating starts the run
        # the SDK reads values and lifecycle on two streams: the pause (lifecycle) may end the
        # projection before the values stream hands over the pause's own value, so only states
        # of this run are asserted here; the paused state is checked by the answer below
        assert values and all(v in ({"log": []}, {"log": ["first"]}) for v in values), values
        assert await lazy.interrupted()
        await lazy.respond("ok")
        assert await lazy.output() == {"log": ["first", "ok"]}
        await lazy.abort()

    asyncio.run(main())


def test_what_a_server_stream_cannot_take_is_refused_before_anything_is_sent(server: ApiServer) -> None:
    remote = RemoteGraph("asker", url=server.url)
    with pytest.raises(NotImplementedError, match="transformers="):
        remote.stream_events({}, version="v3", transformers=[object])
    with pytest.raises(NotImplementedError, match="interrupt_before="):
        remote.stream_events({}, version="v3", interrupt_before=["ask"])
    with pytest.raises(NotImplementedError, match="stream_mode"):
        remote.stream_events({}, version="v3", stream_mode="values")
    with pytest.raises(NotImplementedError, match=r"Command\(goto=...\)"):
        remote.stream_events(Command(goto="ask"), version="v3")
    with pytest.raises(NotImplementedError, match="astream"):
        asyncio.run(remote.astream_events({}, version="v2"))
    assert server.requests == []
    run = remote.stream_events({"log": []}, version="v3")
    run.abort()
    with pytest.raises(RuntimeError, match="closed"):
        _ = run.output
    assert server.requests == []  # aborted before it started: nothing was sent
