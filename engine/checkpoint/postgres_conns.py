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

__all__ = ["OneConnection", "PerCallConnections", "sync_conninfo", "is_async_connection", "migrate_pending_sends"]

_TASKS = "__pregel_tasks"  # LangGraph's channel of pending sends


class OneConnection:
    """One psycopg connection shared like a pool (calls take turns; a call made inside
    another on the same thread reuses it). Used by the savers and the stores alike."""

    def __init__(self, conn: Any) -> None:
        self._conn, self._lock = conn, threading.RLock()

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


def migrate_pending_sends(saver: Any, ckpt: Any, found: Any) -> Any:
    """`found` (a CheckpointTuple of `ckpt`) as LangGraph's PostgreSQL savers hand back a
    checkpoint of a format before 4: the sends its parent's tasks wrote (pending writes to
    `__pregel_tasks`, in the order written) become its `__pregel_tasks` value. Nothing stored changes."""
    checkpoint = found.checkpoint
    if ckpt.parent_id is None or not isinstance(checkpoint.get("v"), int) or checkpoint["v"] >= 4:
        return found
    sends = [w.value for w in saver.pending_writes(ckpt.thread_id, ckpt.parent_id) if w.channel == _TASKS]
    if not sends:
        return found
    versions = dict(checkpoint.get("channel_versions") or {})
    versions[_TASKS] = max(versions.values()) if versions else f"{1:032}.{0:016}"
    migrated = {**checkpoint, "channel_values": {**(checkpoint.get("channel_values") or {}), _TASKS: sends},
                "channel_versions": versions}
    return found._replace(checkpoint=migrated)
