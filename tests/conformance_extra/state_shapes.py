"""State shapes and node returns: root (non-dict) states, several updates from one node,
a Pydantic state returned by its node, async routers, and a Command's update of a root."""
import asyncio
import operator
from typing import Annotated, TypedDict

from normalize import norm
from pydantic import BaseModel, Field
from support import history, thread


def _root(api):
    g = api.StateGraph(Annotated[list, operator.add])
    g.add_node("a", lambda s: ["a"])
    g.add_node("b", lambda s: ["b", len(s)])
    g.add_node("c", lambda s: None)
    g.add_edge(api.START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", "c")
    return g.compile(checkpointer=api.InMemorySaver())


def case_root_state_runs(api, tmp):
    g = _root(api)
    return {
        "invoke": g.invoke(["x"], thread()),
        "updates": [norm(c) for c in g.stream(["y"], thread("u"), stream_mode="updates")],
        "values": [norm(c) for c in g.stream(["y"], thread("v"), stream_mode="values")],
        "state": norm(g.get_state(thread()).values),
        "history": history(g, thread()),
        "results": [[(t.name, norm(t.result)) for t in s.tasks] for s in g.get_state_history(thread())][-3:],
    }


def case_root_state_update_and_interrupt(api, tmp):
    g = _root(api)
    g.invoke(["x"], thread())
    g.update_state(thread(), ["u"], as_node="b")
    asks = api.StateGraph(Annotated[list, operator.add])
    asks.add_node("ask", lambda s: [api.interrupt("q")])
    asks.add_edge(api.START, "ask")
    asks = asks.compile(checkpointer=api.InMemorySaver())
    paused = asks.invoke(["x"], thread("i"))
    return {"updated": norm(g.get_state(thread()).values), "paused": norm(paused),
            "resumed": asks.invoke(api.Command(resume="r"), thread("i"))}


def case_root_plain_types(api, tmp):
    g = api.StateGraph(list[str])
    g.add_node("a", lambda s: s + ["a"])
    g.add_conditional_edges("a", lambda s: api.END if len(s) > 2 else "a")
    g.add_edge(api.START, "a")
    n = api.StateGraph(int)
    n.add_node("inc", lambda v: v + 1)
    n.add_edge(api.START, "inc")
    return {"list": g.compile().invoke([]), "int": n.compile().invoke(1),
            "int_updates": [norm(c) for c in n.compile().stream(1, stream_mode="updates")]}


def case_root_command_and_send(api, tmp):
    g = api.StateGraph(Annotated[list, operator.add])
    g.add_node("a", lambda s: api.Command(update=["a"], goto="w"))
    g.add_node("w", lambda s: [len(s)])
    g.add_conditional_edges("w", lambda s: [api.Send("x", 10)] if len(s) < 3 else api.END)
    g.add_node("x", lambda n: [n * 2])
    g.add_edge(api.START, "a")
    return g.compile().invoke([])


class Foo(TypedDict):
    foo: Annotated[str, operator.add]


def case_node_returns_updates_and_commands(api, tmp):
    g = api.StateGraph(Foo)
    g.add_node("node_a", lambda s: [api.Command(update={"foo": "a1"}), {"foo": "a2"}, api.Command(goto="node_c")])
    g.add_node("node_b", lambda s: {"foo": "b"})
    g.add_node("node_c", lambda s: {"foo": "c"})
    g.add_edge(api.START, "node_a")
    g.add_edge("node_a", "node_b")
    r = api.StateGraph(Annotated[str, operator.add])
    r.add_node("node_a", lambda s: [api.Command(update="a1"), api.Command(update="a2")])
    r.add_node("node_b", lambda s: "b")
    r.add_edge(api.START, "node_a")
    r.add_edge("node_a", "node_b")
    return {"dict": g.compile().invoke({"foo": ""}),
            "dict_updates": [norm(c) for c in g.compile().stream({"foo": ""}, stream_mode="updates")],
            "root": r.compile().invoke(""),
            "root_updates": [norm(c) for c in r.compile().stream("", stream_mode="updates")]}


class Inner(BaseModel):
    a: int = 0


class Model(BaseModel):
    inner: Inner = Field(default_factory=Inner)
    outer: int = 0
    note: str | None = None


def case_node_returns_its_pydantic_state(api, tmp):
    def node(state: Model) -> Model:
        state.inner.a = 5
        state.outer = 10
        return state

    def via_command(state: Model):
        state.outer = 3
        return api.Command(update=state)

    one = api.StateGraph(Model)
    one.add_node("node", node)
    one.add_edge(api.START, "node")
    two = api.StateGraph(Model)
    two.add_node("via_command", via_command)
    two.add_edge(api.START, "via_command")
    return {"returned": norm(one.compile().invoke({"outer": 1})),
            "command": norm(two.compile().invoke({"outer": 1}))}


class Log(TypedDict):
    log: Annotated[list, operator.add]


def case_async_routers(api, tmp):
    async def route(s):
        await asyncio.sleep(0)
        return "b" if len(s["log"]) < 2 else api.END

    async def fan(s):
        return [api.Send("c", {"log": ["sent"]}), "c"] if len(s["log"]) < 4 else api.END

    g = api.StateGraph(Log)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_node("b", lambda s: {"log": ["b"]})
    g.add_node("c", lambda s: {"log": ["c"]})
    g.add_conditional_edges("a", route)
    g.add_conditional_edges("b", fan)
    g.add_edge(api.START, "a")
    g = g.compile()

    async def run():
        return {"ainvoke": await g.ainvoke({"log": []}),
                "astream": [norm(c) async for c in g.astream({"log": []}, stream_mode="updates")]}

    return asyncio.run(run())


def _names(api):
    """Names outside the shared `api` namespace, from the implementation under test."""
    if api.impl == "langgraph":
        from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage
        from langgraph.graph.message import REMOVE_ALL_MESSAGES
        from langgraph.managed import IsLastStep, RemainingSteps
    else:
        from engine import REMOVE_ALL_MESSAGES, AIMessage, HumanMessage, IsLastStep, RemainingSteps, RemoveMessage
    return {"RemainingSteps": RemainingSteps, "IsLastStep": IsLastStep, "REMOVE_ALL": REMOVE_ALL_MESSAGES,
            "RemoveMessage": RemoveMessage, "AIMessage": AIMessage, "HumanMessage": HumanMessage}


def case_managed_values(api, tmp):
    n = _names(api)
    Steps = TypedDict("Steps", {"log": Annotated[list, operator.add], "remaining_steps": n["RemainingSteps"],
                                "last": n["IsLastStep"]})
    g = api.StateGraph(Steps)
    g.add_node("a", lambda s: {"log": [[s["remaining_steps"], s["last"]]], "remaining_steps": 99})
    g.add_conditional_edges("a", lambda s: "a" if s["remaining_steps"] > 2 else api.END)
    g.add_edge(api.START, "a")
    graph = g.compile(checkpointer=api.InMemorySaver())
    out = graph.invoke({"log": [], "remaining_steps": 1}, thread(recursion_limit=6))
    last = api.StateGraph(Steps)
    last.add_node("a", lambda s: {"log": [s["last"]]})
    last.add_conditional_edges("a", lambda s: api.END if s["last"] else "a")
    last.add_edge(api.START, "a")
    return {"remaining": out, "state": norm(graph.get_state(thread()).values),
            "last": last.compile().invoke({"log": []}, {"recursion_limit": 4})}


def case_remove_all_messages(api, tmp):
    n = _names(api)

    class Chat(TypedDict):
        messages: Annotated[list, api.add_messages]

    g = api.StateGraph(Chat)
    g.add_node("reset", lambda s: {"messages": [n["HumanMessage"]("gone"), n["RemoveMessage"](id=n["REMOVE_ALL"]),
                                                n["AIMessage"]("fresh")]})
    g.add_edge(api.START, "reset")
    return g.compile().invoke({"messages": [n["HumanMessage"]("old")]})
