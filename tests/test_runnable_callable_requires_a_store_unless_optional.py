"""A `RunnableCallable` whose function takes `store: BaseStore` needs a store: called outside
a graph with none it raises a ValueError naming the key; `Optional[BaseStore]` (or
`BaseStore | None`) gets None; a store given to invoke() or by the run's runtime is used."""
from __future__ import annotations

import asyncio
from typing import Any, Optional

import pytest

from engine import START, StateGraph
from engine.constants import RUNTIME_KEY
from engine.prebuilt.runnable import RunnableCallable
from engine.runtime.injected import Runtime
from engine.store import BaseStore, InMemoryStore


def needs_store(inputs: Any, store: BaseStore) -> Any:
    return store


def optional_store(inputs: Any, store: Optional[BaseStore]) -> Any:  # noqa: UP045 - the Optional spelling on purpose
    return store


def union_store(inputs: Any, store: BaseStore | None) -> Any:
    return store


def test_a_required_store_outside_a_graph_raises_naming_it() -> None:
    with pytest.raises(ValueError, match="Missing required config key 'store' for 'needs_store'"):
        RunnableCallable(needs_store).invoke({})


def test_a_required_store_raises_async_too() -> None:
    with pytest.raises(ValueError, match="Missing required config key 'store'"):
        asyncio.run(RunnableCallable(needs_store).ainvoke({}))


@pytest.mark.parametrize("fn", [optional_store, union_store])
def test_an_optional_store_gets_none(fn: Any) -> None:
    assert RunnableCallable(fn).invoke({}) is None


def test_a_given_or_runtime_store_is_used() -> None:
    store = InMemoryStore()
    assert RunnableCallable(needs_store).invoke({}, store=None) is None
    runtime = Runtime(store=store, context=None, stream_writer=lambda _: None, previous=None)
    assert RunnableCallable(needs_store).invoke({}, config={"configurable": {RUNTIME_KEY: runtime}}) is store
    empty = Runtime(store=None, context=None, stream_writer=lambda _: None, previous=None)
    assert RunnableCallable(needs_store).invoke({}, config={"configurable": {RUNTIME_KEY: empty}}) is None


def test_inside_a_graph_the_graphs_store_is_injected() -> None:
    store = InMemoryStore()
    seen: list[Any] = []

    def node(state: dict[str, Any], store: BaseStore) -> dict[str, Any]:
        seen.append(store)
        return {}

    builder = StateGraph(dict)
    builder.add_node("n", RunnableCallable(node))
    builder.add_edge(START, "n")
    builder.compile(store=store).invoke({"x": 1})
    builder.compile().invoke({"x": 1})
    assert seen == [store, None]
