"""Nested subgraphs at run time: what the streams report about a subgraph's steps,
checkpoints and pauses, durability inherited by subgraphs, and graphs streamed from
inside a node."""
from __future__ import annotations

import functools
import operator
import threading
from typing import Annotated, Any, TypedDict

import pytest

from engine import END, START, Command, InMemorySaver, StateGraph, interrupt
from engine.checkpoint.sqlite import SqliteSaver


class S(TypedDict):
    log: Annotated[list, operator.add]


def _say(name: str):
    def node(state: S) -> dict:
        return {"log": [name]}
    return node


def _chain(*nodes: tuple[str, Any], **compile_kw: Any):
    g = StateGraph(S)
    for name, fn in nodes:
        g.add_node(name, fn)
    g.add_edge(START, nodes[0][0])
    for (a, _), (b, _) in zip(nodes, nodes[1:]):
        g.add_edge(a, b)
    g.add_edge(nodes[-1][0], END)
    return g.compile(**compile_kw)


def _nested(saver: Any = None, **low_kw: Any):
    """top: t1 -> mid (m1 -> low (x -> y))."""
    low = _chain(("x", _say("x")), ("y", _say("y")), **low_kw)
    mid = _chain(("m1", _say("m1")), ("low", low))
    return _chain(("t1", _say("t1")), ("mid", mid), checkpointer=saver or InMemorySaver())


def _cfg(tid: str = "t", ns: str | None = None) -> dict:
    conf: dict[str, Any] = {"thread_id": tid}
    if ns is not None:
        conf["checkpoint_ns"] = ns
    return {"configurable": conf}


def _depth(config: dict) -> int:
    ns = config["configurable"]["checkpoint_ns"]
    return len(ns.split("|")) if ns else 0


def _checkpoints(events: list) -> dict[tuple, list[dict]]:
    out: dict[tuple, list[dict]] = {}
    for ns, event in events:
        if event["type"] == "checkpoint":
            out.setdefault(ns, []).append(event["payload"])
    return out


def test_debug_checkpoints_match_the_history_in_every_namespace():
    graph = _nested()
    by_ns = _checkpoints(list(graph.stream({"log": []}, _cfg(), stream_mode="debug", subgraphs=True)))
    assert [tuple(s.split(":")[0] for s in ns) for ns in by_ns] == [(), ("mid",), ("mid", "low")]
    for ns, payloads in by_ns.items():
        history = list(graph.get_state_history(_cfg(ns="|".join(ns))))[::-1]
        assert len(payloads) == len(history)
        for payload, snap in zip(payloads, history):
            assert payload["config"]["configurable"]["checkpoint_id"] == snap.config["configurable"]["checkpoint_id"]
            assert payload["next"] == list(snap.next)
            assert [t["state"] for t in payload["tasks"]] == [t.state for t in snap.tasks]
    # the task that runs the subgraph names the subgraph's namespace
    top_states = [t["state"] for p in by_ns[()] for t in p["tasks"] if t["name"] == "mid"]
    (mid_ns,) = [ns for ns in by_ns if len(ns) == 1]
    assert top_states == [{"configurable": {"thread_id": "t", "checkpoint_ns": mid_ns[0]}}]


def test_exit_durability_names_no_parent_and_saves_no_finished_subgraph():
    saver = InMemorySaver()
    graph = _nested(saver)
    events = list(graph.stream({"log": []}, _cfg(), stream_mode="debug", subgraphs=True, durability="exit"))
    payloads = [p for ps in _checkpoints(events).values() for p in ps]
    assert payloads and all(p["parent_config"] is None for p in payloads)
    saved = list(saver.list(_cfg()))
    assert [c.config["configurable"]["checkpoint_ns"] for c in saved] == [""]
    assert graph.get_state(_cfg()).values == _nested().invoke({"log": []}, _cfg())


def test_exit_durability_keeps_the_checkpoint_of_a_paused_subgraph():
    saver = InMemorySaver()
    graph = _nested(saver, interrupt_before=["y"])
    graph.invoke({"log": []}, _cfg(), durability="exit")
    spaces = sorted(_depth(c.config) for c in saver.list(_cfg()))
    assert spaces == [0, 1, 2]  # one checkpoint in each namespace: where each run stopped
    assert graph.invoke(None, _cfg(), durability="exit") == _nested().invoke({"log": []}, _cfg())


@pytest.mark.parametrize("store", ["memory", "sqlite"])
def test_saver_list_without_a_namespace_lists_every_namespace(store, tmp_path):
    saver = InMemorySaver() if store == "memory" else SqliteSaver(str(tmp_path / "s.db"))
    graph = _nested(saver)
    graph.invoke({"log": []}, _cfg())
    every = list(saver.list(_cfg()))
    top = list(saver.list(_cfg(ns="")))
    depth = sorted(_depth(c.config) for c in every)
    assert len(top) == 4 and all(c.config["configurable"]["checkpoint_ns"] == "" for c in top)
    assert depth == [0] * 4 + [1] * 4 + [2] * 4
    assert len(list(saver.list(_cfg(), limit=5))) == 5


def test_subgraph_breakpoint_is_reported_once_by_the_top_graph():
    graph = _nested(interrupt_before=["y"])
    chunks = list(graph.stream({"log": []}, _cfg("u"), subgraphs=True))
    assert chunks[-1] == ((), {"__interrupt__": ()})
    assert sum("__interrupt__" in c for _, c in chunks) == 1
    values = list(graph.stream({"log": []}, _cfg("v"), stream_mode="values", subgraphs=True))
    assert values[-1][1] == {"log": ["t1", "m1", "x"]} and len(values[-1][0]) == 2  # nothing after the pause
    assert list(graph.stream({"log": []}, _cfg("f")))[-1] == {"__interrupt__": ()}
    tasks = list(graph.stream({"log": []}, _cfg("k"), stream_mode="tasks", subgraphs=True))
    finished = [c["name"] for _, c in tasks if "result" in c]
    assert finished == ["t1", "m1", "x"]  # the paused subgraph tasks report no result


def test_dynamic_interrupt_in_a_subgraph_is_reported_at_every_level():
    def ask(state: S) -> dict:
        return {"log": [interrupt("which?")]}

    low = _chain(("x", _say("x")), ("ask", ask))
    mid = _chain(("low", low))
    graph = _chain(("mid", mid), checkpointer=InMemorySaver())
    chunks = [(len(ns), c) for ns, c in graph.stream({"log": []}, _cfg(), subgraphs=True) if "__interrupt__" in c]
    assert [depth for depth, _ in chunks] == [2, 1, 0]
    assert all(c["__interrupt__"][0].value == "which?" for _, c in chunks)
    assert graph.invoke(Command(resume="this"), _cfg()) == {"log": ["x", "this"]}


def test_sibling_of_a_sync_subgraph_streams_while_the_subgraph_runs():
    """The subgraph's node waits until its sibling's update was streamed: were the
    subgraph run on the event loop's thread, that update could not go out meanwhile."""
    streamed = threading.Event()
    waited: list[bool] = []

    def slow(state: S) -> dict:
        waited.append(streamed.wait(timeout=10))
        return {"log": ["slow"]}

    inner = _chain(("slow", slow))
    g = StateGraph(S)
    g.add_node("inner", inner)
    g.add_node("quick", _say("quick"))
    g.add_edge(START, "inner")
    g.add_edge(START, "quick")
    graph = g.compile()
    order = []
    for ns, chunk in graph.stream({"log": []}, subgraphs=True):
        order.append((len(ns), next(iter(chunk))))
        if "quick" in chunk:
            streamed.set()
    assert waited == [True]
    assert order.index((0, "quick")) < order.index((1, "slow"))


def test_graph_streamed_inside_a_node_yields_its_own_chunks():
    inner = _chain(("x", _say("x")), ("y", _say("y")))
    seen: dict[str, list] = {}

    def outer(state: S, config: dict) -> dict:
        seen["node_config"] = list(inner.stream({"log": []}, config))
        seen["no_config"] = list(inner.stream({"log": []}))
        seen["pairs"] = list(inner.stream({"log": []}, config, stream_mode=["updates"]))
        return {"log": ["outer"]}

    assert _chain(("outer", outer)).invoke({"log": []}) == {"log": ["outer"]}
    # with the node's config a nested stream defaults to values (as in LangGraph)
    assert seen["node_config"] == [{"log": []}, {"log": ["x"]}, {"log": ["x", "y"]}]
    assert seen["no_config"] == [{"x": {"log": ["x"]}}, {"y": {"log": ["y"]}}]
    assert seen["pairs"] == [("updates", {"x": {"log": ["x"]}}), ("updates", {"y": {"log": ["y"]}})]


def test_stream_mode_given_as_a_list_yields_pairs():
    graph = _chain(("x", _say("x")))
    assert list(graph.stream({"log": []}, stream_mode=["updates"])) == [("updates", {"x": {"log": ["x"]}})]
    assert list(graph.stream({"log": []}, stream_mode="updates")) == [{"x": {"log": ["x"]}}]


def test_messages_of_a_graph_streamed_inside_a_node():
    pytest.importorskip("langchain_core")
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

    from engine import MessagesState

    model = GenericFakeChatModel(messages=iter(["one two three"]))

    def call(state: MessagesState, config: dict) -> dict:
        return {"messages": [model.invoke(state["messages"], config)]}

    inner = StateGraph(MessagesState)
    inner.add_node("call", call)
    inner.add_edge(START, "call")
    inner = inner.compile()
    tokens: list[str] = []

    def outer(state: S, config: dict) -> dict:
        for chunk, meta in inner.stream({"messages": [("user", "hi")]}, config, stream_mode="messages"):
            tokens.append(chunk.content)
            assert meta["langgraph_node"] == "call"
        return {"log": ["outer"]}

    _chain(("outer", outer)).invoke({"log": []})
    assert "".join(tokens) == "one two three" and len(tokens) > 1


def test_config_keyword_only_is_passed_by_name():
    got: list[Any] = []

    def wrapped(state, *, config=None):  # the shape LangSmith's @traceable gives a node
        got.append(config)
        return {"log": ["w"]}

    @functools.wraps(wrapped)
    def node(*args: Any, **kwargs: Any) -> dict:
        assert len(args) == 1, "config must come by name"
        return wrapped(*args, **kwargs)

    assert _chain(("w", node)).invoke({"log": []}, {"configurable": {"k": 1}}) == {"log": ["w"]}
    assert got[0]["configurable"]["k"] == 1


def test_exit_durability_stateful_subgraph_keeps_its_state_across_calls():
    inner = _chain(("x", _say("x")), checkpointer=True)
    graph = _chain(("sub", inner), checkpointer=InMemorySaver())
    graph.invoke({"log": []}, _cfg(), durability="exit")
    second = graph.invoke({"log": []}, _cfg(), durability="exit")
    # the subgraph's second call starts from its own saved state (["x"]) plus the input
    assert second == {"log": ["x", "x", "x", "x"]}


def test_typed_dict_with_only_a_root_key_is_a_root_state():
    class Root(TypedDict):
        __root__: Annotated[list, operator.add]

    g = StateGraph(Root)
    g.add_node("a", lambda items: [f"seen {len(items)}"])
    g.add_edge(START, "a")
    graph = g.compile()
    assert graph.invoke(["x"]) == ["x", "seen 1"]
    assert list(graph.stream(["x"])) == [{"a": ["seen 1"]}]


def test_graph_piped_into_a_runnable_is_a_chain():
    pytest.importorskip("langchain_core")
    from langchain_core.runnables import RunnableLambda, RunnablePassthrough

    graph = _chain(("x", _say("x")), ("y", _say("y")))
    chain = graph | RunnablePassthrough()
    assert chain.invoke({"log": []}) == {"log": ["x", "y"]}
    assert list(chain.stream({"log": []})) == [{"x": {"log": ["x"]}}, {"y": {"log": ["y"]}}]
    tail = graph | RunnableLambda(lambda out: len(out["log"]))
    assert tail.invoke({"log": ["a"]}) == 3


def test_a_run_takes_no_uuid4_so_patched_message_ids_match_langgraph(monkeypatch):
    import uuid

    from engine import MessagesState

    made = iter(uuid.UUID(int=i, version=4) for i in range(100))
    monkeypatch.setattr(uuid, "uuid4", lambda: next(made))
    g = StateGraph(MessagesState)
    g.add_node("reply", lambda s: {"messages": [("ai", "hello")]})
    g.add_edge(START, "reply")
    graph = g.compile()
    first = graph.invoke({"messages": [("user", "hi")]})
    second = graph.invoke({"messages": [("user", "hi")]})
    ids = [m.id for m in first["messages"] + second["messages"]]
    assert ids == [str(uuid.UUID(int=i, version=4)) for i in range(4)]


def test_debug_stream_of_a_resume_starts_with_the_checkpoint_it_goes_on_from():
    def ask(state: S) -> dict:
        return {"log": [interrupt("q")]}

    graph = _chain(("a", _say("a")), ("ask", ask), checkpointer=InMemorySaver())
    graph.invoke({"log": []}, _cfg())
    paused = graph.get_state(_cfg())
    events = list(graph.stream(Command(resume="r"), _cfg(), stream_mode="debug"))
    first = events[0]
    assert first["type"] == "checkpoint"
    assert first["payload"]["config"]["configurable"]["checkpoint_id"] == paused.config["configurable"]["checkpoint_id"]
    assert first["payload"]["parent_config"] == paused.parent_config
    assert first["payload"]["next"] == ["ask"] and first["step"] == paused.metadata["step"]
    assert [e["type"] for e in events[1:]] == ["task", "task_result", "checkpoint"]


def test_graph_streamed_inside_a_node_names_full_namespaces():
    low = _chain(("x", _say("x")))
    mid = _chain(("low", low))
    seen: list = []

    def outer(state: S, config: dict) -> dict:
        for ns, chunk in mid.stream({"log": []}, config, subgraphs=True, stream_mode="updates"):
            seen.append(([p.split(":")[0] for p in ns], next(iter(chunk))))
        return {"log": ["outer"]}

    _chain(("p", outer)).invoke({"log": []})
    assert seen == [(["p", "low"], "x"), (["p"], "low")]


def test_debug_input_checkpoint_of_a_later_run_names_its_parent():
    graph = _chain(("a", _say("a")), checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    graph.invoke({"log": []}, cfg)
    first = next(e["payload"] for e in graph.stream({"log": []}, cfg, stream_mode="debug")
                 if e["type"] == "checkpoint")
    history = {s.config["configurable"]["checkpoint_id"]: s for s in graph.get_state_history(cfg)}
    own = history[first["config"]["configurable"]["checkpoint_id"]]
    assert first["metadata"]["source"] == "input"
    assert first["parent_config"] == own.parent_config and own.parent_config is not None
