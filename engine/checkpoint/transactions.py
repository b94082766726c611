"""The transactions the savers' maintenance calls hold (lg_maintenance.py): one per call.

`atomic(conn)` is SqliteSaver's transaction block, which becomes a savepoint inside an
open transaction, so the saver's own writes (a put, a delete) nest in a maintenance call's
transaction. `sqlite_maintenance(saver)` and `postgres_maintenance(saver)` are the savers'
`maintenance_transaction()`: the SQLite one holds the saver's lock and one `BEGIN
IMMEDIATE` for the call; the PostgreSQL one pins one pooled connection to the calling
thread (a thread-local the saver's connection getter hands out first) in one transaction.
Either rolls back when the block raises and drops what the saver remembers of its rows.
"""
from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
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
def sqlite_maintenance(lock: Any, errors: Callable[[], Any], db: Callable[[], sqlite3.Connection],
                       forget: Callable[[], None]) -> Iterator[None]:
    """SqliteSaver's: under `lock` and `errors()`, one transaction on `db()`; `forget()`
    (what the saver remembers of its rows) when it rolls back."""
    with lock, errors():
        conn = db()
        try:
            with atomic(conn):
                yield
        except BaseException:
            forget()
            raise


@contextmanager
def postgres_maintenance(pinned: Any, connection: Callable[[], Any], forget: Callable[[], None]) -> Iterator[None]:
    """PostgresSaver's: one `connection()` in one transaction, set as `pinned.conn` for the
    calling thread while the block runs; `forget()` when it rolls back."""
    if getattr(pinned, "conn", None) is not None:
        yield  # nested: part of the outer call's transaction
        return
    with connection() as conn:
        try:
            with conn.transaction():
                pinned.conn = conn
                try:
                    yield
                finally:
                    pinned.conn = None
        except BaseException:
            forget()
            raise
