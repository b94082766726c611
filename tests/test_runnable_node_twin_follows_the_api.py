"""A Runnable node with a sync and an async twin (langchain's agent nodes are built so) runs
its sync twin under invoke()/stream() and its async twin under ainvoke()/astream(), as on
LangGraph: langchain's sync-only middleware has no async twin to call."""
from __future__ import annotations

import asyncio
from typing import TypedDict

from engine import END, START, StateGraph
from engine.prebuilt.runnable import RunnableCallable


class Said(TypedDict):
    who: list


def _graph(nested: bool = False):
    def sync_twin(state: Said) -> dict:
        return {"who": [*state["who"], "sync"]}

    async def async_twin(state: Said) -> dict:
        return {"who": [*state["who"], "async"]}

    inner = StateGraph(Said)
    inner.add_node("twin", RunnableCallable(sync_twin, async_twin))
    inner.add_edge(START, "twin")
    inner.add_edge("twin", END)
    if not nested:
        return inner.compile()
    outer = StateGraph(Said)
    outer.add_node("sub", inner.compile())
    outer.add_edge(START, "sub")
    outer.add_edge("sub", END)
    return outer.compile()


def test_invoke_and_stream_run_the_sync_twin() -> None:
    graph = _graph()
    assert graph.invoke({"who": []}) == {"who": ["sync"]}
    assert list(graph.stream({"who": []}, stream_mode="values"))[-1] == {"who": ["sync"]}
    live = list(graph.stream({"who": []}, stream_mode=["values", "custom"]))
    assert live[-1] == ("values", {"who": ["sync"]})


def test_ainvoke_and_astream_run_the_async_twin() -> None:
    graph = _graph()

    async def both() -> tuple:
        out = await graph.ainvoke({"who": []})
        chunks = [c async for c in graph.astream({"who": []}, stream_mode="values")]
        return out, chunks[-1]

    assert asyncio.run(both()) == ({"who": ["async"]}, {"who": ["async"]})


def test_a_subgraph_follows_its_parents_api() -> None:
    graph = _graph(nested=True)
    assert graph.invoke({"who": []}) == {"who": ["sync"]}
    assert asyncio.run(graph.ainvoke({"who": []})) == {"who": ["async"]}
