"""`SqliteSaver`: checkpoints in one SQLite file, the studio's default store.

Durability: WAL journal, one transaction per `put`, `synchronous=NORMAL`. A committed
superstep survives a crash or SIGKILL of the process (the WAL frames are in the OS's
file cache when `put` returns); a power loss may drop the last few commits, never corrupt
the file. Readers in other processes see consistent snapshots while a run writes.

Storage grows with what changed: a channel changed by a checkpoint is stored once, under
that checkpoint's id. A list that a reducer only appended to is stored as its new items:
segment `seq` of a *chain* (`sid = chain << 20 | seq`), so loading it is one range scan
of that chain plus one per branch point above it. Nothing stored is ever rewritten.

Safety: opening never rewrites a file that is not Retrograph's; loading never runs code
(see serde.py); every stored value is bounded by `max_value_bytes`, enforced by SQLite
itself (`SQLITE_LIMIT_LENGTH`) before a blob reaches Python.
"""
from __future__ import annotations

import os
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import orjson

from ..errors import CheckpointDecodeError, CheckpointError, NotARetrographDatabase, UnsupportedSchemaVersion
from .base import BaseCheckpointSaver, Checkpoint, CheckpointHeader, PendingWrite, ThreadInfo
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

APPLICATION_ID = 0x52477068  # "RGph": marks the file as Retrograph's (PRAGMA application_id)
SCHEMA_VERSION = 1  # PRAGMA user_version; a newer one is refused, never rewritten

_SEQ_BITS = 20
_SEQ_MASK = (1 << _SEQ_BITS) - 1
_MB = 1024 * 1024

_SCHEMA = (
    """CREATE TABLE threads(
        tid INTEGER PRIMARY KEY, thread_id TEXT NOT NULL UNIQUE,
        n INTEGER NOT NULL DEFAULT 0, latest INTEGER)""",
    """CREATE TABLE checkpoints(
        cid INTEGER PRIMARY KEY, tid INTEGER NOT NULL, id TEXT NOT NULL, parent TEXT,
        step INTEGER NOT NULL, source TEXT NOT NULL, created_at TEXT NOT NULL,
        next BLOB NOT NULL, nodes_ran BLOB NOT NULL, versions BLOB NOT NULL, extras BLOB)""",
    "CREATE UNIQUE INDEX checkpoints_by_id ON checkpoints(tid, id)",
    "CREATE INDEX checkpoints_by_age ON checkpoints(tid)",  # (tid, cid): cid is the rowid
    "CREATE TABLE segments(sid INTEGER PRIMARY KEY, tid INTEGER NOT NULL, data BLOB NOT NULL)",
    "CREATE TABLE origins(chain INTEGER PRIMARY KEY, tid INTEGER NOT NULL, origin INTEGER NOT NULL)",
    """CREATE TABLE writes(
        wid INTEGER PRIMARY KEY, tid INTEGER NOT NULL, checkpoint TEXT NOT NULL,
        task_id TEXT NOT NULL, task_name TEXT NOT NULL, channel TEXT NOT NULL, value BLOB NOT NULL)""",
    "CREATE INDEX writes_by_checkpoint ON writes(tid, checkpoint)",
)
_TABLES = frozenset({"threads", "checkpoints", "segments", "origins", "writes"})

_HEADER_COLS = "cid, id, parent, step, source, created_at, next, nodes_ran"
_ROW_COLS = _HEADER_COLS + ", versions, extras"
_TID = "(SELECT tid FROM threads WHERE thread_id = ?)"

Entry = list  # versions-map entry: [version] or [version, sid, item count | None, bytes]


class SqliteSaver(BaseCheckpointSaver):
    """Checkpoints in a SQLite file (or `":memory:"`); safe to share between threads."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        serde: Serializer | None = None,
        max_value_bytes: int = DEFAULT_MAX_BYTES,
    ) -> None:
        if isinstance(path, sqlite3.Connection):
            raise TypeError("SqliteSaver takes a file path (or ':memory:'), not a sqlite3 connection")
        self.path = os.fspath(path)
        self.serde = serde or Serializer(max_bytes=max_value_bytes)
        self._lock = threading.RLock()
        self._tids: dict[str, int] = {}
        self._vmaps: OrderedDict[tuple[int, str], dict[str, Entry]] = OrderedDict()
        self._conn: sqlite3.Connection | None = None
        self._conn = self._open()

    @classmethod
    def from_conn_string(cls, path: str | os.PathLike[str], **kwargs: Any) -> SqliteSaver:
        """`with SqliteSaver.from_conn_string("run.db") as saver:` (closes at the end)."""
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
            raise CheckpointError(
                f"Cannot open `{self.path}`: {e}. Check that its folder exists and is writable."
            ) from None
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
                app_id, version, tables = _identify(conn)  # another process may have won the race
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
            shown = ", ".join(sorted(tables)[:8]) or "none"
            raise NotARetrographDatabase(
                f"`{self.path}` is a SQLite database but not a Retrograph checkpoint file (its tables: "
                f"{shown}). Retrograph left it untouched; choose another file for checkpoints."
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
                f"`{self.path}` is a damaged Retrograph checkpoint file (missing tables: "
                f"{', '.join(sorted(missing)) or 'none'}; schema {version}). Restore it from a backup."
            )

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """Turn SQLite's errors into ones that name the file and say what to do."""
        try:
            yield
        except sqlite3.DataError as e:
            if "too big" in str(e):
                raise CheckpointDecodeError(
                    f"`{self.path}` holds a stored value larger than the "
                    f"{self.serde.max_bytes / _MB:.0f} MB limit; it was not loaded. If you trust the "
                    "file, open it with `SqliteSaver(path, max_value_bytes=...)`."
                ) from None
            raise CheckpointError(f"`{self.path}`: {e}") from None
        except sqlite3.DatabaseError as e:
            text = str(e)
            if "malformed" in text or "not a database" in text or "corrupt" in text:
                raise CheckpointError(
                    f"`{self.path}` is corrupt or truncated (SQLite: {text}). Retrograph changed nothing; "
                    f"restore it from a backup, or salvage what is left with `sqlite3 {self.path} .recover`."
                ) from None
            if "locked" in text or "busy" in text:
                raise CheckpointError(
                    f"`{self.path}` is locked by another process that keeps writing to it; "
                    "try again when that run ends."
                ) from None
            raise CheckpointError(f"`{self.path}`: {text}") from None
        except sqlite3.ProgrammingError as e:
            if self._conn is None:
                raise CheckpointError(f"{self!r} is closed; open the file again to use it") from None
            raise CheckpointError(f"`{self.path}`: {e}") from None

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            raise CheckpointError(f"{self!r} is closed; open the file again to use it")
        return self._conn

    @contextmanager
    def _transaction(self, immediate: bool = True) -> Iterator[sqlite3.Connection]:
        with self._lock, self._errors():
            conn = self._db()
            conn.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
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
            except _StaleCache:  # another saver deleted this thread since we cached its id
                self._tids.clear()
                self._vmaps.clear()
                self._put(checkpoint, appended)

    def _put(self, c: Checkpoint, appended: Mapping[str, tuple[str, Sequence[Any]]] | None) -> None:
        tid = self._tid(c.thread_id, create=True)
        assert tid is not None
        parent = self._vmap(tid, c.parent_id) if c.parent_id is not None else None
        vmap: dict[str, Entry] = {}
        # Encode everything before the transaction: a failure leaves the file as it was.
        staged: list[tuple[str, bytes, int | None]] = []  # (key, segment, sid of the base)
        for key, version in c.versions.items():
            if key not in c.values:
                vmap[key] = [version]
            elif version != c.id:
                vmap[key] = self._entry(tid, c, key, version, parent)
            else:
                base = self._find(tid, key, appended[key][0], parent) if appended and key in appended else None
                if base is not None and base[2] is None:
                    base = None  # the base is not a list
                n_items = len(appended[key][1]) if base is not None and appended else None
                kind, data, count = encode_channel(
                    self.serde, key, c.values[key], base[2] if base is not None else None, n_items
                )
                if kind != "append":
                    base = None
                size = len(data) + 2 + (base[3] if base is not None else 0)
                if size > self.serde.max_bytes:
                    raise too_big_error(key, size, self.serde.max_bytes)
                staged.append((key, data, base[1] if base is not None else None))
                vmap[key] = [version, 0, count, size]
        for key in c.values:
            if key not in c.versions:
                raise ValueError(f"checkpoint `{c.id}`: channel `{key}` has a value but no version")
        row = (
            tid, c.id, c.parent_id, c.step, c.source, c.created_at, orjson.dumps(list(c.next)),
            orjson.dumps(list(c.nodes_ran)), None, dumps_extras(self.serde, c),
        )
        with self._transaction() as conn:
            chains = _ChainAllocator(conn)
            for key, data, base_sid in staged:
                vmap[key][1] = self._store(conn, chains, tid, data, base_sid)
            try:
                cur = conn.execute(_INSERT_CHECKPOINT, (*row[:8], orjson.dumps(vmap), row[9]))
            except sqlite3.IntegrityError:
                raise ValueError(
                    f"checkpoint `{c.id}` already exists in thread `{c.thread_id}`: checkpoints are "
                    "immutable, save the change as a new checkpoint with a new id"
                ) from None
            if c.parent_id is not None:
                conn.execute("DELETE FROM writes WHERE tid = ? AND checkpoint = ?", (tid, c.parent_id))
            if conn.execute(_TOUCH_THREAD, (cur.lastrowid, tid)).rowcount != 1:
                raise _StaleCache
        self._remember(tid, c.id, vmap)

    def _store(
        self, conn: sqlite3.Connection, chains: _ChainAllocator, tid: int, data: bytes, base_sid: int | None
    ) -> int:
        """Insert one segment; returns its sid. An append goes right after its base when
        the base is its chain's tip, else it starts a new chain whose origin is the base."""
        if base_sid is not None and (base_sid & _SEQ_MASK) != _SEQ_MASK:
            try:
                conn.execute(_INSERT_SEGMENT, (base_sid + 1, tid, data))
                return base_sid + 1
            except sqlite3.IntegrityError:
                pass  # the base already has a successor: this is a branch
        chain = chains.next()
        if base_sid is not None:
            conn.execute("INSERT INTO origins(chain, tid, origin) VALUES (?, ?, ?)", (chain, tid, base_sid))
        conn.execute(_INSERT_SEGMENT, (chain << _SEQ_BITS, tid, data))
        return chain << _SEQ_BITS

    def _tid(self, thread_id: str, *, create: bool = False) -> int | None:
        tid = self._tids.get(thread_id)
        if tid is not None:
            return tid
        with self._errors():
            if create:
                self._db().execute("INSERT OR IGNORE INTO threads(thread_id) VALUES (?)", (thread_id,))
            row = self._db().execute("SELECT tid FROM threads WHERE thread_id = ?", (thread_id,)).fetchone()
        if row is not None:
            self._tids[thread_id] = row[0]
            return row[0]
        return None

    def _vmap(self, tid: int, checkpoint_id: str) -> dict[str, Entry] | None:
        """The versions map of a stored checkpoint (cached: the next put's parent is the last)."""
        found = self._vmaps.get((tid, checkpoint_id))
        if found is not None:
            return found
        with self._errors():
            row = self._db().execute(
                "SELECT versions FROM checkpoints WHERE tid = ? AND id = ?", (tid, checkpoint_id)
            ).fetchone()
        if row is None:
            return None
        vmap = _parse_versions(row[0])
        self._remember(tid, checkpoint_id, vmap)
        return vmap

    def _remember(self, tid: int, checkpoint_id: str, vmap: dict[str, Entry]) -> None:
        self._vmaps[(tid, checkpoint_id)] = vmap
        if len(self._vmaps) > 64:
            self._vmaps.popitem(last=False)

    def _find(self, tid: int, key: str, version: str, parent: dict[str, Entry] | None) -> Entry | None:
        """Where `key`'s value at `version` is stored: in the parent, or in the checkpoint
        that made that version."""
        for vmap in (parent, self._vmap(tid, version)):
            if vmap is not None:
                entry = vmap.get(key)
                if entry is not None and entry[0] == version and len(entry) == 4:
                    return entry
        return None

    def _entry(self, tid: int, c: Checkpoint, key: str, version: str, parent: dict[str, Entry] | None) -> Entry:
        entry = self._find(tid, key, version, parent)
        if entry is None:
            raise ValueError(
                f"checkpoint `{c.id}`: channel `{key}` has version `{version}`, but no value was "
                f"stored under that version in thread `{c.thread_id}`; a changed channel's version "
                "must be the id of the checkpoint that changes it"
            )
        return entry

    def put_writes(self, thread_id: str, checkpoint_id: str, writes: Sequence[PendingWrite]) -> None:
        rows = [(w.task_id, w.task_name, w.channel, self.serde.dumps(w.value, where=w.channel)) for w in writes]
        with self._lock:
            tid = self._tid(thread_id)
            with self._transaction() as conn:
                if tid is None or conn.execute(
                    "SELECT 1 FROM checkpoints WHERE tid = ? AND id = ?", (tid, checkpoint_id)
                ).fetchone() is None:
                    raise ValueError(
                        f"put_writes: no checkpoint `{checkpoint_id}` in thread `{thread_id}`; "
                        "save the checkpoint with put() first"
                    )
                conn.executemany(
                    "INSERT INTO writes(tid, checkpoint, task_id, task_name, channel, value)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    [(tid, checkpoint_id, *r) for r in rows],
                )

    def delete_thread(self, thread_id: str) -> None:
        with self._lock:
            self._tids.pop(thread_id, None)
            self._vmaps.clear()
            with self._transaction() as conn:
                row = conn.execute("SELECT tid FROM threads WHERE thread_id = ?", (thread_id,)).fetchone()
                if row is None:
                    return
                for table in ("checkpoints", "segments", "origins", "writes", "threads"):
                    conn.execute(_DELETE[table], (row[0],))

    # -- reading ------------------------------------------------------------------------
    def get(self, thread_id: str, checkpoint_id: str | None = None) -> Checkpoint | None:
        with self._transaction(immediate=False) as conn:
            if checkpoint_id is None:
                row = conn.execute(
                    f"SELECT {_ROW_COLS} FROM checkpoints WHERE tid = {_TID} ORDER BY cid DESC LIMIT 1",
                    (thread_id,),
                ).fetchone()
            else:
                row = conn.execute(
                    f"SELECT {_ROW_COLS} FROM checkpoints WHERE tid = {_TID} AND id = ?",
                    (thread_id, checkpoint_id),
                ).fetchone()
            if row is None:
                return None
            vmap = self._check(row, _parse_versions, row[8])
            data = {key: self._assemble(conn, row[1], key, e) for key, e in vmap.items() if len(e) == 4}
        return self._build(thread_id, row, vmap, data)

    def _check(self, row: tuple[Any, ...], fn: Any, *args: Any) -> Any:
        """Run a decoding step, naming the file and checkpoint if the stored data is bad."""
        try:
            return fn(*args)
        except CheckpointDecodeError as e:
            raise CheckpointDecodeError(f"`{self.path}`, checkpoint {str(row[1])[:60]!r}: {e}") from None

    def _assemble(self, conn: sqlite3.Connection, cid: str, key: str, entry: Entry) -> bytes:
        """The encoded value of one channel, from its segment chain."""
        _, sid, count, size = entry
        if size > self.serde.max_bytes:
            raise CheckpointDecodeError(
                f"`{self.path}`: channel `{key}` of checkpoint `{cid}` takes {size / _MB:.1f} MB, over "
                f"the {self.serde.max_bytes / _MB:.0f} MB limit; it was not loaded. If you trust the "
                "file, open it with `SqliteSaver(path, max_value_bytes=...)`."
            )
        if count is None:
            row = conn.execute("SELECT data FROM segments WHERE sid = ?", (sid,)).fetchone()
            if row is None:
                raise _missing(self.path, cid, key)
            return row[0]
        pieces: list[list[bytes]] = []
        total, hops = 0, 0
        while True:
            first = sid & ~_SEQ_MASK
            part = [r[0] for r in conn.execute(
                "SELECT data FROM segments WHERE sid BETWEEN ? AND ? ORDER BY sid", (first, sid)
            )]
            if len(part) != sid - first + 1:
                raise _missing(self.path, cid, key)
            total += sum(map(len, part))
            if total > self.serde.max_bytes or hops > 100_000:
                raise CheckpointDecodeError(f"`{self.path}`: channel `{key}` of checkpoint `{cid}` is malformed")
            pieces.append(part)
            row = conn.execute("SELECT origin FROM origins WHERE chain = ?", (sid >> _SEQ_BITS,)).fetchone()
            if row is None:
                break
            sid, hops = row[0], hops + 1
        return join_list_segments(s for part in reversed(pieces) for s in part)

    def _build(self, thread_id: str, row: tuple[Any, ...], vmap: dict[str, Entry], data: dict[str, bytes]) -> Checkpoint:
        header = _header(thread_id, row, self.path)
        values = {key: self._check(row, self._load_value, key, blob) for key, blob in data.items()}
        tasks, barriers, metadata = self._check(row, loads_extras, self.serde, row[9])
        return Checkpoint(
            id=header.id, thread_id=thread_id, parent_id=header.parent_id, step=header.step,
            source=header.source, created_at=header.created_at, values=values,
            versions={key: e[0] for key, e in vmap.items()}, barriers=barriers, tasks=tasks,
            nodes_ran=header.nodes_ran, metadata=metadata,
        )

    def _load_value(self, key: str, blob: bytes) -> Any:
        try:
            return self.serde.loads(blob)
        except CheckpointDecodeError as e:
            raise CheckpointDecodeError(f"channel `{key}`: {e}") from None

    def pending_writes(self, thread_id: str, checkpoint_id: str) -> list[PendingWrite]:
        with self._lock, self._errors():
            rows = self._db().execute(
                f"SELECT task_id, task_name, channel, value FROM writes WHERE tid = {_TID} AND checkpoint = ?"
                " ORDER BY wid",
                (thread_id, checkpoint_id),
            ).fetchall()
        out = []
        for task_id, task_name, channel, value in rows:
            if not (type(task_id) is str and type(task_name) is str and type(channel) is str):
                raise CheckpointDecodeError(f"`{self.path}`: a pending write of `{checkpoint_id}` is malformed")
            try:
                decoded = self.serde.loads(value)
            except CheckpointDecodeError as e:
                raise CheckpointDecodeError(f"`{self.path}`, a pending write of `{checkpoint_id}`: {e}") from None
            out.append(PendingWrite(task_id=task_id, task_name=task_name, channel=channel, value=decoded))
        return out

    def _pages(
        self, columns: str, thread_id: str, before: str | None, limit: int | None
    ) -> Iterator[tuple[Any, ...]]:
        """Rows newest first, fetched a page at a time so the lock is never held by a
        half-consumed iterator (the studio lists history while the run writes)."""
        left = max(limit, 0) if limit is not None else -1
        with self._lock, self._errors():
            conn = self._db()
            if before is None:
                row = conn.execute(
                    "SELECT max(cid) + 1 FROM checkpoints WHERE tid = (SELECT tid FROM threads WHERE thread_id = ?)",
                    (thread_id,),
                ).fetchone()
            else:
                row = conn.execute(
                    f"SELECT cid FROM checkpoints WHERE tid = {_TID} AND id = ?", (thread_id, before)
                ).fetchone()
        bound = row[0] if row is not None else None
        while bound is not None and left != 0:
            page = 256 if left < 0 else min(left, 256)
            with self._lock, self._errors():
                rows = self._db().execute(
                    f"SELECT {columns} FROM checkpoints WHERE tid = {_TID} AND cid < ? ORDER BY cid DESC LIMIT ?",
                    (thread_id, bound, page),
                ).fetchall()
            yield from rows
            if len(rows) < page:
                return
            bound, left = rows[-1][0], left - len(rows) if left > 0 else left

    def list(
        self, thread_id: str, *, before: str | None = None, limit: int | None = None
    ) -> Iterator[Checkpoint]:
        for row in self._pages("cid, id", thread_id, before, limit):
            found = self.get(thread_id, row[1])
            if found is not None:
                yield found

    def list_headers(
        self, thread_id: str, *, before: str | None = None, limit: int | None = None
    ) -> Iterator[CheckpointHeader]:
        for row in self._pages(_HEADER_COLS, thread_id, before, limit):
            yield _header(thread_id, row, self.path)

    def threads(self) -> list[ThreadInfo]:
        with self._lock, self._errors():
            rows = self._db().execute(
                "SELECT t.thread_id, t.n, c.id, c.created_at FROM threads t"
                " JOIN checkpoints c ON c.cid = t.latest ORDER BY t.latest DESC"
            ).fetchall()
        return [ThreadInfo(thread_id=t, checkpoints=n, latest_id=i, updated_at=at) for t, n, i, at in rows]


_INSERT_CHECKPOINT = (
    "INSERT INTO checkpoints(tid, id, parent, step, source, created_at, next, nodes_ran, versions, extras)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_INSERT_SEGMENT = "INSERT INTO segments(sid, tid, data) VALUES (?, ?, ?)"
_TOUCH_THREAD = "UPDATE threads SET n = n + 1, latest = ? WHERE tid = ?"


class _StaleCache(Exception):
    """Internal: a cached thread id no longer exists in the file."""


class _ChainAllocator:
    """Hands out new chain numbers within one write transaction (one query at most)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._next: int | None = None

    def next(self) -> int:
        if self._next is None:
            top = self._conn.execute("SELECT max(sid) FROM segments").fetchone()[0]
            self._next = (top >> _SEQ_BITS) + 1 if top is not None else 1
        self._next += 1
        return self._next - 1


_DELETE = {
    "checkpoints": "DELETE FROM checkpoints WHERE tid = ?",
    "segments": "DELETE FROM segments WHERE tid = ?",
    "origins": "DELETE FROM origins WHERE tid = ?",
    "writes": "DELETE FROM writes WHERE tid = ?",
    "threads": "DELETE FROM threads WHERE tid = ?",
}


def _check_file_header(path: str) -> None:
    """Refuse a file that is not SQLite, or is cut short, before SQLite touches it."""
    try:
        size = os.path.getsize(path)
    except FileNotFoundError:
        return
    except OSError as e:
        raise CheckpointError(f"Cannot open `{path}`: {e}") from None
    if size == 0:
        return
    try:
        with open(path, "rb") as f:
            head = f.read(100)
    except OSError as e:
        raise CheckpointError(f"Cannot open `{path}`: {e}") from None
    if not head.startswith(b"SQLite format 3\x00"):
        raise NotARetrographDatabase(
            f"`{path}` is not a SQLite database (it starts with {head[:16]!r}), so it is not a "
            "Retrograph checkpoint file. Check the path; Retrograph left the file untouched."
        )
    page_size = int.from_bytes(head[16:18], "big") if len(head) == 100 else 0
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(head[28:32], "big")
    if len(head) < 100 or (head[24:28] == head[92:96] and size < pages * page_size):
        raise CheckpointError(
            f"`{path}` is truncated ({size} bytes, its header says {pages * page_size}). Retrograph "
            f"changed nothing; restore it from a backup, or salvage what is left with "
            f"`sqlite3 {path} .recover`."
        )


def _identify(conn: sqlite3.Connection) -> tuple[int, int, set[str]]:
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return app_id, version, tables


def _parse_versions(data: Any) -> dict[str, Entry]:
    try:
        vmap = orjson.loads(data)
    except (orjson.JSONDecodeError, TypeError):
        vmap = None
    if type(vmap) is not dict or not all(
        type(e) is list and e and type(e[0]) is str and (
            len(e) == 1 or (len(e) == 4 and type(e[1]) is int and type(e[3]) is int
                            and (e[2] is None or type(e[2]) is int))
        )
        for e in vmap.values()
    ):
        raise CheckpointDecodeError("a checkpoint's versions record is malformed")
    return vmap


def _strings(data: Any) -> tuple[str, ...]:
    got = orjson.loads(data)
    if type(got) is not list or not all(type(s) is str for s in got):
        raise ValueError("not a list of strings")
    return tuple(got)


def _header(thread_id: str, row: tuple[Any, ...], path: str = "") -> CheckpointHeader:
    _, cid, parent, step, source, created_at, nxt, nodes_ran = row[:8]
    try:
        if not (type(cid) is str and type(step) is int and type(source) is str and type(created_at) is str
                and (parent is None or type(parent) is str)):
            raise ValueError("bad column types")
        return CheckpointHeader(
            id=cid, thread_id=thread_id, parent_id=parent, step=step, source=source,
            created_at=created_at, next=_strings(nxt), nodes_ran=_strings(nodes_ran),
        )
    except (ValueError, TypeError) as e:
        raise CheckpointDecodeError(f"`{path}`: the record of checkpoint {str(cid)[:60]!r} is malformed ({e})") from None


def _missing(path: str, cid: str, key: str) -> CheckpointError:
    return CheckpointError(
        f"`{path}`: the stored value of channel `{key}` of checkpoint `{cid}` is missing (the file was "
        "damaged or edited by hand). Restore it from a backup."
    )
