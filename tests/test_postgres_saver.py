"""The engine's PostgresSaver beyond the shared contract (tests/test_checkpoint_contract.py
runs that on it too): a graph runs, pauses and resumes on it; several processes write one
database at once; storage grows with what changed; bad URLs get clear errors.

All on a real throwaway server (tests/pg_server.py, the `pg_url` fixture)."""
from __future__ import annotations

import multiprocessing
import operator
from typing import Annotated, Any, TypedDict

import psycopg
import pytest

from engine import END, START, Command, StateGraph, interrupt
from engine.checkpoint import PlannedTask
from engine.checkpoint.postgres import PostgresSaver
from engine.errors import CheckpointError


class S(TypedDict):
    log: Annotated[list, operator.add]
    n: int


def _graph(saver: Any) -> Any:
    def work(s: S) -> dict:
        return {"log": [f"work{s['n']}"], "n": s["n"] + 1}

    def approve(s: S) -> dict:
        answer = interrupt({"ship?": s["n"]})
        return {"log": [f"approved:{answer}"]}

    g = StateGraph(S)
    g.add_node("work", work)
    g.add_node("approve", approve)
    g.add_edge(START, "work")
    g.add_conditional_edges("work", lambda s: "work" if s["n"] < 3 else "approve", ["work", "approve"])
    g.add_edge("approve", END)
    return g.compile(checkpointer=saver)


def test_a_graph_runs_pauses_and_resumes_on_postgres_from_a_new_saver(pg_url: str) -> None:
    cfg = {"configurable": {"thread_id": "hitl"}}
    with PostgresSaver(pg_url) as saver:
        first = _graph(saver).invoke({"log": [], "n": 0}, cfg)
        assert first["__interrupt__"][0].value == {"ship?": 3}
        assert _graph(saver).get_state(cfg).next == ("approve",)
    with PostgresSaver(pg_url) as again:  # as another process would: nothing remembered
        graph = _graph(again)
        assert graph.invoke(Command(resume="yes"), cfg) == {"log": ["work0", "work1", "work2", "approved:yes"], "n": 3}
        history = list(graph.get_state_history(cfg))
        assert [h.next for h in history][:2] == [(), ("approve",)]
        assert [h.metadata["step"] for h in history] == list(range(len(history) - 2, -2, -1))
        assert [t.thread_id for t in again.threads()] == ["hitl"]


def _writer(url: str, worker: int, root_id: str, steps: int) -> None:
    """One process: its own thread, and branches of a shared thread, put concurrently."""
    from engine.checkpoint import Checkpoint
    from engine.checkpoint.postgres import PostgresSaver

    with PostgresSaver(url) as saver:
        own = saver.load("shared", root_id)
        prev = None
        for i in range(steps):
            cid = f"w{worker}-{i:04d}"
            values = {"items": (prev.values["items"] if prev else []) + [f"{worker}:{i}"]}
            c = Checkpoint(id=cid, thread_id=f"solo-{worker}", parent_id=prev.id if prev else None, step=i,
                           source="loop", created_at=f"2026-01-01T00:00:{i:06d}", values=values,
                           versions={"items": cid})
            saver.save(c, appended={"items": (prev.id, [f"{worker}:{i}"])} if prev else None)
            prev = c
            b = Checkpoint(id=f"b{worker}-{i:04d}", thread_id="shared", parent_id=own.id, step=own.step + 1,
                           source="loop", created_at=f"2026-01-02T00:00:{i:06d}",
                           values={"items": own.values["items"] + [f"{worker}:{i}"]},
                           versions={"items": f"b{worker}-{i:04d}"})
            saver.save(b, appended={"items": (own.id, [f"{worker}:{i}"])})
            own = b


def test_several_processes_write_one_database_at_once(pg_url: str) -> None:
    from engine.checkpoint import Checkpoint

    with PostgresSaver(pg_url) as saver:
        root = Checkpoint(id="root", thread_id="shared", parent_id=None, step=-1, source="input",
                          created_at="2026-01-01T00:00:00", values={"items": ["root"]}, versions={"items": "root"})
        saver.save(root)
    ctx = multiprocessing.get_context("spawn")
    workers, steps = 4, 25
    procs = [ctx.Process(target=_writer, args=(pg_url, w, "root", steps)) for w in range(workers)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0] * workers
    with PostgresSaver(pg_url) as saver:
        counts = {t.thread_id: t.checkpoints for t in saver.threads()}
        assert counts == {"shared": 1 + workers * steps, **{f"solo-{w}": steps for w in range(workers)}}
        for w in range(workers):
            assert saver.load(f"solo-{w}").values["items"] == [f"{w}:{i}" for i in range(steps)]
            assert saver.load("shared", f"b{w}-{steps - 1:04d}").values["items"] == ["root"] + [
                f"{w}:{i}" for i in range(steps)
            ]
        ids = [h.id for h in saver.list_headers("shared")]
        assert len(ids) == len(set(ids)) == 1 + workers * steps and ids[-1] == "root"


def test_storage_grows_with_what_changed_not_with_the_state(pg_url: str) -> None:
    """500 supersteps each appending 200 characters store about the payload, and twice the
    steps take at most twice the room."""
    from engine.checkpoint import Checkpoint

    def stored(thread: str, steps: int) -> int:
        with PostgresSaver(pg_url) as saver:
            prev = None
            for i in range(steps):
                cid = f"{i:05d}"
                item = f"{i:06d}" + "x" * 194
                c = Checkpoint(id=cid, thread_id=thread, parent_id=prev.id if prev else None, step=i, source="loop",
                               created_at="2026-01-01", values={"items": (prev.values["items"] if prev else []) + [item]},
                               versions={"items": cid}, tasks=(PlannedTask(id=f"{cid}/0", name="a", trigger="edge:a"),))
                saver.save(c, appended={"items": (prev.id, [item])} if prev else None)
                prev = c
            assert saver.load(thread).values == prev.values
        with psycopg.connect(pg_url) as conn:
            return conn.execute(
                "SELECT (SELECT sum(length(data)) FROM retrograph_values WHERE thread_id = %s)"
                " + (SELECT sum(length(versions) + length(coalesce(extras, ''))) FROM retrograph_checkpoints"
                "    WHERE thread_id = %s)", (thread, thread),
            ).fetchone()[0]

    small, large = stored("small", 250), stored("large", 500)
    assert small <= 250 * 200 * 1.5
    assert large <= 2.1 * small


def test_a_bad_url_is_named_without_its_password(pg_server: Any) -> None:
    with pytest.raises(CheckpointError, match=r"Cannot connect to PostgreSQL at `postgresql://ada:\*\*\*@127\.0\.0\.1:1/x`"):
        PostgresSaver("postgresql://ada:secret@127.0.0.1:1/x")
    with pytest.raises(TypeError, match="postgresql:// URL"):
        PostgresSaver("runs.sqlite")


def test_retrograph_tables_live_beside_langgraph_tables(pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE checkpoints(thread_id TEXT, checkpoint JSONB)")
    with PostgresSaver(pg_url) as saver:
        _graph(saver).invoke({"log": [], "n": 3}, {"configurable": {"thread_id": "x"}})
        assert [t.thread_id for t in saver.threads()] == ["x"]
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT count(*) FROM checkpoints").fetchone()[0] == 0


def test_a_connection_or_pool_is_taken_as_langgraphs_saver_takes_it(pg_url: str) -> None:
    """`PostgresSaver(conn)` with the connection LangGraph's docs make (dict rows), one not
    in autocommit mode, or a pool; the caller's connection stays open."""
    from psycopg.rows import dict_row
    from psycopg_pool import ConnectionPool

    cfg = {"configurable": {"thread_id": "c"}}
    with psycopg.connect(pg_url, autocommit=True, prepare_threshold=0, row_factory=dict_row) as conn:
        saver = PostgresSaver(conn)
        saver.setup()
        assert _graph(saver).invoke({"log": [], "n": 3}, cfg)["__interrupt__"]
        saver.close()
        assert not conn.closed
    with psycopg.connect(pg_url) as conn:  # not autocommit: each statement still commits
        saver = PostgresSaver(conn)
        assert _graph(saver).invoke(Command(resume="ok"), cfg)["log"][-1] == "approved:ok"
    with ConnectionPool(pg_url, min_size=1, max_size=2, kwargs={"autocommit": True}) as pool:
        saver = PostgresSaver(pool)
        assert saver.load("c").values["log"][-1] == "approved:ok"
        assert [t.thread_id for t in saver.threads()] == ["c"]
    with pytest.raises(TypeError, match="psycopg Connection"):
        PostgresSaver(42)
