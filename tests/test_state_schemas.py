"""State shapes and node returns as LangGraph 1.2 has them: root (non-dict) states,
managed values, several updates from one node, Pydantic models as updates, async
routers, and REMOVE_ALL_MESSAGES."""
from __future__ import annotations

import asyncio
import operator
from typing import Annotated, TypedDict

import pytest
from pydantic import BaseModel, Field
from typing_extensions import NotRequired

from engine import (
    END,
    REMOVE_ALL_MESSAGES,
    START,
    AIMessage,
    Command,
    HumanMessage,
    InMemorySaver,
    IsLastStep,
    RemainingSteps,
    RemoveMessage,
    Send,
    StateGraph,
    add_messages,
    interrupt,
)


def cfg(thread="1"):
    return {"configurable": {"thread_id": thread}}


# -- root states --------------------------------------------------------------------------
def _root_list():
    g = StateGraph(Annotated[list, operator.add])
    g.add_node("a", lambda s: ["a"])
    g.add_node("b", lambda s: ["b", len(s)])
    g.add_node("c", lambda s: None)
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", "c")
    return g.compile(checkpointer=InMemorySaver())


def test_a_root_state_is_the_value_itself():
    graph = _root_list()
    assert graph.invoke(["x"], cfg()) == ["x", "a", "b", 2]
    assert list(graph.stream(["y"], cfg("2"), stream_mode="updates")) == [{"a": ["a"]}, {"b": ["b", 2]},
                                                                         {"c": None}]
    assert list(graph.stream(["y"], cfg("3"), stream_mode="values")) == [["y"], ["y", "a"], ["y", "a", "b", 2]]
    assert graph.get_state(cfg()).values == ["x", "a", "b", 2]
    assert graph.builder.channels.keys() == {"__root__"}


def test_a_root_state_has_history_results_and_updates():
    graph = _root_list()
    graph.invoke(["x"], cfg())
    history = [(s.values, s.next, [(t.name, t.result) for t in s.tasks]) for s in graph.get_state_history(cfg())]
    assert history[-1] == ([], ("__start__",), [("__start__", ["x"])])
    assert history[-2] == (["x"], ("a",), [("a", ["a"])])
    graph.update_state(cfg(), ["u"], as_node="b")
    assert graph.get_state(cfg()).values == ["x", "a", "b", 2, "u"]


def test_root_states_of_plain_types_keep_the_last_value():
    g = StateGraph(list[str])
    g.add_node("a", lambda s: s + ["a"])
    g.add_conditional_edges("a", lambda s: END if len(s) > 2 else "a")
    g.add_edge(START, "a")
    assert g.compile().invoke([]) == ["a", "a", "a"]
    counter = StateGraph(int)
    counter.add_node("inc", lambda n: n + 1)
    counter.add_edge(START, "inc")
    assert counter.compile().invoke(1) == 2


def test_a_root_state_with_commands_sends_and_interrupts():
    g = StateGraph(Annotated[list, operator.add])
    g.add_node("a", lambda s: Command(update=["a"], goto="w"))
    g.add_node("w", lambda s: [len(s)])
    g.add_conditional_edges("w", lambda s: [Send("x", 10)] if len(s) < 3 else END)
    g.add_node("x", lambda n: [n * 2])
    g.add_edge(START, "a")
    assert g.compile().invoke([]) == ["a", 1, 20]

    asks = StateGraph(Annotated[list, operator.add])
    asks.add_node("ask", lambda s: [interrupt("q")])
    asks.add_edge(START, "ask")
    graph = asks.compile(checkpointer=InMemorySaver())
    paused = graph.invoke(["x"], cfg())
    assert list(paused) == ["__interrupt__"] and paused["__interrupt__"][0].value == "q"
    assert graph.invoke(Command(resume="r"), cfg()) == ["x", "r"]


# -- several updates from one node ---------------------------------------------------------
class Foo(TypedDict):
    foo: Annotated[str, operator.add]


def test_a_node_may_return_a_list_of_updates_and_commands():
    g = StateGraph(Foo)
    g.add_node("node_a", lambda s: [Command(update={"foo": "a1"}), {"foo": "a2"}, Command(goto="node_c")])
    g.add_node("node_b", lambda s: {"foo": "b"})
    g.add_node("node_c", lambda s: {"foo": "c"})
    g.add_edge(START, "node_a")
    g.add_edge("node_a", "node_b")
    graph = g.compile()
    assert graph.invoke({"foo": ""}) == {"foo": "a1a2bc"}
    assert list(graph.stream({"foo": ""}, stream_mode="updates"))[0] == {"node_a": [{"foo": "a1"}, {"foo": "a2"}]}


def test_a_root_node_may_return_a_list_of_commands():
    g = StateGraph(Annotated[str, operator.add])
    g.add_node("node_a", lambda s: [Command(update="a1"), Command(update="a2")])
    g.add_node("node_b", lambda s: "b")
    g.add_edge(START, "node_a")
    g.add_edge("node_a", "node_b")
    graph = g.compile()
    assert graph.invoke("") == "a1a2b"
    assert list(graph.stream("", stream_mode="updates")) == [{"node_a": ["a1", "a2"]}, {"node_b": "b"}]


# -- Pydantic models as updates -------------------------------------------------------------
class Inner(BaseModel):
    a: int = 0


class Model(BaseModel):
    inner: Inner = Field(default_factory=Inner)
    outer: int = 0
    note: str | None = None


def test_a_node_returning_its_pydantic_state_updates_every_field_with_a_value():
    def node(state: Model) -> Model:
        state.inner.a = 5
        state.outer = 10
        return state

    graph = StateGraph(Model).add_node(node).add_edge(START, "node").compile()
    assert graph.invoke({"outer": 1}) == {"outer": 10, "inner": Inner(a=5)}

    def via_command(state: Model) -> Command:
        state.outer = 3
        return Command(update=state)

    graph = StateGraph(Model).add_node(via_command).add_edge(START, "via_command").compile()
    assert graph.invoke({"outer": 1}) == {"outer": 3, "inner": Inner()}


# -- managed values -------------------------------------------------------------------------
class Steps(TypedDict):
    log: Annotated[list, operator.add]
    remaining_steps: RemainingSteps
    last: NotRequired[IsLastStep]


def test_remaining_steps_counts_down_to_the_recursion_limit():
    g = StateGraph(Steps)
    g.add_node("a", lambda s: {"log": [(s["remaining_steps"], s["last"])], "remaining_steps": 99})
    g.add_conditional_edges("a", lambda s: "a" if s["remaining_steps"] > 2 else END)
    g.add_edge(START, "a")
    assert g.managed.keys() == {"remaining_steps", "last"} and "remaining_steps" not in g.channels
    graph = g.compile(checkpointer=InMemorySaver())
    config = {**cfg(), "recursion_limit": 6}
    assert graph.invoke({"log": [], "remaining_steps": 1}, config) == {"log": [(5, False), (4, False), (3, False),
                                                                              (2, False)]}
    assert "remaining_steps" not in graph.get_state(cfg()).values


def test_is_last_step_is_true_in_the_last_step_the_limit_allows():
    g = StateGraph(Steps)
    g.add_node("a", lambda s: {"log": [s["last"]]})
    g.add_conditional_edges("a", lambda s: END if s["last"] else "a")
    g.add_edge(START, "a")
    assert g.compile().invoke({"log": []}, {"recursion_limit": 4}) == {"log": [False, False, True]}


# -- async routers ------------------------------------------------------------------------
def test_an_async_router_routes_in_sync_and_async_runs():
    async def route(s):
        await asyncio.sleep(0)
        return "b" if len(s["log"]) < 2 else END

    async def fan(s):
        return [Send("c", {"log": ["sent"]}), "c"] if len(s["log"]) < 4 else END

    g = StateGraph(Steps)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_node("b", lambda s: {"log": ["b"]})
    g.add_node("c", lambda s: {"log": ["c"]})
    g.add_conditional_edges("a", route)
    g.add_conditional_edges("b", fan)
    g.add_edge(START, "a")
    graph = g.compile()
    assert graph.invoke({"log": []}) == {"log": ["a", "b", "c", "c"]}
    assert asyncio.run(graph.ainvoke({"log": []})) == {"log": ["a", "b", "c", "c"]}


# -- REMOVE_ALL_MESSAGES --------------------------------------------------------------------
def test_remove_all_messages_clears_what_came_before_it():
    left = [HumanMessage("Hello"), AIMessage("Hi there!")]
    assert add_messages(left, [RemoveMessage(id=REMOVE_ALL_MESSAGES)]) == []
    kept = add_messages(left, [HumanMessage("gone"), RemoveMessage(id=REMOVE_ALL_MESSAGES), HumanMessage("kept")])
    assert [m.content for m in kept] == ["kept"]


def test_a_node_can_reset_the_conversation():
    class Chat(TypedDict):
        messages: Annotated[list, add_messages]

    g = StateGraph(Chat)
    g.add_node("reset", lambda s: {"messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), AIMessage("fresh")]})
    g.add_edge(START, "reset")
    out = g.compile().invoke({"messages": [HumanMessage("old")]})
    assert [m.content for m in out["messages"]] == ["fresh"]


@pytest.mark.parametrize("schema", [Annotated[list, operator.add], list[str], int, dict])
def test_root_schemas_are_recognised(schema):
    assert list(StateGraph(schema).channels) == ["__root__"]
