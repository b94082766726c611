"""Selecting a checkpoint of a wide superstep explains its pending writes in one pass:
the conflict check runs once and each key's reducer is looked up once, whatever the width
(counted calls, not timing)."""
from __future__ import annotations

import engine.explain.explainer as explainer
from engine.checkpoint.base import ERROR, PendingWrite
from engine.explain import Superstep, add_writes
from engine.explain.reasons import TaskReason
from studio.session.explaining import with_pending


def _wide(width: int) -> tuple[Superstep, list[PendingWrite]]:
    tasks = tuple(TaskReason(task_id=f"t{i}", node=f"n{i}", reasons=()) for i in range(width))
    pending = [PendingWrite(task_id=f"t{i}", task_name=f"n{i}", channel="out", value=i) for i in range(width)]
    return Superstep(step=1, snapshot_id="c1", tasks=tasks), pending


def _counting(monkeypatch, name: str) -> list[int]:
    calls: list[int] = []
    real = getattr(explainer, name)

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(explainer, name, counted)
    return calls


def test_conflicts_checked_once_and_reducers_looked_up_once_per_key(monkeypatch):
    for width in (3, 300):
        conflicts = _counting(monkeypatch, "find_conflicts")
        lookups = _counting(monkeypatch, "key_reducer")
        step, pending = _wide(width)
        out = with_pending(step, pending, None)
        monkeypatch.undo()
        assert len(out.pending) == width and len(out.finished) == width
        assert (len(conflicts), len(lookups)) == (1, 1), width
        assert out.conflicts[0].key == "out"  # many writers of a last-value key: the commit refuses it


def test_same_result_as_one_task_at_a_time():
    step, pending = _wide(5)
    pending.append(PendingWrite(task_id="t4", task_name="n4", channel=ERROR, value="boom"))
    pending = [w for w in pending if not (w.task_id == "t4" and w.channel == "out")]
    one_by_one = step
    for i in range(4):
        one_by_one = add_writes(one_by_one, f"t{i}", f"n{i}", [("out", i)], None)
    assert with_pending(step, pending, None) == one_by_one  # t4 failed with no writes: not finished
