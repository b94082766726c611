"""A read the saver repeats on every `get_state` (postgres_state.py's `STATE`) sent as a
server-side prepared statement straight through libpq (`psycopg.pq`), results in binary
format, rows made by psycopg's own `Transformer`.

psycopg's `cursor.execute` spends more client CPU on a short read than the server spends
running it (its query conversion, prepared-statement bookkeeping and wait loop); one
libpq call (`PQexecPrepared`, which releases the GIL while it waits) does the same round
trip for a fraction of it. Used only on a connection where it cannot surprise anyone:
a sync psycopg connection in autocommit mode, idle, outside a pipeline, that prepares
statements (`prepare_threshold` not None: a connection set up for a transaction-mode
pgbouncer keeps psycopg's own path). Anything unexpected (the server refuses to prepare,
an error of the statement) answers None and the caller runs the statement through
psycopg, which raises the error as usual.
"""
from __future__ import annotations

import re
import threading
import weakref
from collections.abc import Sequence
from typing import Any, NamedTuple

__all__ = ["Prepared", "prepared", "fetch_prepared"]

_NOT_PREPARED = "26000"  # invalid_sql_statement_name: the statement went away (DEALLOCATE, DISCARD ALL)
_ALREADY = "42P05"  # duplicate_prepared_statement: prepared on this connection by an earlier saver


class Prepared(NamedTuple):
    """A statement with `$n` parameters, prepared under `name` on each connection it runs on."""

    name: bytes
    sql: bytes
    params: tuple[str, ...]  # the `%(name)s` placeholders of the psycopg form, in `$n` order


def prepared(name: str, sql: str) -> Prepared:
    """`sql` (psycopg's `%(name)s` placeholders) as a statement with `$1..$n` parameters."""
    order: list[str] = []

    def number(match: re.Match[str]) -> str:
        if match.group(1) not in order:
            order.append(match.group(1))
        return f"${order.index(match.group(1)) + 1}"

    text = re.sub(r"%\((\w+)\)s", number, sql).replace("%%", "%")  # psycopg's escaped percent sign
    return Prepared(name.encode(), text.encode(), tuple(order))


class _Conn:
    """What this module keeps of one connection: the statements prepared on it, a Transformer."""

    __slots__ = ("names", "runs", "tx")

    def __init__(self, conn: Any) -> None:
        from psycopg.adapt import Transformer

        self.names: set[bytes] = set()
        self.runs: dict[bytes, int] = {}  # runs of a statement not prepared yet (psycopg's prepare_threshold)
        self.tx = Transformer(conn)


_STATE: weakref.WeakKeyDictionary[Any, _Conn] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()
_OK: Any = None


def _usable(conn: Any) -> bool:
    global _OK
    if _OK is None:
        from psycopg import Connection
        from psycopg.pq import PipelineStatus, TransactionStatus

        _OK = (Connection, TransactionStatus.IDLE, PipelineStatus.OFF)
    cls, idle, off = _OK
    if type(conn) is not cls and not isinstance(conn, cls):
        return False
    pg = conn.pgconn
    return bool(conn.autocommit and conn.prepare_threshold is not None and pg.transaction_status == idle
                and pg.pipeline_status == off)


def fetch_prepared(conn: Any, stmt: Prepared, params: Sequence[Any]) -> list[tuple[Any, ...]] | None:
    """The rows of `stmt` run with `params` (str/int/None) on psycopg connection `conn`,
    as tuples; None when it cannot run that way here (the caller runs it through psycopg)."""
    if not _usable(conn) or not all(p is None or type(p) is str or type(p) is int for p in params):
        return None  # (a list or any other value: psycopg adapts it)
    with _LOCK:
        state = _STATE.get(conn)
        if state is None:
            state = _STATE[conn] = _Conn(conn)
    from psycopg.pq import ExecStatus

    pg = conn.pgconn
    values = [None if p is None else str(p).encode() for p in params]
    if any(v is not None and b"\0" in v for v in values) or pg.parameter_status(b"client_encoding") != b"UTF8":
        return None  # psycopg refuses a NUL in text (libpq would cut the value there) / encodes for the connection
    if stmt.name not in state.names:
        runs = state.runs[stmt.name] = state.runs.get(stmt.name, 0) + 1
        if runs <= conn.prepare_threshold:  # as psycopg: a statement run once or twice is not prepared
            return _rows(state, pg.exec_params(stmt.sql, values, None, None, 1))
    for _ in range(2):
        if stmt.name not in state.names:
            made = pg.prepare(stmt.name, stmt.sql, None)
            if made.status != ExecStatus.COMMAND_OK and _code(made) != _ALREADY:
                return None
            state.names.add(stmt.name)
        res = pg.exec_prepared(stmt.name, values, None, 1)
        if res.status == ExecStatus.TUPLES_OK:
            return _rows(state, res)
        if _code(res) != _NOT_PREPARED:
            return None
        state.names.discard(stmt.name)  # dropped on the server: prepare it again, once
    return None


def _rows(state: _Conn, res: Any) -> list[tuple[Any, ...]] | None:
    from psycopg.pq import ExecStatus

    if res.status != ExecStatus.TUPLES_OK:
        return None
    tx = state.tx
    tx.set_pgresult(res)
    rows: list[tuple[Any, ...]] = tx.load_rows(0, res.ntuples, tuple)
    tx.set_pgresult(None)
    return rows


def _code(res: Any) -> str:
    from psycopg.pq import DiagnosticField

    got = res.error_field(DiagnosticField.SQLSTATE)
    return got.decode() if got else ""
