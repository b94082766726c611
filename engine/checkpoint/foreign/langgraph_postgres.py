"""Reading a PostgreSQL database written by LangGraph's `PostgresSaver`, read-only and
code-free.

Layout: `checkpoints(thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type,
checkpoint JSONB, metadata JSONB)`, where the checkpoint's `channel_values` hold only the
plain values (numbers, text, null) and every other value sits in
`checkpoint_blobs(thread_id, checkpoint_ns, channel, version, type, blob)` under the
version the checkpoint names; `checkpoint_writes(..., task_id, task_path, idx, channel,
type, blob)`; `checkpoint_migrations(v)`.

The session is read-only (`SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY`): the
reader cannot change a row even by mistake.
"""
from __future__ import annotations

import threading
from typing import Any

import orjson

from ...constants import START
from ...errors import CheckpointDecodeError, CheckpointError
from ..base import ThreadInfo
from ..postgres_schema import connect_error, safe_url
from ..serde import DEFAULT_MAX_BYTES
from .langgraph_base import LangGraphReader, Row
from .langgraph_derive import TASKS, uuid6_time
from .langgraph_msgpack import EMPTY, decode_for_listing, decode_typed

__all__ = ["LangGraphPostgresReader", "has_langgraph_tables"]

_MB = 1024 * 1024
_PAIRS = "JOIN unnest(%s::text[], %s::text[]) AS n(channel, version) ON b.channel = n.channel AND b.version = n.version"


def has_langgraph_tables(conn: Any) -> bool:
    row = conn.execute(
        "SELECT to_regclass('checkpoints') IS NOT NULL AND to_regclass('checkpoint_blobs') IS NOT NULL"
        " AND to_regclass('checkpoint_writes') IS NOT NULL"
    ).fetchone()
    return bool(row[0])


def _is_trigger(channel: str) -> bool:
    return channel.startswith(("branch:", "join:")) or channel in (START, TASKS)


class LangGraphPostgresReader(LangGraphReader):
    """`LangGraphPostgresReader(url)`: the read protocol over LangGraph's PostgreSQL layout."""

    kind = "LangGraph PostgreSQL"

    def __init__(self, url: str, *, max_value_bytes: int = DEFAULT_MAX_BYTES) -> None:
        super().__init__()
        import psycopg

        self.url = url
        self.max_bytes = max_value_bytes
        self._psycopg = psycopg
        self._conn_lock = threading.Lock()
        try:
            self._conn: Any = psycopg.connect(url, autocommit=True, connect_timeout=10)
            self._conn.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
            from psycopg.types.json import set_json_loads

            set_json_loads(orjson.loads, self._conn)  # JSONB checkpoints: several times faster
        except psycopg.Error as e:
            raise connect_error(url, e) from None
        if not has_langgraph_tables(self._conn):
            self.close()
            raise CheckpointError(f"`{safe_url(url)}` does not hold LangGraph's checkpoint tables")
        cols = {r[0] for r in self._conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'checkpoint_writes'"
            " AND table_schema = ANY(current_schemas(false))"
        )}
        self._path_col = "task_path" if "task_path" in cols else "''"

    def describe(self) -> str:
        return f"LangGraph PostgreSQL {safe_url(self.url)} (read-only)"

    def __repr__(self) -> str:
        return f"LangGraphPostgresReader({safe_url(self.url)!r})"

    def close(self) -> None:
        with self._conn_lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def _query(self, sql: str, params: Any = ()) -> list[tuple[Any, ...]]:
        with self._conn_lock:
            if self._conn is None:
                raise CheckpointError(f"{self!r} is closed")
            try:
                rows: list[tuple[Any, ...]] = self._conn.execute(sql, params).fetchall()
                return rows
            except self._psycopg.OperationalError as e:
                raise connect_error(self.url, e) from None
            except self._psycopg.Error as e:
                raise CheckpointError(f"{self.describe()}: {str(e).strip().splitlines()[0]}") from None

    # -- the database's answers ----------------------------------------------------------
    def threads(self) -> list[ThreadInfo]:
        rows = self._query(
            "SELECT thread_id, count(*), max(checkpoint_id) FROM checkpoints WHERE checkpoint_ns = ''"
            " GROUP BY thread_id ORDER BY max(checkpoint_id) DESC"
        )
        return [ThreadInfo(thread_id=t, checkpoints=n, latest_id=i, updated_at=uuid6_time(i)) for t, n, i in rows]

    def namespaces(self, thread_id: str) -> list[str]:
        found = {r[0] for r in self._query("SELECT DISTINCT checkpoint_ns FROM checkpoints WHERE thread_id = %s", (thread_id,))}
        return sorted(found, key=lambda ns: (ns != "", ns))

    def _id_page(self, thread_id: str, ns: str, before: str | None, limit: int) -> list[tuple[str, str | None]]:
        older = " AND checkpoint_id < %s" if before is not None else ""
        return self._query(
            "SELECT checkpoint_id, parent_checkpoint_id FROM checkpoints WHERE thread_id = %s AND checkpoint_ns = %s"
            + older + " ORDER BY checkpoint_id DESC LIMIT %s",
            (thread_id, ns, *(() if before is None else (before,)), limit),
        )

    def _newest(self, thread_id: str, ns: str) -> str | None:
        rows = self._query("SELECT max(checkpoint_id) FROM checkpoints WHERE thread_id = %s AND checkpoint_ns = %s",
                           (thread_id, ns))
        return rows[0][0] if rows else None

    def _rows(self, thread_id: str, ns: str, ids: list[str] | None, *, full: bool,
              bad: dict[str, str] | None = None) -> dict[str, Row]:
        sql = ("SELECT checkpoint_id, parent_checkpoint_id, checkpoint, metadata FROM checkpoints"
               " WHERE thread_id = %s AND checkpoint_ns = %s")
        found = self._query(sql, (thread_id, ns)) if ids is None else self._query(
            sql + " AND checkpoint_id = ANY(%s)", (thread_id, ns, ids))
        records, pairs = self._records(found, full, bad)
        blobs, broken = self._blobs(thread_id, ns, pairs, full, bad)
        out: dict[str, Row] = {}
        for cid, parent, cp, meta in records:
            why = next((broken[(ch, str(v))] for ch, v in cp["channel_versions"].items() if (ch, str(v)) in broken),
                       None)
            if why is not None and bad is not None:  # a blob it names cannot be read
                bad[str(cid)] = why
                continue
            inline = cp.get("channel_values")
            values = dict(inline) if isinstance(inline, dict) else {}
            for ch, ver in cp["channel_versions"].items():
                key = (ch, str(ver))
                if key in blobs:
                    values[ch] = blobs[key]
            record = dict(cp)
            record["channel_values"] = values
            out[cid] = Row(id=cid, parent_id=parent, checkpoint=record, available=frozenset(values),
                           metadata=meta if isinstance(meta, dict) else {})
        return out

    def _records(self, found: list[Any], full: bool, bad: dict[str, str] | None
                 ) -> tuple[list[tuple[Any, Any, Any, Any]], dict[tuple[str, str], None]]:
        """The rows that are checkpoint records (the others noted in `bad`, or raised), and
        the (channel, version) pairs of their blobs to read (triggers only unless `full`)."""
        pairs: dict[tuple[str, str], None] = {}
        records = []
        for cid, parent, cp, meta in found:
            versions = cp.get("channel_versions") if isinstance(cp, dict) else None
            if not isinstance(cp, dict) or not isinstance(versions, dict):
                if bad is None:
                    raise CheckpointDecodeError(
                        f"{self.describe()}, checkpoint {str(cid)[:60]!r}: it is not a checkpoint record")
                bad[str(cid)] = "it is not a checkpoint record"
                continue
            records.append((cid, parent, cp, meta))
            for ch, ver in versions.items():
                if full or _is_trigger(ch):
                    pairs[(ch, str(ver))] = None
        return records, pairs

    def _blobs(self, thread_id: str, ns: str, pairs: dict[tuple[str, str], None], full: bool,
               bad: dict[str, str] | None) -> tuple[dict[tuple[str, str], Any], dict[tuple[str, str], str]]:
        """(channel, version) -> its decoded value, and -> why it cannot be read (raised
        instead when `bad` is None)."""
        blobs: dict[tuple[str, str], Any] = {}
        broken: dict[tuple[str, str], str] = {}
        if not pairs:
            return blobs, broken
        keys = list(pairs)
        for ch, ver, kind, size, blob in self._query(
            "SELECT b.channel, b.version, b.type, length(b.blob),"
            " CASE WHEN length(b.blob) <= %s THEN b.blob END FROM checkpoint_blobs b " + _PAIRS
            + " WHERE b.thread_id = %s AND b.checkpoint_ns = %s",
            (self.max_bytes, [k[0] for k in keys], [k[1] for k in keys], thread_id, ns),
        ):
            if kind == "empty":
                continue
            try:
                value = self._blob(ch, ver, kind, size, blob, full)
            except CheckpointDecodeError as e:
                if bad is None:
                    raise
                broken[(ch, ver)] = str(e)
                continue
            if value is not EMPTY:
                blobs[(ch, ver)] = value
        return blobs, broken

    def _blob(self, ch: str, ver: str, kind: Any, size: Any, blob: Any, full: bool) -> Any:
        """One channel value of checkpoint_blobs, decoded (code-free), or CheckpointDecodeError."""
        if size is not None and size > self.max_bytes:
            raise CheckpointDecodeError(
                f"{self.describe()}: channel `{ch}` takes {size / _MB:.1f} MB, over the "
                f"{self.max_bytes / _MB:.0f} MB limit; it was not loaded"
            )
        try:
            if full:
                return decode_typed(kind, blob)
            if kind == "msgpack":
                return decode_for_listing(bytes(blob))
            return None if kind in ("null", "json", "bytes", "bytearray") else decode_typed(kind, blob)
        except CheckpointDecodeError as e:
            raise CheckpointDecodeError(f"{self.describe()}, channel `{ch}` version {ver[:40]!r}: {e}") from None

    def _write_paths(self, thread_id: str, ns: str, ids: list[str] | None) -> dict[str, list[tuple[str, str, str]]]:
        sql = (f"SELECT checkpoint_id, task_id, {self._path_col}, channel FROM checkpoint_writes"
               " WHERE thread_id = %s AND checkpoint_ns = %s")
        params: tuple[Any, ...] = (thread_id, ns)
        if ids is not None:
            sql += " AND checkpoint_id = ANY(%s)"
            params += (ids,)
        out: dict[str, list[tuple[str, str, str]]] = {}
        for cid, task_id, path, channel in self._query(sql + " ORDER BY checkpoint_id, task_id, idx", params):
            out.setdefault(cid, []).append((task_id, path, channel))
        return out

    def _writes(self, thread_id: str, ns: str, checkpoint_id: str) -> list[tuple[str, str, str, Any]]:
        out = []
        for task_id, path, channel, kind, blob in self._query(
            f"SELECT task_id, {self._path_col}, channel, type, blob FROM checkpoint_writes"
            " WHERE thread_id = %s AND checkpoint_ns = %s AND checkpoint_id = %s ORDER BY task_id, idx",
            (thread_id, ns, checkpoint_id),
        ):
            decoded = decode_typed(kind, blob)
            if decoded is not EMPTY:
                out.append((task_id, path, channel, decoded))
        return out
