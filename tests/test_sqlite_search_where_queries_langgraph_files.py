"""`langgraph.checkpoint.sqlite.utils.search_where` builds a WHERE clause that, run on a
checkpoint table in LangGraph's SQLite layout, keeps exactly the rows whose metadata and
address match: strings, numbers, None, nested JSON and dotted keys; bad keys are one
clear ValueError."""
from __future__ import annotations

import json
import sqlite3
from typing import Any

import pytest

from engine.checkpoint.sqlite_utils import search_where

ROWS = [  # thread, namespace, checkpoint id, metadata
    ("t1", "", "01", {"source": "input", "step": -1, "writes": None, "user": {"tier": "pro"}}),
    ("t1", "", "02", {"source": "loop", "step": 0, "writes": {"a": 1}, "user": {"tier": "free"}}),
    ("t1", "sub:1", "03", {"source": "loop", "step": 0, "writes": {"a": 1}}),
    ("t2", "", "04", {"source": "loop", "step": 1, "score": 2.5}),
]


def _ids(where: tuple[str, list[Any]]) -> list[str]:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE checkpoints (thread_id TEXT, checkpoint_ns TEXT, checkpoint_id TEXT, metadata BLOB)")
    conn.executemany("INSERT INTO checkpoints VALUES (?, ?, ?, ?)",
                     [(t, ns, cid, json.dumps(md, separators=(",", ":")).encode()) for t, ns, cid, md in ROWS])
    sql, params = where
    return [r[0] for r in conn.execute(f"SELECT checkpoint_id FROM checkpoints {sql} ORDER BY checkpoint_id", params)]


def cfg(thread: str, ns: str | None = None, cid: str | None = None) -> dict[str, Any]:
    conf: dict[str, Any] = {"thread_id": thread}
    if ns is not None:
        conf["checkpoint_ns"] = ns
    if cid is not None:
        conf["checkpoint_id"] = cid
    return {"configurable": conf}


def test_the_clause_keeps_the_matching_rows_of_a_langgraph_table():
    assert _ids(search_where(None, None)) == ["01", "02", "03", "04"]
    assert _ids(search_where(cfg("t1"), None)) == ["01", "02", "03"]
    assert _ids(search_where(cfg("t1", ""), None)) == ["01", "02"]
    assert _ids(search_where(cfg("t1", "", "02"), None)) == ["02"]
    assert _ids(search_where(None, {"source": "loop", "step": 0})) == ["02", "03"]
    assert _ids(search_where(None, {"writes": {"a": 1}})) == ["02", "03"]
    assert _ids(search_where(None, {"writes": None})) == ["01", "04"]  # JSON null, or no key
    assert _ids(search_where(None, {"user.tier": "pro"})) == ["01"]
    assert _ids(search_where(None, {"score": 2.5})) == ["04"]
    assert _ids(search_where(None, {"source": "loop"}, cfg("t1", "", "03"))) == ["02"]


def test_a_key_that_is_not_a_name_is_refused():
    with pytest.raises(ValueError, match="Invalid filter key"):
        search_where(None, {"x') OR '1'='1": 1})
