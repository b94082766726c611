"""`SqliteSaver`: checkpoints in one SQLite file, the studio's default store.

Durability: WAL journal, one transaction per `put`, `synchronous=NORMAL`. A superstep
whose `put` returned survives a crash or SIGKILL of the process (its WAL frames are in
the OS's file cache); a power loss or OS crash may drop the last few commits but never
corrupts the file. Readers in other processes see consistent snapshots while a run writes.

Storage grows with what changed. A channel changed by a checkpoint is stored once; the
checkpoints after it refer to it. A small value (not a list) lives in its checkpoint's row.
A list that a reducer only appended to is stored as its new items: segment `seq` of a
*chain* (`sid = chain << 20 | seq`); every 64 segments of a chain are moved into one
chunk row (with where each segment ends), so loading any version of a list reads one
range of chunks and at most 63 segments per chain, plus one chain per branch point above
it. No value is ever stored twice. Row numbers carry their thread (`cid = tid << 32 | n`),
so a thread's history is one range of the checkpoints table: no extra index to update.

Safety: opening never writes to a file that is not Retrograph's; loading never runs code
(see serde.py); SQLite itself refuses to hand over any value above `max_value_bytes`
(`SQLITE_LIMIT_LENGTH`), so a hostile file cannot make a load exhaust memory.
"""
from __future__ import annotations

import os
import sqlite3
import struct
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import orjson

from ..errors import (
    CheckpointDecodeError,
    CheckpointError,
    NotARetrographDatabase,
    UnsupportedSchemaVersion,
)
from .base import (
    BaseCheckpointSaver,
    Checkpoint,
    CheckpointHeader,
    PendingWrite,
    ThreadInfo,
)
from .serde import (
    DEFAULT_MAX_BYTES,
    Serializer,
    dumps_extras,
    encode_channel,
    join_list_segments,
    loads_extras,
    too_big_error,
)

__all__ = ["SqliteSaver", "APPLICATION_ID", "SCHEMA_VERSION"]

APPLICATION_ID = 0x52477068  # "RGph" in PRAGMA application_id: the file is Retrograph's
SCHEMA_VERSION = 1  # PRAGMA user_version; a newer one is refused, never rewritten

_SEQ_BITS, _N_BITS, _CHUNK = 20, 32, 64
_SEQ_MASK, _N_MASK = (1 << _SEQ_BITS) - 1, (1 << _N_BITS) - 1
_MB = 1024 * 1024

_SCHEMA = (
    "CREATE TABLE threads(tid INTEGER PRIMARY KEY AUTOINCREMENT, thread_id TEXT NOT NULL UNIQUE)",
    # cid = tid << 32 | n; parent: the parent's cid when in this thread, else its id.
    """CREATE TABLE checkpoints(
        cid INTEGER PRIMARY KEY, tid INTEGER NOT NULL, id TEXT NOT NULL, parent,
        step INTEGER NOT NULL, source TEXT NOT NULL, created_at TEXT NOT NULL,
        next BLOB NOT NULL, nodes_ran BLOB NOT NULL, versions BLOB NOT NULL, extras BLOB, inline BLOB)""",
    "CREATE UNIQUE INDEX checkpoints_by_id ON checkpoints(tid, id)",
    # sid = chain << 20 | seq; every 64 segments of a chain move into one row of chunks.
    "CREATE TABLE segments(sid INTEGER PRIMARY KEY, tid INTEGER NOT NULL, data BLOB NOT NULL)",
    # sid = chain << 20 | j: segments j*64 .. j*64+63 joined; ends: where each one ends.
    "CREATE TABLE chunks(sid INTEGER PRIMARY KEY, tid INTEGER NOT NULL, data BLOB NOT NULL, ends BLOB NOT NULL)",
    "CREATE TABLE origins(chain INTEGER PRIMARY KEY, tid INTEGER NOT NULL, origin INTEGER NOT NULL)",
    """CREATE TABLE writes(
        wid INTEGER PRIMARY KEY, tid INTEGER NOT NULL, checkpoint TEXT NOT NULL,
        task_id TEXT NOT NULL, task_name TEXT NOT NULL, channel TEXT NOT NULL, value BLOB NOT NULL)""",
    "CREATE INDEX writes_by_checkpoint ON writes(tid, checkpoint)",
)
_TABLES = frozenset({"threads", "checkpoints", "segments", "chunks", "origins", "writes"})

_TID = "(SELECT tid FROM threads WHERE thread_id = ?)"
_PARENT = (
    "CASE WHEN typeof(parent) = 'integer' THEN"
    " (SELECT p.id FROM checkpoints AS p WHERE p.cid = checkpoints.parent) ELSE parent END"
)
_HEADER_COLS = f"cid, id, {_PARENT}, step, source, created_at, next, nodes_ran"
_ROW_COLS = _HEADER_COLS + ", versions, extras, inline"
_INSERT_CHECKPOINT = (
    "INSERT INTO checkpoints(cid, tid, id, parent, step, source, created_at, next, nodes_ran, versions, extras, inline)"
    " SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM threads WHERE tid = ?)"
)
_INSERT_SEGMENT = "INSERT INTO segments(sid, tid, data) VALUES (?, ?, ?)"

# A versions-map entry: [version] (no value), [version, cid of the row holding it inline],
# or [version, sid, item count (None: not a list), bytes, tagged].
Entry = list
_INLINE = 256  # a changed value this small (and not a list) lives in its checkpoint's row


@dataclass(kw_only=True)
class _Known:
    """A stored checkpoint as the next put needs it: row number, versions, pending writes?"""

    cid: int
    vmap: dict[str, Entry]
    has_writes: bool


class _StaleCache(Exception):
    """Internal: a cached thread number no longer exists in the file."""


class SqliteSaver(BaseCheckpointSaver):
    """Checkpoints in a SQLite file (or `":memory:"`); safe to share between threads.

    History is listed in the order checkpoints were put, newest first; `before` names a
    checkpoint of the thread (an unknown one lists nothing). Values above
    `max_value_bytes` (32 MB) are neither saved nor loaded."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        serde: Serializer | None = None,
        max_value_bytes: int = DEFAULT_MAX_BYTES,
    ) -> None:
        if isinstance(path, sqlite3.Connection):
            raise TypeError(
                "SqliteSaver takes a file path (or ':memory:'), not a sqlite3 connection: write "
                "SqliteSaver(path) or `with SqliteSaver.from_conn_string(path) as saver:`"
            )
        self.path = os.fspath(path)
        self.serde = serde or Serializer(max_bytes=max_value_bytes)
        self._lock = threading.RLock()
        self._tids: dict[str, int] = {}
        self._next_n: dict[int, int] = {}  # thread number -> the next free n of its cids
        self._next_chain: int | None = None
        self._known: OrderedDict[tuple[int, str], _Known] = OrderedDict()
        self._conn: sqlite3.Connection | None = None
        self._conn = self._open()

    @classmethod
    def from_conn_string(cls, path: str | os.PathLike[str], **kwargs: Any) -> SqliteSaver:
        """`with SqliteSaver.from_conn_string("run.db") as saver:` (closed at the end)."""
        return cls(path, **kwargs)

    def __repr__(self) -> str:
        return f"SqliteSaver({self.path!r})"

    # -- opening ------------------------------------------------------------------------
    def _open(self) -> sqlite3.Connection:
        if self.path != ":memory:" and not self.path.startswith("file:"):
            _check_file_header(self.path)
        try:
            conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=10.0)
        except sqlite3.Error as e:
            raise CheckpointError(f"Cannot open `{self.path}`: {e}. Check that its folder exists and is writable.") from None
        try:
            with self._errors():
                self._validate_or_create(conn)
                if self.path != ":memory:":
                    conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, self.serde.max_bytes + 1024)
        except BaseException:
            conn.close()
            raise
        return conn

    def _validate_or_create(self, conn: sqlite3.Connection) -> None:
        """Check the file is ours and readable; create the schema only in an empty file."""
        app_id, version, tables = _identify(conn)
        if app_id == 0 and not tables:
            conn.execute("BEGIN IMMEDIATE")
            try:
                app_id, version, tables = _identify(conn)  # another process may have been first
                if app_id == 0 and not tables:
                    for statement in _SCHEMA:
                        conn.execute(statement)
                    conn.execute(f"PRAGMA application_id = {APPLICATION_ID:d}")
                    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION:d}")
                    app_id, version, tables = APPLICATION_ID, SCHEMA_VERSION, set(_TABLES)
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        if app_id != APPLICATION_ID:
            raise NotARetrographDatabase(
                f"`{self.path}` is a SQLite database but not a Retrograph checkpoint file (its tables: "
                f"{', '.join(sorted(tables)[:8]) or 'none'}). Retrograph left it untouched; choose "
                "another file for checkpoints."
            )
        if version > SCHEMA_VERSION:
            raise UnsupportedSchemaVersion(
                f"`{self.path}` was written by a newer Retrograph (checkpoint schema {version}; this "
                f"version reads schema {SCHEMA_VERSION} and older). Upgrade Retrograph to open it; "
                "the file was left untouched."
            )
        missing = _TABLES - tables
        if version < 1 or missing:
            raise CheckpointError(
                f"`{self.path}` is a damaged Retrograph checkpoint file (schema {version}, missing tables: "
                f"{', '.join(sorted(missing)) or 'none'}). Restore it from a backup."
            )

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as e:
            raise self._translate(e) from None

    def _translate(self, e: sqlite3.Error) -> CheckpointError:
        """SQLite's error as one that names the file and says what to do."""
        text = str(e)
        if isinstance(e, sqlite3.DataError) and "too big" in text:
            return CheckpointDecodeError(
                f"`{self.path}` holds a stored value larger than the {self.serde.max_bytes / _MB:.0f} MB "
                "limit; it was not loaded. If you trust the file, open it with "
                "`SqliteSaver(path, max_value_bytes=...)`."
            )
        if "malformed" in text or "not a database" in text or "corrupt" in text:
            return CheckpointError(
                f"`{self.path}` is corrupt or truncated (SQLite: {text}). Retrograph changed nothing; "
                f"restore it from a backup, or salvage what is left with `sqlite3 {self.path} .recover`."
            )
        if "locked" in text or "busy" in text:
            return CheckpointError(
                f"`{self.path}` is locked by another process that keeps writing to it; try again when that run ends."
            )
        if self._conn is None:
            return CheckpointError(f"{self!r} is closed; open the file again to use it")
        return CheckpointError(f"`{self.path}`: {text}")

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            raise CheckpointError(f"{self!r} is closed; open the file again to use it")
        return self._conn

    @contextmanager
    def _transaction(self, begin: str = "BEGIN IMMEDIATE") -> Iterator[sqlite3.Connection]:
        with self._lock, self._errors():
            conn = self._db()
            conn.execute(begin)
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    # -- writing ------------------------------------------------------------------------
    def put(
        self,
        checkpoint: Checkpoint,
        *,
        appended: Mapping[str, tuple[str, Sequence[Any]]] | None = None,
    ) -> None:
        with self._lock:
            try:
                self._put(checkpoint, appended)
            except _StaleCache:  # another saver deleted this thread since we cached its number
                self._forget()
                self._put(checkpoint, appended)

    def _put(self, c: Checkpoint, appended: Mapping[str, tuple[str, Sequence[Any]]] | None) -> None:
        tid = self._tid(c.thread_id)
        parent = self._lookup(tid, c.parent_id) if c.parent_id is not None else None
        pmap = parent.vmap if parent is not None else None
        vmap: dict[str, Entry] = {}
        # Encode everything before the transaction: a failure leaves the file as it was.
        staged: list[tuple[str, bytes, int | None]] = []  # (key, segment, sid of its base)
        inline: dict[str, str] = {}
        for key, version in c.versions.items():
            if key not in c.values:
                vmap[key] = [version]
            elif version != c.id:
                vmap[key] = self._entry(tid, c, key, version, pmap)
            else:
                base = self._find(tid, key, appended[key][0], pmap) if appended and key in appended else None
                if base is not None and (len(base) != 5 or base[2] is None):
                    base = None  # the base is not a list
                n_items = len(appended[key][1]) if base is not None and appended else None
                kind, data, count, tagged = encode_channel(
                    self.serde, key, c.values[key], base[2] if base is not None else None, n_items
                )
                if kind == "value" and len(data) <= _INLINE:
                    inline[key] = data.decode()
                    vmap[key] = [version, 0]  # 0: this row, whose number the insert gives
                    continue
                if kind != "append":
                    base = None
                size = len(data) + 2 + (base[3] if base is not None else 0)
                if size > self.serde.max_bytes:
                    raise too_big_error(key, size, self.serde.max_bytes)
                staged.append((key, data, base[1] if base is not None else None))
                vmap[key] = [version, 0, count, size, int(tagged or (base is not None and base[4]))]
        for key in c.values:
            if key not in c.versions:
                raise ValueError(f"checkpoint `{c.id}`: channel `{key}` has a value but no version")
        row = [
            tid, c.id, parent.cid if parent is not None else c.parent_id, c.step, c.source, c.created_at,
            orjson.dumps(list(c.next)), orjson.dumps(list(c.nodes_ran)), None, dumps_extras(self.serde, c),
            orjson.dumps(inline) if inline else None, tid,
        ]
        drop_writes = c.parent_id is not None and (parent is None or parent.has_writes)
        conn = self._db()
        try:
            if not staged and not drop_writes:  # one statement: its own transaction
                row[8] = _dump_versions(vmap, c.id, 0)
                cid = self._insert_checkpoint(conn, tid, row, c.thread_id)
            else:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    for key, data, base_sid in staged:
                        vmap[key][1] = self._store(conn, tid, data, base_sid)
                    row[8] = _dump_versions(vmap, c.id, 0)
                    cid = self._insert_checkpoint(conn, tid, row, c.thread_id)
                    if drop_writes:
                        conn.execute("DELETE FROM writes WHERE tid = ? AND checkpoint = ?", (tid, c.parent_id))
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
        except sqlite3.Error as e:
            self._forget()
            raise self._translate(e) from None
        for key in inline:
            vmap[key][1] = cid
        self._remember(tid, c.id, _Known(cid=cid, vmap=vmap, has_writes=False))
        if parent is not None:
            parent.has_writes = False

    def _insert_checkpoint(self, conn: sqlite3.Connection, tid: int, row: list[Any], thread_id: str) -> int:
        """Insert the checkpoint row under the thread's next row number; returns it."""
        while True:
            n = self._next_n.get(tid)
            if n is None:
                top = conn.execute(
                    "SELECT max(cid) FROM checkpoints WHERE cid BETWEEN ? AND ?", (tid << _N_BITS, (tid << _N_BITS) | _N_MASK)
                ).fetchone()[0]
                n = (top & _N_MASK) + 1 if top is not None else 0
            try:
                inserted = conn.execute(_INSERT_CHECKPOINT, ((tid << _N_BITS) | n, *row)).rowcount
            except sqlite3.IntegrityError as e:
                if "checkpoints.id" in str(e):
                    raise ValueError(
                        f"checkpoint `{row[1]}` already exists in thread `{thread_id}`: checkpoints are "
                        "immutable, save the change as a new checkpoint with a new id"
                    ) from None
                self._next_n.pop(tid, None)  # another saver wrote to this thread: count again
                continue
            if inserted != 1:
                raise _StaleCache
            self._next_n[tid] = n + 1
            return (tid << _N_BITS) | n

    def _store(self, conn: sqlite3.Connection, tid: int, data: bytes, base_sid: int | None) -> int:
        """Insert one segment; returns its sid. An append goes right after its base when
        the base is its chain's tip, else it starts a new chain whose origin is the base."""
        if base_sid is not None and (base_sid & _SEQ_MASK) != _SEQ_MASK:
            sid = base_sid + 1
            closes = (sid & _SEQ_MASK) % _CHUNK == _CHUNK - 1
            merged = conn.execute("SELECT 1 FROM chunks WHERE sid = ?", (_chunk_of(sid),)).fetchone()
            try:
                if merged is None:  # else the chain goes on past the base: this is a branch
                    conn.execute(_INSERT_SEGMENT, (sid, tid, data))
                    if closes:
                        self._close_chunk(conn, tid, sid)
                    return sid
            except sqlite3.IntegrityError:
                pass  # the base already has a successor: this is a branch
        while True:
            if self._next_chain is None:
                top = conn.execute("SELECT max(sid) FROM segments").fetchone()[0]
                self._next_chain = (top >> _SEQ_BITS) + 1 if top is not None else 1
            chain = self._next_chain
            self._next_chain += 1
            try:
                conn.execute(_INSERT_SEGMENT, (chain << _SEQ_BITS, tid, data))
                break
            except sqlite3.IntegrityError:  # another saver on this file took that chain
                self._next_chain = None
        if base_sid is not None:
            conn.execute("INSERT INTO origins(chain, tid, origin) VALUES (?, ?, ?)", (chain, tid, base_sid))
        return chain << _SEQ_BITS

    def _close_chunk(self, conn: sqlite3.Connection, tid: int, last: int) -> None:
        """Move the 64 segments ending at `last` into one chunk row, so that loading a long
        list reads a row per 64 appends."""
        first = last - _CHUNK + 1
        parts = [r[0] for r in conn.execute("SELECT data FROM segments WHERE sid BETWEEN ? AND ? ORDER BY sid", (first, last))]
        if len(parts) != _CHUNK:  # a damaged chain: leave it as it is
            return
        joined: list[bytes] = []
        ends, pos = [], 0
        for part in parts:
            if part:
                pos += len(part) + (1 if joined else 0)
                joined.append(part)
            ends.append(pos)
        conn.execute(
            "INSERT INTO chunks(sid, tid, data, ends) VALUES (?, ?, ?, ?)",
            (_chunk_of(last), tid, b",".join(joined), struct.pack(f"<{_CHUNK}I", *ends)),
        )
        conn.execute("DELETE FROM segments WHERE sid BETWEEN ? AND ?", (first, last))

    def _tid(self, thread_id: str) -> int:
        """The thread's number, creating the thread's row on first use."""
        tid = self._tids.get(thread_id)
        if tid is None:
            with self._errors():
                conn = self._db()
                conn.execute("INSERT OR IGNORE INTO threads(thread_id) VALUES (?)", (thread_id,))
                tid = conn.execute("SELECT tid FROM threads WHERE thread_id = ?", (thread_id,)).fetchone()[0]
            self._tids[thread_id] = tid
        return tid

    def _forget(self) -> None:
        self._tids.clear()
        self._next_n.clear()
        self._next_chain = None
        self._known.clear()

    def _lookup(self, tid: int, checkpoint_id: str) -> _Known | None:
        """What a put needs to know of a stored checkpoint; cached, as the next put's
        parent is usually the last put."""
        found = self._known.get((tid, checkpoint_id))
        if found is not None:
            return found
        with self._errors():
            row = self._db().execute(
                "SELECT cid, versions FROM checkpoints WHERE tid = ? AND id = ?", (tid, checkpoint_id)
            ).fetchone()
        if row is None:
            return None
        try:
            known = _Known(cid=row[0], vmap=_parse_versions(row[1], checkpoint_id, row[0]), has_writes=True)
        except CheckpointDecodeError as e:
            raise CheckpointDecodeError(f"`{self.path}`, checkpoint {checkpoint_id!r}: {e}") from None
        self._remember(tid, checkpoint_id, known)
        return known

    def _remember(self, tid: int, checkpoint_id: str, known: _Known) -> None:
        self._known[(tid, checkpoint_id)] = known
        if len(self._known) > 64:
            self._known.popitem(last=False)

    def _find(self, tid: int, key: str, version: str, pmap: dict[str, Entry] | None) -> Entry | None:
        """Where `key`'s value at `version` is stored: as the parent has it, or as the
        checkpoint that made that version has it."""
        entry = pmap.get(key) if pmap is not None else None
        if entry is None or entry[0] != version:
            owner = self._lookup(tid, version)
            entry = owner.vmap.get(key) if owner is not None else None
        return entry if entry is not None and entry[0] == version and len(entry) > 1 else None

    def _entry(self, tid: int, c: Checkpoint, key: str, version: str, pmap: dict[str, Entry] | None) -> Entry:
        entry = self._find(tid, key, version, pmap)
        if entry is None:
            raise ValueError(
                f"checkpoint `{c.id}`: channel `{key}` has version `{version}`, but no value was stored "
                f"under that version in thread `{c.thread_id}`; a changed channel's version must be the "
                "id of the checkpoint that changes it"
            )
        return entry

    def put_writes(self, thread_id: str, checkpoint_id: str, writes: Sequence[PendingWrite]) -> None:
        rows = [(w.task_id, w.task_name, w.channel, self.serde.dumps(w.value, where=w.channel)) for w in writes]
        with self._transaction() as conn:
            found = conn.execute(
                f"SELECT tid FROM checkpoints WHERE tid = {_TID} AND id = ?", (thread_id, checkpoint_id)
            ).fetchone()
            if found is None:
                raise ValueError(
                    f"put_writes: no checkpoint `{checkpoint_id}` in thread `{thread_id}`; "
                    "save the checkpoint with put() first"
                )
            tid = found[0]
            known = self._known.get((tid, checkpoint_id))
            if known is not None:
                known.has_writes = True
            conn.executemany(
                "INSERT INTO writes(tid, checkpoint, task_id, task_name, channel, value) VALUES (?, ?, ?, ?, ?, ?)",
                [(tid, checkpoint_id, *r) for r in rows],
            )

    def delete_thread(self, thread_id: str) -> None:
        with self._transaction() as conn:
            self._forget()
            row = conn.execute("SELECT tid FROM threads WHERE thread_id = ?", (thread_id,)).fetchone()
            if row is not None:
                tid = row[0]
                conn.execute("DELETE FROM checkpoints WHERE cid BETWEEN ? AND ?", (tid << _N_BITS, (tid << _N_BITS) | _N_MASK))
                conn.execute("DELETE FROM segments WHERE tid = ?", (tid,))
                conn.execute("DELETE FROM chunks WHERE tid = ?", (tid,))
                conn.execute("DELETE FROM origins WHERE tid = ?", (tid,))
                conn.execute("DELETE FROM writes WHERE tid = ?", (tid,))
                conn.execute("DELETE FROM threads WHERE tid = ?", (tid,))

    # -- reading ------------------------------------------------------------------------
    def get(self, thread_id: str, checkpoint_id: str | None = None) -> Checkpoint | None:
        with self._transaction("BEGIN") as conn:  # one snapshot for the row and its values
            if checkpoint_id is None:
                row = conn.execute(
                    f"SELECT {_ROW_COLS} FROM checkpoints WHERE cid BETWEEN {_TID} << 32 AND ({_TID} << 32) | ?"
                    " ORDER BY cid DESC LIMIT 1",
                    (thread_id, thread_id, _N_MASK),
                ).fetchone()
            else:
                row = conn.execute(
                    f"SELECT {_ROW_COLS} FROM checkpoints WHERE tid = {_TID} AND id = ?", (thread_id, checkpoint_id)
                ).fetchone()
            if row is None:
                return None
            vmap = self._check(row, _parse_versions, row[8], row[1], row[0])
            data = {key: (self._assemble(conn, row[1], key, e), e[4]) for key, e in vmap.items() if len(e) == 5}
            data.update(self._inline(conn, row, vmap))
        header = self._check(row, _header, thread_id, row)
        tasks, barriers, metadata = self._check(row, loads_extras, self.serde, row[9], row[1])
        return Checkpoint(
            id=header.id, thread_id=thread_id, parent_id=header.parent_id, step=header.step,
            source=header.source, created_at=header.created_at,
            values={key: self._check(row, self._load_value, key, *blob) for key, blob in data.items()},
            versions={key: e[0] for key, e in vmap.items()}, barriers=barriers, tasks=tasks,
            nodes_ran=header.nodes_ran, metadata=metadata,
        )

    def _inline(self, conn: sqlite3.Connection, row: tuple[Any, ...], vmap: dict[str, Entry]) -> dict[str, tuple[bytes, int]]:
        """The small values kept inline: in this row, or in the rows that changed them."""
        rows: dict[int, Any] = {row[0]: row[10]}
        out = {}
        for key, e in vmap.items():
            if len(e) == 2:
                if e[1] not in rows:
                    found = conn.execute("SELECT inline FROM checkpoints WHERE cid = ?", (e[1],)).fetchone()
                    rows[e[1]] = found[0] if found is not None else None
                if type(rows[e[1]]) is bytes:
                    rows[e[1]] = self._check(row, _parse_inline, rows[e[1]])
                held = rows[e[1]]
                if held is None or key not in held:
                    raise _missing(self.path, row[1], key)
                out[key] = (held[key].encode(), 1)
        return out

    def _check(self, row: tuple[Any, ...], fn: Any, *args: Any) -> Any:
        """Run a decoding step, naming the file and the checkpoint if the stored data is bad."""
        try:
            return fn(*args)
        except CheckpointDecodeError as e:
            raise CheckpointDecodeError(f"`{self.path}`, checkpoint {str(row[1])[:60]!r}: {e}") from None

    def _load_value(self, key: str, blob: bytes, tagged: int) -> Any:
        try:
            return self.serde.loads(blob, plain=not tagged)
        except CheckpointDecodeError as e:
            raise CheckpointDecodeError(f"channel `{key}`: {e}") from None

    def _assemble(self, conn: sqlite3.Connection, cid: str, key: str, entry: Entry) -> bytes:
        """The encoded value of one channel: its chunks and segments, chain by chain."""
        _, sid, count, size, _ = entry
        limit = self.serde.max_bytes
        if size > limit:
            raise CheckpointDecodeError(
                f"`{self.path}`: channel `{key}` of checkpoint `{cid}` takes {size / _MB:.1f} MB, over the "
                f"{limit / _MB:.0f} MB limit; it was not loaded. If you trust the file, open it with "
                "`SqliteSaver(path, max_value_bytes=...)`."
            )
        if count is None:
            row = conn.execute("SELECT data FROM segments WHERE sid = ?", (sid,)).fetchone()
            if row is None:
                raise _missing(self.path, cid, key)
            return row[0]
        pieces: list[list[bytes]] = []
        total = 0
        while True:
            part = self._chain_part(conn, sid, cid, key)
            total += sum(map(len, part)) + len(part)
            if total > limit or len(pieces) > 10_000:
                raise CheckpointDecodeError(f"`{self.path}`: channel `{key}` of checkpoint `{cid}` is malformed")
            pieces.append(part)
            row = conn.execute("SELECT origin FROM origins WHERE chain = ?", (sid >> _SEQ_BITS,)).fetchone()
            if row is None:
                break
            sid = row[0]
        return join_list_segments(s for part in reversed(pieces) for s in part)

    def _chain_part(self, conn: sqlite3.Connection, sid: int, cid: str, key: str) -> list[bytes]:
        """One chain's segments up to `sid`: whole chunks, then the segments after them (or
        the part of the chunk that holds `sid`)."""
        base, seq = sid & ~_SEQ_MASK, sid & _SEQ_MASK
        rows = conn.execute(
            "SELECT sid, data, ends FROM chunks WHERE sid BETWEEN ? AND ? ORDER BY sid", (base, base + seq // _CHUNK)
        ).fetchall()
        if any(r[0] != base + i for i, r in enumerate(rows)) or len(rows) < seq // _CHUNK:
            raise _missing(self.path, cid, key)
        part = [r[1] for r in rows]
        if len(rows) > seq // _CHUNK:  # `sid` lies inside the last chunk: keep its start
            ends = rows[-1][2]
            if type(ends) is not bytes or len(ends) != 4 * _CHUNK:
                raise CheckpointDecodeError(f"`{self.path}`: channel `{key}` of checkpoint `{cid}` is malformed")
            part[-1] = part[-1][: struct.unpack_from("<I", ends, 4 * (seq % _CHUNK))[0]]
            return part
        first = base + len(rows) * _CHUNK
        tail = [r[0] for r in conn.execute("SELECT data FROM segments WHERE sid BETWEEN ? AND ? ORDER BY sid", (first, sid))]
        if len(tail) != sid - first + 1:
            raise _missing(self.path, cid, key)
        return part + tail

    def pending_writes(self, thread_id: str, checkpoint_id: str) -> list[PendingWrite]:
        with self._lock, self._errors():
            rows = self._db().execute(
                f"SELECT task_id, task_name, channel, value FROM writes WHERE tid = {_TID} AND checkpoint = ? ORDER BY wid",
                (thread_id, checkpoint_id),
            ).fetchall()
        out = []
        for task_id, task_name, channel, value in rows:
            try:
                if not (type(task_id) is str and type(task_name) is str and type(channel) is str):
                    raise CheckpointDecodeError("its task or channel is not text")
                decoded = self.serde.loads(value)
            except CheckpointDecodeError as e:
                raise CheckpointDecodeError(f"`{self.path}`, a pending write of `{checkpoint_id}`: {e}") from None
            out.append(PendingWrite(task_id=task_id, task_name=task_name, channel=channel, value=decoded))
        return out

    def _pages(self, columns: str, thread_id: str, before: str | None, limit: int | None) -> Iterator[tuple[Any, ...]]:
        """Rows newest first, fetched a page at a time so that a half-consumed iterator
        never holds the lock (the studio lists history while the run writes)."""
        left = max(limit, 0) if limit is not None else -1
        with self._lock, self._errors():
            conn = self._db()
            found = conn.execute("SELECT tid FROM threads WHERE thread_id = ?", (thread_id,)).fetchone()
            if found is None:
                return
            low, bound = found[0] << _N_BITS, (found[0] << _N_BITS) | _N_MASK
            if before is not None:
                row = conn.execute("SELECT cid FROM checkpoints WHERE tid = ? AND id = ?", (found[0], before)).fetchone()
                if row is None:
                    return
                bound = row[0] - 1
        while left != 0:
            page = 200 if left < 0 else min(left, 200)
            with self._lock, self._errors():
                rows = self._db().execute(
                    f"SELECT {columns} FROM checkpoints WHERE cid BETWEEN ? AND ? ORDER BY cid DESC LIMIT ?",
                    (low, bound, page),
                ).fetchall()
            yield from rows
            if len(rows) < page:
                return
            bound, left = rows[-1][0] - 1, (left - len(rows) if left > 0 else left)

    def list(self, thread_id: str, *, before: str | None = None, limit: int | None = None) -> Iterator[Checkpoint]:
        for row in self._pages("cid, id", thread_id, before, limit):
            found = self.get(thread_id, row[1])
            if found is not None:
                yield found

    def list_headers(
        self, thread_id: str, *, before: str | None = None, limit: int | None = None
    ) -> Iterator[CheckpointHeader]:
        for row in self._pages(_HEADER_COLS, thread_id, before, limit):
            yield self._check(row, _header, thread_id, row)

    def threads(self) -> list[ThreadInfo]:
        with self._lock, self._errors():
            rows = self._db().execute(
                "SELECT t.thread_id, c.id, c.created_at, (SELECT count(*) FROM checkpoints AS k"
                "  WHERE k.cid BETWEEN t.tid << 32 AND (t.tid << 32) | 4294967295)"
                " FROM threads AS t JOIN checkpoints AS c ON c.cid = (SELECT max(m.cid) FROM checkpoints AS m"
                "  WHERE m.cid BETWEEN t.tid << 32 AND (t.tid << 32) | 4294967295)"
                " ORDER BY c.created_at DESC, t.tid DESC"
            ).fetchall()
        return [ThreadInfo(thread_id=t, checkpoints=n, latest_id=i, updated_at=at) for t, i, at, n in rows]


def _chunk_of(sid: int) -> int:
    """The sid of the chunk that holds (or will hold) segment `sid`."""
    return (sid & ~_SEQ_MASK) | ((sid & _SEQ_MASK) // _CHUNK)


def _check_file_header(path: str) -> None:
    """Refuse a file that is not SQLite, or is cut short, before SQLite touches it."""
    try:
        size = os.path.getsize(path)
        if size == 0:
            return
        with open(path, "rb") as f:
            head = f.read(100)
    except FileNotFoundError:
        return
    except OSError as e:
        raise CheckpointError(f"Cannot open `{path}`: {e}") from None
    if not head.startswith(b"SQLite format 3\x00"):
        raise NotARetrographDatabase(
            f"`{path}` is not a SQLite database (it starts with {head[:16]!r}), so it is not a Retrograph "
            "checkpoint file. Check the path; Retrograph left the file untouched."
        )
    page_size = int.from_bytes(head[16:18], "big") if len(head) == 100 else 0
    pages = int.from_bytes(head[28:32], "big")
    expected = pages * (65536 if page_size == 1 else page_size)
    if len(head) < 100 or (head[24:28] == head[92:96] and size < expected):
        raise CheckpointError(
            f"`{path}` is truncated ({size} bytes; its header says {expected}). Retrograph changed nothing; "
            f"restore it from a backup, or salvage what is left with `sqlite3 {path} .recover`."
        )


def _identify(conn: sqlite3.Connection) -> tuple[int, int, set[str]]:
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    tables.discard("sqlite_sequence")
    return app_id, version, tables


def _dump_versions(vmap: dict[str, Entry], own_id: str, own_cid: int) -> bytes:
    """The versions map as stored: the checkpoint's own id is "", its own row number 0."""
    return orjson.dumps({
        k: ["" if e[0] == own_id else e[0], *((0,) if len(e) == 2 and e[1] == own_cid else e[1:])]
        for k, e in vmap.items()
    })


def _parse_inline(data: Any) -> dict[str, str]:
    try:
        held = orjson.loads(data)
    except orjson.JSONDecodeError:
        held = None
    if type(held) is not dict or not all(type(v) is str for v in held.values()):
        raise CheckpointDecodeError("its inline values are malformed")
    return held


def _parse_versions(data: Any, own_id: str, own_cid: int) -> dict[str, Entry]:
    try:
        vmap = orjson.loads(data)
    except (orjson.JSONDecodeError, TypeError):
        vmap = None
    if type(vmap) is not dict or not all(
        type(e) is list and e and type(e[0]) is str and (
            len(e) == 1 or (len(e) == 2 and type(e[1]) is int)
            or (len(e) == 5 and type(e[1]) is int and type(e[3]) is int and type(e[4]) is int
                and (e[2] is None or type(e[2]) is int))
        )
        for e in vmap.values()
    ):
        raise CheckpointDecodeError("its versions record is malformed")
    for e in vmap.values():
        if e[0] == "":
            e[0] = own_id
        if len(e) == 2 and e[1] == 0:
            e[1] = own_cid
    return vmap


def _strings(data: Any) -> tuple[str, ...]:
    got = orjson.loads(data)
    if type(got) is not list or not all(type(s) is str for s in got):
        raise ValueError("not a list of names")
    return tuple(got)


def _header(thread_id: str, row: tuple[Any, ...]) -> CheckpointHeader:
    _, cid, parent, step, source, created_at, nxt, nodes_ran = row[:8]
    try:
        if not (type(cid) is str and type(step) is int and type(source) is str and type(created_at) is str
                and (parent is None or type(parent) is str)):
            raise ValueError("a column has the wrong type")
        return CheckpointHeader(
            id=cid, thread_id=thread_id, parent_id=parent, step=step, source=source,
            created_at=created_at, next=_strings(nxt), nodes_ran=_strings(nodes_ran),
        )
    except (ValueError, TypeError) as e:
        raise CheckpointDecodeError(f"its record is malformed ({e})") from None


def _missing(path: str, cid: str, key: str) -> CheckpointError:
    return CheckpointError(
        f"`{path}`: the stored value of channel `{key}` of checkpoint `{cid}` is missing (the file was "
        "damaged or edited by hand). Restore it from a backup."
    )
