"""astream_events of an async @entrypoint reports its last task's update between the
entrypoint's on_chain_stream and its on_chain_end (as LangGraph does), and the graph's own
run carries the shared configurable keys and `ls_integration`, the user's metadata first."""
from __future__ import annotations

import asyncio
from typing import Any, TypedDict

from engine import START, InMemorySaver, StateGraph
from engine.func import entrypoint, task


def _order(events: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(e["event"], e["name"]) for e in events if e["event"] in ("on_chain_start", "on_chain_stream",
                                                                       "on_chain_end")]


def _events(flow: Any, value: Any, config: dict[str, Any]) -> list[dict[str, Any]]:
    async def go() -> list[dict[str, Any]]:
        return [e async for e in flow.astream_events(value, config, version="v2")]

    return asyncio.run(go())


def test_last_task_update_comes_after_the_entrypoint_output_and_before_its_end() -> None:
    @task()
    async def halve(n: int) -> int:
        await asyncio.sleep(0)
        return n // 2

    @entrypoint(checkpointer=InMemorySaver())
    async def shrink(n: int) -> int:
        return await halve(await halve(n))

    events = _events(shrink, 8, {"configurable": {"thread_id": "s"}})
    assert _order(events) == [
        ("on_chain_start", "LangGraph"), ("on_chain_start", "shrink"),
        ("on_chain_start", "halve"), ("on_chain_stream", "halve"), ("on_chain_end", "halve"),
        ("on_chain_stream", "LangGraph"),
        ("on_chain_start", "halve"), ("on_chain_stream", "halve"), ("on_chain_end", "halve"),
        ("on_chain_stream", "shrink"), ("on_chain_stream", "LangGraph"), ("on_chain_end", "shrink"),
        ("on_chain_stream", "LangGraph"), ("on_chain_end", "LangGraph"),
    ]
    chunks = [e["data"]["chunk"] for e in events if e["event"] == "on_chain_stream" and e["name"] == "LangGraph"]
    assert chunks == [{"halve": 4}, {"halve": 2}, {"shrink": 2}]


def test_astream_updates_keep_task_updates_before_the_entrypoint_result() -> None:
    @task()
    async def inc(n: int) -> int:
        return n + 1

    @entrypoint()
    async def twice(n: int) -> int:
        return await inc(await inc(n))

    async def go() -> list[Any]:
        return [c async for c in twice.astream(0)]

    assert asyncio.run(go()) == [{"inc": 1}, {"inc": 2}, {"twice": 2}]


class S(TypedDict):
    a: int


def test_graph_run_metadata_has_shared_keys_and_the_users_own_win() -> None:
    g = StateGraph(S)
    g.add_node("n", lambda s: {"a": 1})
    g.add_edge(START, "n")
    graph = g.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "7", "assistant_id": "as", "secret": "k"},
              "metadata": {"thread_id": "mine"}}
    events = _events(graph, {"a": 0}, config)
    root = [e["metadata"] for e in events if e["name"] == "LangGraph"]
    assert root and all(m == {"thread_id": "mine", "assistant_id": "as", "ls_integration": "langgraph"} for m in root)
    node = next(e["metadata"] for e in events if e["name"] == "n")
    assert (node["thread_id"], node["assistant_id"], node["ls_integration"]) == ("mine", "as", "langgraph")
    assert "secret" not in node


def test_entrypoint_run_is_reported_as_pulled_from_start() -> None:
    @entrypoint()
    async def echo(n: int) -> int:
        return n

    start = next(e for e in _events(echo, 3, {}) if e["event"] == "on_chain_start" and e["name"] == "echo")
    meta = start["metadata"]
    assert (meta["langgraph_triggers"], meta["langgraph_path"]) == (("__start__",), ("__pregel_pull", "echo"))
