"""Issue 12, studio robustness with hostile and large inputs, in a real window on real
SQLite files: a 10**5000 state value (15), cyclic parent pointers (18), created_at out of
range (21), and the live tail reading every new checkpoint (20)."""
from __future__ import annotations

from pathlib import Path

from test_studio_support import (  # noqa: F401 (fixtures)
    act,
    open_window,
    panel_text,
    settings,
    studio_loop,
    wait_ready,
    write_graph,
)

BIG = """
    class S(TypedDict):
        big: int
        items: list

    def grow(s):
        return {"big": 10**5000, "items": [10**5000, {"k": -(10**6000)}]}

    builder = StateGraph(S)
    builder.add_node("grow", grow)
    builder.add_edge(START, "grow")
    graph = builder.compile()
    example_input = {"big": 1, "items": []}
"""


def test_huge_int_in_state_never_raises_into_qt(open_window, qtbot, tmp_path: Path) -> None:
    window = open_window(write_graph(tmp_path, "big", BIG))
    act(qtbot, window, "step")
    act(qtbot, window, "step")  # grow: 10**5000 lands in the state, the diff and the events
    window.grab()  # paints every panel: delegates and items run on the value
    state = panel_text(window.panels.state)
    assert "≈10^5000" in state, state[:500]
    assert "≈10^5000" in panel_text(window.panels.diff)
    assert window.session.error is None


def test_previews_are_total_functions() -> None:
    from studio.core.convert import short
    from studio.core.valuefmt import children_of, has_children, preview, pretty, pretty_preview, search_text, type_label

    class Evil:
        def __repr__(self) -> str:
            raise RuntimeError("no repr for you")

        @property
        def __dict__(self):  # type: ignore[override]
            raise RuntimeError("no fields either")

    deep: list = []
    for _ in range(5000):
        deep = [deep]
    for value in (10**5000, [10**5000], {10**5000: 1}, Evil(), [Evil()], deep):
        for fn in (preview, pretty, short, type_label, search_text, has_children, children_of):
            fn(value)  # must not raise
        text, _ = pretty_preview(value)
        assert isinstance(text, str)
    assert "≈10^5000" in preview(10**5000)
    assert "≈10^5000" in pretty([10**5000])


CHAIN = """
    class S(TypedDict):
        log: Annotated[list, operator.add]

    def one(s):
        return {"log": ["one"]}
    def two(s):
        return {"log": ["two"]}

    builder = StateGraph(S)
    builder.add_node("one", one)
    builder.add_node("two", two)
    builder.add_edge(START, "one")
    builder.add_edge("one", "two")
    graph = builder.compile()
    example_input = {"log": []}
"""


def _recorded(tmp_path: Path) -> Path:
    from engine import SqliteSaver
    from studio.core.loader import load_graph

    saver = SqliteSaver(tmp_path / "chain.sqlite")
    graph = load_graph(write_graph(tmp_path, "chain", CHAIN)).graph.with_checkpointer(saver)
    graph.invoke({"log": ["go"]}, {"configurable": {"thread_id": "t"}})
    saver.close()
    return tmp_path / "chain.sqlite"


def _tamper(db: Path, sql: str) -> None:
    import sqlite3

    conn = sqlite3.connect(db)
    conn.execute(sql)
    conn.commit()
    conn.close()


def test_parent_cycle_across_the_whole_chain(open_window, qtbot, tmp_path: Path) -> None:
    db = _recorded(tmp_path)
    # the oldest checkpoint's parent becomes the newest: every row has a parent, no root
    _tamper(db, "UPDATE checkpoints SET parent = (SELECT max(cid) FROM checkpoints) "
                "WHERE cid = (SELECT min(cid) FROM checkpoints)")
    window = open_window(database=db)
    s = window.session
    assert len(s.history) == 4
    timeline = window.panels.timeline
    ids = {timeline.model.checkpoint_at(r).id for r in range(timeline.model.rowCount())
           if timeline.model.checkpoint_at(r) is not None}
    assert ids == {r.id for r in s.history.rows()}  # every checkpoint shown once
    for _ in range(6):  # walking the cycle terminates both ways
        window.actions.back.trigger()
        wait_ready(qtbot, window)
    for _ in range(6):
        if window.actions.forward.isEnabled():
            window.actions.forward.trigger()
            wait_ready(qtbot, window)
    assert len(s.history.ancestors(s.head_id)) == 4


def test_two_row_cycle_and_history_walks(tmp_path: Path) -> None:
    from studio.core.history import History
    from studio.core.records import TimelineRow

    def row(i, parent):
        return TimelineRow(id=f"c{i}", parent_id=parent, step=i, source="loop", nodes=(), next=(),
                           created_at="2026-01-01T00:00:00+00:00")

    h = History([row(0, None), row(1, "c2"), row(2, "c1")])
    assert h.ancestors("c1") == ["c1", "c2"]
    assert h.forward("c1", "c2") in ("c2", None)


def test_created_at_out_of_range(open_window, qtbot, tmp_path: Path) -> None:
    db = _recorded(tmp_path)
    _tamper(db, "UPDATE checkpoints SET created_at = '0001-01-01T00:00:00+14:00' "
                "WHERE cid = (SELECT min(cid) FROM checkpoints)")
    _tamper(db, "UPDATE checkpoints SET created_at = '9999-12-31T23:59:59-12:00' "
                "WHERE cid = (SELECT max(cid) FROM checkpoints)")
    window = open_window(database=db)
    window.grab()
    texts = panel_text(window.panels.timeline)
    assert "0001-01-01" in texts and "9999-12-31" in texts


def test_live_tail_reads_every_new_checkpoint(open_window, qtbot, tmp_path: Path) -> None:
    from engine import END as _END
    from engine import START as _START
    from engine import SqliteSaver, StateGraph
    from typing import TypedDict

    class S(TypedDict):
        n: int

    def build():
        b = StateGraph(S)
        b.add_node("tick", lambda s: {"n": s["n"] + 1})
        b.add_edge(_START, "tick")
        b.add_conditional_edges("tick", lambda s: "tick" if s["n"] < 1000 else _END, ["tick", _END])
        return b

    db = tmp_path / "tail.sqlite"
    saver = SqliteSaver(db)
    graph = build().compile(checkpointer=saver)
    cfg = {"configurable": {"thread_id": "t"}}
    graph.invoke({"n": 999}, cfg)  # 4 checkpoints: input, __start__, tick, tick
    start = len(list(saver.list_headers("t")))
    window = open_window(database=db)
    s = window.session
    assert len(s.history) == start
    s.loading.poll.stop()  # polled by hand below, once: everything must come in one poll
    graph.update_state(cfg, {"n": 0})
    graph.invoke(None, cfg)  # another writer: 1,000 more steps between two polls
    total = len(list(saver.list_headers("t")))
    saver.close()
    assert total > start + 1000
    s.loading._on_poll()
    wait_ready(qtbot, window)
    assert len(s.history) == total
    assert window.panels.timeline.model.rowCount() >= total


def _files(folder: Path) -> dict[str, bytes]:
    """The files in `folder` and their bytes (a -shm is SQLite's shared index of the -wal,
    rebuilt by any reader: its presence counts, not its bytes)."""
    return {p.name: b"" if p.name.endswith("-shm") else p.read_bytes()
            for p in sorted(folder.iterdir()) if p.suffix != ".py" and p.is_file()}


def test_open_writes_nothing_until_a_run_starts(open_window, qtbot, tmp_path: Path) -> None:
    import sqlite3

    import shutil

    made = tmp_path / "made"
    made.mkdir()
    db = _recorded(made)
    writer = sqlite3.connect(db, isolation_level=None)  # a writer that dies mid-run:
    writer.execute("PRAGMA wal_autocheckpoint = 0")
    writer.execute("CREATE TABLE scratch(x)")
    writer.execute("INSERT INTO scratch VALUES (1)")
    folder = tmp_path / "data"
    folder.mkdir()
    for name in ("chain.sqlite", "chain.sqlite-wal", "chain.sqlite-shm", "chain.py"):  # what it left behind
        shutil.copy(made / name, folder / name)
    writer.close()
    db = folder / "chain.sqlite"
    before = _files(folder)
    assert before["chain.sqlite-wal"]
    window = open_window(database=db, graph=str(folder / "chain.py"))
    s = window.session
    assert len(s.history) == 4 and not s.read_only
    window.actions.back.trigger()
    wait_ready(qtbot, window)
    assert _files(folder) == before  # browsing changed no byte and created nothing
    window.close()
    assert _files(folder) == before


def test_a_run_started_after_opening_writes_to_the_file(open_window, qtbot, tmp_path: Path) -> None:
    db = _recorded(tmp_path)
    window = open_window(database=db, graph=str(tmp_path / "chain.py"))
    s = window.session
    s.open_thread("fresh")
    wait_ready(qtbot, window)
    s.set_input({"log": ["new"]})
    act(qtbot, window, "continue_")
    assert s.history.get(s.head_id).nodes == ("two",)
    from engine import SqliteSaver

    check = SqliteSaver(db, read_only=True)
    assert "fresh" in [t.thread_id for t in check.threads()]
    check.close()


def test_empty_file_stays_empty(open_window, qtbot, tmp_path: Path) -> None:
    db = tmp_path / "empty.sqlite"
    db.write_bytes(b"")
    window = open_window(database=db)
    assert window.session.history is not None
    window.close()
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix != ".ini") == ["empty.sqlite"]
    assert db.read_bytes() == b""


WIDE = """
    class S(TypedDict):
        hits: Annotated[list, operator.add]

    def make(name):
        def node(s):
            return {"hits": [name]}
        return node

    builder = StateGraph(S)
    for i in range(300):
        builder.add_node(f"a{i}", make(f"a{i}"))
        builder.add_node(f"b{i}", make(f"b{i}"))
        builder.add_edge(START, f"a{i}")
        builder.add_edge(f"a{i}", f"b{i}")
        builder.add_edge(f"b{i}", END)
    graph = builder.compile()
"""


def test_post_mortem_of_a_300_node_parallel_graph(open_window, qtbot, tmp_path: Path) -> None:
    from engine import SqliteSaver
    from studio.core.loader import load_graph

    db = tmp_path / "wide.sqlite"
    saver = SqliteSaver(db)
    graph = load_graph(write_graph(tmp_path, "wide", WIDE)).graph.with_checkpointer(saver)
    graph.invoke({"hits": []}, {"configurable": {"thread_id": "w"}})
    saver.close()
    window = open_window(database=db)
    observed = window.session.state.observed
    pairs = {(e.source, e.target) for e in observed.edges}
    # exactly the edges the triggers name: START -> a_i -> b_i -> END, not 300 x 300
    assert ("a7", "b7") in pairs and ("a7", "b8") not in pairs
    assert len(pairs) == 900, len(pairs)
    assert len(window.panels.graph.node_ids()) >= 602
