"""`langgraph.store.sqlite.base.BaseSqliteStore` and `langgraph.store.postgres.base.
BasePostgresStore` are the shared bases of the sync and async stores, made without
arguments as LangGraph's; `NS_MATCH_FUNCTION` is the SQL function a SQLite store's
connection has for namespace conditions (suffixes and "*"), which list_namespaces uses."""
from __future__ import annotations

import pytest

from engine import compat
from engine.store import AsyncPostgresStore, AsyncSqliteStore, ListNamespacesOp, MatchCondition, PostgresStore, SqliteStore


@pytest.fixture
def compat_on():
    compat.install()
    yield
    compat.uninstall()


def test_the_base_classes_are_served_and_are_the_stores_bases(compat_on):
    from langgraph.store.postgres.base import BasePostgresStore
    from langgraph.store.sqlite.base import NS_MATCH_FUNCTION, BaseSqliteStore

    assert issubclass(SqliteStore, BaseSqliteStore) and issubclass(AsyncSqliteStore, BaseSqliteStore)
    assert issubclass(PostgresStore, BasePostgresStore) and issubclass(AsyncPostgresStore, BasePostgresStore)
    assert BaseSqliteStore().MIGRATIONS and BasePostgresStore().MIGRATIONS
    assert isinstance(NS_MATCH_FUNCTION, str)


def test_a_suffix_or_wildcard_condition_runs_in_sql_through_the_match_function(tmp_path):
    from engine.store.sqlite import NS_MATCH_FUNCTION

    with SqliteStore(str(tmp_path / "s.sqlite")) as store:
        store.setup()
        for ns in [("users", "alice", "notes"), ("users", "bob", "notes"), ("users", "bob", "todo"), ("team",)]:
            store.put(ns, "k", {"v": 1})
        statements: list[str] = []
        store.conn.set_trace_callback(statements.append)
        found = store.batch([ListNamespacesOp(match_conditions=(
            MatchCondition(match_type="prefix", path=("users", "*")),
            MatchCondition(match_type="suffix", path=("notes",))), limit=10)])[0]
        store.conn.set_trace_callback(None)
        assert found == [("users", "alice", "notes"), ("users", "bob", "notes")]
        assert any(NS_MATCH_FUNCTION in s for s in statements)
        assert store.list_namespaces(prefix=("users",), max_depth=2) == [("users", "alice"), ("users", "bob")]
        assert store.conn.execute(f"SELECT {NS_MATCH_FUNCTION}('a.b.c', '[\"suffix\", [\"c\"]]')").fetchone() == (1,)
