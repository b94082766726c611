"""Finding a checkpoint's oldest child in a SQLite file in two indexed reads.

A loop's checkpoint is the row after its parent (`cid = parent + 1`); every other child
(a fork, an update of an older checkpoint, a row another process slipped in between) is
in the partial index `checkpoints_forks`, which a loop's checkpoint never enters, so the
index costs nothing per superstep. A file made before the index (opened read-only, so
it cannot be added) is answered by reading the rows after the checkpoint, in order.
"""
from __future__ import annotations

import sqlite3

from .sqlite_schema import N_BITS, N_MASK, connection_path, translate_error

__all__ = ["FORK_INDEX", "first_child", "has_fork_index", "index_forks"]

FORK_INDEX = "CREATE INDEX IF NOT EXISTS checkpoints_forks ON checkpoints(parent) WHERE parent <> cid - 1"
_FIRST_FORK = "SELECT id FROM checkpoints WHERE parent = ? AND parent <> cid - 1 ORDER BY cid LIMIT 1"
_FIRST_AFTER = "SELECT id FROM checkpoints WHERE cid BETWEEN ? AND ? AND parent = ? ORDER BY cid LIMIT 1"
_FIND = "SELECT cid, tid FROM checkpoints WHERE tid = (SELECT tid FROM threads WHERE thread_id = ?) AND id = ?"


def index_forks(conn: sqlite3.Connection) -> tuple[sqlite3.Connection | None, bool]:
    """Add `checkpoints_forks` to a file the saver writes (files made before it lack it)."""
    try:
        conn.execute(FORK_INDEX)
    except sqlite3.Error as e:
        raise translate_error(e, connection_path(conn), 0) from None
    return conn, True


def has_fork_index(conn: sqlite3.Connection) -> bool:
    found = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'checkpoints_forks'")
    return found.fetchone() is not None


def first_child(conn: sqlite3.Connection, thread_id: str, checkpoint_id: str, indexed: bool) -> str | None:
    """The id of the oldest checkpoint of the thread whose parent is `checkpoint_id`."""
    found = conn.execute(_FIND, (thread_id, checkpoint_id)).fetchone()
    if found is None:
        return None
    cid, tid = found
    if not indexed:
        child = conn.execute(_FIRST_AFTER, (cid + 1, (tid << N_BITS) | N_MASK, cid)).fetchone()
        return child[0] if child is not None else None
    child = conn.execute(_FIRST_AFTER, (cid + 1, cid + 1, cid)).fetchone()
    if child is None:
        child = conn.execute(_FIRST_FORK, (cid,)).fetchone()
    return child[0] if child is not None else None
