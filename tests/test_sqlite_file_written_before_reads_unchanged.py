"""A Retrograph SQLite file written by an earlier version (tests/data, made at a59f573, before
the saver bound its blobs as bytearrays) reads the same, is not changed by reading, and a
run continues it."""
from __future__ import annotations

import hashlib
import operator
import shutil
from pathlib import Path
from typing import Annotated, Any, TypedDict

from engine import END, START, SqliteSaver, StateGraph

OLD = Path(__file__).parent / "data" / "sqlite_schema1_before_plain_binds.db"
LAST = {"n": 4, "note": "edited", "items": ["start", "left 0", {"k": 0, "t": (1, 2)}]}
STEPS = [6, 5, 4, 3, 2, 1, 0, -1]
SOURCES = ["update", "loop", "loop", "loop", "loop", "loop", "loop", "input"]


class Fan(TypedDict):
    n: int
    note: str
    items: Annotated[list, operator.add]


def _fan(saver: SqliteSaver) -> Any:
    """The graph that wrote the file, shape for shape."""
    b = StateGraph(Fan)
    b.add_node("left", lambda s: {"items": [f"left {s['n']}"]})
    b.add_node("right", lambda s: {"note": "r" * 300, "items": [{"k": s["n"], "t": (1, 2)}]})
    b.add_node("count", lambda s: {"n": s["n"] + 1})
    b.add_edge(START, "left")
    b.add_edge(START, "right")
    b.add_edge(["left", "right"], "count")
    b.add_conditional_edges("count", lambda s: "count" if s["n"] < 4 else END, ["count", END])
    return b.compile(checkpointer=saver)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _history(saver: SqliteSaver) -> list[Any]:
    return list(saver.history("old"))


def test_an_older_file_reads_the_same_and_reading_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    shutil.copyfile(OLD, path)
    before = _digest(path)
    saver = SqliteSaver(path, read_only=True)
    history = _history(saver)
    assert [c.step for c in history] == STEPS and [c.source for c in history] == SOURCES
    assert history[0].values == LAST
    assert history[2].values == {"n": 3, "note": "r" * 300, "items": LAST["items"]}
    assert history[6].values == {"n": 0, "note": "", "items": ["start"]} and history[6].next == ("left", "right")
    assert history[5].tasks[0].name == "count" and history[5].barriers == {"join:left+right:count": ("left", "right")}
    writes = saver.pending_writes("old", history[6].id)
    assert sorted((w.task_name, w.channel) for w in writes) == [("left", "items"), ("right", "items"), ("right", "note")]
    assert [h.id for h in saver.list_headers("old")] == [c.id for c in history]
    saver.close()
    assert _digest(path) == before and not Path(f"{path}-wal").exists()


def test_a_run_continues_an_older_file_and_its_old_checkpoints_stay_as_they_were(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    shutil.copyfile(OLD, path)
    with SqliteSaver(path, read_only=True) as reader:
        old = _history(reader)
    saver = SqliteSaver(path)
    last = saver.load("old")
    assert last is not None and last.values == LAST
    graph = _fan(saver)
    cfg = {"configurable": {"thread_id": "old"}}
    graph.update_state(cfg, {"n": 1, "items": ["more"]})
    state = graph.get_state(cfg)
    assert state.values == {"n": 1, "note": "edited", "items": [*LAST["items"], "more"]}
    now = _history(saver)
    assert len(now) == len(old) + 1 and now[1:] == old
    saver.close()
    with SqliteSaver(path, read_only=True) as again:
        assert _history(again) == now
