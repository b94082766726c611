"""The connections a PostgreSQL saver runs its statements on, shaped as a pool
(`with pool.connection() as conn:`), whatever the caller handed in.

- a URL: the saver's own `psycopg_pool.ConnectionPool` (postgres.py makes it);
- a `psycopg.Connection` or `ConnectionPool`: used as given (`OneConnection` takes turns on
  one connection; a pipeline the caller opened on it stays the caller's);
- a `psycopg.AsyncConnection` or `AsyncConnectionPool` (LangGraph's `AsyncPostgresSaver(conn)`):
  the engine's savers are synchronous (a run saves between supersteps), so the saver opens a
  short-lived sync connection to the same database per call (`PerCallConnections`) and keeps
  none open afterwards: the caller's database can be dropped as soon as its own connection is
  closed, as with LangGraph's saver.
"""
from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["OneConnection", "PerCallConnections", "sync_conninfo", "is_async_connection"]


class OneConnection:
    """One psycopg connection shared like a pool (calls take turns)."""

    def __init__(self, conn: Any) -> None:
        self._conn, self._lock = conn, threading.Lock()

    @contextmanager
    def connection(self, timeout: float | None = None) -> Iterator[Any]:
        with self._lock:
            yield self._conn

    def close(self) -> None:
        """The connection belongs to whoever made it."""


class PerCallConnections:
    """A sync connection to `conninfo` for each call, closed at its end (autocommit)."""

    def __init__(self, conninfo: str) -> None:
        self.conninfo = conninfo

    @contextmanager
    def connection(self, timeout: float | None = None) -> Iterator[Any]:
        import psycopg

        with psycopg.connect(self.conninfo, autocommit=True, connect_timeout=int(timeout or 30)) as conn:
            yield conn

    def close(self) -> None:
        """Nothing stays open between calls."""


def is_async_connection(conn: Any) -> bool:
    """Whether `conn` is a psycopg `AsyncConnection` or a psycopg_pool `AsyncConnectionPool`."""
    import psycopg

    if isinstance(conn, psycopg.AsyncConnection):
        return True
    try:
        from psycopg_pool import AsyncConnectionPool
    except ImportError:  # pragma: no cover - psycopg_pool is a dependency
        return False
    return isinstance(conn, AsyncConnectionPool)


def sync_conninfo(conn: Any) -> str:
    """The connection string of an async connection or pool's database, password included."""
    import psycopg
    from psycopg.conninfo import make_conninfo

    if isinstance(conn, psycopg.AsyncConnection):
        info = conn.info
        extra = {"password": info.password} if info.password else {}
        return make_conninfo(info.dsn, **extra)
    return str(conn.conninfo)  # an AsyncConnectionPool keeps the string it was given
