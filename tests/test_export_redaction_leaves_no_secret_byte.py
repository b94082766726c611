"""`retrograph export --redact KEY --redact-pattern REGEX`: every value found under a
redacted key is removed wherever else it appears (message content, log lines, metadata,
pending writes: substrings of text included), every pattern match too, the command says
what it replaced, and the exported file is vacuumed: its bytes, searched one by one, hold
no copy of a secret, and no free page or -wal beside it does. SQLite and PostgreSQL
sources, real langchain-core messages."""
from __future__ import annotations

import io
import operator
import sqlite3
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage

from engine import END, START, SqliteSaver, StateGraph
from engine.checkpoint import PostgresSaver
from engine.checkpoint.export import REDACTED, export_thread
from engine.checkpoint.reading import open_store
from engine.messages import add_messages
from studio.cli.commands import parse_args
from studio.cli.debugtools import cmd_export

SECRET = "sk-live-9f8e7d6c5b4a39281706"
TOKEN = "tok-31415926"  # only a pattern knows it
TOKEN_PATTERN = r"tok-[0-9]{8}"


class S(TypedDict, total=False):
    api_key: str
    messages: Annotated[list[AnyMessage], add_messages]
    log: Annotated[list, operator.add]
    n: int


def _graph(saver: Any) -> Any:
    def call(s: S) -> dict[str, Any]:
        key = s["api_key"]
        return {"messages": [AIMessage(f"I called the API with {key} and got {TOKEN}")],
                "log": [f"GET /v1?key={key}&n={s['n']}", f"session {TOKEN}"], "n": s["n"] + 1}

    def after(s: S) -> dict[str, Any]:
        return {"log": [{"note": f"retried with {s['api_key']}"}], "n": s["n"] + 1}  # inside a nested dict

    g = StateGraph(S)
    g.add_node("call", call)
    g.add_node("after", after)
    g.add_edge(START, "call")
    g.add_edge("call", "after")
    g.add_edge("after", END)
    return g.compile(checkpointer=saver)


def _run(saver: Any) -> None:
    app = _graph(saver)
    config = {"configurable": {"thread_id": "t"}, "record": True}
    app.invoke({"api_key": SECRET, "messages": [HumanMessage(f"use key {SECRET} please")], "log": [], "n": 0},
               config)


def _assert_clean(out: Path) -> None:
    data = out.read_bytes()
    for needle in (SECRET, TOKEN):
        assert needle.encode() not in data, f"{needle!r} is still in the export's bytes"
        assert needle.encode("utf-16-le") not in data
    assert not Path(f"{out}-wal").exists() and not Path(f"{out}-shm").exists()
    conn = sqlite3.connect(f"file:{out}?mode=ro", uri=True)
    try:
        assert conn.execute("PRAGMA freelist_count").fetchone()[0] == 0
    finally:
        conn.close()


def _values(out: Path) -> dict[str, Any]:
    store = open_store(str(out))
    try:
        found = store.load("t")
        assert found is not None
        return dict(found.values)
    finally:
        store.close()


def test_a_sqlite_source(tmp_path: Path) -> None:
    src = tmp_path / "runs.sqlite"
    saver = SqliteSaver(str(src))
    _run(saver)
    saver.close()
    assert SECRET.encode() in src.read_bytes() and TOKEN.encode() in src.read_bytes()  # the search can fail

    plain = tmp_path / "plain.sqlite"
    export_thread(open_store(str(src)), "t", plain)
    assert SECRET.encode() in plain.read_bytes()  # without redaction the secret is exported

    out = tmp_path / "bug.sqlite"
    stdout, stderr = io.StringIO(), io.StringIO()
    code = cmd_export(parse_args(["export", str(src), "--thread", "t", "--redact", "api_key",
                                  "--redact-pattern", TOKEN_PATTERN, "-o", str(out)]), out=stdout, err=stderr)
    assert code == 0, stderr.getvalue()
    said = stdout.getvalue().splitlines()
    assert any(line.startswith("retrograph: redacted key api_key: ") for line in said), said
    assert any(line.startswith(f"retrograph: redacted pattern {TOKEN_PATTERN}: ") and not line.endswith(": 0 matches")
               for line in said), said
    assert any("inside other text" in line and not line.startswith("retrograph: redacted 0 ") for line in said), said
    _assert_clean(out)
    values = _values(out)
    assert values["api_key"] == REDACTED
    assert values["messages"][0].content == f"use key {REDACTED} please"
    assert values["messages"][1].content == f"I called the API with {REDACTED} and got {REDACTED}"
    assert values["log"][0] == f"GET /v1?key={REDACTED}&n=0"
    assert values["n"] == 2  # the rest is kept as it was


def test_a_postgresql_source(pg_url: str, tmp_path: Path) -> None:
    saver = PostgresSaver(pg_url)
    _run(saver)
    out = tmp_path / "bug.sqlite"
    summary = export_thread(saver, "t", out, redact=["api_key"], redact_patterns=[TOKEN_PATTERN])
    saver.close()
    assert summary.report is not None and dict(summary.report.keys)["api_key"] > 0
    assert summary.report.in_text > 0 and dict(summary.report.patterns)[TOKEN_PATTERN] > 0
    _assert_clean(out)
    assert _values(out)["messages"][1].content == f"I called the API with {REDACTED} and got {REDACTED}"


def test_a_bad_pattern_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    src = tmp_path / "runs.sqlite"
    saver = SqliteSaver(str(src))
    _run(saver)
    saver.close()
    out = tmp_path / "bug.sqlite"
    stdout, stderr = io.StringIO(), io.StringIO()
    code = cmd_export(parse_args(["export", str(src), "--thread", "t", "--redact-pattern", "sk-[a-z",
                                  "-o", str(out)]), out=stdout, err=stderr)
    assert code == 1
    (line,) = stderr.getvalue().splitlines()
    assert line.startswith("retrograph: --redact-pattern 'sk-[a-z' is not a valid regular expression")
    assert not out.exists()


@pytest.mark.parametrize("short", ["ok", "1"])
def test_a_short_value_under_a_key_is_replaced_only_there(tmp_path: Path, short: str) -> None:
    src = tmp_path / "runs.sqlite"
    saver = SqliteSaver(str(src))
    app = _graph(saver)
    app.invoke({"api_key": short * 1, "messages": [HumanMessage("ok 1 ok")], "log": [], "n": 0},
               {"configurable": {"thread_id": "t"}})
    saver.close()
    out = tmp_path / "bug.sqlite"
    export_thread(open_store(str(src)), "t", out, redact=["api_key"])
    values = _values(out)
    assert values["api_key"] == REDACTED and values["messages"][0].content == "ok 1 ok"
