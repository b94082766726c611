"""Crash safety of `update_state` and forks: a process SIGKILLed while it updates a thread,
forks it or runs on from either, on SQLite and PostgreSQL, loses no checkpoint whose save
returned and leaves none half-written; and the check can fail.

Full size: `python -m tests.crash --what edits --kills 200 [--postgres]`.
"""
from __future__ import annotations

import os
from dataclasses import replace

from crash import edit_child, edit_graph  # tests/crash: tests/ is on sys.path
from crash.edits import run_edit_harness

from engine.checkpoint.ids import new_checkpoint_id

CI_KILLS = 20


def _seed() -> int | None:
    return int(os.environ["RETROGRAPH_CRASH_SEED"]) if "RETROGRAPH_CRASH_SEED" in os.environ else None


def _assert_clean(report) -> None:
    print(report.summary())
    assert (report.lost, report.half_written) == (0, 0)
    assert report.histories_compared == report.trials >= 1
    assert sum(report.kills_in_put.values()) > 0, "no kill landed inside a save"
    assert report.checkpoints_checked > 0 and report.attempts > report.trials


def test_sigkill_during_update_state_and_forks_on_sqlite_loses_nothing():
    report = run_edit_harness(CI_KILLS, _seed())
    assert report.kills >= CI_KILLS
    _assert_clean(report)


def test_sigkill_during_update_state_and_forks_on_postgres_loses_nothing(pg_server):
    report = run_edit_harness(CI_KILLS // 2, _seed(), new_db=lambda _name: pg_server.url())
    assert report.kills >= CI_KILLS // 2
    _assert_clean(report)


def test_the_check_names_a_half_written_update_and_fork(tmp_path):
    db = str(tmp_path / "edits.sqlite")
    edit_child.drive(db, lambda _message: None)
    with edit_child.open_saver(db) as saver:
        history = list(saver.history(edit_graph.THREAD_ID))
        assert edit_graph.defects(history) == []
        head = history[0]
        torn_update = replace(head, id=new_checkpoint_id(), parent_id=head.id, step=head.step + 1,
                              source="update", metadata={"op": 99})  # the update's value missing
        saver.save(torn_update)
        fork_id = new_checkpoint_id()
        torn_fork = replace(head, id=fork_id, parent_id=head.id, step=head.step + 1, source="fork",
                            values={"log": ["in"]}, versions={**head.versions, "log": fork_id},
                            metadata={"op": 98})  # its source's log cut short
        saver.save(torn_fork)
        found = edit_graph.defects(saver.history(edit_graph.THREAD_ID))
    assert len(found) == 2, found
    assert any(f"checkpoint {torn_update.id} (update" in line and "'u99'" in line for line in found), found
    assert any(f"checkpoint {torn_fork.id} (fork" in line for line in found), found
