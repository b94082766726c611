"""Connections of the PostgreSQL stores: a URL, a psycopg connection or a pool, each used
as a pool (`pool.connection()`), and the errors that name the server at fault."""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..checkpoint.postgres_conns import OneConnection  # the savers' own: one connection taking turns

__all__ = ["open_pool", "safe_url", "StoreConnectionError", "PgVectorMissingError"]


class StoreConnectionError(ConnectionError):
    """The store's database cannot be reached (a wrong URL, a server down)."""


class PgVectorMissingError(RuntimeError):
    """A semantic index was asked of a PostgreSQL server without pgvector."""


def safe_url(url: str) -> str:
    """The URL without its password, for messages."""
    return re.sub(r"(://[^:/@]*):[^@/]*@", r"\1:***@", url)


def _psycopg() -> Any:
    try:
        import psycopg
        import psycopg_pool
    except ImportError:
        raise ImportError("PostgresStore needs psycopg 3 and psycopg_pool: pip install 'retrograph[postgres]'") from None
    return psycopg, psycopg_pool


def open_pool(conn: Any, pool_config: Mapping[str, Any] | None) -> tuple[Any, bool, str]:
    """(pool, whether this store owns it, its URL) for a URL, a connection or a pool."""
    psycopg, psycopg_pool = _psycopg()
    if isinstance(conn, str):
        if not conn.startswith(("postgresql://", "postgres://")) and "=" not in conn:
            raise StoreConnectionError(f"`{safe_url(conn)}` is not a PostgreSQL URL: write "
                                       "postgresql://user:password@host:port/database")
        config = dict(pool_config or {})
        kwargs = {"autocommit": True, "prepare_threshold": None, **config.pop("kwargs", {})}
        try:
            with psycopg.connect(conn, connect_timeout=10):
                pass
        except psycopg.Error as exc:
            line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise StoreConnectionError(
                f"cannot connect to PostgreSQL at `{safe_url(conn)}`: {line}; check the host, port, user, "
                "password and database name, and that the server is running") from None
        pool = psycopg_pool.ConnectionPool(conn, min_size=config.pop("min_size", 1),
                                           max_size=config.pop("max_size", 4), kwargs=kwargs, open=True,
                                           name="retrograph-store")
        return pool, True, conn
    if isinstance(conn, psycopg_pool.ConnectionPool):
        return conn, False, str(getattr(conn, "conninfo", ""))
    if isinstance(conn, psycopg.Connection):
        return OneConnection(conn), False, str(conn.info.dsn)
    if isinstance(conn, (psycopg.AsyncConnection, psycopg_pool.AsyncConnectionPool)):
        raise TypeError(f"{type(conn).__name__} given to a PostgreSQL store: Retrograph's stores run their "
                        "statements on sync connections (in a worker thread for the async store); pass the "
                        "URL instead: `async with AsyncPostgresStore.from_conn_string(url) as store:`")
    raise TypeError(f"a PostgreSQL store takes a URL, a psycopg Connection or a ConnectionPool, "
                    f"not {type(conn).__name__}")
