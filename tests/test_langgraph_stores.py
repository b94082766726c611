"""Reading LangGraph's own checkpoint stores, written by real LangGraph (test extra):
`retrograph history` gives LangGraph's checkpoint ids, parents, steps, sources and `next`,
imports nothing the data names, leaves a SQLite file's bytes as they were, and runs
nothing for a tampered value."""
from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import ormsgpack
import pytest

from langgraph_apps import APPS, history_of, run_app

ROOT = Path(__file__).resolve().parents[1]

# Runs `retrograph history` and fails if anything of LangGraph or LangChain got imported.
_CLI = """
import sys
from studio.__main__ import main
code = main(sys.argv[1:])
sys.stdout.flush()
leaked = sorted(m for m in sys.modules if m.split('.')[0] in ('langgraph', 'langchain_core', 'langchain', 'pickle_payload'))
if leaked:
    print('IMPORTED: ' + ', '.join(leaked), file=sys.stderr)
    sys.exit(99)
sys.exit(code)
"""


def history(*args: str, fresh: bool = False) -> subprocess.CompletedProcess[str]:
    """`retrograph history ARGS`: in a fresh process that must import nothing of LangGraph
    or LangChain (`fresh`), or in this one (faster; LangGraph is loaded here already)."""
    if fresh:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        return subprocess.run([sys.executable, "-c", _CLI, "history", *args], capture_output=True, text=True,
                              timeout=120, env=env)
    import contextlib
    import io

    from studio.__main__ import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["history", *args])
    return subprocess.CompletedProcess(["history", *args], code, out.getvalue(), err.getvalue())


def lines(result: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def root_view(got: list[dict[str, Any]]) -> list[dict[str, Any]]:
    keys = ("checkpoint_id", "parent_id", "step", "source", "next")
    return [{k: g[k] for k in keys} for g in got if g["checkpoint_ns"] == ""]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- LangGraph's SqliteSaver -----------------------------------------------------------


def write_sqlite(path: Path, name: str, thread_id: str = "t1") -> Any:
    from langgraph.checkpoint.sqlite import SqliteSaver

    conn = sqlite3.connect(path, check_same_thread=False)
    try:
        app = run_app(name, SqliteSaver(conn), thread_id)
        return history_of(app, thread_id)
    finally:
        conn.close()


@pytest.mark.parametrize("name", sorted(APPS))
def test_history_of_a_langgraph_sqlite_file_is_langgraphs_own(tmp_path: Path, name: str) -> None:
    db = tmp_path / "lg.sqlite"
    expected = write_sqlite(db, name)
    before = digest(db)
    got = lines(history(str(db), "--thread", "t1", "--json", "--values", fresh=True))
    assert root_view(got) == expected
    assert digest(db) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lg.sqlite"]  # no -wal, no -shm, ever
    threads = lines(history(str(db), "--json"))
    assert threads == [{"thread_id": "t1", "checkpoints": len(expected)}]
    if name == "chat":
        last = got[0]["values"]
        assert last["items"] == [0, 1, 2, 0, 1, 2] and last["n"] == 11  # the subgraph hands its items back: added again and last["when"] == "2026-01-02T03:04:05+00:00"
        assert [m["type"] for m in last["messages"]] == ["human", "ai", "tool", "ai"]
        assert last["messages"][1]["tool_calls"][0]["name"] == "lookup"
        assert last["messages"][3]["content"] == "approved: yes"
        subgraph = [g for g in got if g["checkpoint_ns"]]
        assert subgraph and all(g["checkpoint_ns"].startswith("tools:") for g in subgraph)
        assert [g["step"] for g in subgraph] == [1, 0, -1]
    else:
        assert got[0]["values"]["tags"] == ["x", "y"]


def test_the_reader_derives_tasks_interrupts_and_writes_as_langgraph_has_them(tmp_path: Path) -> None:
    from engine.checkpoint.base import INTERRUPT, SEND
    from engine.checkpoint.reading import open_store
    from engine.types import Interrupt, Send

    db = tmp_path / "lg.sqlite"
    expected = write_sqlite(db, "chat")
    with open_store(db) as store:
        assert store.read_only and "LangGraph SQLite" in store.describe()
        headers = list(store.list_headers("t1"))
        assert [h.id for h in headers] == [e["checkpoint_id"] for e in expected]
        by_step = {h.step: h for h in headers}
        assert by_step[1].nodes_ran == ("agent",) and by_step[2].nodes_ran == ("worker",)
        fanned = store.load("t1", by_step[1].id)
        assert [(t.name, t.is_send, t.arg) for t in fanned.tasks] == [("worker", True, {"i": i}) for i in range(3)]
        sends = [w for w in store.pending_writes("t1", by_step[0].id) if w.channel == SEND]
        assert [w.value for w in sends] == [Send("worker", {"i": i}) for i in range(3)]
        paused = [w for w in store.pending_writes("t1", by_step[3].id) if w.channel == INTERRUPT]
        assert len(paused) == 1 and isinstance(paused[0].value, Interrupt)
        assert paused[0].value.value == {"question": "ok?", "n": 11} and paused[0].task_name == "approve"
        assert store.namespaces("t1")[0] == "" and len(store.namespaces("t1")) == 2
        with pytest.raises(PermissionError, match="read-only"):
            store.delete_thread("t1")


def test_new_checkpoints_of_a_live_writer_are_read_without_touching_the_file(tmp_path: Path) -> None:
    """LangGraph keeps its connection open (WAL mode): the reader sees each new checkpoint
    and creates nothing beside the file."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    from engine.checkpoint.reading import open_store

    db = tmp_path / "live.sqlite"
    conn = sqlite3.connect(db, check_same_thread=False)
    try:
        saver = SqliteSaver(conn)
        build, first, _ = APPS["flow"]
        app = build().compile(checkpointer=saver, interrupt_before=["join"])
        cfg = {"configurable": {"thread_id": "live"}}
        app.invoke(first, cfg)
        beside = sorted(p.name for p in tmp_path.iterdir())
        with open_store(db) as store:
            seen = store.threads()[0].checkpoints
            assert [h.next for h in store.list_headers("live", limit=1)] == [("join",)]
            app.invoke(None, cfg)
            assert store.threads()[0].checkpoints > seen
            newest = list(store.list_headers("live", limit=1))[0]
            assert newest.id == app.get_state(cfg).config["configurable"]["checkpoint_id"]
            assert newest.next == app.get_state(cfg).next
        assert sorted(p.name for p in tmp_path.iterdir()) == beside
    finally:
        conn.close()


def _tamper(db: Path, payload: bytes, kind: str = "msgpack") -> str:
    """Put `payload` as the `n` value of the newest checkpoint; returns its id."""
    conn = sqlite3.connect(db)
    cid, blob = conn.execute("SELECT checkpoint_id, checkpoint FROM checkpoints WHERE checkpoint_ns = ''"
                             " ORDER BY checkpoint_id DESC LIMIT 1").fetchone()
    record = ormsgpack.unpackb(blob, ext_hook=lambda code, data: ormsgpack.Ext(code, data))
    record["channel_values"]["n"] = ormsgpack.Ext(1, payload) if kind == "ext" else payload
    conn.execute("UPDATE checkpoints SET checkpoint = ?, type = ? WHERE checkpoint_id = ?",
                 (ormsgpack.packb(record), "pickle" if kind == "pickle" else "msgpack", cid))
    conn.commit()
    conn.close()
    return cid


def test_a_tampered_value_naming_os_system_runs_nothing(tmp_path: Path) -> None:
    db = tmp_path / "lg.sqlite"
    write_sqlite(db, "flow")
    marker = tmp_path / "pwned"
    _tamper(db, ormsgpack.packb(["os", "system", [f"touch {marker}"]]), kind="ext")
    got = lines(history(str(db), "--thread", "t1", "--json", "--values", fresh=True))
    assert got[0]["values"]["n"] == {"type": "os.system", "data": [f"touch {marker}"]}
    assert not marker.exists()
    # the same through the other ext forms LangGraph writes (kwargs, method call)
    for payload in (["os", "system", {"command": f"touch {marker}"}], ["os", "system", f"touch {marker}", "__call__"]):
        conn = sqlite3.connect(db)
        conn.execute("DELETE FROM checkpoints")  # start again from a clean file
        conn.commit()
        conn.close()
        db.unlink()
        write_sqlite(db, "flow")
        _tamper(db, ormsgpack.packb(payload), kind="ext")
        assert lines(history(str(db), "--thread", "t1", "--json", "--values"))[0]["values"]["n"]["type"] == "os.system"
        assert not marker.exists()


def test_a_pickle_row_or_garbage_is_one_clear_line_never_a_traceback(tmp_path: Path) -> None:
    db = tmp_path / "lg.sqlite"
    write_sqlite(db, "flow")
    cid = _tamper(db, 1, kind="pickle")
    result = history(str(db), "--thread", "t1", "--json")  # the bad row is named, the rest is listed
    assert result.returncode == 0 and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "pickle" in result.stderr and "never unpickles" in result.stderr and cid[:20] in result.stderr
    listed = [json.loads(line) for line in result.stdout.splitlines()]
    assert [x["checkpoint_id"] for x in listed if "unreadable" in x] == [cid] and len(listed) > 1
    conn = sqlite3.connect(db)
    conn.execute("UPDATE checkpoints SET type = 'msgpack', checkpoint = x'c1c1c1' WHERE checkpoint_id = ?", (cid,))
    conn.commit()
    conn.close()
    result = history(str(db), "--thread", "t1", "--json")
    assert result.returncode == 0 and "Traceback" not in result.stderr and "msgpack" in result.stderr
    (tmp_path / "text.db").write_text("hello")
    result = history(str(tmp_path / "text.db"))
    assert result.returncode == 2 and "not a SQLite database" in result.stderr and "Traceback" not in result.stderr


# -- LangGraph's PostgresSaver ---------------------------------------------------------


def write_postgres(url: str, name: str, thread_id: str = "t1") -> Any:
    from langgraph.checkpoint.postgres import PostgresSaver

    with PostgresSaver.from_conn_string(url) as saver:
        saver.setup()
        app = run_app(name, saver, thread_id)
        return history_of(app, thread_id)


@pytest.mark.parametrize("name", sorted(APPS))
def test_history_of_a_langgraph_postgres_database_is_langgraphs_own(pg_url: str, name: str) -> None:
    expected = write_postgres(pg_url, name)
    got = lines(history(pg_url, "--thread", "t1", "--json", "--values", fresh=name == "chat"))
    assert root_view(got) == expected
    assert lines(history(pg_url, "--json")) == [{"thread_id": "t1", "checkpoints": len(expected)}]
    if name == "chat":
        assert [m["type"] for m in got[0]["values"]["messages"]] == ["human", "ai", "tool", "ai"]
        assert got[0]["values"]["items"] == [0, 1, 2, 0, 1, 2]


def test_a_tampered_postgres_blob_runs_nothing_and_pickle_is_refused(pg_url: str, tmp_path: Path) -> None:
    import psycopg

    write_postgres(pg_url, "chat")
    marker = tmp_path / "pwned"
    evil = ormsgpack.packb(ormsgpack.Ext(1, ormsgpack.packb(["os", "system", [f"touch {marker}"]])))
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE checkpoint_blobs SET blob = %s WHERE channel = 'items'", (evil,))
    got = lines(history(pg_url, "--thread", "t1", "--json", "--values"))
    assert got[0]["values"]["items"] == {"type": "os.system", "data": [f"touch {marker}"]}
    assert not marker.exists()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE checkpoint_blobs SET type = 'pickle' WHERE channel = 'items'")
    result = history(pg_url, "--thread", "t1", "--json", "--values")
    assert "Traceback" not in result.stderr and "never unpickles" in result.stderr
    # the checkpoints holding the pickle are skipped and named; the rest is listed
    assert "could not be read" in result.stderr and "the rest is listed" in result.stderr
    listed = [x for x in map(json.loads, result.stdout.splitlines()) if "unreadable" not in x]
    assert result.returncode == (0 if listed else 1)
    assert not marker.exists()
