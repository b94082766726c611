"""Recorded replay inside subgraphs: nodes of a subgraph (named `sub:node`) are answered
from the subgraph's recorded checkpoints (same thread, its own namespace), the rest of the
subgraph re-runs with the current code, interrupts inside it get their recorded resume
values, and the answered inner tasks are marked. Real SQLite files, the subgraph example."""
from __future__ import annotations

import importlib.util
import operator
import sys
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest

from engine import END, START, Command, SqliteSaver, StateGraph, interrupt
from engine.replay import ReplayError, replay
from engine.runtime import TaskFinished

EXAMPLE = Path(__file__).resolve().parent.parent / "resources" / "examples" / "subgraph.py"


def load_example() -> Any:
    spec = importlib.util.spec_from_file_location("retrograph_example_subgraph", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module


def article_graph(ex: Any, extract: Any = None, write: Any = None) -> StateGraph:
    """The example's article graph, built from its own node functions; `extract` and
    `write` may be swapped for other code (what a code fix looks like)."""
    research = StateGraph(ex.ResearchState)
    research.add_node("fetch", ex.fetch)
    research.add_node("extract", extract or ex.extract)
    research.add_edge(START, "fetch")
    research.add_edge("fetch", "extract")
    research.add_edge("extract", END)
    g = StateGraph(ex.ArticleState)
    g.add_node("plan", ex.plan)
    g.add_node("research", research.compile(name="research"))
    g.add_node("write", write or ex.write)
    g.add_edge(START, "plan")
    g.add_edge("plan", "research")
    g.add_edge("research", "write")
    g.add_edge("write", END)
    return g


@pytest.fixture
def example_run(tmp_path):
    ex = load_example()
    db = str(tmp_path / "article.sqlite")
    app = ex.builder.compile(checkpointer=SqliteSaver(db))
    final = app.invoke({"topic": "Octopus"}, {"configurable": {"thread_id": "a"}, "record": True})
    return ex, db, final


def test_an_inner_node_is_answered_from_the_subgraphs_records(example_run):
    ex, db, recorded = example_run

    def extract_must_not_run(state):
        raise AssertionError("extract was called: it should have been answered from the recording")

    def write_fixed(state):  # the code fix under test: re-runs with the current code
        return {"article": "FIXED " + ex.write(state)["article"], "log": ["wrote"]}

    app = article_graph(ex, extract=extract_must_not_run, write=write_fixed).compile(checkpointer=SqliteSaver(db))
    events: list[TaskFinished] = []
    result = replay(app, "a", record=["research:extract"],
                    listener=lambda e: events.append(e) if isinstance(e, TaskFinished) else None)
    assert result.status == "done", result.error
    assert result.values["facts"] == recorded["facts"]
    assert result.values["article"] == "FIXED " + recorded["article"]
    answered = [(e.namespace, e.name) for e in events if e.recorded]
    assert answered == [(("research",), "extract")]
    ran_inside = [e.name for e in events if e.namespace == ("research",)]
    assert ran_inside == ["__start__", "fetch", "extract"]
    # the mark is on the subgraph's own checkpoint, which the replay saved in its namespace
    (marked, nodes), = result.marks.items()
    assert nodes == ("extract",)
    saver = SqliteSaver(db)
    inner = [ns for ns in saver.namespaces("a") if ns.startswith("research:")]
    assert len(inner) == 2  # the recording's subgraph, and the replay's
    from engine.checkpoint.base import ns_thread_key
    holder = [ns for ns in inner if saver.load(ns_thread_key("a", ns), marked) is not None]
    assert len(holder) == 1
    records = saver.load(ns_thread_key("a", holder[0]), marked).metadata["record"]
    assert [(r["node"], r.get("recorded", False)) for r in records] == [("extract", True)]


def test_an_inner_node_re_runs_when_not_chosen(example_run):
    ex, db, recorded = example_run
    calls: list[str] = []

    def extract_counted(state):
        calls.append("extract")
        return ex.extract(state)

    app = article_graph(ex, extract=extract_counted).compile(checkpointer=SqliteSaver(db))
    result = replay(app, "a", record=["research:fetch"])
    assert calls == ["extract"] and result.values["article"] == recorded["article"]
    assert [m for m in result.marks.values()] == [("fetch",)]


def test_the_subgraph_node_as_a_whole_still_answers(example_run):
    ex, db, recorded = example_run

    def never(state):
        raise AssertionError("the subgraph ran: it should have been answered as a whole")

    app = article_graph(ex, extract=never).compile(checkpointer=SqliteSaver(db))
    result = replay(app, "a", record=["research"])
    assert result.status == "done" and result.values["facts"] == recorded["facts"]
    assert [s.recorded for s in result.steps if s.recorded] == [("research",)]


def test_unknown_inner_names_are_named_with_the_known_paths(example_run):
    ex, db, _ = example_run
    app = ex.builder.compile(checkpointer=SqliteSaver(db))
    with pytest.raises(ReplayError, match=r"unknown node `research:nope`.*research:fetch, research:extract"):
        replay(app, "a", record=["research:nope"])
    with pytest.raises(ReplayError, match=r"unknown node `plan:x`"):
        replay(app, "a", record=["plan:x"])  # plan is no subgraph


class Outer(TypedDict, total=False):
    q: str
    answer: str
    ok: str
    log: Annotated[list, operator.add]


def approval_graph(calls: list[str], checkpointer: Any) -> Any:
    """A subgraph with an "LLM" node and a node that asks a human (interrupt())."""
    def llm(s: Outer) -> dict:
        calls.append("llm")
        return {"answer": f"model says {s['q']} ({len(calls)})", "log": ["llm"]}

    def approve(s: Outer) -> dict:
        calls.append("approve")
        return {"ok": interrupt({"approve?": s["answer"]}), "log": ["approve"]}

    inner = StateGraph(Outer)
    inner.add_node("llm", llm)
    inner.add_node("approve", approve)
    inner.add_edge(START, "llm")
    inner.add_edge("llm", "approve")
    inner.add_edge("approve", END)

    def finish(s: Outer) -> dict:
        calls.append("finish")
        return {"log": [f"finished: {s['ok']}"]}

    g = StateGraph(Outer)
    g.add_node("review", inner.compile())
    g.add_node("finish", finish)
    g.add_edge(START, "review")
    g.add_edge("review", "finish")
    g.add_edge("finish", END)
    return g.compile(checkpointer=checkpointer)


def test_an_interrupt_inside_a_subgraph_replays_its_recorded_resume_value(tmp_path):
    db = str(tmp_path / "approval.sqlite")
    cfg = {"configurable": {"thread_id": "r"}, "record": True}
    first: list[str] = []
    app = approval_graph(first, SqliteSaver(db))
    paused = app.invoke({"q": "hi", "log": []}, cfg)
    assert "__interrupt__" in paused
    final = app.invoke(Command(resume="approved"), cfg)
    assert final["ok"] == "approved" and first.count("llm") == 1

    calls: list[str] = []
    result = replay(approval_graph(calls, SqliteSaver(db)), "r", record=["review:llm"])
    assert result.status == "done", result.error
    assert calls == ["approve", "finish"]  # the LLM inside the subgraph answered; no pause
    assert result.values == final


def test_a_node_two_subgraphs_deep_is_answered(tmp_path):
    class S(TypedDict, total=False):
        n: int
        log: Annotated[list, operator.add]

    def build(calls: list[str]) -> Any:
        def leaf(s: S) -> dict:
            calls.append("leaf")
            return {"n": s["n"] * 10 + len(calls), "log": ["leaf"]}

        def after(s: S) -> dict:
            calls.append("after")
            return {"log": [f"after {s['n']}"]}

        inner = StateGraph(S)
        inner.add_node("leaf", leaf)
        inner.add_node("after", after)
        inner.add_edge(START, "leaf")
        inner.add_edge("leaf", "after")
        middle = StateGraph(S)
        middle.add_node("inner", inner.compile())
        middle.add_edge(START, "inner")
        top = StateGraph(S)
        top.add_node("middle", middle.compile())
        top.add_edge(START, "middle")
        return top

    db = str(tmp_path / "deep.sqlite")
    app = build([]).compile(checkpointer=SqliteSaver(db))
    recorded = app.invoke({"n": 4, "log": []}, {"configurable": {"thread_id": "d"}, "record": True})
    calls: list[str] = []
    result = replay(build(calls).compile(checkpointer=SqliteSaver(db)), "d", record=["middle:inner:leaf"])
    assert calls == ["after"]
    assert result.values == recorded
    assert list(result.marks.values()) == [("leaf",)]


def test_an_inner_node_of_a_subgraph_that_saves_nothing_is_refused_clearly(tmp_path):
    class S(TypedDict, total=False):
        x: int

    def build() -> Any:
        inner = StateGraph(S)
        inner.add_node("calc", lambda s: {"x": s["x"] + 1})
        inner.add_edge(START, "calc")
        top = StateGraph(S)
        top.add_node("sub", inner.compile(checkpointer=False))
        top.add_edge(START, "sub")
        return top

    db = str(tmp_path / "nothing.sqlite")
    app = build().compile(checkpointer=SqliteSaver(db))
    app.invoke({"x": 1}, {"configurable": {"thread_id": "n"}, "record": True})
    with pytest.raises(ReplayError, match=r"node `sub:calc`: the recording kept no checkpoints of subgraph `sub`"):
        replay(build().compile(checkpointer=SqliteSaver(db)), "n", record=["sub:calc"])


def test_a_subgraph_with_a_history_of_its_own_is_answered_call_by_call(tmp_path):
    """checkpointer=True: one namespace for every call of the subgraph; each call's records
    are the checkpoints that name the recorded parent step they ran under."""
    class S(TypedDict, total=False):
        n: int
        log: Annotated[list, operator.add]

    def build(calls: list[str]) -> Any:
        def leaf(s: S) -> dict:
            calls.append("leaf")
            return {"n": s["n"] + 100 + len(calls), "log": ["leaf"]}

        def after(s: S) -> dict:
            calls.append("after")
            return {"log": [f"after {s['n']}"]}

        inner = StateGraph(S)
        inner.add_node("leaf", leaf)
        inner.add_node("after", after)
        inner.add_edge(START, "leaf")
        inner.add_edge("leaf", "after")
        top = StateGraph(S)
        top.add_node("sub", inner.compile(checkpointer=True))
        top.add_node("again", lambda s: {"log": ["again"]})
        top.add_edge(START, "sub")
        top.add_conditional_edges("sub", lambda s: "again" if len(s["log"]) < 6 else END, ["again", END])
        top.add_edge("again", "sub")
        return top

    db = str(tmp_path / "stateful.sqlite")
    recorded = build([]).compile(checkpointer=SqliteSaver(db)).invoke(
        {"n": 1, "log": []}, {"configurable": {"thread_id": "s"}, "record": True})
    calls: list[str] = []
    result = replay(build(calls).compile(checkpointer=SqliteSaver(db)), "s", record=["sub:leaf"])
    assert result.status == "done", result.error
    assert calls == ["after", "after"] and result.values == recorded
    assert list(result.marks.values()) == [("leaf",), ("leaf",)]
