"""get_state of any PostgreSQL checkpoint is one statement whose plan reads the same
number of rows whatever the thread's length; a page of get_state_history is a few
statements, not one per checkpoint.

Counted, not timed: the statements the saver sends (a counting connection), and the rows
every node of the server's plan produced (EXPLAIN ANALYZE), under both the plan made for
the call's values and the generic plan the server caches for a prepared statement (the
saver prepares what it repeats), which is the one that could join a whole thread's rows."""
from __future__ import annotations

import dataclasses
import itertools
import json
import operator
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any, TypedDict

import pytest

from engine import END, START, StateGraph
from engine.checkpoint.postgres import PostgresSaver
from engine.checkpoint.postgres_state import STATE


class S(TypedDict):
    log: Annotated[list, operator.add]  # appended each step: the values table holds the thread's rows
    big: str  # over the inline limit: a value row of its own each step
    n: int
    stop: int


def _graph(saver: Any) -> Any:
    g = StateGraph(S)
    g.add_node("tick", lambda s: {"n": s["n"] + 1, "log": [f"line {s['n']}"], "big": "x" * 300 + str(s["n"])})
    g.add_edge(START, "tick")
    g.add_conditional_edges("tick", lambda s: "tick" if s["n"] < s["stop"] else END, ["tick", END])
    return g.compile(checkpointer=saver)


def _thread(graph: Any, thread_id: str, steps: int) -> list[str]:
    """A thread of `steps` supersteps; its checkpoint ids oldest first."""
    config = {"recursion_limit": steps + 10, "configurable": {"thread_id": thread_id}}
    graph.invoke({"n": 0, "stop": steps, "log": [], "big": ""}, config)
    return [h.id for h in graph.checkpointer.list_headers(thread_id)][::-1]


class _Counting:
    """Counts the statements a saver sends through its connections."""

    def __init__(self, saver: PostgresSaver, monkeypatch: pytest.MonkeyPatch) -> None:
        self.statements = 0
        real = saver.connection

        @contextmanager
        def counted() -> Iterator[Any]:
            with real() as conn:
                yield _CountedConn(conn, self)

        monkeypatch.setattr(saver, "connection", counted)


class _CountedConn:
    def __init__(self, conn: Any, counter: _Counting) -> None:
        self._conn, self._counter = conn, counter

    def execute(self, sql: Any, params: Any = None) -> Any:
        self._counter.statements += 1
        return self._conn.execute(sql, params)

    def fetch_prepared(self, stmt: Any, params: Any) -> Any:  # straight through libpq (postgres_fast.py)
        self._counter.statements += 1
        return self._conn.fetch_prepared(stmt, params)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


def _rows_read(pg_url: str, thread_id: str, checkpoint_id: str, mode: str) -> int:
    """Rows all nodes of STATE's plan produced, with `plan_cache_mode = mode`."""
    import psycopg

    sql = STATE.replace("%(t)s", "$1").replace("%(c)s", "$2").replace("%(max_depth)s", "$3")
    with psycopg.connect(pg_url, autocommit=True, cursor_factory=psycopg.ClientCursor) as conn:
        conn.execute(f"SET plan_cache_mode = {mode}")
        conn.execute(f"PREPARE state_read(text, text, bigint) AS {sql}")
        (plan,), = conn.execute("EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE state_read(%s, %s, %s)",
                                (thread_id, checkpoint_id, 1_000_000)).fetchall()
    plan = json.loads(plan) if isinstance(plan, str) else plan

    def total(node: dict[str, Any]) -> int:
        own = int(node.get("Actual Rows", 0)) * int(node.get("Actual Loops", 1))
        return own + sum(total(child) for child in node.get("Plans", ()))

    return total(plan[0]["Plan"])


def test_get_state_of_an_old_checkpoint_is_one_statement_reading_as_many_rows_at_any_length(pg_url, monkeypatch):
    saver = PostgresSaver(pg_url)
    graph = _graph(saver)
    short, long = _thread(graph, "short", 12), _thread(graph, "long", 600)
    assert len(long) > 50 * len(short) // 2
    counting = _Counting(saver, monkeypatch)
    for position in (0, 1, 5, 10):
        for thread_id, ids in (("short", short), ("long", long)):
            counting.statements = 0
            snap = graph.get_state({"configurable": {"thread_id": thread_id, "checkpoint_id": ids[position]}})
            assert snap.config["configurable"]["checkpoint_id"] == ids[position]
            assert counting.statements == 1, (thread_id, position, counting.statements)
        for mode in ("force_custom_plan", "force_generic_plan"):
            few = _rows_read(pg_url, "short", short[position], mode)
            many = _rows_read(pg_url, "long", long[position], mode)
            assert few > 0
            assert many == few, (position, mode, few, many)  # a scan of the 50x longer thread would show here
    # what it read is what the checkpoint holds, and its own superstep's result
    snap = graph.get_state({"configurable": {"thread_id": "long", "checkpoint_id": long[5]}})
    assert snap.values["n"] == 4 and snap.values["log"] == [f"line {i}" for i in range(4)]
    assert snap.values["big"] == "x" * 300 + "3"
    assert [t.name for t in snap.tasks] == ["tick"] and snap.tasks[0].result["n"] == 5
    saver.close()


def test_get_state_one_statement_reads_pending_writes_a_leaf_and_the_own_child(pg_url, monkeypatch):
    from engine.checkpoint.base import PendingWrite
    from engine.checkpoint.base import state_by_calls

    saver = PostgresSaver(pg_url)
    graph = _graph(saver)
    ids = _thread(graph, "t", 6)
    fork = graph.update_state({"configurable": {"thread_id": "t", "checkpoint_id": ids[3]}}, {"n": 100})
    fork_id = fork["configurable"]["checkpoint_id"]
    saver.save_writes("t", fork_id, [PendingWrite(task_id="a", task_name="tick", channel="n", value=7),
                                     PendingWrite(task_id="a", task_name="tick", channel="log", value=["w"])])
    for cid in (*ids, fork_id, "no-such-checkpoint"):
        ckpt, child, writes = saver.load_state("t", cid)
        whole_ckpt, whole_child, whole_writes = state_by_calls(saver, "t", cid)
        assert (ckpt, writes) == (whole_ckpt, whole_writes)
        if whole_child is None:
            assert child is None
            continue
        # the child: all of it but the values its own superstep did not change (nothing reads those)
        own = {k: v for k, v in whole_child.values.items() if whole_child.versions[k] == whole_child.id}
        assert own and dataclasses.replace(whole_child, values=own) == child
        assert graph.snapshot(ckpt, writes, child) == graph.snapshot(whole_ckpt, whole_writes, whole_child)
    ckpt, child, writes = saver.load_state("t", fork_id)
    assert ckpt.values["n"] == 100 and child is None and [(w.channel, w.value) for w in writes] == [
        ("n", 7), ("log", ["w"])]
    assert saver.load_state("t", ids[3])[1].id == ids[4]  # its own superstep's child, not the later fork
    counting = _Counting(saver, monkeypatch)
    assert graph.get_state(fork).values["n"] == 100
    assert counting.statements == 1
    missing = graph.get_state({"configurable": {"thread_id": "t", "checkpoint_id": "no-such-checkpoint"}})
    assert missing.values == {} and missing.next == ()
    saver.close()


def test_a_page_of_history_is_a_few_statements_with_the_same_snapshots(pg_url, monkeypatch):
    saver = PostgresSaver(pg_url)
    graph = _graph(saver)
    _thread(graph, "t", 250)
    config = {"configurable": {"thread_id": "t"}}
    one_by_one = [graph.get_state({"configurable": {"thread_id": "t", "checkpoint_id": h.id}})
                  for h in itertools.islice(saver.list_headers("t"), 150)]
    counting = _Counting(saver, monkeypatch)
    paged = list(itertools.islice(graph.get_state_history(config), 150))
    assert counting.statements == 2, counting.statements  # one statement a page of 100
    assert [(s.config, s.values, s.next, [(t.name, t.result) for t in s.tasks]) for s in paged] == [
        (s.config, s.values, s.next, [(t.name, t.result) for t in s.tasks]) for s in one_by_one]
    saver.close()


def test_a_subclass_overriding_load_is_still_called_by_get_state(pg_url):
    loaded: list[str | None] = []

    class Audited(PostgresSaver):
        def load(self, thread_id: str, checkpoint_id: str | None = None) -> Any:
            loaded.append(checkpoint_id)
            return super().load(thread_id, checkpoint_id)

    saver = Audited(pg_url)
    graph = _graph(saver)
    ids = _thread(graph, "t", 4)
    loaded.clear()
    snap = graph.get_state({"configurable": {"thread_id": "t", "checkpoint_id": ids[1]}})
    assert snap.values["n"] == 0 and loaded == [ids[1], ids[2]]  # the checkpoint, then its child
    loaded.clear()
    assert len(list(graph.get_state_history({"configurable": {"thread_id": "t"}}))) == len(ids)
    saver.close()


def _page_rows_read(pg_url: str, thread_id: str, size: int, mode: str) -> int:
    """Rows all nodes of PAGE's plan produced for the newest `size` checkpoints of `thread_id`."""
    import psycopg

    from engine.checkpoint.postgres_page import PAGE

    sql = (PAGE.replace("%(t)s", "$1").replace("%(bound)s", "$2").replace("%(size)s", "$3")
           .replace("%(max_depth)s", "$4"))
    with psycopg.connect(pg_url, autocommit=True, cursor_factory=psycopg.ClientCursor) as conn:
        conn.execute(f"SET plan_cache_mode = {mode}")
        conn.execute(f"PREPARE page_read(text, bigint, bigint, bigint) AS {sql}")
        (plan,), = conn.execute("EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE page_read(%s, %s, %s, %s)",
                                (thread_id, 2**63 - 1, size, 1_000_000)).fetchall()
    plan = json.loads(plan) if isinstance(plan, str) else plan

    def total(node: dict[str, Any]) -> int:
        own = int(node.get("Actual Rows", 0)) * int(node.get("Actual Loops", 1))
        return own + sum(total(child) for child in node.get("Plans", ()))

    return total(plan[0]["Plan"])


def test_a_history_page_reads_as_many_rows_whatever_the_thread_and_the_threads_after_it(pg_url):
    from engine.checkpoint.base import PendingWrite

    class Flat(TypedDict):  # no appended list: a page's values are as many rows at any length
        n: int
        big: str
        stop: int

    saver = PostgresSaver(pg_url)
    g = StateGraph(Flat)
    g.add_node("tick", lambda s: {"n": s["n"] + 1, "big": "x" * 300 + str(s["n"])})
    g.add_edge(START, "tick")
    g.add_conditional_edges("tick", lambda s: "tick" if s["n"] < s["stop"] else END, ["tick", END])
    graph = g.compile(checkpointer=saver)

    def thread(thread_id: str, steps: int) -> list[str]:
        graph.invoke({"n": 0, "stop": steps, "big": ""}, {"recursion_limit": steps + 10,
                                                          "configurable": {"thread_id": thread_id}})
        return [h.id for h in saver.list_headers(thread_id)][::-1]

    # the short thread is written first: a page of it read by `seq` alone would pass the long one's rows
    threads = {"short": thread("short", 12), "long": thread("long", 600)}
    for thread_id, ids in threads.items():
        for cid in ids:  # a pending write on every checkpoint: a join over the thread's writes would show
            saver.save_writes(thread_id, cid, [PendingWrite(task_id="w", task_name="tick", channel="n", value=0)])
    with saver.connection() as conn:  # the statistics a long-lived database has: plans are chosen by them
        conn.execute("ANALYZE retrograph_checkpoints")
        conn.execute("ANALYZE retrograph_writes")
    for mode in ("force_custom_plan", "force_generic_plan"):
        few = _page_rows_read(pg_url, "short", 10, mode)
        many = _page_rows_read(pg_url, "long", 10, mode)
        assert few > 0
        assert many == few, (mode, few, many)
    pages = list(saver.history_with_writes("short"))
    assert [c.id for c, _ in pages] == threads["short"][::-1] and all(len(w) == 1 for _, w in pages)
    saver.close()
