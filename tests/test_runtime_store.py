"""Runtime context, injected `runtime`/`store`, get_runtime()/get_store(), InMemoryStore."""
from __future__ import annotations

import asyncio
import operator
from dataclasses import dataclass
from typing import Annotated, TypedDict

import pytest
from pydantic import BaseModel, ValidationError

from engine import (
    START,
    InMemoryStore,
    RetryPolicy,
    Runtime,
    StateGraph,
    get_runtime,
    get_store,
)
from engine.store import InvalidNamespaceError


@dataclass
class Ctx:
    user: str
    level: int = 1


class S(TypedDict, total=False):
    out: Annotated[list, operator.add]


def one_node(fn, **kw) -> StateGraph:
    g = StateGraph(S, context_schema=kw.pop("context_schema", Ctx))
    g.add_node("n", fn, **kw)
    g.add_edge(START, "n")
    return g


def test_runtime_parameter_gets_context_coerced_from_a_dict():
    def n(state, runtime: Runtime[Ctx]):
        return {"out": [f"{runtime.context.user}/{runtime.context.level}"]}

    graph = one_node(n).compile()
    assert graph.invoke({}, context={"user": "ann"}) == {"out": ["ann/1"]}
    assert graph.invoke({}, context=Ctx("bob", 3)) == {"out": ["bob/3"]}
    with pytest.raises(TypeError):
        graph.invoke({}, context={"nobody": 1})


def test_pydantic_context_is_validated():
    class P(BaseModel):
        user: str

    def n(state, runtime):
        return {"out": [runtime.context.user]}

    graph = one_node(n, context_schema=P).compile()
    assert graph.invoke({}, context={"user": "cy"}) == {"out": ["cy"]}
    with pytest.raises(ValidationError):
        graph.invoke({}, context={"user": 3.5})


def test_runtime_by_hint_under_another_name_and_get_runtime():
    def n(state, rt: Runtime[Ctx]):
        assert get_runtime(Ctx).context is rt.context
        return {"out": [rt.context.user, rt.context is None]}

    assert one_node(n).compile().invoke({}, context=Ctx("d")) == {"out": ["d", False]}
    assert one_node(lambda s: {"out": [get_runtime().context]}).compile().invoke({}) == {"out": [None]}


def test_get_runtime_outside_a_node_is_an_error():
    with pytest.raises(RuntimeError, match="inside a node"):
        get_runtime()


def test_store_injected_by_name_by_runtime_and_get_store():
    store = InMemoryStore()
    store.put(("users", "ann"), "profile", {"name": "Ann"})

    def n(state, store, runtime: Runtime[Ctx]):
        assert runtime.store is store is get_store()
        item = store.get(("users", runtime.context.user), "profile")
        store.put(("seen",), runtime.context.user, {"n": 1})
        return {"out": [item.value["name"]]}

    graph = one_node(n).compile(store=store)
    assert graph.invoke({}, context=Ctx("ann")) == {"out": ["Ann"]}
    assert store.get(("seen",), "ann").value == {"n": 1}
    assert one_node(lambda s, store: {"out": [store]}).compile().invoke({}) == {"out": [None]}


def test_subgraph_shares_context_and_store():
    store = InMemoryStore()
    inner = one_node(lambda s, runtime: {"out": [runtime.context.user, runtime.store is store]}).compile()
    g = StateGraph(S, context_schema=Ctx)
    g.add_node("sub", inner)
    g.add_edge(START, "sub")
    assert g.compile(store=store).invoke({}, context=Ctx("eve")) == {"out": ["eve", True]}


def test_execution_info_counts_attempts():
    seen = []

    def n(state, runtime: Runtime[Ctx]):
        info = runtime.execution_info
        seen.append(info.node_attempt)
        if info.node_attempt < 3:
            raise ConnectionError("flaky")
        return {"out": [info.thread_id, info.task_id != "", info.node_first_attempt_time is not None]}

    graph = one_node(n, retry_policy=RetryPolicy(initial_interval=0, jitter=False)).compile()
    assert graph.invoke({}) == {"out": [None, True, True]} and seen == [1, 2, 3]


def test_runtime_override_and_merge():
    a = Runtime(context=Ctx("a"))
    assert a.override(context=Ctx("b")).context.user == "b"
    assert a.merge(Runtime(context=Ctx("c"))).context.user == "c"
    assert a.merge(Runtime()).context.user == "a"


def test_in_memory_store_api():
    s = InMemoryStore()
    s.put(("a", "b"), "k1", {"x": 1, "tag": {"color": "red"}})
    s.put(("a", "c"), "k2", {"x": 5})
    s.put(("d",), "k3", {"x": 9})
    first = s.get(("a", "b"), "k1")
    assert first.value == {"x": 1, "tag": {"color": "red"}} and first.namespace == ("a", "b")
    s.put(("a", "b"), "k1", {"x": 2, "tag": {"color": "red"}})
    again = s.get(("a", "b"), "k1")
    assert again.created_at == first.created_at and again.updated_at >= first.updated_at
    assert [i.key for i in s.search(("a",))] == ["k1", "k2"]
    assert [i.key for i in s.search(("a",), filter={"x": {"$gt": 2}})] == ["k2"]
    assert [i.key for i in s.search(("a",), filter={"tag": {"color": "red"}})] == ["k1"]
    assert [i.key for i in s.search((), limit=1, offset=1)] == ["k2"]
    assert s.list_namespaces() == [("a", "b"), ("a", "c"), ("d",)]
    assert s.list_namespaces(prefix=("a",), max_depth=1) == [("a",)]
    assert s.list_namespaces(suffix=("c",)) == [("a", "c")]
    s.delete(("a", "b"), "k1")
    assert s.get(("a", "b"), "k1") is None
    s.put(("a", "c"), "k2", None)
    assert s.get(("a", "c"), "k2") is None


def test_in_memory_store_async_twins():
    s = InMemoryStore()

    async def go():
        await s.aput(("n",), "k", {"v": 1})
        got = await s.aget(("n",), "k")
        found = await s.asearch(("n",))
        spaces = await s.alist_namespaces()
        await s.adelete(("n",), "k")
        return got.value, [i.key for i in found], spaces, await s.aget(("n",), "k")

    assert asyncio.run(go()) == ({"v": 1}, ["k"], [("n",)], None)


@pytest.mark.parametrize("namespace", [(), ("a.b",), ("langgraph",), ("x", 3), "users"])
def test_store_refuses_bad_namespaces(namespace):
    with pytest.raises(InvalidNamespaceError):
        InMemoryStore().put(namespace, "k", {})


def test_store_refuses_non_dict_values():
    with pytest.raises(TypeError, match="a store value is a dict"):
        InMemoryStore().put(("a",), "k", [1, 2])


def test_store_with_many_items_pages():
    s = InMemoryStore()
    for i in range(2000):
        s.put(("bulk", str(i % 7)), f"k{i}", {"i": i})
    assert len(s.search(("bulk",), limit=50)) == 50
    assert len(s.search(("bulk",), filter={"i": {"$gte": 1990}}, limit=100)) == 10


def test_first_attempt_time_is_the_same_on_every_attempt(monkeypatch):
    import time as time_module

    sleeps = []
    monkeypatch.setattr(time_module, "sleep", lambda s: sleeps.append(s))
    seen = []

    def n(state, runtime: Runtime[Ctx]):
        seen.append(runtime.execution_info.node_first_attempt_time)
        if len(seen) < 3:
            raise ConnectionError("flaky")
        return {"out": ["ok"]}

    graph = one_node(n, retry_policy=RetryPolicy(initial_interval=0.25, backoff_factor=2, jitter=False)).compile()
    assert graph.invoke({}) == {"out": ["ok"]}
    assert len(set(seen)) == 1 and seen[0] is not None
    assert sleeps == [0.25, 0.5]  # a sync invoke waits on its own thread


def test_execution_info_of_a_subgraph_node_and_server_info():
    from engine import InMemorySaver

    class T(TypedDict, total=False):
        m: str

    got = {}

    def inner(state, runtime: Runtime):
        got["sub"] = runtime.execution_info
        return {"m": "s"}

    def outer(state, runtime: Runtime):
        got["main"], got["server"] = runtime.execution_info, runtime.server_info
        return {"m": "m"}

    sub = StateGraph(T)
    sub.add_node("sub_node", inner)
    sub.add_edge(START, "sub_node")
    g = StateGraph(T)
    g.add_node("main_node", outer)
    g.add_node("subgraph", sub.compile())
    g.add_edge(START, "main_node")
    g.add_edge("main_node", "subgraph")
    cfg = {"configurable": {"thread_id": "th", "assistant_id": "asst", "graph_id": "gr"}}
    g.compile(checkpointer=InMemorySaver()).invoke({"m": "hi"}, cfg)
    main, inner_info = got["main"], got["sub"]
    assert main.thread_id == inner_info.thread_id == "th"
    assert main.checkpoint_ns == f"main_node:{main.task_id}"
    assert inner_info.checkpoint_ns.startswith("subgraph:") and inner_info.checkpoint_ns.endswith(
        f"|sub_node:{inner_info.task_id}")
    assert (got["server"].assistant_id, got["server"].graph_id, got["server"].user) == ("asst", "gr", None)
    assert one_node(lambda s, runtime: {"out": [runtime.server_info]}).compile().invoke({}) == {"out": [None]}
