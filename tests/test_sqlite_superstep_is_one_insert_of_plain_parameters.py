"""What a superstep costs SQLite: one INSERT (its own transaction), whose parameters are
all of the kinds sqlite3 binds as they are (int, str, bytearray: no adapter lookup, which
bytes and None cost), while the file keeps exactly the column types it always had."""
from __future__ import annotations

import operator
import sqlite3
from pathlib import Path
from typing import Annotated, Any, TypedDict

from engine import END, START, SqliteSaver, StateGraph


class Loop(TypedDict):
    n: int


def _loop(saver: SqliteSaver, steps: int) -> Any:
    b = StateGraph(Loop)
    b.add_node("step", lambda s: {"n": s["n"] + 1})
    b.add_edge(START, "step")
    b.add_conditional_edges("step", lambda s: "step" if s["n"] < steps else END, ["step", END])
    return b.compile(checkpointer=saver)


class Fan(TypedDict):
    n: int
    note: str
    items: Annotated[list, operator.add]


def _fan(saver: SqliteSaver) -> Any:
    """Two tasks a superstep (pending writes), an appended list (segments), a long text
    (a value stored apart), a counter (inline)."""
    b = StateGraph(Fan)
    b.add_node("left", lambda s: {"items": [f"left {s['n']}"]})
    b.add_node("right", lambda s: {"note": "r" * 300, "items": [{"k": s["n"]}]})
    b.add_node("count", lambda s: {"n": s["n"] + 1})
    b.add_edge(START, "left")
    b.add_edge(START, "right")
    b.add_edge(["left", "right"], "count")
    b.add_conditional_edges("count", lambda s: "count" if s["n"] < 3 else END, ["count", END])
    return b.compile(checkpointer=saver)


def _cfg(thread: str, limit: int = 100) -> dict[str, Any]:
    return {"recursion_limit": limit, "configurable": {"thread_id": thread}}


def _count(path: Path, thread: str) -> int:
    with sqlite3.connect(path) as conn:
        (n,) = conn.execute(
            "SELECT count(*) FROM checkpoints WHERE tid = (SELECT tid FROM threads WHERE thread_id = ?)", (thread,)
        ).fetchone()
    return int(n)


def test_each_more_superstep_of_a_loop_is_exactly_one_more_statement(tmp_path: Path) -> None:
    path = tmp_path / "loop.db"
    saver = SqliteSaver(path)
    seen: list[str] = []
    saver._db().set_trace_callback(seen.append)
    counts, checkpoints = [], []
    for thread, steps in (("short", 10), ("long", 60)):
        seen.clear()
        assert _loop(saver, steps).invoke({"n": 0}, _cfg(thread)) == {"n": steps}
        counts.append(len(seen))
        checkpoints.append(_count(path, thread))
        inserts = [s for s in seen if s.startswith("INSERT INTO checkpoints")]
        assert len(inserts) == checkpoints[-1], "one INSERT per checkpoint"
        assert not [s for s in seen if s.startswith(("BEGIN", "SAVEPOINT"))][1:], "only the first load opens a transaction"
    assert checkpoints[1] - checkpoints[0] == 50
    assert counts[1] - counts[0] == 50, f"50 more supersteps cost {counts[1] - counts[0]} more statements"
    saver.close()


class _Recording:
    """The saver's connection, recording the parameters of every statement run on it."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self.params: list[tuple[str, list[Any]]] = []

    def execute(self, sql: str, params: Any = ()) -> Any:
        self.params.append((sql, list(params)))
        return self._conn.execute(sql, params)

    def executemany(self, sql: str, rows: Any) -> Any:
        rows = [list(r) for r in rows]
        self.params.extend((sql, r) for r in rows)
        return self._conn.executemany(sql, rows)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


def test_a_superstep_binds_only_what_sqlite3_takes_without_an_adapter(tmp_path: Path) -> None:
    saver = SqliteSaver(tmp_path / "binds.db")
    recording = _Recording(saver._db())
    saver._conn = recording  # type: ignore[assignment]
    assert _fan(saver).invoke({"n": 0, "note": "", "items": ["start"]}, _cfg("fan"))["n"] == 3
    writes = [p for sql, p in recording.params if sql.startswith(("INSERT INTO writes", "INSERT INTO segments"))]
    rows = [p for sql, p in recording.params if sql.startswith("INSERT INTO checkpoints")]
    assert len(rows) == _count(tmp_path / "binds.db", "fan") >= 5 and len(writes) >= 4
    for i, row in enumerate(rows):
        kinds = {type(v).__name__ for j, v in enumerate(row) if not (i == 0 and j == 3)}  # a thread's first has no parent
        assert kinds <= {"int", "str", "bytearray"}, f"checkpoint row {i} binds {sorted(kinds)}"
    for params in writes:
        assert {type(v).__name__ for v in params} <= {"int", "str", "bytearray"}, params
    saver.close()


def test_the_file_holds_blobs_and_nulls_as_it_always_did(tmp_path: Path) -> None:
    path = tmp_path / "types.db"
    saver = SqliteSaver(path)
    graph = _fan(saver)
    graph.invoke({"n": 0, "note": "", "items": ["start"]}, _cfg("fan"))
    last = graph.get_state(_cfg("fan"))
    assert last.values == {"n": 3, "note": "r" * 300, "items": ["start", "left 0", {"k": 0}]} and last.next == ()
    saver.close()
    with sqlite3.connect(path) as conn:
        kinds = conn.execute(
            "SELECT typeof(next), typeof(nodes_ran), typeof(versions), typeof(extras), typeof(inline), step"
            " FROM checkpoints ORDER BY cid"
        ).fetchall()
        assert {k[:3] for k in kinds} == {("blob", "blob", "blob")}
        # extras: NULL only where nothing is planned (the end); inline: NULL where no small
        # value changed (the input; the join's step changes only the list and the long text)
        assert [k[3] for k in kinds] == ["blob"] * (len(kinds) - 1) + ["null"]
        assert [k[4] for k in kinds] == ["null", "blob", "null"] + ["blob"] * (len(kinds) - 3)
        assert conn.execute("SELECT DISTINCT typeof(value) FROM writes").fetchall() == [("blob",)]
        assert conn.execute("SELECT DISTINCT typeof(data) FROM segments").fetchall() == [("blob",)]
        assert conn.execute("SELECT next, nodes_ran FROM checkpoints ORDER BY cid LIMIT 1 OFFSET 2").fetchone() == (
            b'["count"]', b'["left","right"]')
