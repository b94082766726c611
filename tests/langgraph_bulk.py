"""A LangGraph SQLite checkpoint file with a very long thread, quickly.

Real LangGraph (the test extra) creates the file and runs a one-node loop graph a few
steps on thread `"t"`, so the tables, the msgpack records and the write rows are its own.
Then `write_long_thread` adds a thread of N checkpoints (and 2 writes each: the node's
`n` and its `branch:to:step` trigger) shaped as that loop's, each one's record built from
LangGraph's own step record (new id, timestamp, value and versions), inserted in one
transaction: a million rows in seconds, where running the graph would take an hour.
"""
from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timedelta, timezone
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypedDict

import ormsgpack

__all__ = ["LongThread", "write_long_thread"]

_GREGORIAN_100NS = 0x01B21DD213814000
"""uuid v6/v1 time counts 100 ns intervals from 1582-10-15; Unix time from 1970."""
_START_UNIX_S = 1_767_225_600  # 2026-01-01T00:00:00Z
_NODE = 0x5EED5EED5EED
_EPOCH = datetime.fromtimestamp(_START_UNIX_S, tz=timezone.utc)


def _uuid6(ticks: int, seq: int) -> str:
    """A version-6 UUID for `ticks` (100 ns since 1582) that sorts as its time does."""
    high, mid, low = (ticks >> 28) & 0xFFFFFFFF, (ticks >> 12) & 0xFFFF, ticks & 0x0FFF
    return f"{high:08x}-{mid:04x}-6{low:03x}-{0x8000 | (seq & 0x3FFF):04x}-{_NODE:012x}"


class _S(TypedDict):
    n: int


def _template(path: Path) -> dict[str, Any]:
    """LangGraph writes `path` (its tables) and a 4-step loop on thread "t"; its step-1
    record is the model of every bulk checkpoint."""
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.graph import END, START, StateGraph

    g = StateGraph(_S)
    g.add_node("step", lambda s: {"n": s["n"] + 1})
    g.add_edge(START, "step")
    g.add_conditional_edges("step", lambda s: "step" if s["n"] < 4 else END, ["step", END])
    conn = sqlite3.connect(path, check_same_thread=False)
    try:
        g.compile(checkpointer=SqliteSaver(conn)).invoke({"n": 0}, {"configurable": {"thread_id": "t"}})
        (blob,) = conn.execute("SELECT checkpoint FROM checkpoints WHERE thread_id = 't' AND checkpoint_ns = ''"
                               " ORDER BY checkpoint_id LIMIT 1 OFFSET 2").fetchone()
    finally:
        conn.close()
    return ormsgpack.unpackb(blob, ext_hook=lambda code, data: ormsgpack.Ext(code, data))


class LongThread(TypedDict):
    thread_id: str
    checkpoints: int
    writes: int
    newest_id: str
    oldest_id: str


def _version(i: int) -> str:
    return f"{i + 2:032}.0.{(i * 7919) % 1_000_003 / 1_000_003:.16f}"[:52]


def _rows(template: dict[str, Any], thread_id: str, n: int) -> Iterator[tuple[tuple[Any, ...], list[tuple[Any, ...]]]]:
    base = (_START_UNIX_S * 10_000_000) + _GREGORIAN_100NS
    parent = None
    start_version = template["channel_versions"]["__start__"]
    for i in range(n):
        ticks = base + i * 10_000  # a millisecond apart
        cid = _uuid6(ticks, i)
        ts = (_EPOCH + timedelta(milliseconds=i)).isoformat()
        version, previous = _version(i), _version(i - 1)
        record = {**template, "id": cid, "ts": ts, "channel_values": {"n": i, "branch:to:step": None},
                  "channel_versions": {"__start__": start_version, "n": version, "branch:to:step": version},
                  "versions_seen": {**template["versions_seen"], "step": {"branch:to:step": previous}},
                  "updated_channels": ["branch:to:step", "n"]}
        meta = json.dumps({"source": "loop", "step": i, "parents": {}}).encode()
        checkpoint = (thread_id, "", cid, parent, "msgpack", ormsgpack.packb(record), meta)
        task = _uuid6(ticks + 1, i ^ 0x2AAA)
        writes = [(thread_id, "", cid, task, "~__pregel_pull, step", 0, "n", "msgpack", ormsgpack.packb(i + 1)),
                  (thread_id, "", cid, task, "~__pregel_pull, step", 1, "branch:to:step", "null", b"")]
        yield checkpoint, writes
        parent = cid


def write_long_thread(path: Path, checkpoints: int, thread_id: str = "long") -> LongThread:
    """Create `path` as LangGraph's SQLite file (a short real thread "t") and add a thread
    of `checkpoints` checkpoints with 2 writes each."""
    template = _template(path)
    conn = sqlite3.connect(path)
    first = last = ""
    count = 0
    try:
        conn.execute("PRAGMA synchronous = OFF")
        batch_c: list[tuple[Any, ...]] = []
        batch_w: list[tuple[Any, ...]] = []
        with conn:
            for ckpt, writes in _rows(template, thread_id, checkpoints):
                first = first or ckpt[2]
                last = ckpt[2]
                batch_c.append(ckpt)
                batch_w.extend(writes)
                count += 1
                if len(batch_c) >= 20_000:
                    _flush(conn, batch_c, batch_w)
            _flush(conn, batch_c, batch_w)
    finally:
        conn.close()
    return LongThread(thread_id=thread_id, checkpoints=count, writes=2 * count, newest_id=last, oldest_id=first)


def _flush(conn: sqlite3.Connection, checkpoints: list[tuple[Any, ...]], writes: list[tuple[Any, ...]]) -> None:
    conn.executemany("INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type,"
                     " checkpoint, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)", checkpoints)
    conn.executemany("INSERT INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel,"
                     " type, value) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", writes)
    checkpoints.clear()
    writes.clear()
