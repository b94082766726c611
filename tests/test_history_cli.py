"""`retrograph history` on Retrograph's own stores (SQLite file, PostgreSQL), in-process:
the same records and format as for LangGraph's stores (tests/test_langgraph_stores.py)."""
from __future__ import annotations

import io
import json
import operator
from pathlib import Path
from typing import Annotated, Any

from engine import END, START, AIMessage, Command, HumanMessage, MessagesState, SqliteSaver, StateGraph, interrupt
from engine.checkpoint.postgres import PostgresSaver
from studio.__main__ import main
from studio.cli.history import jsonable


class S(MessagesState):
    log: Annotated[list, operator.add]


def _app(saver: Any) -> Any:
    def chat(s: S) -> dict:
        return {"messages": [AIMessage(content="calling", tool_calls=[{"name": "f", "args": {}, "id": "c1"}])],
                "log": ["chat"]}

    def approve(s: S) -> dict:
        return {"log": [f"ok:{interrupt('sure?')}"]}

    g = StateGraph(S)
    g.add_node("chat", chat)
    g.add_node("approve", approve)
    g.add_edge(START, "chat")
    g.add_edge("chat", "approve")
    g.add_edge("approve", END)
    return g.compile(checkpointer=saver)


def run(*args: str) -> tuple[int, list[dict[str, Any]], str]:
    out, err = io.StringIO(), io.StringIO()
    import contextlib

    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["history", *args])
    return code, [json.loads(line) for line in out.getvalue().splitlines() if line.startswith("{")], err.getvalue()


def _expected(app: Any) -> list[dict[str, Any]]:
    cfg = {"configurable": {"thread_id": "t"}}
    return [{"checkpoint_id": s.config["configurable"]["checkpoint_id"],
             "parent_id": s.parent_config["configurable"]["checkpoint_id"] if s.parent_config else None,
             "step": s.metadata["step"], "source": s.metadata["source"], "next": list(s.next), "checkpoint_ns": ""}
            for s in app.get_state_history(cfg)]


def _check(target: str, app: Any) -> None:
    cfg = {"configurable": {"thread_id": "t"}}
    app.invoke({"messages": [HumanMessage("hi")], "log": []}, cfg)
    app.invoke(Command(resume="yes"), cfg)
    code, got, err = run(target, "--thread", "t", "--json", "--values")
    assert code == 0, err
    keys = ("checkpoint_id", "parent_id", "step", "source", "next", "checkpoint_ns")
    assert [{k: g[k] for k in keys} for g in got] == _expected(app)
    messages = got[0]["values"]["messages"]
    assert [m["type"] for m in messages] == ["human", "ai"] and messages[1]["tool_calls"][0]["name"] == "f"
    assert got[0]["values"]["log"] == ["chat", "ok:yes"]
    assert run(target, "--json")[1] == [{"thread_id": "t", "checkpoints": len(got)}]
    code, _, err = run(target, "--thread", "nobody")
    assert code == 1 and "no thread 'nobody'" in err


def test_history_of_a_retrograph_sqlite_file(tmp_path: Path) -> None:
    db = tmp_path / "runs.sqlite"
    saver = SqliteSaver(db)
    try:
        _check(str(db), _app(saver))
    finally:
        saver.close()


def test_history_of_retrograph_tables_in_postgres(pg_url: str) -> None:
    with PostgresSaver(pg_url) as saver:
        _check(pg_url, _app(saver))


def test_the_text_form_is_one_line_per_checkpoint(tmp_path: Path, capsys: Any) -> None:
    db = tmp_path / "runs.sqlite"
    saver = SqliteSaver(db)
    _app(saver).invoke({"messages": [], "log": []}, {"configurable": {"thread_id": "t"}})
    saver.close()
    assert main(["history", str(db), "--thread", "t"]) == 0
    text = capsys.readouterr().out.splitlines()
    assert len(text) == 3 and "next: approve" in text[0] and text[-1].startswith("step   -1  input")


def test_any_value_becomes_json_like_data() -> None:
    import datetime as dt

    from engine.checkpoint import UnknownValue
    from engine.types import Send

    deep: Any = []
    for _ in range(500):
        deep = [deep]
    got = jsonable({"when": dt.date(2026, 1, 2), "s": {3, 1}, "b": b"\x00", "u": UnknownValue("x.Y", {"a": 1}),
                    "send": Send("n", 1), "nan": float("nan"), 1: "int key", "deep": deep})
    assert got["when"] == "2026-01-02" and got["s"] == [1, 3] and got["b"] == {"bytes": "AA=="}
    assert got["u"] == {"type": "x.Y", "data": {"a": 1}} and got["send"] == {"type": "Send", "node": "n", "arg": 1, "timeout": None}
    assert got["nan"] == "nan" and got["1"] == "int key"
    json.dumps(got)
