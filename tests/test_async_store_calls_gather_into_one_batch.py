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
