"""The studio on LangGraph's own stores: it says which store it reads and that it is
read-only, shows the history and the conversation, runs nothing, and picks up the
checkpoints a live LangGraph process keeps writing."""
from __future__ import annotations

import sqlite3
from pathlib import Path

from langgraph_apps import APPS, run_app
from test_studio_support import (  # noqa: F401 (fixtures)
    open_window,
    panel_text,
    settings,
    studio_loop,
    wait_ready,
)


def test_a_langgraph_sqlite_file_opens_read_only_with_its_history(open_window, qtbot, tmp_path: Path) -> None:
    from langgraph.checkpoint.sqlite import SqliteSaver

    db = tmp_path / "lg.sqlite"
    conn = sqlite3.connect(db, check_same_thread=False)
    app = run_app("chat", SqliteSaver(conn))
    expected = list(app.get_state_history({"configurable": {"thread_id": "t1"}}))[::-1]
    conn.close()
    before = db.read_bytes()
    window = open_window(database=db)
    s = window.session
    assert s.store_read_only and s.status_view().status == "read-only"
    assert "LangGraph SQLite file" in window.windowTitle() and "(read-only)" in window.windowTitle()
    assert "LangGraph SQLite file" in window.status_state.text()
    assert not window.actions.step.isEnabled() and not window.actions.rewind.isEnabled()
    rows = s.history.rows()
    assert [r.id for r in rows] == [e.config["configurable"]["checkpoint_id"] for e in expected]
    assert [r.next for r in rows] == [e.next for e in expected]
    state = panel_text(window.panels.state)
    assert "let me look" in state and "approved: yes" in state and "UnknownValue" not in state
    assert not s.step()  # refused: nothing runs on LangGraph's store
    window.close()
    assert db.read_bytes() == before
    assert not list(tmp_path.glob("lg.sqlite-*"))  # no -wal, no -shm


def test_checkpoints_a_live_langgraph_process_writes_appear(open_window, qtbot, tmp_path: Path) -> None:
    from langgraph.checkpoint.sqlite import SqliteSaver

    db = tmp_path / "live.sqlite"
    conn = sqlite3.connect(db, check_same_thread=False)
    try:
        build, first, _ = APPS["flow"]
        graph = build().compile(checkpointer=SqliteSaver(conn), interrupt_before=["join"])
        cfg = {"configurable": {"thread_id": "live"}}
        graph.invoke(first, cfg)
        window = open_window(database=db)
        s = window.session
        count = len(s.history.rows())
        graph.invoke(None, cfg)  # the other process goes on
        newest = graph.get_state(cfg).config["configurable"]["checkpoint_id"]
        qtbot.waitUntil(lambda: newest in s.history, timeout=10000)  # the poll runs every 0.4 s here
        assert len(s.history.rows()) > count
    finally:
        conn.close()


def test_langgraph_postgres_opens_read_only_and_retrograph_runs_on_postgres(open_window, qtbot, pg_url: str,
                                                                            tmp_path: Path) -> None:
    from langgraph.checkpoint.postgres import PostgresSaver as LangGraphPostgresSaver

    from engine.checkpoint import PostgresSaver
    from test_studio_support import act, write_graph

    with LangGraphPostgresSaver.from_conn_string(pg_url) as saver:
        saver.setup()
        run_app("flow", saver)
    window = open_window(database=pg_url)
    assert window.session.store_read_only and "LangGraph PostgreSQL" in window.windowTitle()
    assert len(window.session.history.rows()) > 5 and not window.actions.step.isEnabled()
    window.close()
    # the engine's own tables in the same database: the studio runs a graph there
    spec = write_graph(tmp_path, "tiny", """
        class S(TypedDict):
            log: Annotated[list, operator.add]
        def a(s):
            return {"log": ["a"]}
        builder = StateGraph(S)
        builder.add_node("a", a)
        builder.add_edge(START, "a")
        graph = builder.compile()
        example_input = {"log": []}
    """)
    window = open_window(spec, db=pg_url, thread_id="pg")
    assert not window.session.store_read_only and "Retrograph PostgreSQL" in window.session.store_label
    act(qtbot, window, "continue_")
    with PostgresSaver(pg_url) as mine:
        assert mine.load("pg").values == {"log": ["a"]}


def test_retrograph_open_takes_a_postgresql_url(pg_url: str, tmp_path: Path) -> None:
    """`retrograph open URL --screenshot`: the command line hands the URL through as text
    (not as a path) and the window renders LangGraph's PostgreSQL history."""
    import os
    import subprocess
    import sys

    from langgraph.checkpoint.postgres import PostgresSaver as LangGraphPostgresSaver

    with LangGraphPostgresSaver.from_conn_string(pg_url) as saver:
        saver.setup()
        run_app("flow", saver)
    out = tmp_path / "open.png"
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(root)}
    done = subprocess.run([sys.executable, "-m", "studio", "open", pg_url, "--screenshot", str(out)],
                          capture_output=True, text=True, timeout=120, cwd=root, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert out.stat().st_size > 10_000



def _subgraph_rows_under_their_step(window, sub_ids: list[str]) -> None:
    """The subgraph rows come right after the root checkpoint that planned `tools`, one
    level deeper, in order; no other row is a subgraph's; the head is a root checkpoint."""
    from studio.panels.timeline.model import DepthRole, IdRole

    s = window.session
    model = window.panels.timeline.model
    lines = [(model.index(r, 0).data(IdRole), model.index(r, 0).data(DepthRole), model.index(r, 2).data())
             for r in range(model.rowCount())]
    ids = [cid for cid, *_ in lines]
    owner = next(i for i, cid in enumerate(ids) if s.history.get(cid) is not None and s.history.get(cid).next == ("tools",))
    subs = lines[owner + 1: owner + 1 + len(sub_ids)]
    assert [cid for cid, *_ in subs] == sub_ids, lines
    assert all(depth == lines[owner][1] + 1 for _, depth, _ in subs)
    assert [text for *_, text in subs] == ["tools › (input)", "tools › __start__", "tools › inner"]
    assert all(s.history.subgraph_row(cid).owner_id == ids[owner] and s.history.get(cid) is None for cid in sub_ids)
    assert not any(s.history.subgraph_row(cid) for cid in ids[owner + 1 + len(sub_ids):]), "nothing else is a subgraph row"
    assert not s.history.get(s.head_id).namespace


def test_a_langgraph_subgraphs_checkpoints_hang_under_the_step_that_ran_them(open_window, qtbot,
                                                                              tmp_path: Path) -> None:
    """LangGraph's own SqliteSaver file: the `tools` subgraph's checkpoints (namespace
    `tools:<task id>`) are listed under the root checkpoint whose superstep ran `tools`
    (LangGraph's `metadata["parents"]`), one level deeper; selecting one shows its state."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    db = tmp_path / "lg_sub.sqlite"
    conn = sqlite3.connect(db, check_same_thread=False)
    run_app("chat", SqliteSaver(conn))
    sub_ids = [r[0] for r in conn.execute(
        "SELECT checkpoint_id FROM checkpoints WHERE checkpoint_ns LIKE 'tools:%' ORDER BY checkpoint_id")]
    conn.close()
    assert len(sub_ids) == 3
    before = db.read_bytes()
    window = open_window(database=db)
    s = window.session
    _subgraph_rows_under_their_step(window, sub_ids)
    panel = window.panels.timeline
    with qtbot.waitSignal(s.stateChanged, timeout=10000) as shown:
        panel.table.setCurrentIndex(panel.model.index(panel.model.row_of(sub_ids[-1]), 0))
    assert shown.args[0]["n"] == 11 and "found" in str(shown.args[0]["messages"])
    assert not panel.rewind_button.isEnabled()
    window.close()
    assert db.read_bytes() == before and not list(tmp_path.glob("lg_sub.sqlite-*"))


def test_a_langgraph_postgres_subgraphs_checkpoints_hang_under_their_step(open_window, qtbot, pg_url: str) -> None:
    from langgraph.checkpoint.postgres import PostgresSaver as LangGraphPostgresSaver

    with LangGraphPostgresSaver.from_conn_string(pg_url) as saver:
        saver.setup()
        run_app("chat", saver)
        sub_ids = sorted(t.config["configurable"]["checkpoint_id"]
                         for t in saver.list({"configurable": {"thread_id": "t1"}})
                         if t.config["configurable"]["checkpoint_ns"].startswith("tools:"))
    window = open_window(database=pg_url)
    _subgraph_rows_under_their_step(window, sub_ids)
    window.close()
