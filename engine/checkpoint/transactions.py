"""The transactions the savers' maintenance calls hold (lg_maintenance.py): one per call.

`atomic(conn)` is SqliteSaver's transaction block, which becomes a savepoint inside an
open transaction, so the saver's own writes (a put, a delete) nest in a maintenance call's
transaction. `sqlite_maintenance(saver)` and `postgres_maintenance(saver)` are the savers'
`maintenance_transaction()`: the SQLite one holds the saver's lock and one `BEGIN
IMMEDIATE` for the call; the PostgreSQL one pins one pooled connection to the calling
thread (`saver._pinned.conn`, which `saver._conn()` hands out) inside one transaction.
Either rolls back when the block raises and drops what the saver remembers of its rows.
"""
from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["atomic", "sqlite_maintenance", "postgres_maintenance"]


@contextmanager
def atomic(conn: sqlite3.Connection, begin: str = "BEGIN IMMEDIATE") -> Iterator[None]:
    """One transaction: committed when the block ends, rolled back when it raises. Inside
    a transaction already (a maintenance call's): a savepoint of it."""
    if conn.in_transaction:
        conn.execute("SAVEPOINT retrograph_inner")
        try:
            yield
        except BaseException:
            conn.execute("ROLLBACK TO retrograph_inner")
            conn.execute("RELEASE retrograph_inner")
            raise
        conn.execute("RELEASE retrograph_inner")
        return
    conn.execute(begin)
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


@contextmanager
def sqlite_maintenance(saver: Any) -> Iterator[None]:
    if saver.read_only:
        saver._writable()
    with saver._lock, saver._errors():
        conn = saver._db()
        try:
            with atomic(conn):
                yield
        except BaseException:
            saver._forget()  # what it remembers of rows the rollback took back
            raise


@contextmanager
def postgres_maintenance(saver: Any) -> Iterator[None]:
    if getattr(saver._pinned, "conn", None) is not None:
        yield  # nested: part of the outer call's transaction
        return
    with saver._conn() as conn:
        try:
            with conn.transaction():
                saver._pinned.conn = conn
                try:
                    yield
                finally:
                    saver._pinned.conn = None
        except BaseException:
            with saver._lock:
                saver._known.clear()  # what it remembers of rows the rollback took back
            raise
