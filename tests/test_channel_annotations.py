"""LangGraph's channel classes as state annotations (EphemeralValue, UntrackedValue, Topic,
AnyValue, BinaryOperatorAggregate, LastValue), on real savers, and in the studio: an
untracked key is shown and marked not checkpointed."""
from __future__ import annotations

import operator
import sqlite3
import textwrap
from pathlib import Path
from typing import Annotated, TypedDict

import pytest

from engine import END, START, InMemorySaver, SqliteSaver, StateGraph, interrupt
from engine.channels import CollectValue, OneStepValue, ReducerChannel, UnsavedValue
from engine.compat.channels import (
    AnyValue,
    BinaryOperatorAggregate,
    EphemeralValue,
    LastValue,
    Topic,
    UntrackedValue,
)
from engine.errors import InvalidUpdateError
from test_studio_support import act, open_window, settings, studio_loop  # noqa: F401 (fixtures)

SECRET = "sk-do-not-store-4242"


class S(TypedDict, total=False):
    token: Annotated[str, UntrackedValue]
    flag: Annotated[str, EphemeralValue]
    seen: Annotated[list, operator.add]


def _graph(saver, *, pause: bool = False):
    def login(s):
        return {"token": SECRET, "flag": "fresh", "seen": [("login", s.get("flag"))]}

    def use(s):
        answer = interrupt("go?") if pause else "yes"
        return {"seen": [("use", s.get("token"), s.get("flag"), answer)]}

    def after(s):
        return {"seen": [("after", s.get("token"), s.get("flag"))]}

    g = StateGraph(S)
    g.add_node("login", login)
    g.add_node("use", use)
    g.add_node("after", after)
    g.add_edge(START, "login")
    g.add_edge("login", "use")
    g.add_edge("use", "after")
    g.add_edge("after", END)
    return g.compile(checkpointer=saver)


def test_annotations_pick_the_engine_channels() -> None:
    from engine.schema import StateSchema

    class T(TypedDict):
        a: Annotated[str, EphemeralValue]
        b: Annotated[str, UntrackedValue(str, guard=False)]
        c: Annotated[list, Topic(str, accumulate=True)]
        d: Annotated[int, BinaryOperatorAggregate(int, operator.add)]
        e: Annotated[int, AnyValue]
        f: Annotated[int, LastValue]

    ch = StateSchema(T).channels
    assert type(ch["a"]) is OneStepValue and ch["a"].guard
    assert type(ch["b"]) is UnsavedValue and not ch["b"].guard
    assert type(ch["c"]) is CollectValue and ch["c"].accumulate and not ch["c"].transient
    assert type(ch["d"]) is ReducerChannel and ch["d"].initial() == 0
    assert type(ch["e"]) is OneStepValue and not ch["e"].guard
    assert StateSchema(T).unsaved_keys == {"b"} and StateSchema(T).transient_keys == ("a", "e")


def test_an_untracked_value_never_reaches_a_sqlite_file(tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    graph = _graph(SqliteSaver(str(db)), pause=True)
    cfg = {"configurable": {"thread_id": "t"}}
    graph.invoke({"seen": []}, cfg)  # paused in `use`, after `login` wrote the token
    assert graph.get_state(cfg).next == ("use",)
    out = graph.invoke(__import__("engine").Command(resume="ok"), cfg)
    # resumed from the checkpoint: the token was never saved, so the run goes on without it
    assert out["seen"] == [("login", None), ("use", None, "fresh", "ok"), ("after", None, None)]
    assert "token" not in graph.get_state(cfg).values
    with sqlite3.connect(db) as conn:
        dump = "\n".join(conn.iterdump())
    assert SECRET not in dump and SECRET.encode() not in db.read_bytes()


def test_within_a_run_the_untracked_value_is_read_and_the_ephemeral_one_lasts_one_step() -> None:
    graph = _graph(InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    out = graph.invoke({"seen": [], "flag": "input"}, cfg)
    assert out["seen"] == [("login", "input"), ("use", SECRET, "fresh", "yes"), ("after", SECRET, None)]
    assert out["token"] == SECRET and "flag" not in out
    history = [(s.metadata["step"], sorted(s.values)) for s in graph.get_state_history(cfg)]
    assert history == [(3, ["seen"]), (2, ["seen"]), (1, ["flag", "seen"]), (0, ["flag", "seen"]), (-1, ["seen"])]


def test_topic_collects_a_steps_writes_and_accumulate_keeps_them() -> None:
    class T(TypedDict, total=False):
        step: Annotated[list, Topic(str)]
        all: Annotated[list, Topic(str, accumulate=True)]
        n: int

    g = StateGraph(T)
    g.add_node("a", lambda s: {"step": ["a1", "a2"], "all": "a"})
    g.add_node("b", lambda s: {"step": "b", "all": ["b1", "b2"]})
    g.add_node("c", lambda s: {"n": len(s.get("step", []))})
    g.add_edge(START, "a")
    g.add_edge(START, "b")
    g.add_edge(["a", "b"], "c")
    chunks = list(g.compile().stream({}, stream_mode="values"))
    assert chunks == [{"step": ["a1", "a2", "b"], "all": ["a", "b1", "b2"]},
                      {"all": ["a", "b1", "b2"], "n": 3}]


@pytest.mark.parametrize("channel, message", [
    (EphemeralValue, "At key 'k': EphemeralValue(guard=True) can receive only one value per step"),
    (UntrackedValue, "At key 'k': UntrackedValue(guard=True) can receive only one value per step"),
    (LastValue, "At key 'k': Can receive only one value per step"),
])
def test_two_writes_in_one_step_are_refused_by_a_guarded_channel(channel, message) -> None:
    T = TypedDict("T", {"k": Annotated[int, channel]}, total=False)  # (a local name: no class body)

    g = StateGraph(T)
    g.add_node("a", lambda s: {"k": 1})
    g.add_node("b", lambda s: {"k": 2})
    g.add_edge(START, "a")
    g.add_edge(START, "b")
    with pytest.raises(InvalidUpdateError, match=message.replace("(", r"\(").replace(")", r"\)")):
        g.compile().invoke({})


APP = textwrap.dedent("""\
    import operator
    from typing import Annotated, TypedDict
    from langgraph.channels import EphemeralValue, UntrackedValue
    from langgraph.graph import StateGraph, START, END
    from langgraph.checkpoint.memory import InMemorySaver

    class S(TypedDict, total=False):
        token: Annotated[str, UntrackedValue]
        flag: Annotated[str, EphemeralValue]
        log: Annotated[list, operator.add]

    def login(s):
        return {"token": "t-1", "flag": "on", "log": ["login"]}

    def work(s):
        return {"log": [f"work {s.get('token')} {s.get('flag')}"]}

    builder = StateGraph(S)
    builder.add_node("login", login)
    builder.add_node("work", work)
    builder.add_edge(START, "login")
    builder.add_edge("login", "work")
    builder.add_edge("work", END)
    graph = builder.compile(checkpointer=InMemorySaver())
    example_input = {"log": []}
""")


def _state_rows(panel) -> dict[str, tuple[str, str]]:
    model = panel.model
    return {model.index(r, 0).data(): (model.index(r, 1).data(), model.index(r, 2).data())
            for r in range(model.rowCount())}


def test_the_studio_shows_an_untracked_key_marked_not_checkpointed(open_window, qtbot, tmp_path: Path) -> None:
    app = tmp_path / "lg_channels.py"
    app.write_text(APP, encoding="utf-8")
    window = open_window(app)
    act(qtbot, window, "step")  # the input superstep, then `login`
    act(qtbot, window, "step")
    rows = _state_rows(window.panels.state)
    assert rows["token"] == ('"t-1"', "str · not checkpointed")
    assert rows["flag"][1] == "str" and rows["log"][1].startswith("list")
    tip = window.panels.state.model.index(list(rows).index("token"), 2).data(0x03)  # ToolTipRole
    assert tip == "`token`: not checkpointed"
    assert act(qtbot, window, "continue_").reason == "done"
    assert window.session.state.values["log"] == ["login", "work t-1 on"]
