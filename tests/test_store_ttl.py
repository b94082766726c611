"""Time to live on every store, with a controlled clock (`engine.store.ttl.now` patched):
expired items vanish at once (on PostgreSQL with `omit_expired: True`; by default it reads
them until the sweep, as LangGraph's PostgresStore), the sweep deletes them, reads
restart the time when asked."""
from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

import pytest
from store_kinds import store_factory  # noqa: F401  (the parametrised fixture)

from engine.store import InMemoryStore, SqliteStore, ttl as store_ttl


class Clock:
    def __init__(self) -> None:
        self.at = datetime(2026, 1, 1, 12, 0, tzinfo=timezone.utc)

    def __call__(self) -> datetime:
        return self.at

    def advance(self, minutes: float) -> None:
        self.at += timedelta(minutes=minutes)


@pytest.fixture
def hiding_store(store_factory):
    """store_factory, with expired items hidden on PostgreSQL too."""
    def make(ttl):
        if store_factory.kind == "postgres":
            ttl = {**ttl, "omit_expired": True}
        return store_factory(ttl=ttl)

    return make


@pytest.fixture
def clock(monkeypatch):
    c = Clock()
    monkeypatch.setattr(store_ttl, "now", c)
    return c


def test_an_item_expires_after_its_ttl_and_the_sweep_deletes_it(hiding_store, clock):
    store = hiding_store({"default_ttl": 10})
    store.put(("t",), "default", {"v": 1})
    store.put(("t",), "short", {"v": 2}, ttl=2)
    store.put(("t",), "forever", {"v": 3}, ttl=None)
    clock.advance(3)
    assert store.get(("t",), "short") is None
    assert sorted(r.key for r in store.search(("t",))) == ["default", "forever"]
    assert store.sweep_ttl() == 1
    clock.advance(8)
    assert store.get(("t",), "default") is None
    assert store.list_namespaces() == [("t",)]
    assert store.sweep_ttl() == 1
    assert store.sweep_ttl() == 0
    assert store.get(("t",), "forever").value == {"v": 3}


def test_a_namespace_whose_items_all_expired_is_not_listed(hiding_store, clock):
    store = hiding_store({"default_ttl": 1})
    store.put(("gone",), "k", {"v": 1})
    store.put(("kept",), "k", {"v": 1}, ttl=None)
    clock.advance(2)
    assert store.list_namespaces() == [("kept",)]


def test_refresh_on_read_restarts_the_time_to_live(hiding_store, clock):
    store = hiding_store({"default_ttl": 5, "refresh_on_read": True})
    store.put(("r",), "read", {"v": 1})
    store.put(("r",), "found", {"v": 2})
    store.put(("r",), "untouched", {"v": 1})
    clock.advance(4)
    assert store.get(("r",), "read") is not None
    assert [r.key for r in store.search(("r",), filter={"v": 2})] == ["found"]  # refreshes what it returns
    store.get(("r",), "untouched", refresh_ttl=False)
    clock.advance(3)
    alive = sorted(r.key for r in store.search(("r",), limit=10, refresh_ttl=False))
    assert alive == ["found", "read"]


def test_without_refresh_on_read_a_read_does_not_extend(hiding_store, clock):
    store = hiding_store({"default_ttl": 5})
    store.put(("r",), "k", {"v": 1})
    clock.advance(4)
    assert store.get(("r",), "k") is not None
    clock.advance(2)
    assert store.get(("r",), "k") is None


def test_putting_again_restarts_and_can_remove_the_expiry(store_factory, clock):
    store = store_factory(ttl={"default_ttl": 5})
    store.put(("p",), "k", {"v": 1})
    clock.advance(4)
    store.put(("p",), "k", {"v": 2}, ttl=None)
    clock.advance(100)
    assert store.get(("p",), "k").value == {"v": 2}


@pytest.mark.parametrize("config,culprit", [
    ({"default_ttl": -1}, "default_ttl"),
    ({"sweep_interval_minutes": 0}, "sweep_interval_minutes"),
    ({"default": 5}, "unknown keys"),
])
def test_a_bad_ttl_config_is_refused_by_name(config, culprit):
    with pytest.raises(ValueError, match=culprit):
        InMemoryStore(ttl=config)


def test_a_bad_per_put_ttl_is_refused(store_factory):
    store = store_factory(ttl={"default_ttl": 5})
    with pytest.raises(ValueError, match="positive number of minutes"):
        store.put(("p",), "k", {"v": 1}, ttl=-3)
    assert store.get(("p",), "k") is None


def test_the_sweeper_thread_deletes_expired_rows_and_stops(tmp_path, monkeypatch):
    clock = Clock()
    monkeypatch.setattr(store_ttl, "now", clock)
    with SqliteStore.from_conn_string(str(tmp_path / "s.db"), ttl={"default_ttl": 1}) as store:
        store.setup()
        store.put(("s",), "k", {"v": 1})
        clock.advance(2)
        count = lambda: store.conn.execute("SELECT count(*) FROM store").fetchone()[0]  # noqa: E731
        assert count() == 1  # expired (invisible) but still a row
        store.start_ttl_sweeper(sweep_interval_minutes=0.001)
        deadline = time.monotonic() + 10
        while count() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert count() == 0
        assert store.stop_ttl_sweeper(timeout=5) is True


def test_postgres_reads_an_expired_item_until_the_sweep_by_default(store_factory, clock):
    store = store_factory(ttl={"default_ttl": 1})
    store.put(("t",), "k", {"v": 1})
    clock.advance(2)
    seen = store.get(("t",), "k", refresh_ttl=False)
    assert (seen is not None) == (store_factory.kind == "postgres")
    assert store.sweep_ttl() == 1 and store.get(("t",), "k") is None
