"""A persistent store injected into a graph's nodes and tools, as the in-memory one is:
`compile(store=...)`, a `store` parameter, `runtime.store`, `InjectedStore` in a tool."""
from __future__ import annotations

import asyncio
import operator
from typing import Annotated, TypedDict

from langchain_core.messages import AIMessage
from langchain_core.tools import tool

from engine import START, Runtime, StateGraph
from engine.prebuilt import InjectedStore, ToolNode
from engine.store import AsyncSqliteStore, BaseStore, SqliteStore


class S(TypedDict, total=False):
    out: Annotated[list, operator.add]


def _memory_graph():
    def remember(state, store, runtime: Runtime):
        assert runtime.store is store
        seen = store.get(("users", "ann"), "visits")
        count = (seen.value["n"] if seen else 0) + 1
        store.put(("users", "ann"), "visits", {"n": count})
        return {"out": [count]}

    g = StateGraph(S)
    g.add_node("remember", remember)
    g.add_edge(START, "remember")
    return g


def test_a_node_remembers_across_runs_and_processes_in_a_sqlite_store(tmp_path):
    path = str(tmp_path / "memory.db")
    with SqliteStore.from_conn_string(path) as store:
        store.setup()
        graph = _memory_graph().compile(store=store)
        assert graph.invoke({}) == {"out": [1]}
        assert graph.invoke({}) == {"out": [2]}
    with SqliteStore.from_conn_string(path) as reopened:  # as a new process would
        assert _memory_graph().compile(store=reopened).invoke({}) == {"out": [3]}
        assert reopened.get(("users", "ann"), "visits").value == {"n": 3}


def test_an_async_run_uses_the_async_sqlite_store(tmp_path):
    async def go():
        async with AsyncSqliteStore.from_conn_string(str(tmp_path / "a.db")) as store:
            await store.setup()

            async def remember(state, store):
                await store.aput(("notes",), "n1", {"text": "hello"})
                return {"out": [(await store.aget(("notes",), "n1")).value["text"]]}

            g = StateGraph(S)
            g.add_node("remember", remember)
            g.add_edge(START, "remember")
            return await g.compile(store=store).ainvoke({})

    assert asyncio.run(go()) == {"out": ["hello"]}


def test_a_tool_gets_the_store_injected_never_from_the_model(tmp_path):
    @tool
    def save_fact(fact: str, store: Annotated[BaseStore, InjectedStore()]) -> str:
        """Save a fact about the user."""
        store.put(("facts",), fact, {"fact": fact})
        return f"saved {fact}"

    assert "store" not in save_fact.tool_call_schema.model_json_schema()["properties"]
    with SqliteStore.from_conn_string(str(tmp_path / "t.db")) as store:
        store.setup()

        class M(TypedDict):
            messages: list

        g = StateGraph(M)
        g.add_node("tools", ToolNode([save_fact]))
        g.add_edge(START, "tools")
        call = AIMessage("", tool_calls=[{"name": "save_fact", "args": {"fact": "likes tea"}, "id": "c1"}])
        result = g.compile(store=store).invoke({"messages": [call]})
        assert result["messages"][-1].content == "saved likes tea"
        assert store.get(("facts",), "likes tea").value == {"fact": "likes tea"}
