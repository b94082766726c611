"""PostgreSQL, and LangGraph's own stores opened by Retrograph.

- Per-superstep overhead of a loop of one trivial node saved with the engine's
  PostgresSaver against LangGraph's PostgresSaver, on one throwaway local server
  (tests/pg_server.py), each run in a fresh schema, both with durability="async"
  (LangGraph's default: a superstep's save is stored while the next supersteps run).
  Target: at most 0.2×. An info row: both with durability="sync".
- (`retrograph history` on PostgreSQL against SQLite is in big_stores.py.)
- Opening an N-checkpoint thread that LangGraph wrote (its SqliteSaver file, its
  PostgresSaver tables) the way the studio does: recognise the store, list the threads,
  the newest 1,000 headers (the studio's first page: step, source, next, nodes that ran;
  the rest loads in the background), the newest checkpoint's values and pending writes.
  Target: at most 2 s. An info row: all N headers, as `retrograph history` lists them.
  The LangGraph column is LangGraph listing the same history (`saver.list`), for scale.
"""
from __future__ import annotations

import sqlite3
import time
from typing import Any

from .graphs import ENGINE, loop_graph
from .harness import Context, Row, Target, alternate, timed

__all__ = ["NAME", "run"]

NAME = "postgres"


def _server(ctx: Context) -> Any:
    import sys

    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1]))
    from pg_server import start

    return start()


def _superstep(ctx: Context, server: Any) -> list[Row]:
    from engine.checkpoint import PostgresSaver

    steps = ctx.profile.loop_steps

    def engine_side(n: int, durability: str) -> Any:
        def once() -> float:
            saver = PostgresSaver(server.url())
            try:
                graph = loop_graph(ENGINE, n, saver)
                seconds, out = timed(lambda: graph.invoke({"n": 0}, {"recursion_limit": n + 10,
                                                                      "configurable": {"thread_id": "loop"}},
                                                          durability=durability))
            finally:
                saver.close()
            assert out.get("n") == n
            return seconds
        return once

    def langgraph_side(n: int, durability: str | None = None) -> Any:
        from langgraph.checkpoint.postgres import PostgresSaver as LangGraphPostgresSaver

        extra = {"durability": durability} if durability else {}

        def once() -> float:
            with LangGraphPostgresSaver.from_conn_string(server.url()) as saver:
                saver.setup()
                graph = loop_graph(ctx.langgraph, n, saver)
                seconds, out = timed(lambda: graph.invoke({"n": 0}, {"recursion_limit": n + 10,
                                                                      "configurable": {"thread_id": "loop"}},
                                                          **extra))
            assert out.get("n") == n
            return seconds
        return once

    sides = {"engine": engine_side(steps, "async"), "engine_sync": engine_side(steps, "sync"),
             "bare": _bare_inserts(server, steps)}
    warm = {"engine": engine_side(max(10, steps // 10), "async")}
    if ctx.langgraph is not None:
        sides["langgraph"] = langgraph_side(steps)
        sides["langgraph_sync"] = langgraph_side(steps, "sync")
        warm["langgraph"] = langgraph_side(max(10, steps // 10))
    for fn in warm.values():
        fn()
    medians = alternate(sides, runs=ctx.profile.runs, warmup=0)
    engine_us = medians["engine"] / steps * 1e6
    rows = [Row(
        key="postgres.superstep", workload=f"superstep, PostgresSaver ({steps:,} steps)", unit="µs/step",
        engine=engine_us, langgraph=medians["langgraph"] / steps * 1e6 if "langgraph" in medians else None,
        target=Target(kind="ratio", limit=0.2),
        note="both on one local PostgreSQL 127.0.0.1 (fsync off, synchronous_commit off, the same server "
             "settings for both), a fresh schema per run, both with durability=\"async\" (LangGraph's default; "
             "the engine's is \"sync\"): saves are stored in the background while the next supersteps run, "
             "in order, and the end of the run waits for them; the engine's writer stores the saves that "
             "queued up meanwhile in one transaction",
    )]
    if "langgraph_sync" in medians:
        rows.append(Row(
            key="postgres.superstep_sync", workload=f"superstep, PostgresSaver, durability=\"sync\" ({steps:,} steps)",
            unit="µs/step", engine=medians["engine_sync"] / steps * 1e6, langgraph=medians["langgraph_sync"] / steps * 1e6,
            note="each superstep committed before the next starts, on both sides",
        ))
    rows.append(Row(
        key="postgres.sync_vs_inserts",
        workload=f"superstep, PostgresSaver durability=\"sync\" / a bare psycopg INSERT-per-step loop ({steps:,} steps)",
        unit="×", engine=medians["engine_sync"] / medians["bare"], floor=1.0, comparable=False,
        target=Target(kind="max", limit=1.5),
        note=f"bare loop: {medians['bare'] / steps * 1e6:.1f} µs/step (one psycopg connection, one INSERT of the "
             "orjson state and one commit a step, same server), timed in the same rounds",
    ))
    return rows


def _ainvoke(ctx: Context, server: Any) -> list[Row]:
    """`ainvoke` of the loop on PostgreSQL, both sides with durability="async" (LangGraph's
    default): the engine's PostgresSaver against LangGraph's AsyncPostgresSaver, the same
    server, interleaved (issue 24 target 2: at most 0.1x LangGraph)."""
    import asyncio

    from engine.checkpoint import PostgresSaver

    steps = ctx.profile.loop_steps
    config = {"recursion_limit": steps + 10, "configurable": {"thread_id": "loop"}}

    def engine_side(n: int) -> Any:
        def once() -> float:
            saver = PostgresSaver(server.url())
            try:
                graph = loop_graph(ENGINE, n, saver)
                seconds, out = timed(lambda: asyncio.run(graph.ainvoke({"n": 0}, {**config, "recursion_limit": n + 10},
                                                                       durability="async")))
            finally:
                saver.close()
            assert out.get("n") == n
            return seconds
        return once

    def langgraph_side(n: int) -> Any:
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

        async def run() -> tuple[float, Any]:
            async with AsyncPostgresSaver.from_conn_string(server.url()) as saver:
                await saver.setup()
                graph = loop_graph(ctx.langgraph, n, saver)
                started = time.perf_counter()
                out = await graph.ainvoke({"n": 0}, {**config, "recursion_limit": n + 10})
                return time.perf_counter() - started, out

        def once() -> float:
            seconds, out = asyncio.run(run())
            assert out.get("n") == n
            return seconds
        return once

    sides = {"engine": engine_side(steps)}
    warm = [engine_side(max(10, steps // 10))]
    if ctx.langgraph is not None:
        sides["langgraph"] = langgraph_side(steps)
        warm.append(langgraph_side(max(10, steps // 10)))
    for fn in warm:
        fn()
    medians = alternate(sides, runs=ctx.profile.runs, warmup=0)
    return [Row(
        key="postgres.ainvoke", workload=f"ainvoke per superstep, PostgresSaver ({steps:,} steps)", unit="µs/step",
        engine=medians["engine"] / steps * 1e6,
        langgraph=medians["langgraph"] / steps * 1e6 if "langgraph" in medians else None,
        target=Target(kind="ratio", limit=0.1),
        note="both with durability=\"async\" on one local PostgreSQL (fsync off); LangGraph: its "
             "AsyncPostgresSaver, the engine: its PostgresSaver (async runs save through its writer thread)",
    )]


def _bare_inserts(server: Any, steps: int) -> Any:
    """The PostgresSaver floor: the loop's node and router with one INSERT of the state
    (orjson) and one commit per superstep, on one psycopg connection to the same server."""
    import orjson
    import psycopg

    from .graphs import END, loop_parts

    step, again = loop_parts(steps)

    def once() -> float:
        with psycopg.connect(server.url()) as conn:
            conn.execute("DROP TABLE IF EXISTS bench_bare_steps")
            conn.execute("CREATE TABLE bench_bare_steps (thread TEXT, step INTEGER, state BYTEA, "
                         "PRIMARY KEY (thread, step))")
            conn.commit()
            start = time.perf_counter()
            state: dict[str, Any] = {"n": 0}
            i = 0
            while True:
                state = {**state, **step(state)}  # type: ignore[arg-type]
                i += 1
                conn.execute("INSERT INTO bench_bare_steps VALUES (%s, %s, %s)", ("loop", i, orjson.dumps(state)))
                conn.commit()
                if again(state) == END:  # type: ignore[arg-type]
                    break
            seconds = time.perf_counter() - start
            conn.execute("DROP TABLE bench_bare_steps")
            conn.commit()
        return seconds

    return once


FIRST_PAGE = 1000  # studio.session.loading.FIRST_PAGE: the headers the window shows first


def _open_seconds(target: str, thread_id: str, limit: int | None = FIRST_PAGE) -> tuple[float, int]:
    """What the studio (limit: its first page) or `retrograph history` (every header)
    does to show a thread."""
    from engine.checkpoint.reading import open_store

    def work() -> int:
        with open_store(target) as store:
            threads = store.threads()
            assert any(t.thread_id == thread_id for t in threads)
            headers = list(store.list_headers(thread_id, limit=limit))
            store.load(thread_id, headers[0].id)
            store.pending_writes(thread_id, headers[0].id)
            return len(headers)

    seconds, count = timed(work)
    return seconds, count


def _langgraph_list_seconds(saver: Any, thread_id: str) -> float:
    seconds, _ = timed(lambda: list(saver.list({"configurable": {"thread_id": thread_id}})))
    return seconds


def _open_rows(ctx: Context, server: Any | None) -> list[Row]:
    from langgraph.checkpoint.sqlite import SqliteSaver

    n = ctx.profile.history_steps
    lg = ctx.langgraph
    rows = []
    path = ctx.new_db("langgraph-thread")
    conn = sqlite3.connect(path, check_same_thread=False)
    try:
        saver = SqliteSaver(conn)
        ctx.progress(f"postgres: LangGraph writes a {n:,}-checkpoint thread to SQLite")
        loop_graph(lg, n - 2, saver).invoke({"n": 0}, {"recursion_limit": n + 10, "configurable": {"thread_id": "t"}})
        lg_seconds = min(_langgraph_list_seconds(saver, "t") for _ in range(ctx.profile.runs))
    finally:
        conn.close()
    rows += _open_pair(ctx, path, "SQLite", "sqlite", n, lg_seconds)
    if server is not None:
        from langgraph.checkpoint.postgres import PostgresSaver as LangGraphPostgresSaver

        url = server.url()
        with LangGraphPostgresSaver.from_conn_string(url) as saver:
            saver.setup()
            ctx.progress(f"postgres: LangGraph writes a {n:,}-checkpoint thread to PostgreSQL")
            loop_graph(lg, n - 2, saver).invoke({"n": 0}, {"recursion_limit": n + 10, "configurable": {"thread_id": "t"}})
            lg_seconds = min(_langgraph_list_seconds(saver, "t") for _ in range(ctx.profile.runs))
        rows += _open_pair(ctx, url, "PostgreSQL", "postgres", n, lg_seconds)
    return rows


def _open_pair(ctx: Context, target: str, where: str, key: str, n: int, lg_seconds: float) -> list[Row]:
    """The studio's open (first page) against its target, and every header (info)."""
    first = [_open_seconds(target, "t") for _ in range(ctx.profile.runs)]
    every = [_open_seconds(target, "t", None) for _ in range(ctx.profile.runs)]
    assert every[0][1] >= n - 1, every[0][1]
    median = lambda samples: sorted(s for s, _ in samples)[len(samples) // 2]  # noqa: E731
    return [
        Row(key=f"postgres.open_langgraph_{key}", workload=f"open a {every[0][1]:,}-checkpoint LangGraph thread ({where})",
            unit="s", engine=median(first), target=Target(kind="max", limit=2.0),
            note="as the studio opens it: store recognised, threads, the newest 1,000 headers (next, nodes that "
                 "ran), the newest values and pending writes"),
        Row(key=f"postgres.history_langgraph_{key}", workload=f"… every header of that thread ({where})", unit="s",
            engine=median(every), langgraph=lg_seconds, comparable=False,
            note="all headers, as `retrograph history` lists them; LangGraph column: its saver.list() of the thread"),
    ]


def run(ctx: Context) -> list[Row]:
    rows: list[Row] = []
    try:
        server = _server(ctx)
    except Exception as exc:  # noqa: BLE001 - no server here: only the SQLite row
        server = None
        ctx.progress(f"postgres: no PostgreSQL server ({str(exc).splitlines()[0]}); its rows are left out")
    try:
        if server is not None and ctx.wants("postgres.superstep"):
            ctx.progress("postgres: superstep")
            rows += _superstep(ctx, server)
        if server is not None and ctx.wants("postgres.ainvoke"):
            ctx.progress("postgres: ainvoke")
            rows += _ainvoke(ctx, server)
        if ctx.langgraph is not None and ctx.wants("postgres.open"):
            started = time.perf_counter()
            rows += _open_rows(ctx, server)
            ctx.progress(f"postgres: open rows took {time.perf_counter() - started:.0f} s")
    finally:
        if server is not None:
            server.stop()
    return rows
