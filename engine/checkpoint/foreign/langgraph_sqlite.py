"""Reading a SQLite file written by LangGraph's `SqliteSaver`, read-only and code-free.

Layout: `checkpoints(thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id,
type, checkpoint, metadata)` with the whole checkpoint as one msgpack blob and the
metadata as JSON; `writes(thread_id, checkpoint_ns, checkpoint_id, task_id, [task_path,]
idx, channel, type, value)`.

Not one byte of the file changes and no `-wal`/`-shm` file appears: a file with no
`-wal` beside it is opened `immutable=1` (no locks, no journal), and opened again when
its size or time changes, so checkpoints another process adds show up. A file with a
`-wal` beside it has a live writer (or a crashed one): it is opened `mode=ro`, which reads
the WAL through the existing `-shm` without creating either.
"""
from __future__ import annotations

import os
import sqlite3
import urllib.parse
from typing import Any

import orjson

from ...errors import CheckpointDecodeError, CheckpointError
from ..base import ThreadInfo
from ..serde import DEFAULT_MAX_BYTES
from .langgraph_base import LangGraphReader, Row
from .langgraph_derive import uuid6_time
from .langgraph_msgpack import EMPTY, PICKLE_REFUSED, decode_for_listing, decode_typed

__all__ = ["LangGraphSqliteReader", "is_langgraph_sqlite", "open_readonly"]

_CHECKPOINT_COLS = {"thread_id", "checkpoint_ns", "checkpoint_id", "parent_checkpoint_id", "type", "checkpoint", "metadata"}
_WRITE_COLS = {"thread_id", "checkpoint_ns", "checkpoint_id", "task_id", "idx", "channel", "type", "value"}


def open_readonly(path: str, max_bytes: int = DEFAULT_MAX_BYTES) -> sqlite3.Connection:
    """A connection that cannot change the file nor create `-wal`/`-shm` (see the module)."""
    live = os.path.exists(path + "-wal")
    uri = "file:" + urllib.parse.quote(os.path.abspath(path)) + ("?mode=ro" if live else "?immutable=1")
    conn = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)
    conn.execute("PRAGMA query_only = 1")
    conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, max_bytes + 1024)
    return conn


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}


def is_langgraph_sqlite(conn: sqlite3.Connection) -> bool:
    return _CHECKPOINT_COLS <= _columns(conn, "checkpoints") and _WRITE_COLS <= _columns(conn, "writes")


def _metadata(data: Any) -> dict[str, Any]:
    if data is None:
        return {}
    try:
        got = orjson.loads(bytes(data) if not isinstance(data, str) else data)
    except orjson.JSONDecodeError:
        try:
            got = decode_typed("msgpack", data)
        except CheckpointDecodeError:
            got = None
    if not isinstance(got, dict):
        raise CheckpointDecodeError("its metadata is not a JSON object")
    return got


class LangGraphSqliteReader(LangGraphReader):
    """`LangGraphSqliteReader(path)`: the read protocol over LangGraph's SQLite layout."""

    kind = "LangGraph SQLite"

    def __init__(self, path: str | os.PathLike[str], *, max_value_bytes: int = DEFAULT_MAX_BYTES) -> None:
        super().__init__()
        self.path = os.fspath(path)
        self.max_bytes = max_value_bytes
        self._conn: sqlite3.Connection | None = None
        self._stamp: tuple[Any, ...] | None = None
        self._db()
        conn = self._db()
        if not is_langgraph_sqlite(conn):
            self.close()
            raise CheckpointError(f"`{self.path}` does not hold LangGraph's checkpoints/writes tables")
        self._has_path = "task_path" in _columns(conn, "writes")

    def describe(self) -> str:
        return f"LangGraph SQLite file {self.path} (read-only)"

    def __repr__(self) -> str:
        return f"LangGraphSqliteReader({self.path!r})"

    def _file_stamp(self) -> tuple[Any, ...]:
        try:
            st = os.stat(self.path)
        except OSError as e:
            raise CheckpointError(f"Cannot read `{self.path}`: {e}") from None
        wal = self.path + "-wal"
        return (st.st_size, st.st_mtime_ns, os.path.exists(wal))

    def _db(self) -> sqlite3.Connection:
        """The connection, opened again when the file changed (an immutable open caches)."""
        with self._lock:
            stamp = self._file_stamp()
            if self._conn is None or (stamp != self._stamp and not stamp[2]) or stamp[2] != (self._stamp or (0, 0, None))[2]:
                if self._conn is not None:
                    self._conn.close()
                try:
                    self._conn = open_readonly(self.path, self.max_bytes)
                except sqlite3.Error as e:
                    raise CheckpointError(f"Cannot open `{self.path}` read-only: {e}") from None
                self._stamp = stamp
            return self._conn

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def _query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            try:
                return self._db().execute(sql, params).fetchall()
            except sqlite3.Error as e:
                text = str(e)
                if "too big" in text:
                    raise CheckpointDecodeError(
                        f"`{self.path}` holds a value over the {self.max_bytes // (1024 * 1024)} MB limit; not loaded"
                    ) from None
                raise CheckpointError(f"`{self.path}`: {text}") from None

    # -- the database's answers ----------------------------------------------------------
    def threads(self) -> list[ThreadInfo]:
        rows = self._query(
            "SELECT thread_id, count(*), max(checkpoint_id) FROM checkpoints WHERE checkpoint_ns = ''"
            " GROUP BY thread_id ORDER BY max(checkpoint_id) DESC"
        )
        return [ThreadInfo(thread_id=str(t), checkpoints=n, latest_id=str(i), updated_at=uuid6_time(str(i)))
                for t, n, i in rows]

    def namespaces(self, thread_id: str) -> list[str]:
        found = {str(r[0]) for r in self._query(
            "SELECT DISTINCT checkpoint_ns FROM checkpoints WHERE thread_id = ?", (thread_id,))}
        return sorted(found, key=lambda ns: (ns != "", ns))

    def _id_page(self, thread_id: str, ns: str, before: str | None, limit: int) -> list[tuple[str, str | None]]:
        older = " AND checkpoint_id < ?" if before is not None else ""
        rows = self._query(
            "SELECT checkpoint_id, parent_checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ?"
            + older + " ORDER BY checkpoint_id DESC LIMIT ?",
            (thread_id, ns, *(() if before is None else (before,)), limit),
        )
        for cid, parent in rows:
            if type(cid) is not str or not (parent is None or type(parent) is str):
                raise CheckpointDecodeError(f"`{self.path}`: a checkpoint row of thread `{thread_id}` has a non-text id")
        return rows

    def _newest(self, thread_id: str, ns: str) -> str | None:
        rows = self._query("SELECT max(checkpoint_id) FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ?",
                           (thread_id, ns))
        return rows[0][0] if rows and isinstance(rows[0][0], str) else None

    def _rows(self, thread_id: str, ns: str, ids: list[str] | None, *, full: bool,
              bad: dict[str, str] | None = None) -> dict[str, Row]:
        out: dict[str, Row] = {}
        sql = ("SELECT checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata FROM checkpoints"
               " WHERE thread_id = ? AND checkpoint_ns = ?")
        queries: list[tuple[str, tuple[Any, ...]]] = []
        if ids is None:
            queries.append((sql, (thread_id, ns)))
        for start in range(0, len(ids or ()), 500):
            chunk = ids[start:start + 500]  # type: ignore[index]
            queries.append((sql + f" AND checkpoint_id IN ({','.join('?' * len(chunk))})", (thread_id, ns, *chunk)))
        for query, params in queries:
            for cid, parent, kind, blob, meta in self._query(query, params):
                try:
                    if kind == "pickle":
                        raise CheckpointDecodeError(f"it {PICKLE_REFUSED}")
                    if kind != "msgpack" or not isinstance(blob, bytes):
                        raise CheckpointDecodeError(f"its type is {str(kind)[:40]!r}, not msgpack")
                    cp = decode_typed("msgpack", blob) if full else decode_for_listing(blob)
                    if not isinstance(cp, dict):
                        raise CheckpointDecodeError("it is not a checkpoint record")
                    values = cp.get("channel_values")
                    available = frozenset(values) if isinstance(values, dict) else frozenset()
                    out[cid] = Row(id=cid, parent_id=parent, checkpoint=cp, available=available, metadata=_metadata(meta))
                except CheckpointDecodeError as e:
                    if bad is None:
                        raise CheckpointDecodeError(f"`{self.path}`, checkpoint {str(cid)[:60]!r}: {e}") from None
                    bad[str(cid)] = str(e)
        return out

    def _write_paths(self, thread_id: str, ns: str, ids: list[str] | None) -> dict[str, list[tuple[str, str, str]]]:
        path_col = "task_path" if self._has_path else "''"
        sql = (f"SELECT checkpoint_id, task_id, {path_col}, channel FROM writes WHERE thread_id = ? AND checkpoint_ns = ?")
        params: tuple[Any, ...] = (thread_id, ns)
        if ids is not None:
            sql += f" AND checkpoint_id IN ({','.join('?' * len(ids))})"
            params += tuple(ids)
        out: dict[str, list[tuple[str, str, str]]] = {}
        for cid, task_id, path, channel in self._query(sql + " ORDER BY checkpoint_id, task_id, idx", params):
            out.setdefault(str(cid), []).append((str(task_id), str(path), str(channel)))
        return out

    def _writes(self, thread_id: str, ns: str, checkpoint_id: str) -> list[tuple[str, str, str, Any]]:
        path_col = "task_path" if self._has_path else "''"
        out = []
        for task_id, path, channel, kind, value in self._query(
            f"SELECT task_id, {path_col}, channel, type, value FROM writes"
            " WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ? ORDER BY task_id, idx",
            (thread_id, ns, checkpoint_id),
        ):
            decoded = decode_typed(kind, value)
            if decoded is not EMPTY:
                out.append((str(task_id), str(path), str(channel), decoded))
        return out
