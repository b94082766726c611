"""SqliteStore: long-term memory in one SQLite file (the embedded default).

`with SqliteStore.from_conn_string("memory.db") as store: store.setup()` as LangGraph's;
the tables are LangGraph's, so a store file written by either opens in the other. Each
batch is one transaction (a savepoint, so it also nests in a transaction the caller
holds on a connection it passed): a process killed mid-write leaves the last committed
batch, never half of one.
"""
from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from .sql_core import MAX_ITEM_BYTES, NS_MATCH_FUNCTION, SQLITE, ns_match
from .sql_store import SqlStore

__all__ = ["BaseSqliteStore", "SqliteStore", "SqliteIndexConfig", "StoreNotSetUpError", "NS_MATCH_FUNCTION"]

SqliteIndexConfig = dict[str, Any]
"""`{"dims": N, "embed": ..., "fields": [...]}`; `distance_type` is accepted and ranking is cosine."""

_TABLES = (
    "CREATE TABLE IF NOT EXISTS store_migrations (v INTEGER PRIMARY KEY)",
    "CREATE TABLE IF NOT EXISTS store (prefix text NOT NULL, key text NOT NULL, value text NOT NULL, "
    "created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, "
    "expires_at TIMESTAMP, ttl_minutes REAL, PRIMARY KEY (prefix, key))",
    "CREATE INDEX IF NOT EXISTS store_prefix_idx ON store (prefix)",
    "CREATE INDEX IF NOT EXISTS idx_store_expires_at ON store (expires_at) WHERE expires_at IS NOT NULL",
)
_VECTOR_TABLES = (
    "CREATE TABLE IF NOT EXISTS vector_migrations (v INTEGER PRIMARY KEY)",
    "CREATE TABLE IF NOT EXISTS store_vectors (prefix text NOT NULL, key text NOT NULL, "
    "field_name text NOT NULL, embedding BLOB, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, "
    "updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, PRIMARY KEY (prefix, key, field_name))",
)
SCHEMA_VERSIONS = 5
"""The schema equals LangGraph's after its 5 store migrations (recorded so it skips them)."""


class StoreNotSetUpError(RuntimeError):
    """The store's tables are missing: `setup()` was not called on this file."""


class BaseSqliteStore:
    """What the SQLite stores share, `SqliteStore` and `AsyncSqliteStore` (LangGraph's
    `langgraph.store.sqlite.base.BaseSqliteStore`): the dialect, the tables `setup()`
    makes, and the function a connection needs for namespace conditions in SQL."""

    dialect = SQLITE
    MIGRATIONS = [*_TABLES, *_VECTOR_TABLES]
    """The statements `setup()` runs."""

    @staticmethod
    def register_functions(conn: sqlite3.Connection) -> None:
        """Make NS_MATCH_FUNCTION callable in `conn`'s SQL (list_namespaces uses it)."""
        conn.create_function(NS_MATCH_FUNCTION, 2, ns_match, deterministic=True)


class SqliteStore(BaseSqliteStore, SqlStore):
    """Items in a SQLite file; safe to share between threads (one connection, one lock)."""

    def __init__(self, conn: sqlite3.Connection | str | os.PathLike[str], *, deserializer: Any = None,
                 index: Mapping[str, Any] | None = None, ttl: Mapping[str, Any] | None = None,
                 max_item_bytes: int = MAX_ITEM_BYTES) -> None:
        if deserializer is not None:
            raise ValueError("SqliteStore(deserializer=...): values are JSON in Retrograph; no custom decoder")
        super().__init__(index=index, ttl=ttl, max_item_bytes=max_item_bytes)
        self._owned = not isinstance(conn, sqlite3.Connection)
        if isinstance(conn, sqlite3.Connection):
            self.conn = conn
        elif isinstance(conn, (str, os.PathLike)):
            self.conn = _connect(os.fspath(conn))
        else:
            raise TypeError(f"SqliteStore takes a file path or a sqlite3.Connection, not {type(conn).__name__}")
        self.path = _path_of(self.conn)
        self.register_functions(self.conn)
        self.lock = threading.RLock()

    def close(self) -> None:
        self.stop_ttl_sweeper()
        if self._owned:
            self.conn.close()

    def setup(self) -> None:
        """Create the tables (and the vector table, with an index) if they are missing."""
        with self._transaction() as cur:
            for sql in _TABLES:
                cur.execute(sql)
            cols = {row[1] for row in cur.execute("PRAGMA table_info(store)").fetchall()}
            for col, kind in (("expires_at", "TIMESTAMP"), ("ttl_minutes", "REAL")):
                if col not in cols:  # a store made by an older LangGraph
                    cur.execute(f"ALTER TABLE store ADD COLUMN {col} {kind}")
            cur.executemany("INSERT OR IGNORE INTO store_migrations (v) VALUES (?)",
                            [(v,) for v in range(SCHEMA_VERSIONS)])
            if self.index is not None:
                for sql in _VECTOR_TABLES:
                    cur.execute(sql)
                cur.execute("INSERT OR IGNORE INTO vector_migrations (v) VALUES (0)")

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Cursor]:
        with self.lock:
            cur = self.conn.cursor()
            try:
                cur.execute("SAVEPOINT retrograph_store")
                try:
                    yield cur
                except BaseException:
                    cur.execute("ROLLBACK TO retrograph_store")
                    cur.execute("RELEASE retrograph_store")
                    raise
                cur.execute("RELEASE retrograph_store")
            except sqlite3.OperationalError as exc:
                if "no such table" in str(exc):
                    raise StoreNotSetUpError(
                        f"the store file {self.path or '(connection)'} has no store tables ({exc}): "
                        "call store.setup() once before using it") from exc
                raise
            finally:
                cur.close()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.path!r})"


def _connect(path: str) -> sqlite3.Connection:
    try:
        conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL" if path != ":memory:" else "PRAGMA journal_mode=MEMORY")
    except sqlite3.Error as exc:
        raise sqlite3.OperationalError(f"cannot open the store file {path!r}: {exc}") from exc
    return conn


def _path_of(conn: sqlite3.Connection) -> str:
    try:
        rows = conn.execute("PRAGMA database_list").fetchall()
    except sqlite3.Error:
        return ""
    return str(rows[0][2]) if rows else ""
