"""Recorded replay (engine/replay) of runs that a person edited (update_state on the
recorded branch) and of nodes whose Command carries Sends beside a router: the replay
follows the recorded branch, in real SQLite files."""
from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from engine import END, START, Command, Send, SqliteSaver, StateGraph
from engine.replay import replay


class M(TypedDict, total=False):
    items: list[str]
    out: Annotated[list, operator.add]
    note: str


def build_fan(calls: list[str]) -> StateGraph:
    """`plan` (the "LLM") sends one `work` task per item from its Command; its router adds
    a `tally` task (graph code, re-run on replay)."""
    def plan(s: M) -> Command:
        calls.append("plan")
        return Command(update={"note": "planned"}, goto=[Send("work", {"item": i}) for i in s["items"]])

    def work(arg: dict) -> dict:
        calls.append(f"work:{arg['item']}")
        return {"out": [arg["item"].upper()]}

    def tally(s: M) -> dict:
        calls.append("tally")
        return {"out": [f"tally after {s.get('note')}"]}

    g = StateGraph(M)
    g.add_node("plan", plan)
    g.add_node("work", work)
    g.add_node("tally", tally)
    g.add_edge(START, "plan")
    g.add_conditional_edges("plan", lambda s: ["tally"], ["tally"])
    return g


def test_sends_of_a_command_beside_a_router_are_recorded_and_replayed(tmp_path):
    db = str(tmp_path / "fan.sqlite")
    first: list[str] = []
    app = build_fan(first).compile(checkpointer=SqliteSaver(db))
    recorded = app.invoke({"items": ["a", "b"]}, {"configurable": {"thread_id": "f"}, "record": True})
    assert sorted(recorded["out"]) == ["A", "B", "tally after planned"]
    plan_record = next(r for c in SqliteSaver(db).history("f") for r in c.metadata.get("record", ())
                       if r["node"] == "plan")
    assert [s.arg for s in plan_record["sends"]] == [{"item": "a"}, {"item": "b"}]  # not the router's task

    calls: list[str] = []
    result = replay(build_fan(calls).compile(checkpointer=SqliteSaver(db)), "f", record=["plan"])
    assert result.status == "done"
    assert "plan" not in calls and sorted(calls) == ["tally", "work:a", "work:b"]
    assert result.values["out"] == recorded["out"]
    assert [n for n, _ in result.steps[-1].tasks] == ["tally", "work", "work"]


class S(TypedDict, total=False):
    q: str
    answer: str
    log: Annotated[list, operator.add]


def build_edited(calls: list[str]) -> StateGraph:
    """llm -> review -> fmt, or review -> redo (when a person sets `answer` to "redo")."""
    def llm(s: S) -> dict:
        calls.append("llm")
        return {"answer": f"model says {s['q']} #{len(calls)}", "log": ["llm"]}

    def review(s: S) -> dict:
        calls.append("review")
        return {"log": ["review"]}

    def fmt(s: S) -> dict:
        calls.append("fmt")
        return {"answer": s["answer"].upper(), "log": ["fmt"]}

    def redo(s: S) -> dict:
        calls.append("redo")
        return {"answer": "redone", "log": ["redo"]}

    g = StateGraph(S)
    for name, fn in (("llm", llm), ("review", review), ("fmt", fmt), ("redo", redo)):
        g.add_node(name, fn)
    g.add_edge(START, "llm")
    g.add_edge("llm", "review")
    g.add_conditional_edges("review", lambda s: "redo" if s["answer"] == "redo" else "fmt", ["fmt", "redo"])
    g.add_edge("fmt", END)
    g.add_edge("redo", END)
    return g


def edited_run(db: str, edit: dict, *, as_node: str = "llm", record_edit: bool = False) -> dict:
    """A recorded run paused before `review`, edited by a person, then run to the end."""
    app = build_edited([]).compile(checkpointer=SqliteSaver(db), interrupt_before=["review"])
    cfg: dict = {"configurable": {"thread_id": "e"}, "record": True}
    app.invoke({"q": "hi", "log": []}, cfg)
    app.update_state({**cfg, "record": record_edit} if record_edit else {"configurable": cfg["configurable"]},
                     edit, as_node=as_node)
    return app.invoke(None, cfg)


def test_an_edit_on_the_recorded_branch_is_made_again_by_the_replay(tmp_path):
    db = str(tmp_path / "edited.sqlite")
    final = edited_run(db, {"answer": "a person's answer", "log": ["edited"]})
    assert final["answer"] == "A PERSON'S ANSWER" and final["log"] == ["llm", "edited", "review", "fmt"]
    calls: list[str] = []
    app = build_edited(calls).compile(checkpointer=SqliteSaver(db))
    result = replay(app, "e", record=["llm"])
    assert result.status == "done", result.error
    assert calls == ["review", "fmt"]
    assert result.values == final
    edit = next(s for s in result.steps if s.tasks and s.tasks[0][0] == "llm" and not s.recorded)
    saver = SqliteSaver(db)
    made = saver.load("e", edit.checkpoint_id)
    assert made.source == "update" and made.metadata["replay_of"] == result.start_id
    assert dict(edit.tasks[0][1]) == {"answer": "a person's answer", "log": ["edited"]}


def test_an_edit_that_changes_the_route_is_followed(tmp_path):
    db = str(tmp_path / "reroute.sqlite")
    final = edited_run(db, {"answer": "redo"}, record_edit=True)  # kept as a record this time
    assert final["answer"] == "redone"
    calls: list[str] = []
    result = replay(build_edited(calls).compile(checkpointer=SqliteSaver(db)), "e", record=["llm"])
    assert calls == ["review", "redo"] and result.values == final


def test_an_edit_that_replaces_a_list_is_made_again(tmp_path):
    from engine.types import Overwrite

    db = str(tmp_path / "overwrite.sqlite")
    final = edited_run(db, {"log": Overwrite(["cleared by a person"])})
    assert final["log"] == ["cleared by a person", "review", "fmt"]
    result = replay(build_edited([]).compile(checkpointer=SqliteSaver(db)), "e", record=["llm"])
    assert result.status == "done", result.error
    assert result.values == final


def test_a_replay_from_a_middle_checkpoint_makes_the_later_edit(tmp_path):
    db = str(tmp_path / "middle.sqlite")
    final = edited_run(db, {"answer": "from a person"})
    saver = SqliteSaver(db)
    after_llm = next(c for c in saver.history("e") if c.nodes_ran == ("llm",) and c.source == "loop")
    calls: list[str] = []
    result = replay(build_edited(calls).compile(checkpointer=saver), "e", after_llm.id)
    assert calls == ["review", "fmt"] and result.values["answer"] == "FROM A PERSON" == final["answer"]


GRAPH_FILE = '''
import operator
from typing import Annotated, TypedDict
from engine import END, START, StateGraph

class S(TypedDict, total=False):
    q: str
    answer: str
    log: Annotated[list, operator.add]

def llm(s): return {"answer": f"model says {s['q']}", "log": ["llm"]}
def review(s): return {"log": ["review"]}
def fmt(s): return {"answer": s["answer"].upper(), "log": ["fmt"]}
builder = StateGraph(S)
for name, fn in (("llm", llm), ("review", review), ("fmt", fmt)):
    builder.add_node(name, fn)
builder.add_edge(START, "llm")
builder.add_edge("llm", "review")
builder.add_edge("review", "fmt")
builder.add_edge("fmt", END)
graph = builder.compile()
'''


def test_a_generated_regression_test_makes_the_edit_again(tmp_path):
    import importlib.util
    import io
    import os
    import subprocess
    import sys
    from pathlib import Path

    from studio.cli.commands import parse_args
    from studio.cli.pytestgen import cmd_pytest

    app_file = tmp_path / "edited_app.py"
    app_file.write_text(GRAPH_FILE, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("edited_app_for_replay", app_file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    db = str(tmp_path / "runs.sqlite")
    app = module.builder.compile(checkpointer=SqliteSaver(db), interrupt_before=["review"])
    cfg: dict = {"configurable": {"thread_id": "e"}, "record": True}
    app.invoke({"q": "hi", "log": []}, cfg)
    app.update_state({"configurable": {"thread_id": "e"}}, {"answer": "a person's"}, as_node="llm")
    assert app.invoke(None, cfg)["answer"] == "A PERSON'S"
    (tmp_path / "tests").mkdir()
    test_file = tmp_path / "tests" / "test_edited.py"
    out, err = io.StringIO(), io.StringIO()
    code = cmd_pytest(parse_args(["pytest", db, "--thread", "e", "--graph", str(app_file), "--record", "llm",
                                  "-o", str(test_file)]), out=out, err=err)
    assert code == 0, err.getvalue()
    assert "# superstep 3: an edit (update_state) as llm, made again" in test_file.read_text(encoding="utf-8")
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test_file)],
                          cwd=test_file.parent, env={**os.environ, "PYTHONPATH": str(root)},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:]
