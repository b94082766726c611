"""PostgresStore as LangGraph code drives it beyond the shared store contract: its own
statements through `_cursor()` (dict rows), expired items read until swept by default as
LangGraph's PostgresStore reads them (hidden with `ttl={"omit_expired": True}`), and many threads refreshing the same items at once without a deadlock. On a
real throwaway server (tests/pg_server.py)."""
from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

from engine.store import AsyncPostgresStore, PostgresStore


def _expire_now(store: PostgresStore, key: str) -> None:
    with store._cursor() as cur:
        cur.execute("UPDATE store SET expires_at = NOW() - INTERVAL '1 minute' WHERE prefix = 'ns' AND key = %s",
                    (key,))


def test_an_expired_item_is_read_until_swept_by_default_and_hidden_with_omit_expired(pg_url: str) -> None:
    with PostgresStore.from_conn_string(pg_url, ttl={"default_ttl": 60}) as store:
        store.setup()
        store.put(("ns",), "k", {"v": 1})
        _expire_now(store, "k")
        with store._cursor() as cur:
            cur.execute("SELECT count(*) AS n FROM store WHERE key = 'k'")
            assert cur.fetchone()["n"] == 1  # still stored, unswept
        assert store.get(("ns",), "k", refresh_ttl=False).value == {"v": 1}
        assert [i.key for i in store.search(("ns",), refresh_ttl=False)] == ["k"]
        assert store.list_namespaces() == [("ns",)]
        store.ttl_config["omit_expired"] = True
        assert store.get(("ns",), "k") is None
        assert store.search(("ns",)) == [] and store.list_namespaces() == []
        store.ttl_config["omit_expired"] = False
        assert store.get(("ns",), "k", refresh_ttl=False).value == {"v": 1}
        assert store.sweep_ttl() == 1
        del store.ttl_config["omit_expired"]
        assert store.get(("ns",), "k") is None


def test_the_async_store_cursor_gives_dict_rows(pg_url: str) -> None:
    async def main() -> int:
        async with AsyncPostgresStore.from_conn_string(pg_url) as store:
            await store.setup()
            await store.aput(("ns",), "a", {"v": 1})
            async with store._cursor() as cur:
                await cur.execute("SELECT count(*) AS n FROM store")
                return (await cur.fetchone())["n"]

    assert asyncio.run(main()) == 1


def test_threads_searching_with_refresh_while_others_put_do_not_deadlock(pg_url: str) -> None:
    ttl = {"default_ttl": 60, "refresh_on_read": True}
    with PostgresStore.from_conn_string(pg_url, ttl=ttl, pool_config={"max_size": 8}) as store:
        store.setup()
        for i in range(60):
            store.put(("ns", str(i % 2)), f"k{i}", {"i": i})

        def work(i: int) -> None:
            store.put(("ns", str(i % 2)), f"k{i % 60}", {"i": i})
            store.search(("ns",), limit=100)

        with ThreadPoolExecutor(max_workers=8) as pool:
            list(pool.map(work, range(400)))  # a deadlock would raise here
        assert len(store.search(("ns",), limit=100)) == 60
