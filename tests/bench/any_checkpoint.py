"""Any checkpoint of a very long thread: `get_state` of its oldest, middle and newest
checkpoint, and the first 100 of `get_state_history`, on SQLite and PostgreSQL.

The thread (the profile's `studio_checkpoints` supersteps of the *note* graph: 100,000
in the standard profile) is built once per store by the engine only: LangGraph would
take minutes to write it (its side at 10,000 is in the `history` rows). Each store is
reopened fresh before reading, as a debugger opening it would. Targets: `get_state` of
any checkpoint at most 0.5 ms, the first 100 of the history at most 20 ms. On each store,
the cost of a step after 100,000 against one after 10 too (at most 1.1×: step cost flat in
history length): the long thread and a 10-step one, continued in turns; on SQLite each alone
in its own file (see history.py), on PostgreSQL both in one database.
"""
from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from typing import Any

from .graphs import ENGINE, note_graph, remove_db
from .harness import Context, Row, Target, median_of
from .history import step_growth

__all__ = ["NAME", "run"]

NAME = "any_checkpoint"

_CONFIG: dict[str, Any] = {"configurable": {"thread_id": "long"}}


def _build(saver: Any, steps: int, thread_id: str = "long") -> None:
    graph = note_graph(ENGINE, saver)
    graph.invoke({"n": 0, "note": "", "stop": steps},
                 {"recursion_limit": steps + 10, "configurable": {"thread_id": thread_id}})


def _load(graph: Any, checkpoint_id: str) -> Callable[[], float]:
    config = {"configurable": {"thread_id": "long", "checkpoint_id": checkpoint_id}}

    def once() -> float:
        start = time.perf_counter()
        snapshot = graph.get_state(config)
        seconds = time.perf_counter() - start
        if snapshot.config["configurable"]["checkpoint_id"] != checkpoint_id:
            raise AssertionError(f"get_state loaded {snapshot.config} for {checkpoint_id}")
        return seconds

    return once


def _first_100(graph: Any) -> float:
    start = time.perf_counter()
    got = list(itertools.islice(graph.get_state_history(_CONFIG), 100))
    seconds = time.perf_counter() - start
    if len(got) != 100:
        raise AssertionError(f"get_state_history listed {len(got)} of the first 100")
    return seconds


def _rows(ctx: Context, label: str, key: str, saver: Any, steps: int) -> list[Row]:
    graph = note_graph(ENGINE, saver)
    headers = list(saver.list_headers("long"))
    ids = {"oldest": headers[-1].id, "middle": headers[len(headers) // 2].id, "newest": headers[0].id}
    runs = ctx.profile.history_loads
    rows = []
    for position, cid in ids.items():
        seconds = median_of(_load(graph, cid), runs=runs, warmup=2)
        rows.append(Row(
            key=f"{key}.load_{position}", workload=f"get_state, {position} checkpoint of a {steps:,}-step thread "
            f"({label})", unit="ms", engine=seconds * 1e3, target=Target(kind="max", limit=0.5),
            note="engine only; a fresh saver on the stored thread" if position == "oldest" else "",
        ))
    seconds = median_of(lambda: _first_100(graph), runs=runs, warmup=1)
    rows.append(Row(
        key=f"{key}.history_100", workload=f"get_state_history, first 100 of a {steps:,}-step thread ({label})",
        unit="ms", engine=seconds * 1e3, target=Target(kind="max", limit=20.0),
        note="lazy: islice(graph.get_state_history(config), 100)",
    ))
    return rows


def _sqlite(ctx: Context, steps: int) -> list[Row]:
    from engine import SqliteSaver

    path, short_path = ctx.new_db("any-checkpoint"), ctx.new_db("any-checkpoint-short")
    try:
        with SqliteSaver(path) as saver:
            _build(saver, steps)
        with SqliteSaver(short_path) as saver:
            _build(saver, 10, "short")
        with SqliteSaver(path) as saver, SqliteSaver(short_path) as short_saver:
            rows = _rows(ctx, "SQLite", "any_checkpoint.sqlite", saver, steps)
            if ctx.wants("any_checkpoint.sqlite.step_growth"):
                rows.append(_step_growth_row(ctx, (saver, short_saver), steps, "SQLite",
                                             "any_checkpoint.sqlite", "each in its own file"))
            return rows
    finally:
        remove_db(path)
        remove_db(short_path)


def _step_growth_row(ctx: Context, savers: tuple[Any, Any], steps: int, label: str, key: str,
                     where: str) -> Row:
    """A step of the long thread (in `savers[0]`) against one of the 10-step thread (in
    `savers[1]`): both go on from where they are, in turns, measured after the reads above."""
    saver, short_saver = savers
    done = {"long": steps, "short": 10}
    ratio, short, long = step_growth((note_graph(ENGINE, saver), "long"), (note_graph(ENGINE, short_saver), "short"),
                                     done, runs=max(ctx.profile.runs, 5), count=max(10, min(50, steps // 200)))
    return Row(
        key=f"{key}.step_growth", workload=f"step cost after {steps:,} steps / after 10 ({label})",
        unit="×", engine=ratio, floor=1.0, target=Target(kind="max", limit=1.1), comparable=False,
        note=f"engine: {long:.0f} µs vs {short:.0f} µs per step; both threads continued in turns, {where}",
    )


def _postgres(ctx: Context, steps: int) -> list[Row]:
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from pg_server import PgUnavailable, start

    from engine.checkpoint.postgres import PostgresSaver

    try:
        server = start()
    except PgUnavailable as e:
        return [Row(key="any_checkpoint.postgres", workload="get_state of any checkpoint (PostgreSQL)", unit="ms",
                    status="skipped", note=f"no PostgreSQL server: {e}")]
    try:
        url = server.url()
        with PostgresSaver(url) as saver:
            _build(saver, steps)
            _build(saver, 10, "short")
        with PostgresSaver(url) as saver:
            rows = _rows(ctx, "PostgreSQL", "any_checkpoint.postgres", saver, steps)
            if ctx.wants("any_checkpoint.postgres.step_growth"):
                rows.append(_step_growth_row(ctx, (saver, saver), steps, "PostgreSQL",
                                             "any_checkpoint.postgres", "in one database"))
            return rows
    finally:
        server.stop()


def run(ctx: Context) -> list[Row]:
    steps = ctx.profile.studio_checkpoints
    rows: list[Row] = []
    if ctx.wants("any_checkpoint.sqlite"):
        ctx.progress(f"any_checkpoint: a {steps:,}-step thread in SQLite")
        rows += _sqlite(ctx, steps)
    if ctx.wants("any_checkpoint.postgres"):
        ctx.progress(f"any_checkpoint: a {steps:,}-step thread in PostgreSQL")
        rows += _postgres(ctx, steps)
    return rows
