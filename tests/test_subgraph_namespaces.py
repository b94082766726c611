"""Subgraphs as child Runs with their own checkpoint namespaces, in every store: resume
inside them, stateful subgraphs, nested state, namespaced streams, their own breakpoints,
graphs invoked inside nodes."""
from __future__ import annotations

import asyncio
import operator
import sqlite3
from collections.abc import Iterator
from typing import Annotated, Any, TypedDict

import pytest

from engine import START, Command, InMemorySaver, SqliteSaver, StateGraph, interrupt
from engine.checkpoint.base import NS_SEP, ns_thread_key, split_thread_key


class S(TypedDict):
    log: Annotated[list, operator.add]


class Inner(TypedDict):
    log: Annotated[list, operator.add]
    scratch: str


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def saver(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Any]:
    if request.param == "postgres":  # a real server, a fresh schema per test
        from engine.checkpoint.postgres import PostgresSaver

        store = PostgresSaver(request.getfixturevalue("pg_url"))
    else:
        store = InMemorySaver() if request.param == "memory" else SqliteSaver(tmp_path / "run.db")
    yield store
    store.close()


def _inner(calls: list[str], *, ask: bool = True, **compile_kw: Any) -> Any:
    def a(state: S) -> dict:
        calls.append("a")
        return {"log": ["a"]}

    def b(state: S) -> dict:
        calls.append("b")
        answer = interrupt("b?") if ask else "-"
        return {"log": [f"b={answer}"]}

    g = StateGraph(S)
    g.add_node("a", a)
    g.add_node("b", b)
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    return g.compile(**compile_kw)


def _outer(inner: Any, saver: Any) -> Any:
    g = StateGraph(S)
    g.add_node("sub", inner)
    g.add_edge(START, "sub")
    return g.compile(checkpointer=saver)


T = {"configurable": {"thread_id": "t"}}


def test_resume_continues_inside_the_subgraph(saver: Any) -> None:
    calls: list[str] = []
    g = _outer(_inner(calls), saver)
    first = g.invoke({"log": []}, T)
    assert [i.value for i in first["__interrupt__"]] == ["b?"]
    out = g.invoke(Command(resume="yes"), T)
    assert calls == ["a", "b", "b"], "the subgraph's finished node `a` must not run again"
    assert out == {"log": ["a", "b=yes"]}


def test_subgraph_checkpoints_live_in_their_own_namespace(saver: Any) -> None:
    g = _outer(_inner([]), saver)
    g.invoke({"log": []}, T)
    (ns,) = saver.namespaces("t")
    assert ns.startswith("sub:")
    assert [t.thread_id for t in saver.threads()] == ["t"], "a namespace is not a thread of its own"
    inner_steps = [c.step for c in saver.history(ns_thread_key("t", ns))]
    assert inner_steps == [1, 0, -1]
    assert [c.step for c in saver.history("t")] == [0, -1], "the parent's history holds only its own steps"
    saver.delete_thread("t")
    assert saver.namespaces("t") == [] and saver.load(ns_thread_key("t", ns)) is None


def test_thread_key_round_trip() -> None:
    assert ns_thread_key("t") == "t"
    assert split_thread_key(ns_thread_key("t", "a:1|b:2")) == ("t", "a:1|b:2")
    assert NS_SEP not in ns_thread_key("t")


def test_a_file_written_before_namespaces_still_opens(tmp_path: Any) -> None:
    path = tmp_path / "old.db"
    with SqliteSaver(path) as s:
        _outer(_inner([], ask=False), s).invoke({"log": []}, T)
    tables = {r[0] for r in sqlite3.connect(path).execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert "threads" in tables  # no table was added: the namespace lives in the thread key
    with SqliteSaver(path) as s:
        assert [t.thread_id for t in s.threads()] == ["t"]
        assert len(s.namespaces("t")) == 1


def test_stateful_subgraph_keeps_its_state_per_thread(saver: Any) -> None:
    calls: list[str] = []
    g = _outer(_inner(calls, ask=False, checkpointer=True), saver)
    g.invoke({"log": ["x"]}, T)
    sub_ns = saver.namespaces("t")
    assert sub_ns == ["sub"], "checkpointer=True: one namespace per node, no task id"
    g.invoke({"log": ["y"]}, T)
    state = g.get_state({"configurable": {"thread_id": "t", "checkpoint_ns": "sub"}})
    assert state.values["log"][:3] == ["x", "a", "b=-"], "the second call went on from the first one's state"
    assert state.values["log"][-3:] == ["y", "a", "b=-"]
    other = {"configurable": {"thread_id": "u"}}
    g.invoke({"log": ["z"]}, other)
    assert g.get_state({"configurable": {"thread_id": "u", "checkpoint_ns": "sub"}}).values == {
        "log": ["z", "a", "b=-"]}, "another thread has a state of its own"


def test_checkpointer_false_saves_nothing(saver: Any) -> None:
    g = _outer(_inner([], ask=False, checkpointer=False), saver)
    g.invoke({"log": []}, T)
    assert saver.namespaces("t") == []


def test_get_state_with_subgraphs_nests_the_subgraph_snapshot(saver: Any) -> None:
    g = _outer(_inner([]), saver)
    g.invoke({"log": []}, T)
    plain = g.get_state(T)
    assert plain.tasks[0].state["configurable"]["checkpoint_ns"].startswith("sub:")
    nested = asyncio.run(g.aget_state(T, subgraphs=True))
    sub = nested.tasks[0].state
    assert sub.values == {"log": ["a"]} and sub.next == ("b",)
    assert [i.value for i in sub.interrupts] == ["b?"]
    again = g.get_state(sub.config)
    assert again.values == sub.values and again.config == sub.config
    assert [h.metadata["step"] for h in g.get_state_history(
        {"configurable": {"thread_id": "t", "checkpoint_ns": sub.config["configurable"]["checkpoint_ns"]}})] == [1, 0, -1]


def test_get_state_with_an_unknown_namespace_names_it(saver: Any) -> None:
    g = _outer(_inner([]), saver)
    with pytest.raises(ValueError, match="`nope` is not a subgraph node"):
        g.get_state({"configurable": {"thread_id": "t", "checkpoint_ns": "nope:1"}})


def test_stream_subgraphs_tags_chunks_with_namespaces() -> None:
    g = _outer(_inner([], ask=False), InMemorySaver())
    chunks = list(g.stream({"log": []}, T, stream_mode="updates", subgraphs=True))
    assert [(tuple(s.split(":")[0] for s in ns), list(c)) for ns, c in chunks] == [
        (("sub",), ["a"]), (("sub",), ["b"]), ((), ["sub"])]
    triples = list(g.stream({"log": []}, {"configurable": {"thread_id": "v"}},
                            stream_mode=["updates", "values"], subgraphs=True))
    assert all(len(t) == 3 for t in triples)
    assert triples[-1] == ((), "values", {"log": ["a", "b=-"]})


def test_a_subgraph_breakpoint_pauses_the_parent(saver: Any) -> None:
    calls: list[str] = []
    g = _outer(_inner(calls, ask=False, interrupt_before=["b"]), saver)
    g.invoke({"log": []}, T)
    assert calls == ["a"] and g.get_state(T).next == ("sub",)
    assert g.invoke(None, T) == {"log": ["a", "b=-"]}
    assert calls == ["a", "b"]


def test_interrupt_in_a_graph_invoked_inside_a_node(saver: Any) -> None:
    calls: list[str] = []
    inner = _inner(calls)

    def call(state: S) -> dict:
        out = inner.invoke({"log": []})
        return {"log": out["log"]}

    g = StateGraph(S)
    g.add_node("call", call)
    g.add_edge(START, "call")
    g = g.compile(checkpointer=saver)
    assert "__interrupt__" in g.invoke({"log": []}, T)
    assert g.invoke(Command(resume=7), T) == {"log": ["a", "b=7"]}
    assert calls == ["a", "b", "b"]


def test_command_parent_from_a_graph_invoked_inside_a_node() -> None:
    def jump(state: S) -> Command:
        return Command(graph=Command.PARENT, goto="after", update={"log": ["jumped"]})

    inner = StateGraph(S)
    inner.add_node("jump", jump)
    inner.add_edge(START, "jump")
    inner = inner.compile()
    g = StateGraph(S)
    g.add_node("call", lambda s: inner.invoke({"log": []}) and {"log": ["not reached"]})
    g.add_node("after", lambda s: {"log": ["after"]})
    g.add_edge(START, "call")
    assert g.compile().invoke({"log": []}) == {"log": ["jumped", "after"]}


def test_a_subgraph_update_carries_only_the_parents_keys() -> None:
    inner = StateGraph(Inner)
    inner.add_node("work", lambda s: {"log": ["w"], "scratch": "private"})
    inner.add_edge(START, "work")
    g = StateGraph(S)
    g.add_node("sub", inner.compile())
    g.add_edge(START, "sub")
    assert list(g.compile().stream({"log": []}, stream_mode="updates")) == [{"sub": {"log": ["w"]}}]


def test_stepping_into_a_subgraph_after_a_resume_shows_only_what_is_left(saver: Any) -> None:
    """The gate the studio's F11 uses: after an interrupt inside the subgraph, the resumed
    child Run starts from its own checkpoint, so the inner moves are `b` and its commit,
    never `a` again."""
    calls: list[str] = []
    g = _outer(_inner(calls), saver)
    g.invoke({"log": []}, T)
    moves: list[tuple[tuple[str, ...], list[str], bool]] = []

    async def gate(child: Any) -> None:
        moves.append((child.namespace, [t.name for t in child.pending], child.ready_to_commit))

    async def scenario() -> Any:
        run = g.new_run(Command(resume="ok"), T)
        run.set_options(gate=gate)
        await run.run_to_end()
        return run

    run = asyncio.run(scenario())
    assert run.values == {"log": ["a", "b=ok"]}
    assert calls == ["a", "b", "b"]
    assert moves[0] == (("sub",), ["b"], False), "the first inner move is the interrupted node"
    assert all("a" not in pending for _, pending, _ in moves)


def test_a_str_subclass_is_checkpointed_as_its_text(saver: Any) -> None:
    class Text(str):
        """Like langchain-core's `message.text`: a str with extras."""

    class R(TypedDict):
        result: str

    g = StateGraph(R)
    g.add_node("say", lambda s: {"result": Text("Done")})
    g.add_edge(START, "say")
    graph = g.compile(checkpointer=saver)
    assert graph.invoke({"result": ""}, T) == {"result": "Done"}
    stored = graph.get_state(T).values["result"]
    assert stored == "Done" and type(stored) is str
