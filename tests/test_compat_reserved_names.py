"""The reserved strings the engine's public data carries, served under LangGraph's private
names (`langgraph._internal._constants`), and the node-finished hook that one of them names.

A task's path in a snapshot starts with PULL or PUSH, a failed task's pending write goes
to ERROR; code comparing what the engine returns with those names must agree. Every other
private module stays unserved."""
from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest

from engine import END, START, InMemorySaver, Send, StateGraph, compat
from engine.constants import NODE_FINISHED_KEY


@pytest.fixture
def compat_on():
    compat.install()
    yield
    compat.uninstall()


class S(TypedDict):
    log: Annotated[list, operator.add]


def _fan_out() -> StateGraph:
    def plan(s: S) -> dict:
        return {"log": ["plan"]}

    def work(arg: dict) -> dict:
        return {"log": [f"work {arg['n']}"]}

    b = StateGraph(S)
    b.add_node("plan", plan)
    b.add_node("work", work)
    b.add_edge(START, "plan")
    b.add_conditional_edges("plan", lambda s: [Send("work", {"n": i}) for i in range(2)])
    b.add_edge("work", END)
    return b


def test_task_paths_compare_equal_to_the_served_names(compat_on) -> None:
    from langgraph._internal._constants import PULL, PUSH

    graph = _fan_out().compile(checkpointer=InMemorySaver(), interrupt_before=["plan", "work"])
    config = {"configurable": {"thread_id": "t"}}
    graph.invoke({"log": []}, config)
    assert [t.path for t in graph.get_state(config).tasks] == [(PULL, "plan")]
    graph.invoke(None, config)
    assert [t.path[:2] for t in graph.get_state(config).tasks] == [(PUSH, 0), (PUSH, 1)]


def test_other_private_modules_stay_unserved(compat_on) -> None:
    with pytest.raises(ModuleNotFoundError, match="not supported yet by Retrograph"):
        import langgraph._internal._queue  # noqa: F401
    with pytest.raises(ImportError):
        from langgraph._internal._constants import CONFIG_KEY_CHECKPOINTER  # noqa: F401


def test_node_finished_hook_hears_every_level_in_order() -> None:
    class T(TypedDict):
        text: str

    def inner_a(s: T) -> dict:
        return {"text": s["text"] + " a"}

    def inner_b(s: T) -> dict:
        return {"text": s["text"] + " b"}

    inner = StateGraph(T)
    inner.add_node("inner_a", inner_a)
    inner.add_node("inner_b", inner_b)
    inner.add_edge(START, "inner_a")
    inner.add_edge("inner_a", "inner_b")
    inner.add_edge("inner_b", END)

    def first(s: T) -> dict:
        return {"text": "go"}

    def boom(s: T) -> dict:
        raise ValueError("no")

    outer = StateGraph(T)
    outer.add_node("first", first)
    outer.add_node("sub", inner.compile(interrupt_before=["inner_b"]))
    outer.add_edge(START, "first")
    outer.add_edge("first", "sub")
    outer.add_edge("sub", END)
    graph = outer.compile(checkpointer=InMemorySaver())

    heard: list[str] = []
    config = {"configurable": {"thread_id": "1", NODE_FINISHED_KEY: heard.append}}
    graph.invoke({"text": ""}, config)
    assert heard == ["first", "inner_a"]  # the subgraph paused: "sub" has not finished
    assert graph.invoke(None, config) == {"text": "go a b"}
    assert heard == ["first", "inner_a", "inner_b", "sub"]

    failing = StateGraph(T)
    failing.add_node("first", first)
    failing.add_node("boom", boom)
    failing.add_edge(START, "first")
    failing.add_edge("first", "boom")
    heard.clear()
    with pytest.raises(ValueError):
        failing.compile().invoke({"text": ""}, {"configurable": {NODE_FINISHED_KEY: heard.append}})
    assert heard == ["first"]  # a node that raised is not reported as finished


def test_overwrite_key_is_the_one_of_an_overwrites_json_form(compat_on) -> None:
    import dataclasses

    from langgraph._internal._constants import OVERWRITE
    from langgraph.types import Overwrite

    assert dataclasses.asdict(Overwrite(value=[1])) == {"type": OVERWRITE, "value": [1]}
    graph = StateGraph(S).add_node("w", lambda s: {"log": {OVERWRITE: ["only"]}}).add_edge(START, "w").compile()
    assert graph.invoke({"log": ["old"]}) == {"log": ["only"]}


def test_runtime_object_seeded_in_the_config(compat_on) -> None:
    from dataclasses import dataclass

    from langgraph._internal._constants import CONFIG_KEY_RUNTIME
    from langgraph.runtime import Runtime
    from langgraph.store.memory import InMemoryStore

    @dataclass
    class Ctx:
        user: str = "nobody"

    class Seed:  # what a server's graph factory may put there: not a Runtime
        def __init__(self, context, store):
            self.context, self.store = context, store

    seen: list[tuple] = []

    def node(state: S, runtime: Runtime[Ctx]) -> dict:
        seen.append((runtime.context, runtime.store))
        return {"log": ["n"]}

    store = InMemoryStore()
    graph = StateGraph(S, context_schema=Ctx).add_node("n", node).add_edge(START, "n").compile()
    graph.invoke({"log": []}, {"configurable": {CONFIG_KEY_RUNTIME: Seed({"user": "seeded"}, store)}})
    graph.invoke({"log": []}, {"configurable": {CONFIG_KEY_RUNTIME: Seed({"user": "seeded"}, None)}},
                 context={"user": "given"})
    graph.invoke({"log": []}, {"configurable": {CONFIG_KEY_RUNTIME: Seed(None, None)}})
    # the seeded context as it is when the run has none; the run's own (coerced) wins
    assert seen == [({"user": "seeded"}, store), (Ctx(user="given"), None), (None, None)]
