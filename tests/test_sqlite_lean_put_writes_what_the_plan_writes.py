"""A superstep that changes only small scalars is stored by SqliteSaver's lean put
(engine/checkpoint/sqlite_lean.py), which skips the storage plan: the file it writes is,
row for row and byte for byte, the file the planned put writes for the same saves, and
what it declines (lists, long texts, ints past JSON, a parent it does not remember, an
existing id, a value without a version) the planned put stores or refuses as before."""

from __future__ import annotations

import dataclasses
import operator
import sqlite3
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest

import engine.checkpoint.sqlite as sqlite_module
from engine import END, START, SqliteSaver, StateGraph
from engine.checkpoint.base import Checkpoint
from engine.types import Send


class Mixed(TypedDict, total=False):
    n: int
    flag: bool
    maybe: int | None
    big: int
    note: str
    items: Annotated[list, operator.add]
    fan: Annotated[list, operator.add]


def _step(s: Mixed) -> dict[str, Any]:
    n = s["n"] + 1
    out: dict[str, Any] = {"n": n, "flag": n % 2 == 0, "maybe": None if n % 3 else n}
    if n % 4 == 0:
        out["items"] = [f"item {n}"]  # an appended list: the planned put (segments)
    if n == 5:
        out["note"] = "a long text " * 40  # a value stored apart
    if n == 6:
        out["big"] = 2**64  # past JSON's ints: a tagged value
    if n == 7:
        out["big"] = -(2**63)  # the smallest JSON int: inline again
    return out


def _route(s: Mixed) -> Any:
    if s["n"] == 8:
        return [Send("worker", {"n": 100}), Send("worker", {"n": 200})]
    return "step" if s["n"] < 12 else END


def _graph(saver: SqliteSaver) -> Any:
    b = StateGraph(Mixed)
    b.add_node("step", _step)
    b.add_node("worker", lambda s: {"fan": [s["n"]]})
    b.add_node("left", lambda s: {"flag": True})
    b.add_node("right", lambda s: {"maybe": 1})
    b.add_edge(START, "left")
    b.add_edge(START, "right")
    b.add_edge(["left", "right"], "step")  # a join: barriers in the first records
    b.add_conditional_edges("step", _route, ["step", "worker", END])
    b.add_edge("worker", "step")
    return b.compile(checkpointer=saver)


class _Recorder(SqliteSaver):
    """A real saver that also keeps every save and pending write it was given, in order."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.calls: list[tuple[str, Any]] = []

    def save(self, checkpoint: Checkpoint, *, appended: Any = None) -> None:
        self.calls.append(("save", (checkpoint, appended)))
        super().save(checkpoint, appended=appended)

    def save_writes(self, thread_id: str, checkpoint_id: str, writes: Any) -> None:
        self.calls.append(("writes", (thread_id, checkpoint_id, writes)))
        super().save_writes(thread_id, checkpoint_id, writes)


def _recorded(tmp_path: Path) -> list[tuple[str, Any]]:
    rec = _Recorder(tmp_path / "recorded.db")
    graph = _graph(rec)
    cfg = {"configurable": {"thread_id": "t"}, "recursion_limit": 100}
    out = graph.invoke({"n": 0, "note": "", "items": [], "fan": []}, cfg)
    assert out["n"] == 12 and out["fan"] == [100, 200] and len(out["items"]) == 3
    graph.update_state(cfg, {"n": 40}, as_node="step")  # metadata of an update
    graph.invoke(None, cfg)
    rec.close()
    return rec.calls


def _replay(calls: list[tuple[str, Any]], path: Path) -> list[tuple[str, Any]]:
    """The calls made again on a fresh saver of `path`; what each save did (or raised)."""
    saver = SqliteSaver(path)
    outcomes: list[tuple[str, Any]] = []
    for kind, args in calls:
        try:
            if kind == "save":
                saver.save(args[0], appended=args[1])
            else:
                saver.save_writes(*args)
            outcomes.append(("ok", None))
        except Exception as e:  # noqa: BLE001 - compared between the two puts
            outcomes.append((type(e).__name__, str(e)))
    saver.close()
    return outcomes


def _contents(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    with sqlite3.connect(path) as conn:
        out = {}
        for table, key in (
            ("threads", "tid"),
            ("checkpoints", "cid"),
            ("segments", "sid"),
            ("chunks", "sid"),
            ("origins", "chain"),
            ("writes", "wid"),
        ):
            cols = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
            typed = ", ".join(f"{c}, typeof({c})" for c in cols)
            out[table] = conn.execute(f"SELECT {typed} FROM {table} ORDER BY {key}").fetchall()
    return out


def _planned_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sqlite_module, "lean_put", lambda *args: False)


def _more_saves(calls: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """Saves the run never makes: the ones the lean put must decline or refuse."""
    saves = [args[0] for kind, args in calls if kind == "save"]
    last = saves[-1]
    other = dataclasses.replace(
        last,
        id=last.id + "-b",
        parent_id=last.id,
        step=last.step + 1,
        versions={**last.versions, "n": last.id + "-b"},
        values={**last.values, "n": 7},
    )
    no_version = dataclasses.replace(other, id=last.id + "-c", values={**other.values, "extra": 1})
    absent = dataclasses.replace(
        other,
        id=last.id + "-d",
        parent_id=other.id,
        versions={**other.versions, "gone": last.id + "-d", "was": last.id},
        values={k: v for k, v in other.values.items() if k != "maybe"},
    )
    return [
        *calls,
        ("save", (last, None)),  # an id that exists
        ("save", (other, None)),
        ("save", (no_version, None)),  # a value without a version
        ("save", (absent, None)),  # versioned channels without values, own and older
        # another thread, its parent unknown, its kept versions not stored there
        ("save", (dataclasses.replace(saves[2], id="elsewhere", parent_id="nowhere", thread_id="t2"), None)),
    ]


def test_the_lean_put_writes_the_file_the_planned_put_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _more_saves(_recorded(tmp_path))
    lean = _replay(calls, tmp_path / "lean.db")
    with monkeypatch.context() as m:
        _planned_only(m)
        planned = _replay(calls, tmp_path / "planned.db")
    assert lean == planned
    refused = [message for outcome, message in lean if outcome != "ok"]
    assert len(refused) == 3 and len(lean) == len(calls)
    assert "already exists" in refused[0] and "has a value but no version" in refused[1]
    assert "no value was stored under that version in thread `t2`" in refused[2]
    assert _contents(tmp_path / "lean.db") == _contents(tmp_path / "planned.db")
    with (
        SqliteSaver(tmp_path / "lean.db", read_only=True) as a,
        SqliteSaver(tmp_path / "planned.db", read_only=True) as b,
    ):
        assert list(a.history("t")) == list(b.history("t")) and len(list(a.history("t"))) > 15


def test_most_saves_of_the_run_take_the_lean_put(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _recorded(tmp_path)
    taken: list[bool] = []
    real = sqlite_module.lean_put

    def counting(*args: Any) -> bool:
        taken.append(real(*args))
        return taken[-1]

    monkeypatch.setattr(sqlite_module, "lean_put", counting)
    _replay(calls, tmp_path / "counted.db")
    # declined: the input (a new thread), the first join (a plan of two tasks after the
    # input), every step appending to `items` or writing `note`/`big`, the Send fan-out
    assert len(taken) == sum(kind == "save" for kind, _ in calls)
    assert taken.count(True) >= len(taken) // 2 and taken.count(False) >= 4
