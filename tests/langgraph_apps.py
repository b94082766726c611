"""LangGraph graphs (real LangGraph, test extra) whose stores Retrograph must read: each
exercises a way LangGraph plans a superstep (edges, routers, joins, Sends, Command,
interrupts, subgraphs) and stores values (langchain-core messages, sets, datetimes)."""
from __future__ import annotations

import datetime as dt
import operator
from typing import Annotated, Any, TypedDict

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import Command, Send, interrupt

__all__ = ["APPS", "history_of", "run_app"]


class Chat(MessagesState):
    items: Annotated[list, operator.add]
    n: int
    when: Any


def chat_app() -> StateGraph:
    """Messages with tool calls, a Send fan-out, a subgraph, an interrupt."""

    def agent(s: Chat) -> dict:
        call = {"name": "lookup", "args": {"q": "x"}, "id": "call-1"}
        return {"messages": [AIMessage(content="let me look", tool_calls=[call])], "n": 1,
                "when": dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)}

    def fan(s: Chat) -> list[Send]:
        return [Send("worker", {"i": i}) for i in range(3)]

    def worker(s: dict) -> dict:
        return {"items": [s["i"]]}

    def inner(s: Chat) -> dict:
        return {"messages": [ToolMessage(content="found", tool_call_id="call-1")], "n": s["n"] + 10}

    sub = StateGraph(Chat)
    sub.add_node("inner", inner)
    sub.add_edge(START, "inner")

    def approve(s: Chat) -> dict:
        answer = interrupt({"question": "ok?", "n": s["n"]})
        return {"messages": [AIMessage(content=f"approved: {answer}")]}

    g = StateGraph(Chat)
    g.add_node("agent", agent)
    g.add_node("worker", worker)
    g.add_node("tools", sub.compile())
    g.add_node("approve", approve)
    g.add_edge(START, "agent")
    g.add_conditional_edges("agent", fan, ["worker"])
    g.add_edge("worker", "tools")
    g.add_edge("tools", "approve")
    g.add_edge("approve", END)
    return g


class Flow(TypedDict):
    log: Annotated[list, operator.add]
    n: int
    tags: set


def flow_app() -> StateGraph:
    """A join of two branches, a router loop, and a Command goto."""

    def a(s: Flow) -> dict:
        return {"log": ["a"], "tags": {"x", "y"}}

    def b(s: Flow) -> dict:
        return {"log": ["b"]}

    def c(s: Flow) -> dict:
        return {"log": ["c"]}

    def join(s: Flow) -> dict:
        return {"log": ["join"], "n": s["n"] + 1}

    def jump(s: Flow) -> Command:
        return Command(update={"log": ["jump"]}, goto="a" if s["n"] < 2 else END)

    g = StateGraph(Flow)
    for name, fn in (("a", a), ("b", b), ("c", c), ("join", join), ("jump", jump)):
        g.add_node(name, fn)
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", "c")
    g.add_edge(["a", "c"], "join")
    g.add_conditional_edges("join", lambda s: "jump", ["jump"])
    return g


APPS = {"chat": (chat_app, {"messages": [HumanMessage("find x")], "items": [], "n": 0}, "yes"),
        "flow": (flow_app, {"log": [], "n": 0, "tags": set()}, None)}


def run_app(name: str, checkpointer: Any, thread_id: str = "t1") -> Any:
    """Run the app to its end (answering its interrupt in a second invoke)."""
    build, first_input, answer = APPS[name]
    app = build().compile(checkpointer=checkpointer)
    cfg = {"configurable": {"thread_id": thread_id}, "recursion_limit": 100}
    app.invoke(first_input, cfg)
    if answer is not None:
        app.invoke(Command(resume=answer), cfg)
    return app


def history_of(app: Any, thread_id: str = "t1") -> list[dict[str, Any]]:
    """LangGraph's own view of the root graph's history, newest first."""
    cfg = {"configurable": {"thread_id": thread_id}}
    return [
        {"checkpoint_id": s.config["configurable"]["checkpoint_id"],
         "parent_id": s.parent_config["configurable"]["checkpoint_id"] if s.parent_config else None,
         "step": s.metadata["step"], "source": s.metadata["source"], "next": list(s.next)}
        for s in app.get_state_history(cfg)
    ]
