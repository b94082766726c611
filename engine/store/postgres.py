"""PostgresStore: long-term memory in PostgreSQL (team scale), psycopg 3 with a pool.

`with PostgresStore.from_conn_string(url) as store: store.setup()` as LangGraph's; the
tables are LangGraph's. Semantic search (`index=`) keeps vectors in a pgvector column and
ranks in SQL; a server without the `vector` extension is a clear error naming pgvector.
Each batch is one transaction on one connection from the pool.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from .pg_connect import PgVectorMissingError, StoreConnectionError, open_pool, safe_url
from .sql_core import MAX_ITEM_BYTES, POSTGRES, Dialect
from .sql_store import SqlStore

__all__ = ["PostgresStore", "PostgresIndexConfig", "PoolConfig", "PgVectorMissingError", "StoreConnectionError"]

PostgresIndexConfig = dict[str, Any]
"""`{"dims": N, "embed": ..., "fields": [...], "distance_type": "cosine" | "l2" | "inner_product"}`."""
PoolConfig = dict[str, Any]
"""`{"min_size": 1, "max_size": 10, "kwargs": {...}}` for psycopg_pool.ConnectionPool."""

_TABLES = (
    "CREATE TABLE IF NOT EXISTS store_migrations (v INTEGER PRIMARY KEY)",
    "CREATE TABLE IF NOT EXISTS store (prefix text NOT NULL, key text NOT NULL, value jsonb NOT NULL, "
    "created_at timestamptz DEFAULT CURRENT_TIMESTAMP, updated_at timestamptz DEFAULT CURRENT_TIMESTAMP, "
    "expires_at timestamptz, ttl_minutes double precision, PRIMARY KEY (prefix, key))",
    "ALTER TABLE store ADD COLUMN IF NOT EXISTS expires_at timestamptz, "
    "ADD COLUMN IF NOT EXISTS ttl_minutes double precision",
    "CREATE INDEX IF NOT EXISTS store_prefix_idx ON store USING btree (prefix text_pattern_ops)",
    "CREATE INDEX IF NOT EXISTS idx_store_expires_at ON store (expires_at) WHERE expires_at IS NOT NULL",
)
SCHEMA_VERSIONS = 4
"""The schema equals LangGraph's after its 4 store migrations (recorded so it skips them)."""

_SCORES = {"cosine": ("1 - (v.embedding {op} {q})", "<=>"), "l2": ("-(v.embedding {op} {q})", "<->"),
           "inner_product": ("-(v.embedding {op} {q})", "<#>")}
"""Each distance's score (higher is nearer) and pgvector's operator."""


class PostgresStore(SqlStore):
    """Items in PostgreSQL tables; safe to share between threads (a pool, or one connection and a lock)."""

    MIGRATIONS = list(_TABLES)
    """The statements `setup()` runs (then, with an index, pgvector's)."""
    omit_expired_default = False
    """As LangGraph's PostgresStore: an expired item is read until the sweep deletes it,
    unless `ttl={"omit_expired": True}`."""

    def __init__(self, conn: Any, *, pipe: Any = None, deserializer: Any = None,
                 index: Mapping[str, Any] | None = None, ttl: Mapping[str, Any] | None = None,
                 pool_config: Mapping[str, Any] | None = None, max_item_bytes: int = MAX_ITEM_BYTES) -> None:
        if deserializer is not None:
            raise ValueError("PostgresStore(deserializer=...): values are JSON in Retrograph; no custom decoder")
        super().__init__(index=index, ttl=ttl, max_item_bytes=max_item_bytes)
        distance = (index or {}).get("distance_type", "cosine")
        if distance not in _SCORES:
            raise ValueError(f"index distance_type={distance!r}: use one of {', '.join(_SCORES)}")
        vector_type = ((index or {}).get("ann_index_config") or {}).get("vector_type", "vector")
        if vector_type not in ("vector", "halfvec"):
            raise ValueError(f"index ann_index_config vector_type={vector_type!r}: use 'vector' or 'halfvec'")
        self._distance, self._vector_type = distance, vector_type
        self.pool, self._owned, self.url = open_pool(conn, pool_config)
        self.dialect: Dialect = POSTGRES
        self._vector_schema: str | None = None

    @classmethod
    def _url_defaults(cls, kwargs: dict[str, Any]) -> dict[str, Any]:
        """`from_conn_string(url, pipeline=, pool_config=)`: `pipeline` is accepted (each batch is
        already one round of statements in one transaction); the pool holds one connection
        unless `pool_config` sizes it."""
        kwargs.pop("pipeline", None)
        kwargs["pool_config"] = kwargs.get("pool_config") or {"min_size": 1, "max_size": 1}
        return kwargs

    def close(self) -> None:
        self.stop_ttl_sweeper()
        if self._owned:
            self.pool.close()

    @property
    def _ranked_in_sql(self) -> bool:
        return True

    def setup(self) -> None:
        """Create the tables (and, with an index, pgvector's extension and the vector table)."""
        with self._transaction(vectors=False) as cur:
            for sql in _TABLES:
                cur.execute(sql)
            cur.executemany("INSERT INTO store_migrations (v) VALUES (%s) ON CONFLICT DO NOTHING",
                            [(v,) for v in range(SCHEMA_VERSIONS)])
            if self.index is None:
                return
            schema = self._ensure_vector(cur, create=True)
            cur.execute("CREATE TABLE IF NOT EXISTS vector_migrations (v INTEGER PRIMARY KEY)")
            cur.execute(
                "CREATE TABLE IF NOT EXISTS store_vectors (prefix text NOT NULL, key text NOT NULL, "
                f'field_name text NOT NULL, embedding "{schema}".{self._vector_type}({int(self.index.dims)}), '
                "created_at timestamptz DEFAULT CURRENT_TIMESTAMP, updated_at timestamptz DEFAULT CURRENT_TIMESTAMP, "
                "PRIMARY KEY (prefix, key, field_name), "
                "FOREIGN KEY (prefix, key) REFERENCES store (prefix, key) ON DELETE CASCADE)")
            cur.execute("INSERT INTO vector_migrations (v) VALUES (0), (1) ON CONFLICT DO NOTHING")

    def _ensure_vector(self, cur: Any, *, create: bool) -> str:
        """The schema holding pgvector's types (created by `setup` if the server has it)."""
        if self._vector_schema is not None:
            return self._vector_schema
        found = cur.execute("SELECT extnamespace::regnamespace::text FROM pg_extension WHERE extname = 'vector'"
                            ).fetchone()
        if found is None and create:
            available = cur.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone()
            if available is None:
                raise PgVectorMissingError(
                    f"PostgresStore(index=...) needs the pgvector extension (`vector`), which the server at "
                    f"`{safe_url(self.url)}` does not have: install pgvector there (for example the "
                    "postgresql-16-pgvector package, or the pgserver wheel's build), or create the store "
                    "without index=")
            schema = cur.execute("SELECT current_schema()").fetchone()[0] or "public"
            cur.execute(f'CREATE EXTENSION IF NOT EXISTS vector SCHEMA "{schema}"')
            found = (schema,)
        if found is None:
            raise PgVectorMissingError(
                f"PostgresStore(index=...): the database at `{safe_url(self.url)}` has no pgvector extension "
                "(`vector`): call store.setup() (it creates it), or install pgvector on the server")
        schema = str(found[0]).strip('"')
        self._vector_schema = schema
        template, op = _SCORES[self._distance]
        self.dialect = dataclasses.replace(POSTGRES, vector_param=f'%s::"{schema}".{self._vector_type}',
                                           score=template.replace("{op}", f'OPERATOR("{schema}".{op})'))
        return schema

    @contextmanager
    def _transaction(self, *, vectors: bool = True) -> Iterator[Any]:
        from psycopg.rows import tuple_row

        with self.pool.connection() as conn:
            with conn.transaction(), conn.cursor(row_factory=tuple_row) as cur:  # a pool handed in may make dicts
                if vectors and self.index is not None:
                    self._ensure_vector(cur, create=False)
                yield cur

    @contextmanager
    def _cursor(self) -> Iterator[Any]:
        """A cursor inside one transaction for a caller's own statements, its rows dicts
        (`row["n"]`) as in LangGraph's store."""
        from psycopg.rows import dict_row

        with self.pool.connection() as conn:
            with conn.transaction(), conn.cursor(row_factory=dict_row) as cur:
                yield cur

    def __repr__(self) -> str:
        return f"{type(self).__name__}({safe_url(self.url)!r})"

