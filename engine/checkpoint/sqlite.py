"""`SqliteSaver`: checkpoints in one SQLite file, the studio's default store.

Durability: WAL journal, one transaction per `put`, `synchronous=NORMAL`. A superstep
whose `put` returned survives a crash or SIGKILL of the process (its WAL frames are in
the OS's file cache); a power loss or OS crash may drop the last few commits but never
corrupts the file. Readers in other processes see consistent snapshots while a run writes.

Storage grows with what changed. A channel changed by a checkpoint is stored once; the
checkpoints after it refer to it (sqlite_rows.py). A small value (not a list) lives in its
checkpoint's row; an appended list is stored as its new items (segments.py). Row numbers
carry their thread, so a thread's history is one range of the checkpoints table.

Speed: a superstep that changes small values is one INSERT, its own transaction; the saver
remembers the last checkpoints it wrote, so a put reads nothing back.

Safety: opening never writes to a file that is not Retrograph's (sqlite_schema.py);
loading never runs code (serde.py); SQLite itself refuses to hand over any value above
`max_value_bytes` (`SQLITE_LIMIT_LENGTH`): a hostile file cannot make a load exhaust memory.
"""
from __future__ import annotations

import builtins
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any, NamedTuple, cast

import orjson

from ..errors import CheckpointDecodeError, CheckpointError
from .base import (
    NS_SEP,
    BaseCheckpointSaver,
    Checkpoint,
    CheckpointHeader,
    PendingWrite,
    ThreadInfo,
)
from .encoding import encode_writes, loads_extras, no_checkpoint_error
from .segments import Segments
from .serde import DEFAULT_MAX_BYTES, Serializer
from .serde_typed_store import store_serializer
from .sqlite_history import PagedWrites, decode_writes
from .sqlite_state import StateReads
from .sqlite_sync_only import SyncOnlyReads
from .transactions import atomic as _atomic
from .transactions import sqlite_maintenance
from .storage_plan import ABSENT, APPEND, UNCHANGED, ListBase, plan_storage
from .storage_plan import INLINE as INLINE_KIND
from .sqlite_children import first_child, has_fork_index, index_forks
from .sqlite_cache import SLOT_VERSIONS, Known, StaleCache, WriteCache, new_known
from .sqlite_lean import extras_and_next, lean_put
from .sqlite_rows import (
    COUNT,
    HEADER_COLS,
    INLINE,
    INLINE_VALUE,
    NO_VALUE,
    REF,
    ROW_COLS,
    SEGMENTS,
    SIZE,
    TAGGED,
    VERSION,
    Entry,
    NULL_BLOB,
    HeaderRow,
    StoredRow,
    header,
    names_blob,
    plain_blob,
    parse_inline,
    parse_versions,
)
from .sqlite_schema import (
    APPLICATION_ID,
    N_BITS,
    N_MASK,
    SCHEMA_VERSION,
    file_stamp,
    adopt_connection,
    connection_path,
    missing_value_error,
    open_database,
    open_read_only,
    translate_error,
)

__all__ = ["SqliteSaver", "APPLICATION_ID", "SCHEMA_VERSION"]

_TID = "(SELECT tid FROM threads WHERE thread_id = ?)"
_SELECT_CHECKPOINT = f"SELECT 1 FROM checkpoints WHERE tid = {_TID} AND id = ?"
_INSERT_WRITE = (
    "INSERT INTO writes(tid, checkpoint, task_id, task_name, channel, value)"
    f" SELECT tid, id, ?, ?, ?, ? FROM checkpoints WHERE tid = {_TID} AND id = ?"
)


Unreadable = Callable[[str, str], None]
"""`on_unreadable(checkpoint_id, reason)`: told of a checkpoint skipped because its row
cannot be decoded."""


class _Skipped(NamedTuple):
    id: Any
    reason: str


def _list_base(e: Entry) -> ListBase | None:
    """What an append needs of a stored version (None: not a list kept in segments)."""
    if len(e) != SEGMENTS or e[COUNT] is None:
        return None
    return ListBase(e[COUNT], e[SIZE], bool(e[TAGGED]))


def _row_name(cid: Any) -> str:
    """A row's checkpoint id as text (a damaged row's id may be anything)."""
    return cid if type(cid) is str else repr(cid)[:60]


class SqliteSaver(PagedWrites, StateReads, SyncOnlyReads, BaseCheckpointSaver):
    """Checkpoints in a SQLite file (or `":memory:"`); safe to share between threads.

    History is listed in the order checkpoints were put, newest first; `before` names a
    checkpoint of the thread (an unknown one lists nothing). Values above
    `max_value_bytes` (32 MB) are neither saved nor loaded."""

    lists_by_id = True  # LangGraph's list over threads or namespaces: newest id first

    def __init__(
        self,
        path: str | os.PathLike[str] | sqlite3.Connection,
        *,
        serde: Serializer | None = None,
        max_value_bytes: int = DEFAULT_MAX_BYTES,
        read_only: bool | str = False,
    ) -> None:
        if read_only and isinstance(path, sqlite3.Connection):
            raise TypeError("SqliteSaver(read_only=True) takes a file path, not a sqlite3 connection")
        self.serde = store_serializer(serde, max_value_bytes)
        self.max_checkpoint_bytes = 4 * self.serde.max_bytes
        """The most bytes one checkpoint's values may take in all when loaded."""
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._owns_conn = not isinstance(path, sqlite3.Connection)
        if isinstance(path, sqlite3.Connection):
            # LangGraph's `SqliteSaver(sqlite3.connect(...))`: use that connection (the
            # caller closes it); the saver runs its own transactions on it.
            self._conn = adopt_connection(path, self.serde.max_bytes)
            self.path = connection_path(path)
        elif isinstance(path, (str, os.PathLike)):
            self.path = os.fspath(path)
        else:
            raise TypeError(
                f"SqliteSaver takes a file path, ':memory:' or a sqlite3.Connection, not {type(path).__name__}"
            )
        self._cache = WriteCache(self.path)
        self._segments = Segments(self.path, self.serde.max_bytes)
        if read_only not in (False, True, "until_write"):
            raise TypeError(f"SqliteSaver(read_only=...) takes True, False or 'until_write', not {read_only!r}")
        self.read_only = read_only
        """`True`: the file, its `-wal` and its folder are never written (a debugger browsing
        a file someone handed over); writes raise. `"until_write"`: the same until the
        first write, which reopens the file read-write (the studio, once a run starts)."""
        self._stamp = file_stamp(self.path) if read_only else None
        if read_only == "until_write" and (not os.path.exists(self.path) or os.path.getsize(self.path) == 0):
            self._conn = open_database(":memory:", self.serde.max_bytes)  # nothing there yet: an empty view
        elif read_only:
            self._conn = open_read_only(self.path, self.serde.max_bytes)
        elif self._conn is None:
            self._conn = open_database(self.path, self.serde.max_bytes)
        self._forks = (None, False) if read_only else index_forks(self._conn)  # (conn, its file has the index)

    @classmethod
    def from_conn_string(cls, path: str | os.PathLike[str], **kwargs: Any) -> SqliteSaver:
        """`with SqliteSaver.from_conn_string("run.db") as saver:` (closed at the end)."""
        return cls(path, **kwargs)

    def __repr__(self) -> str:
        return f"SqliteSaver({self.path!r}{f', read_only={self.read_only!r}' if self.read_only else ''})"

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as e:
            raise self._translate(e) from None

    def _translate(self, e: sqlite3.Error) -> CheckpointError:
        return translate_error(e, self.path, self.serde.max_bytes, closed=self._conn is None)

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            raise CheckpointError(f"{self!r} is closed; open the file again to use it")
        if self._stamp is not None and not self._conn.in_transaction:
            stamp = file_stamp(self.path)
            if stamp != self._stamp:  # another process wrote: see it (immutable=1 would not)
                self._conn.close()
                self._conn = None
                if stamp[2] > 0:
                    self._conn = open_read_only(self.path, self.serde.max_bytes)
                else:
                    self._conn = open_database(":memory:", self.serde.max_bytes)
                self._stamp = stamp
                self._cache = WriteCache(self.path)
        return self._conn

    def _writable(self) -> None:
        if self.read_only == "until_write":
            with self._lock, self._errors():
                if self._conn is None:
                    raise CheckpointError(f"{self!r} is closed; open the file again to use it")
                conn = open_database(self.path, self.serde.max_bytes)  # first write: now create
                self._conn.close()
                self._conn, self._stamp, self.read_only = conn, None, False
                self._forks = index_forks(conn)
                self._cache = WriteCache(self.path)
                self._segments.forget()
        if self.read_only:
            raise CheckpointError(
                f"{self!r} was opened read-only: nothing is written to it. Open it without "
                "`read_only=True` to run or edit."
            )

    @contextmanager
    def _transaction(self, begin: str = "BEGIN IMMEDIATE") -> Iterator[sqlite3.Connection]:
        with self._lock, self._errors():
            conn = self._db()
            with _atomic(conn, begin):
                yield conn

    def maintenance_transaction(self) -> AbstractContextManager[None]:
        """prune, delete_for_runs and copy_thread run in this: one write transaction held
        for the whole call (the saver's other threads wait), rolled back when it raises."""
        if self.read_only:
            self._writable()
        return sqlite_maintenance(self._lock, self._errors, self._db, self._forget)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                if self._owns_conn:
                    self._conn.close()
                self._conn = None

    # -- writing ------------------------------------------------------------------------
    def save(
        self,
        checkpoint: Checkpoint,
        *,
        appended: Mapping[str, tuple[str, Sequence[Any]]] | None = None,
    ) -> None:
        if self.read_only:  # False for a saver that writes: no call per superstep
            self._writable()
        with self._lock:
            conn = self._conn if self._stamp is None else None  # (a writing saver: `_db()` without its call)
            if conn is None:
                conn = self._db()
            try:
                try:
                    if not lean_put(self._cache, conn, checkpoint, self.serde):  # small scalars: one INSERT
                        self._put(conn, checkpoint, appended)
                except StaleCache:  # another saver deleted this thread since we cached its number
                    self._forget()
                    self._put(conn, checkpoint, appended)
            except sqlite3.Error as e:
                self._forget()
                raise self._translate(e) from None

    def _put(self, conn: sqlite3.Connection, c: Checkpoint,
             appended: Mapping[str, tuple[str, Sequence[Any]]] | None) -> None:
        cache = self._cache
        tid = cache.tid(conn, c.thread_id)
        parent = cache.lookup(conn, tid, c.parent_id) if c.parent_id is not None else None
        pmap = parent.vmap if parent is not None else {}
        own, serde = c.id, self.serde

        def find(key: str, version: str) -> Entry | None:
            e = pmap.get(key)
            if e is None or e[VERSION] != version or len(e) == NO_VALUE:
                return cache.find(conn, tid, key, version, pmap)
            return e

        # Plan everything before the transaction: a failure leaves the file as it was.
        plan = plan_storage(c, appended, serde, find, _list_base, INLINE)
        # The versions record as stored: this checkpoint's own version is "", its own row
        # 0 (see sqlite_rows.py); the entries of unchanged channels are the parent's lists.
        stored: dict[str, Entry] = {}
        staged: list[tuple[str, bytes, int | None]] = []  # (key, segment, sid of its base)
        inline: dict[str, str] = {}
        for p in plan:
            kind, key = p.kind, p.key
            if kind == UNCHANGED:
                stored[key] = p.held
            elif kind == ABSENT:
                stored[key] = [p.version if p.version != own else ""]
            elif kind == INLINE_KIND:
                inline[key] = cast(bytes, p.data).decode()
                stored[key] = ["", 0]  # 0: this row, whose number the insert gives
            else:
                staged.append((key, cast(bytes, p.data), p.held[REF] if kind == APPEND else None))
                stored[key] = ["", 0, p.n_items, p.size, int(p.tagged)]
        extras, nxt = extras_and_next(serde, c)  # first: it names a task that cannot be stored
        # The insert's parameters (INSERT_SLOTS); the row number and the versions record come
        # later. Blobs go as bytearrays, a NULL one as NULL_BLOB (see sqlite_rows.plain_blob).
        row = [
            None, tid, own, parent.cid if parent is not None else c.parent_id, c.step, c.source, c.created_at,
            nxt, names_blob(c.nodes_ran), None, extras, bytearray(orjson.dumps(inline)) if inline else NULL_BLOB, tid,
        ]
        if not staged:  # one statement: its own transaction
            row[SLOT_VERSIONS] = bytearray(orjson.dumps(stored))
            cid = cache.insert_checkpoint(conn, row, c)
        else:
            with _atomic(conn):
                for key, data, base_sid in staged:
                    stored[key][REF] = self._segments.store(conn, tid, plain_blob(data), base_sid)
                row[SLOT_VERSIONS] = bytearray(orjson.dumps(stored))
                cid = cache.insert_checkpoint(conn, row, c)
        # What the next put needs: the same record with real ids and row numbers.
        vmap = stored.copy()
        for key, e in stored.items():
            if e[VERSION] == "":
                vmap[key] = [own, cid] if len(e) == INLINE_VALUE else [own, *e[REF:]]
        cache.remember(tid, own, new_known(Known, (cid, vmap)))

    def _forget(self) -> None:
        self._cache.forget()
        self._segments.forget()

    def save_writes(self, thread_id: str, checkpoint_id: str, writes: Sequence[PendingWrite]) -> None:
        if self.read_only:  # False for a saver that writes: no call per superstep
            self._writable()
        rows = [(t, n, ch, plain_blob(v), thread_id, checkpoint_id) for t, n, ch, v in encode_writes(self.serde, writes)]
        with self._lock, self._errors():
            conn = self._db()
            if len(rows) == 1:  # one statement: its own transaction
                if conn.execute(_INSERT_WRITE, rows[0]).rowcount != 1:
                    raise no_checkpoint_error(thread_id, checkpoint_id)
            elif not rows:
                if conn.execute(_SELECT_CHECKPOINT, (thread_id, checkpoint_id)).fetchone() is None:
                    raise no_checkpoint_error(thread_id, checkpoint_id)
            else:
                with _atomic(conn):  # each row inserts only if the checkpoint exists: all or none do
                    if conn.executemany(_INSERT_WRITE, rows).rowcount != len(rows):
                        raise no_checkpoint_error(thread_id, checkpoint_id)

    def delete_thread(self, thread_id: str) -> None:
        if self.read_only:  # False for a saver that writes: no call per superstep
            self._writable()
        with self._transaction() as conn:
            self._forget()
            rows = conn.execute(
                "SELECT tid FROM threads WHERE thread_id = ? OR substr(thread_id, 1, ?) = ?",
                (thread_id, len(thread_id) + 1, thread_id + NS_SEP),
            ).fetchall()
            for (tid,) in rows:  # the thread and its subgraphs' namespaces
                conn.execute("DELETE FROM checkpoints WHERE cid BETWEEN ? AND ?", (tid << N_BITS, (tid << N_BITS) | N_MASK))
                self._segments.delete_thread(conn, tid)
                conn.execute("DELETE FROM writes WHERE tid = ?", (tid,))
                conn.execute("DELETE FROM threads WHERE tid = ?", (tid,))

    def namespaces(self, thread_id: str) -> Sequence[str]:
        prefix = thread_id + NS_SEP
        with self._lock, self._errors():
            rows = self._db().execute(
                "SELECT thread_id FROM threads WHERE substr(thread_id, 1, ?) = ? ORDER BY tid",
                (len(prefix), prefix),
            ).fetchall()
        return [r[0][len(prefix):] for r in rows]

    # -- reading ------------------------------------------------------------------------
    def load(self, thread_id: str, checkpoint_id: str | None = None) -> Checkpoint | None:
        with self._transaction("BEGIN") as conn:  # one snapshot for the row and its values
            if checkpoint_id is None:
                row = conn.execute(
                    f"SELECT {ROW_COLS} FROM checkpoints WHERE cid BETWEEN {_TID} << {N_BITS} AND ({_TID} << {N_BITS}) | ?"
                    " ORDER BY cid DESC LIMIT 1",
                    (thread_id, thread_id, N_MASK),
                ).fetchone()
            else:
                row = conn.execute(
                    f"SELECT {ROW_COLS} FROM checkpoints WHERE tid = {_TID} AND id = ?", (thread_id, checkpoint_id)
                ).fetchone()
            if row is None:
                return None
            found = self._fetch(conn, row)
        return self._decode(thread_id, *found)

    def _fetch(self, conn: sqlite3.Connection, read: tuple[Any, ...],
               ) -> tuple[StoredRow, dict[str, Entry], dict[str, tuple[bytes, int]]]:
        """A row read with `ROW_COLS`, its versions record and its values' bytes: the part
        of a load that must see one snapshot (the caller's transaction)."""
        row = StoredRow._make(read)
        vmap = self._check(row, parse_versions, row.versions, row.id, row.cid)
        load = self._segments.load
        # Channels that point at one stored value (only a crafted file does that) share
        # its bytes, read once; the total of one checkpoint is bounded.
        seen: dict[tuple[Any, Any], tuple[bytes, int]] = {}
        data: dict[str, tuple[bytes, int]] = {}
        total = 0
        for key, e in vmap.items():
            if len(e) != SEGMENTS:
                continue
            ref = (e[REF], e[COUNT])
            if ref not in seen:
                seen[ref] = (load(conn, row.id, key, e[REF], e[COUNT], e[SIZE]), e[TAGGED])
                total += len(seen[ref][0])
                if total > self.max_checkpoint_bytes:
                    raise CheckpointDecodeError(
                        f"`{self.path}`: checkpoint `{row.id}` takes over {self.max_checkpoint_bytes / 2**20:.0f} MB "
                        "in all; it was not loaded. If you trust the file, open it with "
                        "`SqliteSaver(path, max_value_bytes=...)` (a checkpoint may take 4 times that)."
                    )
            data[key] = seen[ref]
        data.update(self._inline(conn, row, vmap))
        return row, vmap, data

    def _decode(self, thread_id: str, row: StoredRow, vmap: dict[str, Entry],
                data: dict[str, tuple[bytes, int]]) -> Checkpoint:
        """The checkpoint from what `_fetch` read; runs outside the lock (a big value takes
        milliseconds to decode, and a run may be writing)."""
        head = self._check(row, header, thread_id, row)
        tasks, barriers, metadata = self._check(row, loads_extras, self.serde, row.extras, row.id)
        return Checkpoint(
            id=head.id, thread_id=thread_id, parent_id=head.parent_id, step=head.step,
            source=head.source, created_at=head.created_at,
            values=self._values(row, data),
            versions={key: e[VERSION] for key, e in vmap.items()}, barriers=barriers, tasks=tasks,
            nodes_ran=head.nodes_ran, metadata=metadata,
        )

    def _values(self, row: StoredRow, data: dict[str, tuple[bytes, int]]) -> dict[str, Any]:
        """Decode each distinct stored value once (channels sharing bytes share the value)."""
        decoded: dict[int, Any] = {}
        out = {}
        for key, blob in data.items():
            if id(blob) not in decoded:
                decoded[id(blob)] = self._check(row, self._load_value, key, *blob)
            out[key] = decoded[id(blob)]
        return out

    def _inline(self, conn: sqlite3.Connection, row: StoredRow, vmap: dict[str, Entry]) -> dict[str, tuple[bytes, int]]:
        """The small values kept inline: in this row, or in the rows that changed them."""
        rows: dict[int, Any] = {row.cid: row.inline}
        out = {}
        for key, e in vmap.items():
            if len(e) == INLINE_VALUE:
                cid = e[REF]
                if cid not in rows:
                    found = conn.execute("SELECT inline FROM checkpoints WHERE cid = ?", (cid,)).fetchone()
                    rows[cid] = found[0] if found is not None else None
                if type(rows[cid]) is bytes:
                    rows[cid] = self._check(row, parse_inline, rows[cid])
                held = rows[cid]
                if held is None or key not in held:
                    raise missing_value_error(self.path, row.id, key)
                out[key] = (held[key].encode(), 1)
        return out

    def _check(self, row: HeaderRow | StoredRow, fn: Any, *args: Any) -> Any:
        """Run a decoding step, naming the file and the checkpoint if the stored data is bad."""
        try:
            return fn(*args)
        except CheckpointDecodeError as e:
            raise CheckpointDecodeError(f"`{self.path}`, checkpoint {str(row.id)[:60]!r}: {e}") from None

    def _load_value(self, key: str, blob: bytes, tagged: int) -> Any:
        try:
            return self.serde.loads(blob, plain=not tagged)
        except CheckpointDecodeError as e:
            raise CheckpointDecodeError(f"channel `{key}`: {e}") from None

    def first_child(self, thread_id: str, checkpoint_id: str) -> str | None:
        with self._lock, self._errors():  # two indexed reads (sqlite_children.py)
            conn = self._db()
            self._forks = self._forks if self._forks[0] is conn else (conn, has_fork_index(conn))
            return first_child(conn, thread_id, checkpoint_id, self._forks[1])

    def pending_writes(self, thread_id: str, checkpoint_id: str) -> list[PendingWrite]:
        with self._lock, self._errors():
            rows = self._db().execute(
                f"SELECT task_id, task_name, channel, value FROM writes WHERE tid = {_TID} AND checkpoint = ? ORDER BY wid",
                (thread_id, checkpoint_id),
            ).fetchall()
        return decode_writes(self.serde, self.path, checkpoint_id, rows)

    def _pages(self, columns: str, thread_id: str, before: str | None, limit: int | None,
               size: int = 200, fetch: Any = None, fetch_page: Any = None) -> Iterator[Any]:
        """Rows newest first, fetched a page at a time so that a half-consumed iterator
        never holds the lock (the studio lists history while the run writes). With
        `fetch`, yields `fetch(conn, row)` of each row, in one snapshot per page (with
        `fetch_page`, what `fetch_page(conn, rows)` gives for the page's rows)."""
        left = max(limit, 0) if limit is not None else -1
        with self._lock, self._errors():
            conn = self._db()
            found = conn.execute("SELECT tid FROM threads WHERE thread_id = ?", (thread_id,)).fetchone()
            if found is None:
                return
            (tid,) = found
            low, bound = tid << N_BITS, (tid << N_BITS) | N_MASK
            if before is not None:
                at = conn.execute("SELECT cid FROM checkpoints WHERE tid = ? AND id = ?", (tid, before)).fetchone()
                if at is None:
                    return
                (cid,) = at
                bound = cid - 1
        query = f"SELECT {columns} FROM checkpoints WHERE cid BETWEEN ? AND ? ORDER BY cid DESC LIMIT ?"
        while left != 0:
            page = size if left < 0 else min(left, size)
            if fetch is None and fetch_page is None:
                with self._lock, self._errors():
                    rows = self._db().execute(query, (low, bound, page)).fetchall()
                yield from rows
            else:
                with self._transaction("BEGIN") as conn:
                    rows = conn.execute(query, (low, bound, page)).fetchall()
                    fetched = fetch_page(conn, rows) if fetch_page else [fetch(conn, row) for row in rows]
                yield from fetched
            if len(rows) < page:
                return
            oldest_cid = rows[-1][0]  # `columns` start with cid (HEADER_COLS, ROW_COLS)
            bound, left = oldest_cid - 1, (left - len(rows) if left > 0 else left)

    skips_unreadable = True
    """`list` and `list_headers` take `on_unreadable` (see `engine.checkpoint.reading`)."""

    def history(self, thread_id: str, *, before: str | None = None, limit: int | None = None,
             on_unreadable: Unreadable | None = None) -> Iterator[Checkpoint]:
        """Checkpoints newest first. A row that cannot be decoded raises CheckpointDecodeError;
        with `on_unreadable(checkpoint_id, reason)` it is reported there and skipped (a
        reader lists the rest of the thread). Reads only."""
        # Small pages: a caller often wants the first few (a timeline's visible rows).
        if on_unreadable is None:
            for found in self._pages(ROW_COLS, thread_id, before, limit, size=25, fetch=self._fetch):
                yield self._decode(thread_id, *found)
            return

        def fetch(conn: sqlite3.Connection, read: tuple[Any, ...]) -> Any:
            try:
                return self._fetch(conn, read)
            except CheckpointDecodeError as e:
                return _Skipped(read[1], str(e))

        for found in self._pages(ROW_COLS, thread_id, before, limit, size=25, fetch=fetch):
            if type(found) is _Skipped:
                on_unreadable(_row_name(found.id), found.reason)
                continue
            try:
                ckpt = self._decode(thread_id, *found)
            except CheckpointDecodeError as e:
                on_unreadable(_row_name(found[0].id), str(e))
                continue
            yield ckpt

    def list_headers(
        self, thread_id: str, *, before: str | None = None, limit: int | None = None,
        on_unreadable: Unreadable | None = None,
    ) -> Iterator[CheckpointHeader]:
        """Headers newest first; `on_unreadable` as in `list`."""
        for read in self._pages(HEADER_COLS, thread_id, before, limit):
            row = HeaderRow._make(read)
            if on_unreadable is None:
                yield self._check(row, header, thread_id, row)
                continue
            try:
                head = self._check(row, header, thread_id, row)
            except CheckpointDecodeError as e:
                on_unreadable(_row_name(row.id), str(e))
                continue
            yield head

    def threads(self) -> builtins.list[ThreadInfo]:
        with self._lock, self._errors():
            rows = self._db().execute(
                "SELECT t.thread_id, c.id, c.created_at, (SELECT count(*) FROM checkpoints AS k"
                f"  WHERE k.cid BETWEEN t.tid << {N_BITS} AND (t.tid << {N_BITS}) | {N_MASK})"
                " FROM threads AS t JOIN checkpoints AS c ON c.cid = (SELECT max(m.cid) FROM checkpoints AS m"
                f"  WHERE m.cid BETWEEN t.tid << {N_BITS} AND (t.tid << {N_BITS}) | {N_MASK})"
                " WHERE instr(t.thread_id, char(31)) = 0"  # a subgraph's namespace is part of its thread
                " ORDER BY c.created_at DESC, t.tid DESC"
            ).fetchall()
        return [ThreadInfo(thread_id=t, checkpoints=n, latest_id=i, updated_at=at) for t, i, at, n in rows]
