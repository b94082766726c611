"""Recorded replay (engine/replay): a recorded run replayed from any checkpoint, chosen
nodes answered from the records (not called), the others re-run with the current code,
on a forked branch, through the one Run; interrupts get their recorded resume values."""
from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest

from engine import END, START, Command, Send, SqliteSaver, StateGraph, interrupt
from engine.replay import ReplayError, load_branch, replay
from engine.runtime import TaskFinished


class S(TypedDict, total=False):
    q: str
    log: Annotated[list, operator.add]
    answer: str
    ok: bool


def build(calls: list[str], fmt_suffix: str = "") -> StateGraph:
    def llm(s: S) -> dict:
        calls.append("llm")
        return {"answer": f"model says {s['q']} #{len(calls)}", "log": ["llm"]}

    def check(s: S) -> dict:
        calls.append("check")
        return {"ok": interrupt({"approve": s["answer"]}), "log": ["check"]}

    def fmt(s: S) -> dict:
        calls.append("fmt")
        return {"answer": s["answer"].upper() + fmt_suffix, "log": ["fmt"]}

    g = StateGraph(S)
    g.add_node("llm", llm)
    g.add_node("check", check)
    g.add_node("fmt", fmt)
    g.add_edge(START, "llm")
    g.add_edge("llm", "check")
    g.add_edge("check", "fmt")
    g.add_edge("fmt", END)
    return g


@pytest.fixture
def recorded(tmp_path):
    """A recorded run in a real SQLite file: paused at `check`'s interrupt, resumed with "yes"."""
    db = str(tmp_path / "runs.sqlite")
    calls: list[str] = []
    app = build(calls).compile(checkpointer=SqliteSaver(db))
    cfg = {"configurable": {"thread_id": "t1"}, "record": True}
    app.invoke({"q": "hi", "log": []}, cfg)
    final = app.invoke(Command(resume="yes"), cfg)
    assert final["answer"] == "MODEL SAYS HI #1" and final["ok"] == "yes"
    return db


def test_recording_keeps_each_tasks_writes_and_resume_values(recorded):
    saver = SqliteSaver(recorded)
    records = {c.metadata["step"] if "step" in c.metadata else c.step: c.metadata.get("record")
               for c in saver.history("t1")}
    by_node = {r[0]["node"]: r[0] for r in records.values() if r}
    assert by_node["llm"]["writes"] == [["answer", "model says hi #1"], ["log", ["llm"]]]
    assert by_node["check"]["resume"] == ["yes"]


def test_replay_answers_chosen_nodes_from_records_and_reruns_the_rest(recorded):
    calls: list[str] = []
    app = build(calls).compile(checkpointer=SqliteSaver(recorded))
    events: list[TaskFinished] = []
    result = replay(app, "t1", record=["llm"], listener=lambda e: events.append(e) if isinstance(e, TaskFinished) else None)
    assert result.status == "done"
    # llm was not called (its recorded answer says #1; a call would say #1 too, but calls shows it)
    assert "llm" not in calls and calls.count("fmt") == 1
    # check re-ran and its interrupt() got the recorded resume value: no pause
    assert result.values["ok"] == "yes" and result.values["answer"] == "MODEL SAYS HI #1"
    assert [e.name for e in events if e.recorded] == ["llm"]
    assert [s.recorded for s in result.steps] == [(), ("llm",), (), ()]


def test_replay_forks_a_branch_and_marks_recorded_tasks(recorded):
    saver = SqliteSaver(recorded)
    before = {c.id for c in saver.history("t1")}
    app = build([]).compile(checkpointer=saver)
    result = replay(app, "t1", record=["llm"])
    fork = saver.load("t1", result.fork_id)
    assert fork.source == "fork" and fork.parent_id == result.start_id and result.start_id in before
    new = [c for c in saver.history("t1") if c.id not in before]
    assert all(c.metadata.get("replay_of") == result.start_id for c in new)
    marked = [r["node"] for c in new for r in c.metadata.get("record", ()) if r.get("recorded")]
    assert marked == ["llm"]
    # the recorded branch is still there, unchanged
    assert before <= {c.id for c in saver.history("t1")}


def test_replay_tests_a_code_fix(recorded):
    """A changed node re-runs with the new code; answered nodes keep their records."""
    app = build([], fmt_suffix="!").compile(checkpointer=SqliteSaver(recorded))
    result = replay(app, "t1", record=["llm"])
    assert result.values["answer"] == "MODEL SAYS HI #1!"


def test_replay_from_a_middle_checkpoint(recorded):
    saver = SqliteSaver(recorded)
    app = build([]).compile(checkpointer=saver)
    after_llm = next(c for c in saver.history("t1") if c.nodes_ran == ("llm",))
    calls: list[str] = []
    app = build(calls).compile(checkpointer=saver)
    result = replay(app, "t1", after_llm.id)
    assert calls == ["check", "fmt"] and result.values["ok"] == "yes"
    assert [n for s in result.steps for n, _ in s.tasks] == ["check", "fmt"]


def test_without_a_recorded_resume_the_replay_stops_at_the_interrupt(tmp_path):
    db = str(tmp_path / "paused.sqlite")
    app = build([]).compile(checkpointer=SqliteSaver(db))
    app.invoke({"q": "hi", "log": []}, {"configurable": {"thread_id": "p"}, "record": True})
    result = replay(app, "p", record=["llm"])
    assert result.status == "interrupted"


def test_fan_out_sends_are_answered_one_by_one(tmp_path):
    class M(TypedDict, total=False):
        items: list[str]
        out: Annotated[list, operator.add]

    def build_map(calls: list[str]) -> StateGraph:
        def work(arg: dict) -> dict:
            calls.append(arg["item"])
            return {"out": [f"{arg['item']}:{len(calls)}"]}

        g = StateGraph(M)
        g.add_node("plan", lambda s: {})
        g.add_node("work", work)
        g.add_edge(START, "plan")
        g.add_conditional_edges("plan", lambda s: [Send("work", {"item": i}) for i in s["items"]])
        return g

    db = str(tmp_path / "map.sqlite")
    first: list[str] = []
    app = build_map(first).compile(checkpointer=SqliteSaver(db))
    app.invoke({"items": ["a", "b", "c"]}, {"configurable": {"thread_id": "m"}, "record": True})
    calls: list[str] = []
    result = replay(build_map(calls).compile(checkpointer=SqliteSaver(db)), "m", record=["work"])
    assert calls == []
    assert sorted(result.values["out"]) == sorted(["a:1", "b:2", "c:3"]) or \
        sorted(x.split(":")[0] for x in result.values["out"]) == ["a", "b", "c"]
    recorded_out = SqliteSaver(db).load("m", result.branch.final.id).values["out"]
    assert result.values["out"] == recorded_out


def test_an_unrecorded_run_is_answered_from_what_the_checkpoints_show(tmp_path):
    """No config['record']: one-task supersteps of plain and operator.add keys are derived."""
    db = str(tmp_path / "plain.sqlite")
    app = build([]).compile(checkpointer=SqliteSaver(db))
    cfg = {"configurable": {"thread_id": "u"}}
    app.invoke({"q": "hi", "log": []}, cfg)
    app.invoke(Command(resume="no"), cfg)
    branch = load_branch(app, SqliteSaver(db), "u")
    llm = next(t for s in branch.steps for t in s.tasks or () if t.node == "llm")
    assert llm.source == "derived" and dict(llm.writes) == {"answer": "model says hi #1", "log": ["llm"]}
    calls: list[str] = []
    result = replay(build(calls).compile(checkpointer=SqliteSaver(db)), "u", record=["llm", "check"])
    assert calls == ["fmt"] and result.values["ok"] == "no"


def test_bad_inputs_name_the_culprit(recorded):
    app = build([]).compile(checkpointer=SqliteSaver(recorded))
    with pytest.raises(ReplayError, match=r"unknown node `nope`.*llm, check, fmt"):
        replay(app, "t1", record=["nope"])
    with pytest.raises(ReplayError, match=r"thread `missing` has no checkpoints.*'t1'"):
        replay(app, "missing")
    with pytest.raises(ReplayError, match=r"no checkpoint `zzz`"):
        replay(app, "t1", "zzz")


def test_a_path_the_recording_never_took_is_named(recorded):
    """The current code routes to a node at a step where the recording ran another one."""
    g = build([])
    g2 = StateGraph(S)
    for name in ("llm", "check", "fmt"):
        g2.add_node(name, g.nodes[name].fn if hasattr(g.nodes[name], "fn") else g.nodes[name])
    g2.add_edge(START, "llm")
    g2.add_edge("llm", "fmt")  # skips check
    g2.add_edge("fmt", "check")
    g2.add_edge("check", END)
    app = g2.compile(checkpointer=SqliteSaver(recorded))
    with pytest.raises(ReplayError, match=r"node `fmt` runs at step 2 of the replay, but the recording ran check there"):
        replay(app, "t1", record=["llm", "fmt"])


def test_the_record_option_is_not_shown_to_nodes(tmp_path):
    seen: list[dict] = []

    def node(s: S, config) -> dict:
        seen.append(dict(config))
        return {"answer": "x"}

    g = StateGraph(S)
    g.add_node("n", node)
    g.add_edge(START, "n")
    g.add_edge("n", END)
    app = g.compile(checkpointer=SqliteSaver(str(tmp_path / "o.sqlite")))
    app.invoke({"q": "?"}, {"configurable": {"thread_id": "o"}, "record": True})
    assert seen and "record" not in seen[0]
    latest = SqliteSaver(str(tmp_path / "o.sqlite")).load("o")
    assert latest.metadata["record"][0]["node"] == "n"
