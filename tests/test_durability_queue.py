"""durability="async" with several saves in flight: a run goes on while its store is
behind, the saves queue up in order (bounded), a store that can takes the queued ones in
one transaction (PostgreSQL), and every checkpoint is still stored, in order. A save
that fails in a batch fails the run; nothing after it is stored.

Real stores: SQLite files and the throwaway PostgreSQL server (a table lock or a trigger
makes the database slow or refuse, as a busy or failing server would)."""
from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import psycopg
import pytest
from test_durability_async import BlockingSqlite, cfg, counter, history

from engine.checkpoint import PendingWrite, PostgresSaver
from engine.checkpoint import postgres as postgres_module
from engine.checkpoint import postgres_run
from engine.checkpoint.ids import new_checkpoint_id
from engine.checkpoint.jobs import PutJob, WritesJob
from engine.runtime import durability


def parents_chain(graph: Any, thread: str = "t") -> bool:
    snaps = list(graph.get_state_history(cfg(thread)))
    ids = [s.config["configurable"]["checkpoint_id"] for s in snaps]
    parents = [s.parent_config["configurable"]["checkpoint_id"] if s.parent_config else None for s in snaps]
    return parents == ids[1:] + [None]


def test_the_run_goes_several_steps_ahead_of_a_slow_store_and_all_saves_land_in_order(tmp_path: Path) -> None:
    # the put of the input checkpoint (step -1) is held until the node of step 5 runs: the
    # saves of steps 0..4 wait in the queue meanwhile
    store = BlockingSqlite(str(tmp_path / "runs.sqlite"), hold_step=-1, patience=10)

    def hook(n: int) -> None:
        if n == 5:
            store.node_started.set()

    graph = counter(limit=8, hook=hook).compile(checkpointer=store)
    assert graph.invoke({"log": [], "n": 0}, cfg(), durability="async")["n"] == 8
    assert store.overlapped is True, "the run reached step 5 while its first save was still being stored"
    assert [h[0] for h in history(graph)] == [8, 7, 6, 5, 4, 3, 2, 1, 0, -1]
    assert history(graph)[0][3] == {"log": [1, 2, 3, 4, 5, 6, 7, 8], "n": 8}
    assert parents_chain(graph)
    store.close()


def test_the_queue_is_bounded_the_run_waits_for_room(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(durability, "MAX_QUEUED", 3)
    # step 8 can only start while step -1's save is held if more than 3 saves may queue:
    # with the bound, the held put gives up waiting (after `patience`) and the run goes on
    store = BlockingSqlite(str(tmp_path / "runs.sqlite"), hold_step=-1, patience=1.0)

    def hook(n: int) -> None:
        if n == 8:
            store.node_started.set()

    graph = counter(limit=10, hook=hook).compile(checkpointer=store)
    assert graph.invoke({"log": [], "n": 0}, cfg(), durability="async")["n"] == 10
    assert store.overlapped is False, "the run got 8 steps ahead of its store despite a queue of 3"
    assert [h[0] for h in history(graph)] == list(range(10, -2, -1))
    store.close()


# -- PostgreSQL: queued saves in one transaction ----------------------------------------
class CountingPg(PostgresSaver):
    """The real PostgresSaver, noting how many saves each batch held."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.batches: list[int] = []

    def engine_save_many(self, jobs: Any) -> None:
        self.batches.append(len(jobs))
        super().engine_save_many(jobs)


class TableLock:
    """Holds a SHARE lock on the checkpoints table from another connection (inserts wait)
    until `release()`; released anyway after 20 s so that a broken test cannot hang."""

    def __init__(self, url: str) -> None:
        self.conn = psycopg.connect(url)
        self.conn.execute("LOCK TABLE retrograph_checkpoints IN SHARE MODE")
        self.released = False
        self._timer = threading.Timer(20, self.release)
        self._timer.start()

    def release(self) -> None:
        if not self.released:
            self.released = True
            self.conn.commit()
            self.conn.close()
        self._timer.cancel()


def locked_until_step(saver: PostgresSaver, url: str, step: int) -> tuple[TableLock, Any]:
    lock = TableLock(url)
    reached: list[bool] = []

    def hook(n: int) -> None:
        if n == step:
            reached.append(not lock.released)
            lock.release()

    return lock, (hook, reached)


def test_queued_saves_go_to_postgres_in_one_transaction_all_of_them_in_order(pg_url: str) -> None:
    saver = CountingPg(pg_url)
    lock, (hook, reached) = locked_until_step(saver, pg_url, 12)
    try:
        graph = counter(limit=16, hook=hook).compile(checkpointer=saver)
        assert graph.invoke({"log": [], "n": 0}, cfg("a"), durability="async")["n"] == 16
        assert reached == [True], "the run went on while the database was locked"
        assert max(saver.batches) > 1, "the saves queued behind the lock were stored together"
        graph.invoke({"log": [], "n": 0}, cfg("s"), durability="sync")
        assert history(graph, "a") == history(graph, "s")
        assert [h[0] for h in history(graph, "a")] == list(range(16, -2, -1)), "put order is the history's order"
        assert parents_chain(graph, "a")
        # a new saver (nothing remembered) reads the same thing back
        fresh = PostgresSaver(pg_url)
        try:
            assert [h.step for h in fresh.list_headers("a")] == list(range(16, -2, -1))
            assert fresh.load("a").values == {"log": list(range(1, 17)), "n": 16}
        finally:
            fresh.close()
    finally:
        lock.release()
        saver.close()



@pytest.mark.parametrize("given", ["dict-rows-autocommit", "not-autocommit", "no-pipeline"])
def test_batches_on_a_connection_handed_in_or_without_pipelines(given: str, pg_url: str,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A psycopg connection handed in (as LangGraph's saver takes one), or a libpq that
    cannot pipeline: queued saves are still stored in one transaction each batch."""
    from psycopg.rows import dict_row

    if given == "no-pipeline":
        monkeypatch.setattr(postgres_run, "_PIPELINES", False)  # how statements run: postgres_run.py
        conn = None
    else:
        conn = psycopg.connect(pg_url, autocommit=given != "not-autocommit", row_factory=dict_row)

    class Counting(PostgresSaver):
        batches: list[int] = []

        def engine_save_many(self, jobs: Any) -> None:
            self.batches.append(len(jobs))
            super().engine_save_many(jobs)

    redone: list[int] = []
    one_by_one = postgres_module.save_each
    monkeypatch.setattr(postgres_module, "save_each", lambda s, jobs: (redone.append(len(jobs)), one_by_one(s, jobs)))
    saver = Counting(conn if conn is not None else pg_url)
    lock, (hook, reached) = locked_until_step(saver, pg_url, 8)
    try:
        graph = counter(limit=10, hook=hook).compile(checkpointer=saver)
        assert graph.invoke({"log": [], "n": 0}, cfg("a"), durability="async")["n"] == 10
        assert reached == [True] and max(Counting.batches) > 1 and redone == []
        assert [h[0] for h in history(graph, "a")] == list(range(10, -2, -1))
        assert parents_chain(graph, "a")
    finally:
        lock.release()
        saver.close()
        if conn is not None:
            assert not conn.closed
            conn.close()

def test_a_save_the_database_refuses_inside_a_batch_fails_the_run_and_nothing_after_it_is_stored(
        pg_url: str) -> None:
    saver = CountingPg(pg_url)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("""CREATE FUNCTION refuse_step_5() RETURNS trigger LANGUAGE plpgsql AS $$
                        BEGIN RAISE EXCEPTION 'step five refused'; END $$""")
        conn.execute("CREATE TRIGGER refuse BEFORE INSERT ON retrograph_checkpoints FOR EACH ROW"
                      " WHEN (NEW.step = 5) EXECUTE FUNCTION refuse_step_5()")
    lock, (hook, reached) = locked_until_step(saver, pg_url, 9)
    try:
        graph = counter(limit=12, hook=hook).compile(checkpointer=saver)
        with pytest.raises(psycopg.Error, match="step five refused"):
            graph.invoke({"log": [], "n": 0}, cfg("a"), durability="async")
        assert reached == [True] and max(saver.batches) > 1, "step 5 was in a batch with others"
        assert [h[0] for h in history(graph, "a")] == [4, 3, 2, 1, 0, -1], "all before it, none after it"
        assert parents_chain(graph, "a")
        # the saver's connections are usable afterwards (the failed transaction was ended)
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute("DROP TRIGGER refuse ON retrograph_checkpoints")
        assert graph.invoke({"log": [], "n": 0}, cfg("b"), durability="async")["n"] == 12
        assert [h[0] for h in history(graph, "b")] == list(range(12, -2, -1))
    finally:
        lock.release()
        saver.close()


def test_a_batch_stops_at_writes_for_a_missing_checkpoint(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The store's batch call directly: one transaction when all is well; otherwise what
    comes before the culprit is stored, its own error is raised, nothing after it is stored."""
    redone: list[int] = []
    one_by_one = postgres_module.save_each
    monkeypatch.setattr(postgres_module, "save_each", lambda s, jobs: (redone.append(len(jobs)), one_by_one(s, jobs)))
    saver = PostgresSaver(pg_url)
    try:
        graph = counter(limit=1).compile(checkpointer=saver)
        graph.invoke({"log": [], "n": 0}, cfg("t"))
        top = saver.load("t")
        assert top is not None
        kept = {k: v for k, v in top.versions.items() if v != top.id}
        first = replace(top, id=new_checkpoint_id(), parent_id=top.id, step=top.step + 1,
                        versions={**kept, **{k: top.id for k in top.versions if k not in kept}})
        second = replace(first, id=new_checkpoint_id(), parent_id=first.id, step=first.step + 1)
        write = PendingWrite(task_id="task-1", task_name="step", channel="n", value=7)
        before = len(saver.pending_writes("t", top.id))
        saver.engine_save_many([WritesJob("t", top.id, [write]), WritesJob("t", top.id, [])])
        assert redone == [] and len(saver.pending_writes("t", top.id)) == before + 1, "one transaction"
        jobs = [WritesJob("t", top.id, [write]), PutJob(first, None), WritesJob("t", first.id, [write]),
                WritesJob("t", "no-such-checkpoint", [write]), PutJob(second, None)]
        with pytest.raises(ValueError, match="no checkpoint `no-such-checkpoint`"):
            saver.engine_save_many(jobs)
        assert redone == [5], "the failed transaction was redone one by one"
        assert [h.id for h in saver.list_headers("t")][:2] == [first.id, top.id]
        assert saver.load("t", second.id) is None
        assert len(saver.pending_writes("t", top.id)) == before + 2
        assert [w.value for w in saver.pending_writes("t", first.id)] == [7]
    finally:
        saver.close()


def _endless_async_run(url: str) -> None:
    """A child process: a long loop under durability="async" on PostgreSQL (killed midway)."""
    from test_durability_async import cfg, counter

    saver = PostgresSaver(url)
    counter(limit=1_000_000).compile(checkpointer=saver).invoke({"log": [], "n": 0}, cfg("k"), durability="async")


def test_a_run_killed_mid_async_leaves_a_gapless_prefix_of_its_history(pg_url: str) -> None:
    """SIGKILL while saves are queued and batched: what is stored is the run's history up
    to some step, with no gap, each checkpoint the child of the one before, values whole."""
    import multiprocessing
    import os
    import signal
    import time

    proc = multiprocessing.get_context("spawn").Process(target=_endless_async_run, args=(pg_url,))
    proc.start()
    saver = PostgresSaver(pg_url)
    try:
        deadline = time.monotonic() + 60
        while (seen := saver.load("k")) is None or seen.step < 200:
            assert proc.is_alive() and time.monotonic() < deadline, "the child never got 200 steps saved"
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.join(30)
        headers = list(saver.list_headers("k"))
        steps = [h.step for h in headers]
        assert steps == list(range(steps[0], -2, -1)) and steps[0] >= 200
        assert [h.parent_id for h in headers] == [h.id for h in headers[1:]] + [None]
        top = saver.load("k")
        assert top is not None and top.values == {"log": list(range(1, top.step + 1)), "n": top.step}
    finally:
        if proc.is_alive():
            proc.kill()
            proc.join(30)
        saver.close()
