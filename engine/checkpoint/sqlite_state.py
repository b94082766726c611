"""`get_state` of a named checkpoint on SQLite: the checkpoint, its oldest child and its
pending writes read in one snapshot, with one statement for all three rows' kinds.

The statement's parts, each an indexed probe whatever the thread's length:
- tag 0: the checkpoint's row (by `checkpoints_by_id`);
- tag 1: the row after it, when that row's parent is the checkpoint (its own superstep's
  child, `cid = parent + 1`, the usual case);
- tag 2: its first fork (by the partial index `checkpoints_forks`), when the file has it;
- tag 3: its pending writes (by `writes_by_checkpoint`), in the order they were put.
A file made before the fork index is answered with the old two reads after the statement.

Of the child, a snapshot reads only its header, its versions and the values it changed
itself (what `derive_results` compares with the checkpoint): only those are decoded; its
plan and metadata are left empty. A list the child appended to the checkpoint's is read as
its own segment only (segments.py: the one after the checkpoint's) and built on the
checkpoint's decoded list, instead of decoding the whole list twice. A saver class that overrides one of the reads this
stands for (`load`, `first_child`, `pending_writes`, `_fetch`, `_decode`) is called as it is.

`load_head` reads a thread's newest checkpoint and its pending writes the same way (what
`get_state` without a checkpoint id shows).
"""
from __future__ import annotations

import builtins
import sqlite3
from typing import Any

from ..errors import CheckpointDecodeError
from .base import Checkpoint, PendingWrite, head_by_calls, keeps_own_methods, state_by_calls
from .sqlite_children import first_child as first_child_of
from .sqlite_children import has_fork_index
from .sqlite_history import decode_writes
from .sqlite_rows import (
    COUNT,
    INLINE_VALUE,
    REF,
    ROW_COLS,
    SEGMENTS,
    TAGGED,
    VERSION,
    StoredRow,
    header,
    parse_inline,
    parse_versions,
)
from .sqlite_schema import N_BITS, N_MASK, missing_value_error

__all__ = ["StateReads"]

_TID = "(SELECT tid FROM threads WHERE thread_id = ?1)"
_CID = f"(SELECT +k.cid FROM checkpoints AS k WHERE k.tid = {_TID} AND k.id = ?2)"  # `+`: keeps the index usable
_PAD = ", NULL" * 6  # a write's 5 columns padded to a row's 11
_OWN_AND_CHILD = (
    f"SELECT 0, {ROW_COLS} FROM checkpoints WHERE tid = {_TID} AND id = ?2"
    f" UNION ALL SELECT 1, {ROW_COLS} FROM checkpoints WHERE cid = {_CID} + 1 AND parent = cid - 1"
)
_FORK = (f" UNION ALL SELECT * FROM (SELECT 2, {ROW_COLS} FROM checkpoints"
         f" WHERE parent = {_CID} AND parent <> cid - 1 ORDER BY cid LIMIT 1)")
_WRITES = (f" UNION ALL SELECT * FROM (SELECT 3, wid, task_id, task_name, channel, value{_PAD} FROM writes"
           f" WHERE tid = {_TID} AND checkpoint = ?2 ORDER BY wid)")
_ORDER = " ORDER BY 1, 2"  # by tag, then row number (a write's: the order it was put)
STATE_INDEXED = _OWN_AND_CHILD + _FORK + _WRITES + _ORDER
"""The checkpoint, its loop child, its first fork and its writes (a file with the fork index)."""
STATE_PLAIN = _OWN_AND_CHILD + _WRITES + _ORDER
"""The same without the fork (a file made before the fork index: looked for after)."""
_ROW = f"SELECT {ROW_COLS} FROM checkpoints WHERE tid = ? AND id = ?"
_HEAD_CID = (f"(SELECT cid FROM checkpoints WHERE cid BETWEEN {_TID} << {N_BITS} AND ({_TID} << {N_BITS}) | {N_MASK}"
             " ORDER BY cid DESC LIMIT 1)")
HEAD = (
    f"SELECT 0, {ROW_COLS} FROM checkpoints WHERE cid = {_HEAD_CID}"
    f" UNION ALL SELECT * FROM (SELECT 3, wid, task_id, task_name, channel, value{_PAD} FROM writes"
    f" WHERE tid = {_TID} AND checkpoint = (SELECT id FROM checkpoints WHERE cid = {_HEAD_CID}) ORDER BY wid)"
    + _ORDER
)
"""The thread's newest checkpoint and its pending writes."""
_APPENDED = object()
"""Marks a child's list read as its own segment (see `_fetch_own_changes`)."""
_READS = ("load", "first_child", "pending_writes", "_fetch", "_decode")


class StateReads:
    """SqliteSaver's `load_state` (what `engine.checkpoint.base.read_state` uses)."""

    serde: Any
    path: str
    max_checkpoint_bytes: int
    load: Any
    pending_writes: Any
    _lock: Any
    _forks: tuple[Any, bool]
    _segments: Any
    _db: Any
    _fetch: Any
    _decode: Any
    _check: Any
    _load_value: Any
    _translate: Any

    def _own_state_reads(self) -> bool:
        return keeps_own_methods(self, StateReads, _READS) and vars(self).keys().isdisjoint(_READS)  # nor on the saver

    def load_state(self, thread_id: str, checkpoint_id: str,
                   ) -> tuple[Checkpoint | None, Checkpoint | None, builtins.list[PendingWrite]]:
        """Checkpoint `checkpoint_id`, its oldest child as a snapshot reads it (header,
        versions and its own values) or None, and its pending writes, in one snapshot;
        (None, None, []) when there is no such checkpoint."""
        if not self._own_state_reads():
            return state_by_calls(self, thread_id, checkpoint_id)
        found = self._in_snapshot(self._read, thread_id, checkpoint_id)
        if found is None:
            return None, None, []
        own, child, writes = found
        ckpt = self._decode(thread_id, *own)
        return ckpt, self._child_of(thread_id, ckpt, *child) if child is not None else None, writes

    def load_head(self, thread_id: str) -> tuple[Checkpoint | None, builtins.list[PendingWrite]]:
        """The thread's newest checkpoint (or None) and its pending writes, in one snapshot."""
        if not self._own_state_reads():
            return head_by_calls(self, thread_id)
        found = self._in_snapshot(self._read_head, thread_id)
        if found is None:
            return None, []
        own, writes = found
        return self._decode(thread_id, *own), writes

    def _in_snapshot(self, read: Any, *args: Any) -> Any:
        """`read(conn, *args)` in one read transaction (inside a maintenance call's, its own)."""
        with self._lock:
            try:
                conn = self._db()
                if conn.in_transaction:  # a maintenance call's: read inside it
                    return read(conn, *args)
                conn.execute("BEGIN")  # one snapshot: a run may be writing
                try:
                    found = read(conn, *args)
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
                return found
            except sqlite3.Error as e:
                raise self._translate(e) from None

    def _read_head(self, conn: sqlite3.Connection, thread_id: str) -> Any:
        own: Any = None
        writes: builtins.list[Any] = []
        for tag, *cols in conn.execute(HEAD, (thread_id,)):
            if tag == 3:
                writes.append(cols[1:5])
            elif own is None:
                own = cols
        if own is None:
            return None
        fetched = self._fetch(conn, tuple(own))
        return fetched, decode_writes(self.serde, self.path, fetched[0].id, writes)

    def _read(self, conn: sqlite3.Connection, thread_id: str, checkpoint_id: str) -> Any:
        """The rows, their values' bytes and the decoded writes, in the caller's snapshot."""
        if self._forks[0] is not conn:
            self._forks = (conn, has_fork_index(conn))
        indexed = self._forks[1]
        rows: dict[int, Any] = {}
        writes: builtins.list[Any] = []
        for tag, *cols in conn.execute(STATE_INDEXED if indexed else STATE_PLAIN, (thread_id, checkpoint_id)):
            if tag == 3:
                writes.append(cols[1:5])
            elif tag not in rows:
                rows[tag] = cols
        if 0 not in rows:
            return None
        own = self._fetch(conn, tuple(rows[0]))
        found = rows.get(1) or rows.get(2)
        if found is None and not indexed:
            first = first_child_of(conn, thread_id, checkpoint_id, False)
            found = conn.execute(_ROW, (own[0].cid >> N_BITS, first)).fetchone() if first is not None else None
        child = self._fetch_own_changes(conn, StoredRow._make(found), own[1]) if found is not None else None
        return own, child, decode_writes(self.serde, self.path, checkpoint_id, writes)

    def _fetch_own_changes(self, conn: sqlite3.Connection, row: StoredRow, parent: dict[str, Any]) -> tuple[Any, ...]:
        """A child's row, its versions and the bytes of the values it changed itself; a list
        it appended to its parent's (its segment right after the parent's) as that segment
        alone, `(_APPENDED, items' bytes, tagged)`, built on the parent's list when decoded."""
        vmap = self._check(row, parse_versions, row.versions, row.id, row.cid)
        data: dict[str, tuple[Any, ...]] = {}
        total = 0
        held: dict[str, str] | None = None
        for key, e in vmap.items():
            if e[VERSION] != row.id:
                continue
            if len(e) == SEGMENTS:
                base = parent.get(key)
                if (e[COUNT] is not None and base is not None and len(base) == SEGMENTS and base[COUNT] is not None
                        and e[REF] == base[REF] + 1 and e[COUNT] > base[COUNT]):
                    items = self._segments.load_one(conn, e[REF])
                    if items is not None:
                        data[key] = (_APPENDED, items, e[TAGGED], e[COUNT])
                        continue
                data[key] = (self._segments.load(conn, row.id, key, *e[REF:TAGGED]), e[TAGGED])
                total += len(data[key][0])
                if total > self.max_checkpoint_bytes:
                    raise CheckpointDecodeError(
                        f"`{self.path}`: checkpoint `{row.id}` takes over {self.max_checkpoint_bytes / 2**20:.0f} MB "
                        "in all; it was not loaded.")
            elif len(e) == INLINE_VALUE:
                if e[REF] != row.cid:  # only a crafted file points its own change at another row
                    got = conn.execute("SELECT inline FROM checkpoints WHERE cid = ?", (e[REF],)).fetchone()
                    other = self._check(row, parse_inline, got[0]) if got is not None and got[0] is not None else {}
                    if key not in other:
                        raise missing_value_error(self.path, row.id, key)
                    data[key] = (other[key].encode(), 1)
                    continue
                if held is None:
                    held = self._check(row, parse_inline, row.inline) if row.inline is not None else {}
                if key not in held:
                    raise missing_value_error(self.path, row.id, key)
                data[key] = (held[key].encode(), 1)
        return row, vmap, data

    def _value_of(self, row: StoredRow, key: str, blob: tuple[Any, ...], parent: Checkpoint) -> Any:
        if blob[0] is not _APPENDED:
            return self._check(row, self._load_value, key, *blob)
        _, items, tagged, count = blob
        old = parent.values.get(key)
        new = self._check(row, self._load_value, key, b"[" + items + b"]", tagged)
        if type(old) is not list or type(new) is not list or len(old) + len(new) != count:
            raise CheckpointDecodeError(f"`{self.path}`, checkpoint {row.id!r}: channel `{key}` does not hold the "
                                        f"{count} items its record says")
        return old + new

    def _child_of(self, thread_id: str, parent: Checkpoint, row: StoredRow, vmap: dict[str, Any],
                  data: dict[str, Any]) -> Checkpoint:
        head = self._check(row, header, thread_id, row)
        return Checkpoint(
            id=head.id, thread_id=thread_id, parent_id=head.parent_id, step=head.step, source=head.source,
            created_at=head.created_at, versions={key: e[VERSION] for key, e in vmap.items()},
            values={key: self._value_of(row, key, blob, parent) for key, blob in data.items()},
            nodes_ran=head.nodes_ran,
        )
