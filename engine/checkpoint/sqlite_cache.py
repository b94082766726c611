"""What a `SqliteSaver` remembers of its file, so that a put reads nothing back.

A put needs the thread's number, the thread's next free row number, and the versions
record of its parent (an unchanged channel copies the parent's entry). The saver keeps
them from its own puts. Another saver writing the same file can make them stale; a put
notices (its insert fails, or finds no thread) and the saver forgets and counts again.
"""
from __future__ import annotations

import sqlite3
from typing import Any, NamedTuple

from ..errors import CheckpointDecodeError
from .base import Checkpoint
from .encoding import exists_error
from .sqlite_rows import NO_VALUE, VERSION, Entry, parse_versions
from .sqlite_schema import N_BITS, N_MASK

__all__ = ["Known", "new_known", "KEEP_MOST", "StaleCache", "WriteCache", "INSERT_CHECKPOINT", "INSERT_SLOTS", "SLOT_CID", "SLOT_TID", "SLOT_VERSIONS"]

INSERT_CHECKPOINT = (
    "INSERT INTO checkpoints(cid, tid, id, parent, step, source, created_at, next, nodes_ran, versions, extras, inline)"
    " SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULLIF(?, x''), NULLIF(?, x'') WHERE EXISTS (SELECT 1 FROM threads WHERE tid = ?)"
)  # extras and inline: NULL_BLOB (an empty bytearray) stores NULL, as sqlite3 binds None slower (sqlite_rows.plain_blob)
INSERT_SLOTS = ("cid", "tid", "id", "parent", "step", "source", "created_at", "next", "nodes_ran", "versions",
                "extras", "inline", "guard_tid")
"""The parameters of `INSERT_CHECKPOINT`, in order (the last one checks the thread still exists)."""
SLOT_CID, SLOT_TID, SLOT_VERSIONS = (INSERT_SLOTS.index(n) for n in ("cid", "tid", "versions"))
_KEEP = 64  # checkpoints remembered at least: a put's parent is almost always one of the last
KEEP_MOST = 2 * _KEEP
"""When more are remembered, the oldest are forgotten down to `_KEEP` (`WriteCache.prune`)."""


class Known(NamedTuple):
    """A stored checkpoint as the next put needs it: its row number and versions."""

    cid: int
    vmap: dict[str, Entry]


new_known = tuple.__new__
"""`new_known(Known, (cid, vmap))`: a Known made in C (a NamedTuple's own `__new__` is a
Python function: a call a superstep need not pay)."""


class StaleCache(Exception):
    """A cached thread number no longer exists in the file: forget, then put again."""


class WriteCache:
    def __init__(self, path: str) -> None:
        self.path = path
        self.tids: dict[str, int] = {}
        """Thread id -> its number (`threads.tid`)."""
        self.next_n: dict[int, int] = {}
        """Thread number -> the next free n of its row numbers (`cid = tid << 32 | n`)."""
        self.known: dict[tuple[int, str], Known] = {}
        """(thread number, checkpoint id) -> what a put needs of it, for the last 64 to 128
        put or read (oldest first)."""

    def forget(self) -> None:
        self.tids.clear()
        self.next_n.clear()
        self.known.clear()

    def tid(self, conn: sqlite3.Connection, thread_id: str) -> int:
        """The thread's number, creating the thread's row on first use."""
        tid = self.tids.get(thread_id)
        if tid is None:
            conn.execute("INSERT OR IGNORE INTO threads(thread_id) VALUES (?)", (thread_id,))
            tid = conn.execute("SELECT tid FROM threads WHERE thread_id = ?", (thread_id,)).fetchone()[0]
            self.tids[thread_id] = tid
        return tid

    def lookup(self, conn: sqlite3.Connection, tid: int, checkpoint_id: str) -> Known | None:
        """What a put needs to know of a stored checkpoint (None: not in the thread)."""
        found = self.known.get((tid, checkpoint_id))
        if found is not None:
            return found
        row = conn.execute(
            "SELECT cid, versions FROM checkpoints WHERE tid = ? AND id = ?", (tid, checkpoint_id)
        ).fetchone()
        if row is None:
            return None
        cid, versions = row
        try:
            known = Known(cid, parse_versions(versions, checkpoint_id, cid))
        except CheckpointDecodeError as e:
            raise CheckpointDecodeError(f"`{self.path}`, checkpoint {checkpoint_id!r}: {e}") from None
        self.remember(tid, checkpoint_id, known)
        return known

    def remember(self, tid: int, checkpoint_id: str, known: Known) -> None:
        self.known[(tid, checkpoint_id)] = known
        if len(self.known) > KEEP_MOST:
            self.prune()

    def prune(self) -> None:
        """Forget all but the `_KEEP` newest."""
        known = self.known
        for key in list(known)[:-_KEEP]:
            del known[key]

    def find(self, conn: sqlite3.Connection, tid: int, key: str, version: str,
             pmap: dict[str, Entry]) -> Entry | None:
        """Where `key`'s value at `version` is stored: as the parent has it, or as the
        checkpoint that made that version has it (None: it holds no value there)."""
        entry = pmap.get(key)
        if entry is None or entry[VERSION] != version:
            owner = self.lookup(conn, tid, version)
            entry = owner.vmap.get(key) if owner is not None else None
        return entry if entry is not None and entry[VERSION] == version and len(entry) > NO_VALUE else None

    def insert_checkpoint(self, conn: sqlite3.Connection, row: list[Any], checkpoint: Checkpoint) -> int:
        """Insert the checkpoint row (`INSERT_CHECKPOINT`'s parameters, the first left
        for the row number) under the thread's next row number; returns that number."""
        tid: int = row[SLOT_TID]
        while True:
            n = self.next_n.get(tid)
            if n is None:
                top = conn.execute(
                    "SELECT max(cid) FROM checkpoints WHERE cid BETWEEN ? AND ?", (tid << N_BITS, (tid << N_BITS) | N_MASK)
                ).fetchone()[0]
                n = (top & N_MASK) + 1 if top is not None else 0
            row[SLOT_CID] = cid = (tid << N_BITS) | n
            try:
                inserted = conn.execute(INSERT_CHECKPOINT, row).rowcount
            except sqlite3.IntegrityError as e:
                if "checkpoints.id" in str(e):
                    raise exists_error(checkpoint) from None
                self.next_n.pop(tid, None)  # another saver wrote to this thread: count again
                continue
            if inserted != 1:
                raise StaleCache
            self.next_n[tid] = n + 1
            return cid
