"""Concurrent awaited calls on the async SQL stores (`asyncio.gather` of many `aput`,
`aget`, `asearch`, `alist_namespaces`, `adelete`) go to the database as a few batches,
each one transaction, not one transaction per call: LangGraph's big-batch workloads
(thousands of calls at once) finish in a bounded number of round trips, with every
caller's own answer."""
from __future__ import annotations

import asyncio
from typing import Any

import pytest

from engine.store import AsyncPostgresStore, AsyncSqliteStore


def _open(kind: str, request: pytest.FixtureRequest, tmp_path: Any) -> Any:
    if kind == "sqlite":
        return AsyncSqliteStore.from_conn_string(str(tmp_path / "store.sqlite"))
    return AsyncPostgresStore.from_conn_string(request.getfixturevalue("pg_url"))


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_a_thousand_concurrent_calls_are_a_few_transactions(kind, request, tmp_path):
    async def main() -> tuple[list[int], list[Any], list[Any]]:
        async with _open(kind, request, tmp_path) as store:
            await store.setup()
            batches: list[int] = []
            real = store.inner.run_prepared

            def counted(ops: list[Any], prepared: Any) -> Any:
                batches.append(len(ops))
                return real(ops, prepared)

            store.inner.run_prepared = counted
            ns = ("big", "batch")
            await asyncio.gather(*(store.aput(ns, f"k{i}", {"i": i}) for i in range(500)))
            reads = await asyncio.gather(*(store.aget(ns, f"k{i}") for i in range(500)),
                                         store.asearch(("big",), limit=3), store.alist_namespaces(prefix=("big",)))
            await asyncio.gather(*(store.adelete(ns, f"k{i}") for i in range(0, 500, 2)))
            left = await asyncio.gather(*(store.aget(ns, f"k{i}") for i in range(4)))
            return batches, reads, left

    batches, reads, left = asyncio.run(main())
    assert sum(batches) == 500 + 502 + 250 + 4  # every call answered, none twice
    assert len(batches) <= 12, batches  # a few transactions, not 1256
    assert [item.value["i"] for item in reads[:500]] == list(range(500))
    assert len(reads[500]) == 3 and reads[501] == [("big", "batch")]
    assert [item is None for item in left] == [True, False, True, False]


def test_closing_the_store_ends_its_batching_task(tmp_path):
    async def main() -> list[asyncio.Task[Any]]:
        async with AsyncSqliteStore.from_conn_string(str(tmp_path / "store.sqlite")) as store:
            await store.setup()
            await store.aput(("a",), "k", {"v": 1})
        return [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]

    assert asyncio.run(main()) == []


def test_a_run_of_gets_in_a_batch_is_one_statement_per_chunk(tmp_path):
    from engine.store import GetOp, PutOp, SqliteStore
    from engine.store.sql_core import GET_CHUNK

    with SqliteStore(str(tmp_path / "store.sqlite")) as store:
        store.setup()
        store.batch([PutOp(("ns",), f"k{i}", {"i": i}) for i in range(450)])
        statements: list[str] = []
        store.conn.set_trace_callback(statements.append)
        ops = [GetOp(("ns",), f"k{i}") for i in range(450)] + [GetOp(("ns",), "absent"), GetOp(("ns",), "k7")]
        ops += [PutOp(("ns",), "k7", None), GetOp(("ns",), "k7")]  # a get after a write sees it
        got = store.batch(ops)
        store.conn.set_trace_callback(None)
    assert [g.value["i"] for g in got[:450]] == list(range(450)) and got[450] is None
    assert got[451].value == {"i": 7} and got[452] is None and got[453] is None
    selects = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
    assert len(selects) == -(-451 // GET_CHUNK) + 1  # the run of 452 gets (451 keys), then the last get
