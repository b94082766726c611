"""LangGraph's other PostgreSQL savers on the engine: `AsyncPostgresSaver` given a URL, an
`AsyncConnection` or an `AsyncConnectionPool` (and `pipe=`), and the shallow savers that keep
only each thread's latest checkpoint. All on a real throwaway server (tests/pg_server.py)."""
from __future__ import annotations

import asyncio
import operator
import uuid
from typing import Annotated, Any, TypedDict

import psycopg
import pytest
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

from engine import START, StateGraph
from engine.checkpoint.postgres import PostgresSaver
from engine.checkpoint.postgres_shallow import ShallowPostgresSaver
from engine.checkpoint.postgres_aio import AsyncPostgresSaver, AsyncShallowPostgresSaver


class S(TypedDict):
    log: Annotated[list, operator.add]
    n: int
    note: str


def _graph(saver: Any) -> Any:
    def work(s: S) -> dict:
        return {"log": [f"w{s['n']}"], "n": s["n"] + 1}

    g = StateGraph(S)
    g.add_node("work", work)
    g.add_edge(START, "work")
    g.add_conditional_edges("work", lambda s: "work" if s["n"] < 4 else "__end__", ["work", "__end__"])
    return g.compile(checkpointer=saver)


@pytest.fixture
def pg_db(pg_server: Any) -> Any:
    """A URL of a fresh database, dropped afterwards (without FORCE: nothing may stay connected)."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_server.base_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    yield pg_server.base_url.rsplit("/", 1)[0] + "/" + name
    with psycopg.connect(pg_server.base_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE {name}")


def _ckpt(cid: str, values: dict[str, Any]) -> dict[str, Any]:
    return {"v": 4, "id": cid, "ts": "2026-01-01T00:00:00+00:00", "channel_values": values,
            "channel_versions": {k: 1 for k in values}, "versions_seen": {}}


def test_async_saver_on_an_async_connection_leaves_its_database_free_to_drop(pg_db: str) -> None:
    async def main() -> tuple[Any, int, int]:
        async with await psycopg.AsyncConnection.connect(pg_db, autocommit=True, row_factory=dict_row) as conn:
            saver = AsyncPostgresSaver(conn)
            await saver.setup()
            cfg = await saver.aput({"configurable": {"thread_id": "t", "checkpoint_ns": ""}},
                                   _ckpt("1", {"x": 1}), {"source": "input", "step": -1}, {"x": 1})
            got = await saver.aget_tuple(cfg)
            async with conn.pipeline() as pipe:
                piped = AsyncPostgresSaver(conn, pipe=pipe)
                through_pipe = len([t async for t in piped.alist(None)])
        async with AsyncConnectionPool(pg_db, kwargs={"autocommit": True}, open=False) as pool:
            pooled = len([t async for t in AsyncPostgresSaver(pool).alist({"configurable": {"thread_id": "t"}})])
        return got, through_pipe, pooled

    got, through_pipe, pooled = asyncio.run(main())
    assert got is not None and got.checkpoint["channel_values"] == {"x": 1}
    assert (through_pipe, pooled) == (1, 1)  # the fixture's DROP DATABASE then finds no one connected


def test_async_saver_from_conn_string_runs_a_graph_and_resumes_it_later(pg_db: str) -> None:
    cfg = {"configurable": {"thread_id": "g"}}

    async def main() -> tuple[Any, int]:
        async with AsyncPostgresSaver.from_conn_string(pg_db) as saver:
            await saver.setup()
            out = await _graph(saver).ainvoke({"log": [], "n": 0, "note": "x" * 10}, cfg)
        async with AsyncPostgresSaver.from_conn_string(pg_db) as again:
            history = [s async for s in _graph(again).aget_state_history(cfg)]
        return out, len(history)

    out, steps = asyncio.run(main())
    assert out["log"] == ["w0", "w1", "w2", "w3"]
    assert steps == 6  # input, four supersteps, and the first (empty) one


def test_shallow_saver_keeps_only_the_latest_checkpoint_and_every_value_of_it(pg_db: str) -> None:
    cfg = {"configurable": {"thread_id": "s"}}
    with ShallowPostgresSaver(pg_db) as saver:
        graph = _graph(saver)
        # `note` is small and never changes: stored in the first checkpoint's row, then moved
        out = graph.invoke({"log": [], "n": 0, "note": "kept"}, cfg)
        assert len(list(graph.get_state_history(cfg))) == 1
        assert graph.get_state(cfg).values == out == {"log": ["w0", "w1", "w2", "w3"], "n": 4, "note": "kept"}
    with psycopg.connect(pg_db) as conn:
        rows = conn.execute("SELECT count(*) FROM retrograph_checkpoints").fetchone()
        assert rows == (1,)
    with PostgresSaver(pg_db) as plain:  # another process, with no memory of the run, reads it whole
        assert _graph(plain).get_state(cfg).values == out
        assert _graph(plain).invoke(None, cfg) == out


def test_async_shallow_saver_keeps_one_checkpoint_per_thread_and_namespace(pg_db: str) -> None:
    async def main() -> list[Any]:
        async with AsyncShallowPostgresSaver.from_conn_string(pg_db) as saver:
            await saver.setup()
            for ns in ("", "inner"):
                cfg: dict[str, Any] = {"configurable": {"thread_id": "a", "checkpoint_ns": ns}}
                for i in range(3):
                    cfg = await saver.aput(cfg, _ckpt(f"{ns}{i}", {"i": i}), {"source": "loop", "step": i}, {"i": 1})
            return [t async for t in saver.alist({"configurable": {"thread_id": "a"}})]

    found = asyncio.run(main())
    assert sorted((t.config["configurable"]["checkpoint_ns"], t.checkpoint["channel_values"]["i"]) for t in found) == [
        ("", 2), ("inner", 2)]


def test_postgres_saver_lists_its_migrations_as_statements() -> None:
    assert PostgresSaver.MIGRATIONS and all(m.split()[0] == "CREATE" for m in PostgresSaver.MIGRATIONS)


def test_postgres_saver_inside_the_callers_pipeline_keeps_writes_beside_their_checkpoint(pg_db: str) -> None:
    with psycopg.connect(pg_db, autocommit=True, row_factory=dict_row) as conn:
        PostgresSaver(conn)  # creates the tables
        with conn.pipeline() as pipe:
            saver = PostgresSaver(conn, pipe=pipe)
            cfg = saver.put({"configurable": {"thread_id": "p", "checkpoint_ns": ""}}, _ckpt("1", {"x": 1}),
                            {"source": "input", "step": -1}, {"x": 1})
            saver.put_writes(cfg, [("x", 2)], task_id="t1")
            got = saver.get_tuple(cfg)
    assert got is not None and got.checkpoint["channel_values"] == {"x": 1}
    assert got.pending_writes == [("t1", "x", 2)]
