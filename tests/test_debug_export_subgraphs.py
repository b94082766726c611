"""`retrograph export` of a thread with subgraphs: every checkpoint namespace of the thread
goes into the file (a branch keeps the subgraph checkpoints its root steps ran), redaction
reaches subgraph state and pending writes, and the exported file reads like the original
(`retrograph history`, the window's subgraph rows under their step), also when the
thread comes from LangGraph's own SQLite or PostgreSQL store."""
from __future__ import annotations

import io
import json
import operator
import sqlite3
from pathlib import Path
from typing import Annotated, TypedDict

import pytest

from engine import END, START, SqliteSaver, StateGraph, interrupt
from engine.checkpoint.export import REDACTED, export_thread
from engine.checkpoint.ids import ns_thread_key
from engine.checkpoint.reading import open_store
from langgraph_apps import run_app
from studio.cli.commands import parse_args
from studio.cli.debugtools import cmd_export
from studio.cli.history import cmd_history, history_parser
from test_studio_foreign_stores import _subgraph_rows_under_their_step
from test_studio_support import open_window, settings, studio_loop  # noqa: F401 (fixtures)


class S(TypedDict, total=False):
    n: int
    secret: str
    creds: dict
    log: Annotated[list, operator.add]


def inner_graph():
    g = StateGraph(S)
    g.add_node("x", lambda s: {"n": s["n"] + 1, "log": ["x"], "creds": {"password": "pw-INNER", "user": "bob"}})
    g.add_node("y", lambda s: {"n": s["n"] * 2, "log": ["y"]})
    g.add_edge(START, "x")
    g.add_edge("x", "y")
    g.add_edge("y", END)
    return g.compile()


def build(saver: SqliteSaver):
    g = StateGraph(S)
    g.add_node("a", lambda s: {"n": s["n"] + 1, "log": ["a"]})
    g.add_node("sub", inner_graph())
    g.add_edge(START, "a")
    g.add_edge("a", "sub")
    g.add_edge("sub", END)
    return g.compile(checkpointer=saver)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """Thread t: a run through the subgraph, then a fork after `a` that runs it again
    (two branches, each with its own subgraph namespace); thread u beside it."""
    path = tmp_path / "runs.sqlite"
    app = build(SqliteSaver(str(path)))
    cfg = {"configurable": {"thread_id": "t"}}
    app.invoke({"n": 1, "secret": "sk-ROOT", "log": []}, cfg)
    after_a = next(s for s in app.get_state_history(cfg) if s.next == ("sub",))
    app.update_state(after_a.config, {"n": 100})
    app.invoke(None, cfg)
    app.invoke({"n": 5, "secret": "other", "log": []}, {"configurable": {"thread_id": "u"}})
    return path


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return cmd_export(parse_args(list(argv)), out=out, err=err), out.getvalue(), err.getvalue()


def history_json(db: str | Path, thread: str) -> list[dict]:
    out, err = io.StringIO(), io.StringIO()
    assert cmd_history(history_parser().parse_args([str(db), "--thread", thread, "--json", "--values"]),
                       out=out, err=err) == 0, err.getvalue()
    return [json.loads(line) for line in out.getvalue().splitlines()]


def snapshot(saver: SqliteSaver, thread: str) -> dict[str, list[tuple]]:
    """Every namespace's checkpoints: (id, parent, step, source, values, pending writes)."""
    out = {}
    for ns in ["", *saver.namespaces(thread)]:
        key = ns_thread_key(thread, ns)
        out[ns] = [(c.id, c.parent_id, c.step, c.source, dict(c.values),
                    [(w.channel, w.value) for w in saver.pending_writes(key, c.id)]) for c in saver.history(key)]
    return out


def test_every_namespace_of_the_thread_is_exported(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "bug.sqlite"
    code, text, err = cli("export", str(db), "--thread", "t", "-o", str(out))
    assert code == 0, err
    src, dst = SqliteSaver(str(db)), SqliteSaver(str(out))
    assert len(src.namespaces("t")) == 2  # one per branch that ran the subgraph
    assert snapshot(dst, "t") == snapshot(src, "t")
    assert [t.thread_id for t in dst.threads()] == ["t"]
    assert "and 8 subgraph checkpoints in 2 namespaces" in text
    assert history_json(out, "t") == history_json(db, "t")  # `retrograph history` reads it as the original


def test_a_branch_keeps_the_subgraph_checkpoints_of_its_steps(db: Path, tmp_path: Path) -> None:
    src = SqliteSaver(str(db))
    first_end = next(c for c in src.history("t") if c.values.get("n") == 6 and c.step == 2)  # ((1+1)+1)*2
    out = tmp_path / "branch.sqlite"
    summary = export_thread(src, "t", out, branch=first_end.id)
    dst = SqliteSaver(str(out))
    roots = {c.id for c in dst.history("t")}
    assert first_end.id in roots and all(c.values.get("n") != 100 for c in dst.history("t"))
    (ns,) = dst.namespaces("t")  # the other branch's subgraph run is left out
    assert ns.split(":", 1)[1].rsplit("/", 1)[0] in roots
    assert snapshot(dst, "t")[ns] == snapshot(src, "t")[ns]
    assert (summary.checkpoints, summary.subgraph_checkpoints, summary.namespaces) == (len(roots), 4, 1)


def paused_in_subgraph(path: Path) -> None:
    """Thread p: the subgraph's `x` wrote `creds` while `ask` (same superstep) interrupted,
    so `creds` is a pending write beside the subgraph's checkpoint; task records on."""
    g = StateGraph(S)
    g.add_node("x", lambda s: {"log": ["x"], "creds": {"password": "pw-PENDING", "user": "bob"}})
    g.add_node("ask", lambda s: {"log": [interrupt("ok?")]})
    g.add_edge(START, "x")
    g.add_edge(START, "ask")
    outer = StateGraph(S)
    outer.add_node("sub", g.compile())
    outer.add_edge(START, "sub")
    app = outer.compile(checkpointer=SqliteSaver(str(path)))
    app.invoke({"n": 1, "secret": "sk-PAUSED", "log": []}, {"configurable": {"thread_id": "p"}, "record": True})


def test_redact_reaches_subgraph_state_and_pending_writes(db: Path, tmp_path: Path) -> None:
    paused_in_subgraph(db)
    src = SqliteSaver(str(db))
    for thread, secrets in (("t", (b"sk-ROOT", b"pw-INNER")), ("p", (b"sk-PAUSED", b"pw-PENDING"))):
        out = tmp_path / f"redacted-{thread}.sqlite"
        code, text, err = cli("export", str(db), "--thread", thread, "--redact", "secret,password", "-o", str(out))
        assert code == 0, err
        assert "redacted: password, secret" in text
        raw = b"".join(p.read_bytes() for p in tmp_path.glob(f"redacted-{thread}.sqlite*"))
        assert not [s for s in secrets if s in raw]
        dst = SqliteSaver(str(out))
        (ns, *_) = dst.namespaces(thread)
        key = ns_thread_key(thread, ns)
        assert dst.load(key).values["secret"] == REDACTED
        assert [c.id for c in dst.history(key)] == [c.id for c in src.history(key)]
        if thread == "t":
            assert dst.load(key).values["creds"] == {"password": REDACTED, "user": "bob"}
            continue
        pending = {w.channel: w.value for w in dst.pending_writes(key, dst.load(key).id)}
        assert pending["creds"] == {"password": REDACTED, "user": "bob"}, pending
        assert {w.channel for w in src.pending_writes(key, src.load(key).id)} == set(pending)
        assert src.load(key).values.get("creds") is None  # the secret was only in the pending write


def test_the_window_shows_an_exported_runs_subgraph_rows_under_their_step(open_window, qtbot, db: Path,
                                                                          tmp_path: Path) -> None:
    out = tmp_path / "bug.sqlite"
    export_thread(SqliteSaver(str(db)), "t", out)
    window = open_window(database=out, thread_id="t")
    s = window.session
    subs = s.history.subgraph_rows()
    assert len(subs) == 8 and len({r.owner_id for r in subs}) == 2  # one subgraph run per branch
    assert all(s.history.get(r.owner_id).next == ("sub",) for r in subs)
    # Debug ▸ Export thread… with "only the viewed branch": the window's export of its thread
    tip = next(r.id for r in s.history.rows() if r.step == 2 and "sub" in r.nodes and r.id != s.head_id)
    again = tmp_path / "again.sqlite"
    with qtbot.waitSignal(s.message, timeout=15000, check_params_cb=lambda text: "Exported" in text) as said:
        window.session.debugging.export(str(again), ["password"], branch=tip)
    assert "and 4 subgraph checkpoints" in said.args[0]
    dst = SqliteSaver(str(again))
    assert dst.load("t").id == tip and len(dst.namespaces("t")) == 1
    assert dst.load(ns_thread_key("t", dst.namespaces("t")[0])).values["creds"]["password"] == REDACTED


def _langgraph_sqlite(tmp_path: Path) -> tuple[Path, list[str]]:
    from langgraph.checkpoint.sqlite import SqliteSaver as LangGraphSqliteSaver

    db = tmp_path / "lg.sqlite"
    conn = sqlite3.connect(db, check_same_thread=False)
    run_app("chat", LangGraphSqliteSaver(conn))
    sub_ids = [r[0] for r in conn.execute(
        "SELECT checkpoint_id FROM checkpoints WHERE checkpoint_ns LIKE 'tools:%' ORDER BY checkpoint_id")]
    conn.close()
    return db, sub_ids


def test_export_from_a_langgraph_sqlite_store_reads_like_the_original(open_window, qtbot, tmp_path: Path) -> None:
    db, sub_ids = _langgraph_sqlite(tmp_path)
    before = db.read_bytes()
    out = tmp_path / "bug.sqlite"
    code, text, err = cli("export", str(db), "--thread", "t1", "-o", str(out))
    assert code == 0, err
    assert "and 3 subgraph checkpoints in 1 namespace" in text
    assert db.read_bytes() == before  # LangGraph's file is only read
    assert open_store(out).kind.startswith("Retrograph")
    assert history_json(out, "t1") == history_json(db, "t1")  # ids, parents, namespaces, values
    window = open_window(database=out, thread_id="t1")
    _subgraph_rows_under_their_step(window, sub_ids)
    # a branch: the root checkpoint that planned `tools` owns its subgraph run; its parent does not
    store = open_store(db)
    owner = next(h for h in store.list_headers("t1") if h.next == ("tools",))
    with_sub = export_thread(store, "t1", tmp_path / "with.sqlite", branch=owner.id)
    without = export_thread(store, "t1", tmp_path / "without.sqlite", branch=owner.parent_id)
    assert (with_sub.subgraph_checkpoints, without.subgraph_checkpoints) == (3, 0)


def test_export_from_a_langgraph_postgres_store(pg_url: str, tmp_path: Path) -> None:
    from langgraph.checkpoint.postgres import PostgresSaver as LangGraphPostgresSaver

    with LangGraphPostgresSaver.from_conn_string(pg_url) as saver:
        saver.setup()
        run_app("chat", saver)
    out = tmp_path / "bug.sqlite"
    code, text, err = cli("export", pg_url, "--thread", "t1", "--redact", "q", "-o", str(out))
    assert code == 0, err
    assert "3 subgraph checkpoints" in text and "redacted: q" in text
    want = history_json(pg_url, "t1")
    got = history_json(out, "t1")
    assert [(g["checkpoint_id"], g["checkpoint_ns"]) for g in got] == [(w["checkpoint_id"], w["checkpoint_ns"]) for w in want]
    assert '"q": "x"' not in json.dumps(got) and '"q": "x"' in json.dumps(want)  # the tool call's argument


def test_export_from_retrographs_postgres_store_keeps_its_subgraphs(pg_url: str, tmp_path: Path) -> None:
    from engine.checkpoint.postgres import PostgresSaver

    saver = PostgresSaver(pg_url)
    try:
        app = build(saver)
        app.invoke({"n": 1, "secret": "sk-PG", "log": []}, {"configurable": {"thread_id": "pg"}})
        want = {ns: [(c.id, dict(c.values)) for c in saver.history(ns_thread_key("pg", ns))]
                for ns in ["", *saver.namespaces("pg")]}
    finally:
        saver.close()
    out = tmp_path / "from-pg.sqlite"
    code, text, err = cli("export", pg_url, "--thread", "pg", "--redact", "password", "-o", str(out))
    assert code == 0, err
    assert "and 4 subgraph checkpoints in 1 namespace" in text
    dst = SqliteSaver(str(out))
    got = {ns: [(c.id, dict(c.values)) for c in dst.history(ns_thread_key("pg", ns))] for ns in ["", *dst.namespaces("pg")]}
    assert got.keys() == want.keys() and len(want) == 2
    assert [i for i, _ in got[""]] == [i for i, _ in want[""]]
    sub = next(ns for ns in want if ns)
    assert [v["creds"]["password"] for _, v in got[sub] if "creds" in v] == [REDACTED] * 2
    assert b"pw-INNER" not in out.read_bytes()
