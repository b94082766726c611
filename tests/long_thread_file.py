"""A real SQLite checkpoint file with one long thread, made in seconds: a real run writes
its first checkpoints, then SQLite copies the last one's row (same bytes, its own id, the
previous row as parent, one step further) until the thread has `n` checkpoints. The
engine reads it as it reads any file of its own (the ids sort in creation order)."""
from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, TypedDict

__all__ = ["long_thread_file", "HeaderCount"]


class _S(TypedDict):
    n: int


def long_thread_file(path: Path, n: int, thread_id: str = "long") -> Path:
    """`path` holding thread `thread_id` of `n` checkpoints (n >= 4), oldest first by id."""
    from engine import END, START, SqliteSaver, StateGraph

    g = StateGraph(_S)
    g.add_node("tick", lambda s: {"n": s["n"] + 1})
    g.add_edge(START, "tick")
    g.add_conditional_edges("tick", lambda s: "tick" if s["n"] < 2 else END, ["tick", END])
    saver = SqliteSaver(str(path))
    try:
        g.compile(checkpointer=saver).invoke({"n": 0}, {"configurable": {"thread_id": thread_id}})
    finally:
        saver.close()
    con = sqlite3.connect(path)
    try:
        with con:
            (tid,) = con.execute("SELECT tid FROM threads WHERE thread_id = ?", (thread_id,)).fetchone()
            cid, cp_id, made = con.execute(
                "SELECT cid, id, (SELECT count(*) FROM checkpoints WHERE tid = ?) FROM checkpoints"
                " WHERE tid = ? ORDER BY cid DESC LIMIT 1", (tid, tid)).fetchone()
            ms, seq, tag = cp_id.split("-")
            con.execute(
                "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?)"
                " INSERT INTO checkpoints(cid, tid, id, parent, step, source, created_at, next, nodes_ran,"
                " versions, extras, inline)"
                " SELECT c.cid + k.i, c.tid, ? || '-' || printf('%06x', ? + k.i) || '-' || ?, c.cid + k.i - 1,"
                " c.step + k.i, 'loop', c.created_at, c.next, c.nodes_ran, c.versions, c.extras, c.inline"
                " FROM k, checkpoints AS c WHERE c.cid = ?",
                (n - made, ms, int(seq, 16), tag, cid))
    finally:
        con.close()
    return path


class HeaderCount:
    """Counts the checkpoint headers a SqliteSaver hands out (`list_headers`), per call."""

    def __init__(self, monkeypatch: Any) -> None:
        from engine.checkpoint.sqlite import SqliteSaver

        self.calls: list[int] = []
        real = SqliteSaver.list_headers
        counts = self.calls

        def counted(saver: Any, *args: Any, **kwargs: Any) -> Any:
            counts.append(0)
            at = len(counts) - 1
            for header in real(saver, *args, **kwargs):
                counts[at] += 1
                yield header

        monkeypatch.setattr(SqliteSaver, "list_headers", counted)

    @property
    def total(self) -> int:
        return sum(self.calls)
