"""How PostgresSaver runs its statements on a connection (`Tuples`): tuples whatever row
factory the connection was given, committed at once, in the caller's pipeline when it has
one; several in one transaction sent as one pipeline (`execute_many_in_one`); a repeated
read straight through libpq (`fetch_prepared`, postgres_fast.py)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .postgres_fast import Prepared, fetch_prepared
from .postgres_sql import FIND

__all__ = ["Mismatch", "Tuples", "count_rows"]


class Mismatch(Exception):
    """A statement of a batch touched other rows than it should (its checkpoint is missing)."""


def count_rows(cur: Any, sql: str) -> int:
    """Rows a statement of `_prepare_writes` found or inserted."""
    return len(cur.fetchall()) if sql is FIND else cur.rowcount


def _pipelines() -> bool:
    """Whether psycopg's libpq can pipeline (14+); else a batch is a round trip per statement."""
    global _PIPELINES
    if _PIPELINES is None:
        from psycopg import Pipeline

        _PIPELINES = bool(Pipeline.is_supported())
    return _PIPELINES


_PIPELINES: bool | None = None


_IMPORTED: list[Any] = []  # psycopg's tuple row factory and TransactionStatus.IDLE, imported on first use


class Tuples:
    """A connection whose queries give tuples (a connection handed in may make dicts) and
    commit at once (one handed in may not be in autocommit mode)."""

    __slots__ = ("conn", "_rows", "_idle")

    def __init__(self, conn: Any) -> None:
        if not _IMPORTED:
            from psycopg.pq import TransactionStatus
            from psycopg.rows import tuple_row

            _IMPORTED.extend((tuple_row, TransactionStatus.IDLE))
        self.conn, (self._rows, self._idle) = conn, _IMPORTED

    def execute(self, sql: Any, params: Any = None) -> Any:
        conn = self.conn
        cur = conn.cursor(row_factory=self._rows)
        if conn.info.pipeline_status:  # in the caller's pipeline (LangGraph's `pipe=`): results read at once
            with conn.pipeline() as pipe:
                if conn.autocommit:
                    cur.execute(sql, params)
                else:
                    with conn.transaction():
                        cur.execute(sql, params)
                pipe.sync()
            return cur
        if conn.autocommit:
            return cur.execute(sql, params)
        with conn.transaction():
            return cur.execute(sql, params)

    def transaction(self) -> Any:
        return self.conn.transaction()

    def fetch_prepared(self, stmt: Prepared, params: Mapping[str, Any]) -> list[tuple[Any, ...]] | None:
        """`stmt`'s rows by libpq directly (postgres_fast.py), or None: run it with `execute`."""
        return fetch_prepared(self.conn, stmt, [params[name] for name in stmt.params])

    def execute_many_in_one(self, statements: Sequence[tuple[str, Any, int]]) -> None:
        """Run `(sql, params, expected row count or -1)` statements in one transaction and
        commit; raise, with nothing committed, when one fails or a count differs. On an
        autocommit connection (the saver's own pool) they go as one pipeline: BEGIN, the
        statements and COMMIT sent together, one round trip (two when a count is checked)."""
        conn = self.conn
        if not conn.autocommit or not _pipelines():  # a connection handed in keeps its own transactions
            with conn.transaction():
                for sql, params, expected in statements:
                    cur = conn.cursor(row_factory=self._rows).execute(sql, params)
                    if expected >= 0 and count_rows(cur, sql) != expected:
                        raise Mismatch(sql)
            return
        try:
            with conn.pipeline() as pipe:
                conn.execute("BEGIN")
                cursors = [conn.cursor(row_factory=self._rows).execute(sql, params) for sql, params, _ in statements]
                if any(expected >= 0 for _, _, expected in statements):
                    pipe.sync()
                    for cur, (sql, _, expected) in zip(cursors, statements):
                        if expected >= 0 and count_rows(cur, sql) != expected:
                            raise Mismatch(sql)
                conn.execute("COMMIT")
        except BaseException:
            if conn.info.transaction_status != self._idle:
                conn.rollback()  # the failed transaction is left open: end it before the pool takes it back
            raise
