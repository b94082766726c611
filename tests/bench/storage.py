"""Checkpoint storage: N supersteps, each appending one 200-character string to an
`Annotated[list, operator.add]` field, saved with SqliteSaver.

The figure is the database file's size after `PRAGMA wal_checkpoint(TRUNCATE)` (the
saver closed first). The floor is the payload itself (N × 200 bytes). A second row runs
2N steps on the engine: storage that grows with what changed at most doubles.
"""
from __future__ import annotations

from typing import Any

from .graphs import ENGINE, Backend, db_size, log_graph, remove_db, texts
from .harness import Context, Row, Target

__all__ = ["NAME", "run"]

NAME = "storage"

_KB = 1024


def _size_after(ctx: Context, backend: Backend, payload: list[str]) -> int:
    """Bytes of the file after running the append loop over `payload`."""
    path = ctx.new_db(f"storage-{backend.name}")
    saver = backend.sqlite_saver(path)
    try:
        graph = log_graph(backend, payload, saver)
        config: dict[str, Any] = {"recursion_limit": len(payload) + 10, "configurable": {"thread_id": "log"}}
        out = graph.invoke({"log": []}, config)
        if out.get("log") != payload:
            raise AssertionError(f"{backend.name}: the log holds {len(out.get('log', ()))} of {len(payload)} items")
    finally:
        backend.close_saver(saver)
    try:
        return db_size(path)
    finally:
        remove_db(path)


def run(ctx: Context) -> list[Row]:
    steps = ctx.profile.storage_steps
    payload = texts(2 * steps)
    ctx.progress(f"storage: {steps} appends")
    engine_size = _size_after(ctx, ENGINE, payload[:steps])
    lg_size = _size_after(ctx, ctx.langgraph, payload[:steps]) if ctx.langgraph else None
    ctx.progress(f"storage: {2 * steps} appends")
    doubled = _size_after(ctx, ENGINE, payload)
    return [
        Row(
            key="storage.size", workload=f"storage, {steps:,} appends of 200 chars (SQLite file)", unit="KB",
            engine=engine_size / _KB, langgraph=lg_size / _KB if lg_size is not None else None,
            floor=steps * 200 / _KB, target=Target(kind="max", limit=400.0),
            note="after PRAGMA wal_checkpoint(TRUNCATE); floor = the payload itself",
        ),
        Row(
            key="storage.growth", workload=f"storage growth, {2 * steps:,} vs {steps:,} appends", unit="×",
            engine=doubled / engine_size, floor=2.0, target=Target(kind="max", limit=2.0),
            note="file size ratio; LangGraph not run at 2N (its growth is quadratic)",
        ),
    ]
