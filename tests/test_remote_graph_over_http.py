"""RemoteGraph against a real LangGraph-API-shaped HTTP server (tests/remote_api_server.py)
that runs real engine graphs: langgraph-sdk's real clients, real sockets, real SSE."""
from __future__ import annotations

import asyncio
import operator
from collections.abc import Iterator
from typing import Annotated, Any

import pytest
from langchain_core.messages import AIMessage, AnyMessage
from typing_extensions import TypedDict

from engine import END, START, StateGraph, interrupt
from engine.checkpoint.memory import InMemorySaver
from engine import add_messages
from engine.remote import RemoteException, RemoteGraph
from engine.types import Command, Interrupt
from tests.remote_api_server import ApiServer, serve


class Log(TypedDict):
    log: Annotated[list[str], operator.add]


class Chat(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


def _asking_graph() -> Any:
    def first(state: Log) -> dict[str, Any]:
        return {"log": ["first"]}

    def ask(state: Log) -> dict[str, Any]:
        return {"log": [interrupt("go on?")]}

    builder = StateGraph(Log)
    builder.add_node("first", first)
    builder.add_node("ask", ask)
    builder.add_edge(START, "first")
    builder.add_edge("first", "ask")
    builder.add_edge("ask", END)
    return builder.compile(checkpointer=InMemorySaver())


def _failing_graph() -> Any:
    def boom(state: Log) -> dict[str, Any]:
        raise ValueError("the remote node failed")

    builder = StateGraph(Log)
    builder.add_node("boom", boom)
    builder.add_edge(START, "boom")
    return builder.compile(checkpointer=InMemorySaver())


def _chat_graph() -> Any:
    def reply(state: Chat) -> dict[str, Any]:
        return {"messages": [AIMessage("hello back", id="ai-1")]}

    builder = StateGraph(Chat)
    builder.add_node("reply", reply)
    builder.add_edge(START, "reply")
    return builder.compile(checkpointer=InMemorySaver())


@pytest.fixture
def server() -> Iterator[ApiServer]:
    api = serve({"asker": _asking_graph(), "failing": _failing_graph(), "chat": _chat_graph()})
    yield api
    api.close()


def _runs(server: ApiServer) -> list[dict[str, Any]]:
    return [r for r in server.requests if r["path"].endswith("/runs/stream")]


def test_invoke_resume_and_thread_state_over_http(server: ApiServer) -> None:
    remote = RemoteGraph("asker", url=server.url)
    config = {"configurable": {"thread_id": "t1"}}
    paused = remote.invoke({"log": ["in"]}, config)
    assert paused["log"] == ["in", "first"]
    assert [i["value"] for i in paused["__interrupt__"]] == ["go on?"]
    run = _runs(server)[-1]
    assert run["path"] == "/threads/t1/runs/stream"  # the thread goes in the path, not the config
    assert run["json"]["config"] == {"configurable": {}}
    assert set(run["json"]["stream_mode"]) == {"values", "updates"}

    state = remote.get_state(config)
    local = server.graphs["asker"].get_state(config)
    assert state.values == local.values == {"log": ["in", "first"]}
    assert state.next == ("ask",)
    assert state.config["configurable"]["checkpoint_id"] == local.config["configurable"]["checkpoint_id"]
    assert state.interrupts == (Interrupt(value="go on?", id=local.interrupts[0].id),)

    assert remote.invoke(Command(resume="yes"), config) == {"log": ["in", "first", "yes"]}
    assert _runs(server)[-1]["json"]["command"] == {"goto": [], "resume": "yes"}
    history = list(remote.get_state_history(config))
    assert [s.config for s in history] == [
        {"configurable": {**s.config["configurable"], "checkpoint_map": {}}}
        for s in server.graphs["asker"].get_state_history(config)]

    updated = remote.update_state(config, {"log": ["edited"]}, as_node="ask")
    assert remote.get_state(updated).values["log"][-1] == "edited"
    assert list(remote.get_graph().nodes) == ["__start__", "first", "ask", "__end__"]


def test_stream_modes_and_versions_over_http(server: ApiServer) -> None:
    remote = RemoteGraph("asker", url=server.url)
    config = {"configurable": {"thread_id": "t2"}}
    parts = list(remote.stream({"log": []}, config, stream_mode=["updates"]))
    assert [(p.event, p.data) for p in parts][:1] == [("updates", {"first": {"log": ["first"]}})]
    v2 = list(remote.stream(Command(resume="ok"), config, stream_mode="values", version="v2"))
    assert v2[-1] == {"type": "values", "ns": (), "data": {"log": ["first", "ok"]}, "interrupts": ()}
    output = remote.invoke(None, {"configurable": {"thread_id": "t2"}}, version="v2")
    assert output.value == {"log": ["first", "ok"]}


def test_the_async_api_over_http(server: ApiServer) -> None:
    async def main() -> None:
        remote = RemoteGraph("asker", url=server.url)
        config = {"configurable": {"thread_id": "a1"}}
        paused = await remote.ainvoke({"log": ["in"]}, config)
        assert paused["log"] == ["in", "first"]
        state = await remote.aget_state(config)
        assert state.next == ("ask",)
        chunks = [c async for c in remote.astream(Command(resume="yes"), config, subgraphs=True)]
        assert chunks == [((), {"ask": {"log": ["yes"]}})]
        history = [s async for s in remote.aget_state_history(config, limit=2)]
        assert len(history) == 2 and history[0].values == {"log": ["in", "first", "yes"]}
        done = await remote.aupdate_state(config, {"log": ["more"]})
        assert (await remote.aget_state(done)).values["log"][-1] == "more"
        assert "ask" in (await remote.aget_graph()).nodes

    asyncio.run(main())


def _parent_of(remote: RemoteGraph) -> Any:
    builder = StateGraph(Log)
    builder.add_node("remote", remote)
    builder.add_edge(START, "remote")
    return builder.compile(checkpointer=InMemorySaver())


def test_as_a_node_its_interrupt_pauses_the_task_and_its_chunks_stream_as_a_subgraph(server: ApiServer) -> None:
    parent = _parent_of(RemoteGraph("asker", url=server.url, name="remote"))
    config = {"configurable": {"thread_id": "p1"}}
    chunks = list(parent.stream({"log": ["p"]}, config, stream_mode="updates", subgraphs=True))
    inner = [(ns, c) for ns, c in chunks if ns]
    assert inner and all(len(ns) == 1 and ns[0].startswith("remote:") for ns, _ in inner)
    assert inner[0][1] == {"first": {"log": ["first"]}}
    assert _runs(server)[-1]["json"]["stream_subgraphs"] is True
    (task,) = parent.get_state(config).tasks
    assert task.name == "remote" and [i.value for i in task.interrupts] == ["go on?"]
    assert parent.get_state(config).next == ("remote",)


def test_as_a_node_without_subgraphs_the_caller_streams_only_its_own_chunks(server: ApiServer) -> None:
    remote = RemoteGraph("chat", url=server.url)
    builder = StateGraph(Chat)
    builder.add_node("remote", remote)
    builder.add_edge(START, "remote")
    parent = builder.compile()
    chunks = list(parent.stream({"messages": [("user", "hi")]}, stream_mode="updates"))
    assert len(chunks) == 1 and list(chunks[0]) == ["remote"]
    assert [m["content"] for m in chunks[0]["remote"]["messages"]] == ["hi", "hello back"]
    assert _runs(server)[-1]["json"]["stream_subgraphs"] is False
    assert _runs(server)[-1]["path"] == "/runs/stream"  # no thread: a threadless run


def test_messages_mode_over_http(server: ApiServer) -> None:
    remote = RemoteGraph("chat", url=server.url)
    got = list(remote.stream({"messages": [("user", "hi")]}, stream_mode="messages"))
    assert got and all(isinstance(c, tuple) and len(c) == 2 for c in got)
    assert [m["content"] for m, _meta in got] == ["hello back"]
    assert _runs(server)[-1]["json"]["stream_mode"] == ["messages-tuple", "updates"]


def test_a_failed_remote_run_raises_remote_exception(server: ApiServer) -> None:
    remote = RemoteGraph("failing", url=server.url)
    with pytest.raises(RemoteException, match="the remote node failed"):
        remote.invoke({"log": []}, {"configurable": {"thread_id": "f1"}})


def test_headers_and_api_key_reach_the_server(server: ApiServer) -> None:
    remote = RemoteGraph("asker", url=server.url, api_key="k-123", headers={"x-team": "blue"})
    remote.invoke({"log": []}, {"configurable": {"thread_id": "h1"}}, headers={"x-call": "one"})
    sent = {k.lower(): v for k, v in _runs(server)[-1]["headers"].items()}
    assert sent["x-api-key"] == "k-123" and sent["x-team"] == "blue" and sent["x-call"] == "one"


def test_bad_calls_say_what_is_missing() -> None:
    with pytest.raises(ValueError, match="thread"):
        RemoteGraph("g", url="http://127.0.0.1:9").get_state({"configurable": {}})
    with pytest.raises(ValueError, match="url= or sync_client="):
        RemoteGraph("g").invoke({})
    with pytest.raises(ValueError, match="url= or client="):
        asyncio.run(RemoteGraph("g").ainvoke({}))


BASE_INSTALL = """
import sys

class Absent:  # a base install: neither langchain-core nor langgraph-sdk is there
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("langchain_core", "langgraph_sdk", "langsmith"):
            raise ModuleNotFoundError(f"No module named {name!r}")
        return None

sys.meta_path.insert(0, Absent())
import engine.compat
engine.compat.install()
from langgraph.pregel.remote import RemoteGraph
assert not isinstance(object(), RemoteGraph)
try:
    RemoteGraph("g", url="http://127.0.0.1:9")
except ImportError as exc:
    print(exc)
"""


def test_on_a_base_install_the_class_imports_and_making_one_asks_for_the_extra() -> None:
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", BASE_INSTALL], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "RemoteGraph needs langchain-core and langgraph-sdk: pip install 'retrograph[remote]'"
