"""Retrograph's tables in a PostgreSQL database: creating them once, recognising them, and
what connection errors mean to a user.

The tables carry a `retrograph_` prefix, so they can share a database (or a schema) with
LangGraph's `checkpoints`/`checkpoint_blobs`/`checkpoint_writes` without a clash. Several
processes may create them at once: creation runs under a transaction-scoped advisory lock.
"""
from __future__ import annotations

import re
from typing import Any

from ..errors import CheckpointError, UnsupportedSchemaVersion

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "ensure_schema", "has_retrograph_tables", "safe_url", "connect_error", "is_postgres_url"]

SCHEMA_VERSION = 1
_LOCK_KEY = 0x52477068  # "RGph": the advisory lock taken while creating the tables

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS retrograph_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    # seq: the order checkpoints were put, across processes; a thread's history is ORDER BY seq.
    """CREATE TABLE IF NOT EXISTS retrograph_checkpoints(
        seq BIGSERIAL PRIMARY KEY, thread_id TEXT NOT NULL, id TEXT NOT NULL, parent_id TEXT,
        step BIGINT NOT NULL, source TEXT NOT NULL, created_at TEXT NOT NULL,
        next BYTEA NOT NULL, nodes_ran BYTEA NOT NULL, versions BYTEA NOT NULL, extras BYTEA,
        inline JSONB, UNIQUE (thread_id, id))""",
    "CREATE INDEX IF NOT EXISTS retrograph_checkpoints_by_thread ON retrograph_checkpoints(thread_id, seq)",
    # `inline`: the small changed values (not lists) of that checkpoint, channel -> encoding,
    # so a superstep that changes small values is one INSERT.
    # One row per other changed channel. An appended list keeps only its new items (`data`, the
    # inside of a JSON array) and names the version it extends (`base`): size stays linear.
    """CREATE TABLE IF NOT EXISTS retrograph_values(
        thread_id TEXT NOT NULL, channel TEXT NOT NULL, version TEXT NOT NULL, base TEXT,
        kind SMALLINT NOT NULL, data BYTEA NOT NULL, count BIGINT, size BIGINT NOT NULL,
        tagged BOOLEAN NOT NULL, PRIMARY KEY (thread_id, channel, version))""",
    """CREATE TABLE IF NOT EXISTS retrograph_writes(
        wid BIGSERIAL PRIMARY KEY, thread_id TEXT NOT NULL, checkpoint TEXT NOT NULL,
        task_id TEXT NOT NULL, task_name TEXT NOT NULL, channel TEXT NOT NULL, value BYTEA NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS retrograph_writes_by_checkpoint ON retrograph_writes(thread_id, checkpoint)",
)

_BY_PARENT = "retrograph_checkpoints_by_parent"
"""A checkpoint's children (`PostgresSaver.first_child`); added to databases made before it."""
_ADDED = (f"CREATE INDEX IF NOT EXISTS {_BY_PARENT} ON retrograph_checkpoints(thread_id, parent_id, seq)",)


MIGRATIONS: list[str] = [*_SCHEMA, *_ADDED]
"""The statements creating Retrograph's tables, in order (LangGraph's savers list theirs as `MIGRATIONS`)."""


def is_postgres_url(text: Any) -> bool:
    return isinstance(text, str) and text.startswith(("postgresql://", "postgres://"))


def safe_url(url: str) -> str:
    """The URL without its password, for messages."""
    return re.sub(r"(://[^:/@]*):[^@/]*@", r"\1:***@", url)


def connect_error(url: str, e: BaseException) -> CheckpointError:
    text = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    return CheckpointError(
        f"Cannot connect to PostgreSQL at `{safe_url(url)}`: {text}. Check the host, port, user, "
        "password and database name, and that the server is running."
    )


def has_retrograph_tables(conn: Any) -> bool:
    row = conn.execute("SELECT to_regclass('retrograph_checkpoints') IS NOT NULL").fetchone()
    return bool(row[0])


def ensure_schema(conn: Any, url: str) -> None:
    """Create the tables when missing (once, whoever comes first); refuse a newer schema."""
    if not has_retrograph_tables(conn):
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
            for statement in _SCHEMA:
                conn.execute(statement)
            conn.execute(
                "INSERT INTO retrograph_meta(key, value) VALUES ('schema', %s) ON CONFLICT (key) DO NOTHING",
                (str(SCHEMA_VERSION),),
            )
    row = conn.execute("SELECT value FROM retrograph_meta WHERE key = 'schema'").fetchone()
    version = int(row[0]) if row is not None and str(row[0]).isdigit() else 0
    if version > SCHEMA_VERSION:
        raise UnsupportedSchemaVersion(
            f"`{safe_url(url)}` holds Retrograph checkpoints of a newer schema ({version}; this version "
            f"reads {SCHEMA_VERSION} and older). Upgrade Retrograph; nothing was changed."
        )
    if not conn.execute("SELECT to_regclass(%s) IS NOT NULL", (_BY_PARENT,)).fetchone()[0]:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
            for statement in _ADDED:
                conn.execute(statement)
