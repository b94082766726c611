"""SqliteSaver and AsyncSqliteSaver as LangGraph code opens them: path, connection, from_conn_string."""
from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import TypedDict

import pytest

from engine import END, START, SqliteSaver, StateGraph
from engine.checkpoint.sqlite_aio import AsyncSqliteSaver
from engine.errors import NotARetrographDatabase


class S(TypedDict):
    n: int


def _graph(saver):
    b = StateGraph(S)
    b.add_node("inc", lambda s: {"n": s["n"] + 1})
    b.add_edge(START, "inc")
    b.add_edge("inc", END)
    return b.compile(checkpointer=saver)


CFG = {"configurable": {"thread_id": "t"}}


def test_a_sqlite3_connection_is_used_and_left_open(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "c.db", check_same_thread=False)
    saver = SqliteSaver(conn)
    assert _graph(saver).invoke({"n": 1}, CFG) == {"n": 2}
    assert saver.path == str(tmp_path / "c.db")
    saver.close()
    assert conn.execute("SELECT count(*) FROM threads").fetchone() == (1,)  # still open: the caller's
    conn.close()
    with SqliteSaver(tmp_path / "c.db") as again:  # the same file, by path
        assert again.load("t").values == {"n": 2}


def test_an_in_memory_connection(tmp_path: Path) -> None:
    conn = sqlite3.connect(":memory:")
    graph = _graph(SqliteSaver(conn))
    graph.invoke({"n": 1}, CFG)
    assert graph.get_state(CFG).values == {"n": 2}


def test_a_connection_to_a_foreign_database_is_refused_untouched(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "other.db")
    conn.execute("CREATE TABLE people(name TEXT)")
    conn.commit()
    with pytest.raises(NotARetrographDatabase, match="people"):
        SqliteSaver(conn)
    assert conn.execute("SELECT name FROM sqlite_master").fetchall() == [("people",)]


def test_from_conn_string_is_a_context_manager(tmp_path: Path) -> None:
    with SqliteSaver.from_conn_string(str(tmp_path / "x.db")) as saver:
        _graph(saver).invoke({"n": 5}, CFG)
    with pytest.raises(Exception, match="closed"):
        saver.load("t")
    with pytest.raises(TypeError, match="not int"):
        SqliteSaver(3)  # type: ignore[arg-type]


def test_async_saver_from_conn_string() -> None:
    async def main() -> tuple[dict, list[int]]:
        async with AsyncSqliteSaver.from_conn_string(":memory:") as saver:
            graph = _graph(saver)
            result = await graph.ainvoke({"n": 1}, CFG)
            steps = [c.step async for c in saver.ahistory("t")]
            assert (await saver.aload("t")).values == {"n": 2}
            return result, steps

    result, steps = asyncio.run(main())
    assert result == {"n": 2} and steps == [1, 0, -1]
    with pytest.raises(TypeError, match="does not use aiosqlite"):
        AsyncSqliteSaver(object())  # type: ignore[arg-type]


def test_async_saver_reads_with_langgraphs_config_spelling_too() -> None:
    async def main() -> tuple[dict, list[int]]:
        async with AsyncSqliteSaver.from_conn_string(":memory:") as saver:
            await _graph(saver).ainvoke({"n": 1}, CFG)
            latest = await saver.aget(CFG)  # LangGraph's aget(config): the checkpoint as a dict
            steps = [t.metadata["step"] async for t in saver.alist(CFG)]  # CheckpointTuples
            return latest, steps

    latest, steps = asyncio.run(main())
    assert latest["channel_values"] == {"n": 2}
    assert steps == [1, 0, -1]
