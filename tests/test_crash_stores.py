"""Crash safety of the long-term memory stores: a process SIGKILLed inside `batch()`, again
and again, on SqliteStore and PostgresStore, loses no batch that returned and leaves none
in part; and the check can fail.

Full size: `python -m tests.crash --what stores --kills 200 [--postgres]`.
"""
from __future__ import annotations

import os

from crash.stores import ITEMS, _ops, count_defects, run_store_harness  # tests/crash: tests/ is on sys.path

from engine.store import SqliteStore

CI_KILLS = 15


def _seed() -> int | None:
    return int(os.environ["RETROGRAPH_CRASH_SEED"]) if "RETROGRAPH_CRASH_SEED" in os.environ else None


def _assert_clean(report, kills: int) -> None:
    print(report.summary())
    assert report.kills >= kills and report.kills_in_batch > 0
    assert (report.lost, report.half_written) == (0, 0)
    assert report.batch_checks > 0


def test_sigkill_inside_sqlite_store_batches_loses_nothing():
    _assert_clean(run_store_harness(CI_KILLS, _seed()), CI_KILLS)


def test_sigkill_inside_postgres_store_batches_loses_nothing(pg_server):
    _assert_clean(run_store_harness(CI_KILLS // 2, _seed(), new_db=pg_server.url), CI_KILLS // 2)


def test_the_check_counts_a_batch_in_part_and_a_lost_one(tmp_path):
    with SqliteStore.from_conn_string(str(tmp_path / "s.sqlite")) as store:
        store.setup()
        for i in range(4):
            store.batch(_ops(i))
        assert count_defects(store, 3) == (0, 0, [])
        store.delete(("kill", "b1"), f"item{ITEMS - 1}")
        lost, half, why = count_defects(store, 3)
        assert (lost, half) == (0, 1) and "batch 1 is there in part" in why[0]
        for key in [f"item{j}" for j in range(ITEMS - 1)]:
            store.delete(("kill", "b2"), key)
        store.delete(("kill", "b2"), "item3")
        assert count_defects(store, 3)[:2] == (1, 1)
