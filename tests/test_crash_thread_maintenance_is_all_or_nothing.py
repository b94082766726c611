"""copy_thread, delete_for_runs and prune are all or nothing: a process SIGKILLed in the
middle of one, again and again, on SqliteSaver, AsyncSqliteSaver, PostgresSaver and
AsyncPostgresSaver, leaves each thread as it was before the call or as it is after; an
error half-way (a copy onto a checkpoint already there) leaves nothing behind on every
saver, the memory saver included; and the check can fail.

Full size: `python -m tests.crash --what maintenance --kills 200 [--postgres]`.
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from crash.maintenance import expected_states, observe, put_round, run_maintenance_harness  # tests/ is on sys.path

import engine.compat  # noqa: F401  (serves langgraph.*)
from engine.checkpoint import InMemorySaver, SqliteSaver

CI_KILLS = 8


def _seed() -> int | None:
    return int(os.environ["RETROGRAPH_CRASH_SEED"]) if "RETROGRAPH_CRASH_SEED" in os.environ else None


def _assert_clean(report: Any, kills: int) -> None:
    print(report.summary())
    assert report.kills >= kills and report.kills_in_op > 0
    assert (report.lost, report.half_written) == (0, 0)
    assert report.round_checks > 0


@pytest.mark.parametrize("kind", ["sqlite", "sqlite-async"])
def test_sigkill_inside_maintenance_on_sqlite_leaves_each_thread_before_or_after(kind):
    _assert_clean(run_maintenance_harness(kind, CI_KILLS, _seed()), CI_KILLS)


@pytest.mark.parametrize("kind", ["postgres", "postgres-async"])
def test_sigkill_inside_maintenance_on_postgres_leaves_each_thread_before_or_after(kind, pg_server):
    _assert_clean(run_maintenance_harness(kind, CI_KILLS // 2, _seed(), new_db=pg_server.url), CI_KILLS // 2)


@pytest.fixture(params=["memory", "sqlite", "postgres", "postgres-async"])
def saver(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Any]:
    if request.param == "postgres":
        from engine.checkpoint.postgres import PostgresSaver

        store: Any = PostgresSaver(request.getfixturevalue("pg_url"))
    elif request.param == "postgres-async":
        from engine.checkpoint.postgres_aio import AsyncPostgresSaver

        store = AsyncPostgresSaver(request.getfixturevalue("pg_url"))
    else:
        store = InMemorySaver() if request.param == "memory" else SqliteSaver(tmp_path / "checkpoints.db")
    yield store
    store.close()


def test_a_copy_that_fails_half_way_copies_nothing(saver):
    put_round(saver, 0)
    saver.copy_thread("t0", "c0")
    saver.prune(["c0"], strategy="keep_latest")  # c0 keeps the latest of each namespace, same ids as t0's
    kept = observe(saver, 0)[1]
    with pytest.raises(Exception, match="already|exists"):
        saver.copy_thread("t0", "c0")  # the older ones go in first; the latest one is there already
    assert observe(saver, 0)[1] == kept
    assert observe(saver, 0)[0] == expected_states()[0][0]


def test_a_prune_of_many_threads_that_fails_on_one_prunes_none(saver):
    put_round(saver, 0)
    put_round(saver, 1)
    before = observe(saver, 0), observe(saver, 1)

    class Refused(Exception):
        pass

    real = type(saver).delete_thread

    def refusing(self: Any, thread_id: str) -> None:
        if thread_id == "t1":
            raise Refused("t1 is refused")
        real(self, thread_id)

    saver.delete_thread = refusing.__get__(saver)  # the second thread's delete fails after the first one's
    with pytest.raises(Refused):
        saver.prune(["t0", "t1"], strategy="delete")
    del saver.delete_thread
    assert (observe(saver, 0), observe(saver, 1)) == before
    saver.prune(["t0", "t1"], strategy="delete")
    assert observe(saver, 0) == observe(saver, 1) == ((), ())


def test_the_check_names_a_copy_in_part_and_a_lost_operation(tmp_path):
    from crash.maintenance import check_round

    with SqliteSaver(tmp_path / "c.db") as saver:
        put_round(saver, 0)
        assert check_round(saver, 0, 0, 1)[:2] == (0, 0)
        assert check_round(saver, 0, 1, 1)[:2] == (1, 0)  # copy reported done, no copy there
        saver.copy_thread("t0", "c0")
        assert check_round(saver, 0, 1, 1)[:2] == (0, 0)
        saver.prune(["c0"], strategy="keep_latest")  # a state no operation leaves
        lost, half, why = check_round(saver, 0, 1, 2)
        assert (lost, half) == (0, 1) and "no state" in why
