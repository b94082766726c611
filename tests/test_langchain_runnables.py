"""LangChain Runnables as nodes, callbacks (tracing), stream_mode="messages", with_config
and astream_events: behaviour observed on LangGraph 1.2.24 with the same graphs."""
from __future__ import annotations

import asyncio
import operator
import os
import subprocess
import sys
from typing import Annotated, Any, TypedDict

import pytest

pytest.importorskip("langchain_core")

from langchain_core.callbacks import BaseCallbackHandler  # noqa: E402
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel  # noqa: E402
from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage  # noqa: E402
from langchain_core.runnables import RunnableLambda  # noqa: E402

from engine import END, START, InMemorySaver, StateGraph, register_type  # noqa: E402

for _cls in (HumanMessage, AIMessage, AIMessageChunk):
    register_type(_cls)


class Chat(TypedDict):
    messages: Annotated[list, operator.add]


class Counter(TypedDict):
    n: int
    log: Annotated[list, operator.add]


def chat_graph(replies: list[AIMessage], checkpointer: Any = None) -> Any:
    """`call` asks a streaming fake chat model (a plain function, no config parameter);
    `plain` is a RunnableLambda that returns a message of its own."""
    model = GenericFakeChatModel(messages=iter(replies))

    def call(state: Chat) -> dict[str, Any]:
        return {"messages": [model.invoke(state["messages"])]}

    def plain(state: Chat) -> dict[str, Any]:
        return {"messages": [AIMessage(content="plain", id="p1")]}

    g = StateGraph(Chat)
    g.add_node("call", call)
    g.add_node("plain", RunnableLambda(plain))
    g.add_edge(START, "call")
    g.add_edge("call", "plain")
    return g.compile(checkpointer=checkpointer)


class Recorder(BaseCallbackHandler):
    def __init__(self) -> None:
        self.events: list[tuple[Any, ...]] = []
        self.runs: dict[Any, str] = {}

    def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: Any, parent_run_id: Any = None,
                       tags: Any = None, metadata: Any = None, **kw: Any) -> None:
        self.runs[run_id] = kw.get("name")
        self.events.append(("start", kw.get("name"), self.runs.get(parent_run_id), tuple(tags or ()),
                            (metadata or {}).get("langgraph_node"), (metadata or {}).get("langgraph_step")))

    def on_chain_end(self, outputs: Any, *, run_id: Any, **kw: Any) -> None:
        self.events.append(("end", self.runs[run_id], outputs))

    def on_chat_model_start(self, serialized: Any, messages: Any, *, run_id: Any, parent_run_id: Any = None,
                            tags: Any = None, metadata: Any = None, **kw: Any) -> None:
        self.events.append(("chat", self.runs.get(parent_run_id), tuple(tags or ()),
                            (metadata or {}).get("langgraph_node")))


def test_a_runnable_node_is_invoked_not_taken_for_a_subgraph() -> None:
    g = StateGraph(Counter)
    g.add_node("double", RunnableLambda(lambda s: {"n": s["n"] * 2, "log": ["doubled"]}))
    g.add_node("both", {"n": RunnableLambda(lambda s: s["n"] + 1), "log": RunnableLambda(lambda s: ["both"])})
    g.add_edge(START, "double")
    g.add_edge("double", "both")
    graph = g.compile()
    assert graph.invoke({"n": 3}) == {"n": 7, "log": ["doubled", "both"]}
    assert asyncio.run(graph.ainvoke({"n": 1})) == {"n": 3, "log": ["doubled", "both"]}
    kinds = dict(graph.get_graph().nx.nodes(data="kind"))
    assert kinds["double"] == kinds["both"] == "node"


def test_callbacks_see_the_graph_each_node_and_a_chat_model_inside_a_node() -> None:
    recorder = Recorder()
    graph = chat_graph([AIMessage(content="hi there", id="ai1")])
    out = graph.invoke({"messages": [HumanMessage("hello", id="h1")]},
                       {"callbacks": [recorder], "tags": ["mine"]})
    assert [m.content for m in out["messages"]] == ["hello", "hi there", "plain"]
    starts = [e for e in recorder.events if e[0] in ("start", "chat")]
    assert starts == [
        ("start", "LangGraph", None, ("mine",), None, None),
        ("start", "call", "LangGraph", ("graph:step:1", "mine"), "call", 1),
        ("chat", "call", ("seq:step:1", "mine"), "call"),
        ("start", "plain", "LangGraph", ("graph:step:2", "mine"), "plain", 2),
        ("start", "plain", "plain", ("seq:step:1", "mine"), "plain", 2),
    ]
    ends = [e[1] for e in recorder.events if e[0] == "end"]
    assert ends == ["call", "plain", "plain", "LangGraph"]
    assert recorder.events[-1][2] == out


def test_messages_mode_streams_tokens_with_langgraph_metadata_and_sends_each_message_once() -> None:
    graph = chat_graph([AIMessage(content="hello there friend", id="ai1")], InMemorySaver())
    chunks = list(graph.stream({"messages": [HumanMessage("hi", id="h1")]}, {"configurable": {"thread_id": "t"}},
                               stream_mode="messages"))
    assert [(type(m).__name__, m.content, m.id) for m, _ in chunks] == [
        ("AIMessageChunk", "hello", "ai1"), ("AIMessageChunk", " ", "ai1"), ("AIMessageChunk", "there", "ai1"),
        ("AIMessageChunk", " ", "ai1"), ("AIMessageChunk", "friend", "ai1"), ("AIMessage", "plain", "p1"),
    ]
    meta = chunks[0][1]
    assert {k: meta[k] for k in ("langgraph_step", "langgraph_node", "langgraph_triggers", "langgraph_path",
                                  "thread_id")} == {
        "langgraph_step": 1, "langgraph_node": "call", "langgraph_triggers": ("branch:to:call",),
        "langgraph_path": ("__pregel_pull", "call"), "thread_id": "t"}
    assert meta["langgraph_checkpoint_ns"].startswith("call:") and meta["checkpoint_ns"] == meta[
        "langgraph_checkpoint_ns"]
    assert chunks[-1][1]["langgraph_node"] == "plain" and chunks[-1][1]["langgraph_step"] == 2


def test_messages_mode_with_other_modes_gives_pairs_and_skips_input_messages() -> None:
    def echo(state: Chat) -> dict[str, Any]:
        return {"messages": [*state["messages"], AIMessage(content="new", id="n1")]}

    g = StateGraph(Chat)
    g.add_node("echo", echo)
    g.add_edge(START, "echo")
    graph = g.compile()
    got = list(graph.stream({"messages": [HumanMessage("old", id="o1")]}, stream_mode=["updates", "messages"]))
    modes = [mode for mode, _ in got]
    assert modes == ["messages", "updates"]
    assert got[0][1][0].id == "n1"


def test_with_config_merges_tags_callbacks_and_limits() -> None:
    recorder = Recorder()
    graph = chat_graph([AIMessage(content="a", id="x1")]).with_config(tags=["bound"], callbacks=[recorder])
    graph.invoke({"messages": [HumanMessage("q", id="q1")]}, {"tags": ["call-time"]})
    first = recorder.events[0]
    assert first[:2] == ("start", "LangGraph") and first[3] == ("bound", "call-time")

    g = StateGraph(Counter)
    g.add_node("inc", lambda s: {"n": s["n"] + 1})
    g.add_edge(START, "inc")
    g.add_conditional_edges("inc", lambda s: "inc" if s["n"] < 100 else END, ["inc", END])
    limited = g.compile().with_config(recursion_limit=5)
    from engine import GraphRecursionError

    with pytest.raises(GraphRecursionError):
        limited.invoke({"n": 0})


def test_astream_events_v2_shape() -> None:
    graph = chat_graph([AIMessage(content="a b", id="ai4")])

    async def collect() -> list[dict[str, Any]]:
        return [e async for e in graph.astream_events({"messages": [HumanMessage("ev", id="h3")]}, version="v2")]

    events = asyncio.run(collect())
    shape = [(e["event"], e["name"], len(e["parent_ids"])) for e in events if e["event"] != "on_chain_stream"]
    assert shape == [
        ("on_chain_start", "LangGraph", 0), ("on_chain_start", "call", 1),
        ("on_chat_model_start", "GenericFakeChatModel", 2), ("on_chat_model_stream", "GenericFakeChatModel", 2),
        ("on_chat_model_stream", "GenericFakeChatModel", 2), ("on_chat_model_stream", "GenericFakeChatModel", 2),
        ("on_chat_model_end", "GenericFakeChatModel", 2), ("on_chain_end", "call", 1),
        ("on_chain_start", "plain", 1), ("on_chain_start", "plain", 2), ("on_chain_end", "plain", 2),
        ("on_chain_end", "plain", 1), ("on_chain_end", "LangGraph", 0),
    ]
    streams = [e for e in events if e["event"] == "on_chain_stream"]
    assert [e["name"] for e in streams if e["name"] != "LangGraph"] == ["call", "plain"]
    assert events[-1]["data"]["output"]["messages"][-1].content == "plain"
    with pytest.raises(ValueError, match="version='v2' or 'v3'"):
        asyncio.run(graph.astream_events({}, version="v1").__anext__())


def test_the_engine_runs_without_importing_langchain_core() -> None:
    code = ("import sys, operator\nfrom typing import Annotated, TypedDict\nfrom engine import StateGraph, START\n"
            "class S(TypedDict):\n    n: int\n"
            "g = StateGraph(S)\ng.add_node('a', lambda s: {'n': s['n'] + 1})\ng.add_edge(START, 'a')\n"
            "assert g.compile().invoke({'n': 1}, {'tags': ['x']}) == {'n': 2}\n"
            "print('langchain_core' in sys.modules)\n")
    env = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_messages_metadata_has_the_model_tags_and_shared_configurable_keys_only() -> None:
    model = GenericFakeChatModel(messages=iter([AIMessage(content="foo", id="m1")]), tags=["meow"])
    g = StateGraph(Chat)
    g.add_node("call_model", lambda s: {"messages": [model.invoke(s["messages"])]})
    g.add_edge(START, "call_model")
    config = {"configurable": {"thread_id": "th", "assistant_id": "a1", "api_key": "secret",
                               "nested": {"x": 1}}}
    chunks = list(g.compile().stream({"messages": [HumanMessage("hi", id="h")]}, config, stream_mode="messages"))
    meta = chunks[0][1]
    assert meta["tags"] == ["meow"]
    assert meta["thread_id"] == "th" and meta["assistant_id"] == "a1"
    assert "api_key" not in meta and "nested" not in meta


def test_tokens_reach_the_consumer_while_the_node_still_runs() -> None:
    import threading

    seen = threading.Event()
    model = GenericFakeChatModel(messages=iter([AIMessage(content="a b", id="t1")]))

    def talk(state: Chat) -> dict[str, Any]:
        reply = model.invoke(state["messages"])
        live = seen.wait(timeout=10)  # without live streaming the consumer sees nothing yet
        return {"messages": [reply, AIMessage(content=f"live={live}", id="t2")]}

    g = StateGraph(Chat)
    g.add_node("talk", talk)
    g.add_edge(START, "talk")
    got = []
    for message, _ in g.compile().stream({"messages": [HumanMessage("hi", id="h")]}, stream_mode="messages"):
        got.append(message.content)
        seen.set()
    assert got == ["a", " ", "b", "live=True"]


def test_messages_mode_finds_messages_in_commands_and_lists_of_them() -> None:
    from engine import Command

    g = StateGraph(Chat)
    g.add_node("one", lambda s: Command(update={"messages": [AIMessage(content="from a command", id="c1")]}))
    g.add_node("two", lambda s: [Command(update={"messages": [AIMessage(content="from a list", id="c2")]})])
    g.add_edge(START, "one")
    g.add_edge("one", "two")
    got = [(m.content, meta["langgraph_node"]) for m, meta in
           g.compile().stream({"messages": []}, stream_mode="messages")]
    assert got == [("from a command", "one"), ("from a list", "two")]


def test_a_tool_is_a_node() -> None:
    from langchain_core.tools import tool

    @tool
    def bump(n: int) -> dict:
        """Add one."""
        return {"n": n + 1, "log": ["bumped"]}

    g = StateGraph(Counter)
    g.add_node("bump", bump)
    g.add_edge(START, "bump")
    assert g.compile().invoke({"n": 1}) == {"n": 2, "log": ["bumped"]}


def test_callbacks_see_an_entrypoints_task_calls_under_it() -> None:
    from engine.func import entrypoint, task

    @task
    def double(x: int) -> int:
        return x * 2

    @entrypoint()
    def flow(x: int) -> int:
        return double(double(x).result()).result()

    recorder = Recorder()
    assert flow.invoke(3, {"callbacks": [recorder]}) == 12
    starts = [(e[1], e[2]) for e in recorder.events if e[0] == "start"]
    assert starts == [("LangGraph", None), ("flow", "LangGraph"), ("double", "flow"), ("double", "flow")]  # LangGraph's names


def test_messages_of_a_subgraph_come_from_inside_with_subgraphs_tagged_with_its_namespace() -> None:
    """As LangGraph: without `subgraphs` the subgraph's new messages come with its node's
    output (node `sub`); with it, from the inner node, tagged with the subgraph's namespace."""
    inner = StateGraph(Chat)
    inner.add_node("speak", lambda s: {"messages": [AIMessage(content="from inside", id="in1")]})
    inner.add_edge(START, "speak")
    outer = StateGraph(Chat)
    outer.add_node("sub", inner.compile())
    outer.add_node("after", lambda s: {"messages": [AIMessage(content="outside", id="out1")]})
    outer.add_edge(START, "sub")
    outer.add_edge("sub", "after")
    graph = outer.compile()
    plain = [(m.content, meta["langgraph_node"]) for m, meta in graph.stream({"messages": []}, stream_mode="messages")]
    assert plain == [("from inside", "sub"), ("outside", "after")]
    tagged = [(ns, m.content, meta["langgraph_node"]) for ns, (m, meta) in
              graph.stream({"messages": []}, stream_mode="messages", subgraphs=True)]
    assert [(len(ns), text, node) for ns, text, node in tagged] == [(1, "from inside", "speak"),
                                                                   (0, "outside", "after")]
    assert tagged[0][0][0].startswith("sub:")


def test_a_send_tasks_path_is_its_index_among_the_sends() -> None:
    from engine import Send

    class Paths(BaseCallbackHandler):
        def __init__(self) -> None:
            self.paths: list[Any] = []

        def on_chain_start(self, serialized: Any, inputs: Any, *, metadata: Any = None, **kw: Any) -> None:
            if (metadata or {}).get("langgraph_node") == "work" and kw.get("name") == "work":
                self.paths.append(metadata["langgraph_path"])

    g = StateGraph(Chat)
    g.add_node("work", lambda item: {})
    g.add_conditional_edges(START, lambda s: [Send("work", i) for i in range(3)])
    seen = Paths()
    g.compile().invoke({"messages": []}, {"callbacks": [seen]})
    assert sorted(seen.paths) == [("__pregel_push", i, False) for i in range(3)]


def test_a_runnable_chain_routes_a_conditional_edge_with_the_runs_config() -> None:
    class Count(TypedDict):
        n: int
        who: str

    def inc(s: Count) -> dict:
        return {"n": s["n"] + 1}

    def sign(s: Count, config: Any) -> dict:
        return {"who": config["configurable"]["who"]}

    seen: list[Any] = []

    def look(n: int, config: Any) -> str:
        seen.append(config["configurable"].get("who"))
        return "inc" if n < 3 else "sign"

    router = RunnableLambda(lambda s: s["n"]) | RunnableLambda(look)
    b = StateGraph(Count)
    b.add_node("inc", inc)
    b.add_node("sign", sign)
    b.add_edge(START, "inc")
    b.add_conditional_edges("inc", router, ["inc", "sign"])
    b.add_edge("sign", END)
    assert b.compile().invoke({"n": 0, "who": ""}, {"configurable": {"who": "me"}}) == {"n": 3, "who": "me"}
    assert seen == ["me", "me", "me"]
    with pytest.raises(TypeError, match=r"router of `sign` must be callable \(or a LangChain Runnable\), got int"):
        b.add_conditional_edges("sign", 42)  # type: ignore[arg-type]
