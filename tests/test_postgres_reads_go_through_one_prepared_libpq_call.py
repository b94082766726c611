"""PostgresSaver's get_state and history pages run as a server-side prepared statement
called straight through libpq on the saver's own pool (engine/checkpoint/postgres_fast.py),
giving what psycopg's own path gives; a connection handed in that does not prepare
statements keeps psycopg's path; a statement dropped on the server is prepared again; and
while the call waits on the server, other Python threads run (the GIL is released).

Counted and compared, never timed: the statements prepared on the server
(`pg_prepared_statements`), the snapshots, the server's view of a waiting backend."""
from __future__ import annotations

import itertools
import threading
from typing import Any, TypedDict

import psycopg
import pytest

from engine import END, START, StateGraph
from engine.checkpoint.postgres import PostgresSaver

_OURS = "SELECT name FROM pg_prepared_statements WHERE name LIKE 'retrograph_%' ORDER BY name"


class S(TypedDict):
    n: int
    big: str
    stop: int


def _graph(saver: Any) -> Any:
    g = StateGraph(S)
    g.add_node("tick", lambda s: {"n": s["n"] + 1, "big": "y" * 300 + str(s["n"])})
    g.add_edge(START, "tick")
    g.add_conditional_edges("tick", lambda s: "tick" if s["n"] < s["stop"] else END, ["tick", END])
    return g.compile(checkpointer=saver)


def _seen(graph: Any, thread_id: str) -> list[Any]:
    """Every checkpoint's snapshot by get_state, then the history's, as comparable tuples."""
    config = {"configurable": {"thread_id": thread_id}}
    ids = [h.id for h in graph.checkpointer.list_headers(thread_id)]
    one = [graph.get_state({"configurable": {"thread_id": thread_id, "checkpoint_id": i}}) for i in ids]
    listed = [list(graph.get_state_history(config)) for _ in range(3)]  # sent whole twice, then prepared
    assert listed[0] == listed[1] == listed[2]
    return [(s.config, s.values, s.next, s.metadata, [(t.name, t.result) for t in s.tasks]) for s in one + listed[0]]


def test_the_saver_s_own_pool_prepares_its_reads_and_gives_what_psycopg_gives(pg_url):
    own = PostgresSaver(pg_url, pool_size=1)  # one connection: the one the reads below run on
    graph = _graph(own)
    graph.invoke({"n": 0, "big": "", "stop": 8}, {"configurable": {"thread_id": "t"}})
    with own.connection() as conn:
        assert conn.execute(_OURS).fetchall() == []
    fast = _seen(graph, "t")
    with own.connection() as conn:
        assert [name for (name,) in conn.execute(_OURS).fetchall()] == ["retrograph_page_v1", "retrograph_state_v2"]
    with psycopg.connect(pg_url, autocommit=True, prepare_threshold=None) as handed:
        plain = PostgresSaver(handed)  # prepares nothing: psycopg's path, every statement sent whole
        assert _seen(_graph(plain), "t") == fast
        assert handed.execute(_OURS).fetchall() == []
    own.close()


def test_a_statement_dropped_on_the_server_is_prepared_again(pg_url):
    saver = PostgresSaver(pg_url, pool_size=1)
    graph = _graph(saver)
    graph.invoke({"n": 0, "big": "", "stop": 5}, {"configurable": {"thread_id": "t"}})
    before = _seen(graph, "t")
    with saver.connection() as conn:
        conn.execute("DEALLOCATE ALL")
        assert conn.execute(_OURS).fetchall() == []
    assert _seen(graph, "t") == before
    with saver.connection() as conn:
        assert len(conn.execute(_OURS).fetchall()) == 2
    saver.close()


@pytest.mark.timeout(60)
def test_other_threads_run_while_a_read_waits_on_the_server(pg_url):
    saver = PostgresSaver(pg_url, pool_size=1)
    graph = _graph(saver)
    graph.invoke({"n": 0, "big": "", "stop": 3}, {"configurable": {"thread_id": "t"}})
    cid = next(iter(saver.list_headers("t"))).id
    config = {"configurable": {"thread_id": "t", "checkpoint_id": cid}}
    expected = graph.get_state(config)
    for _ in range(3):
        graph.get_state(config)  # prepared by now: the direct libpq call
    with saver.connection() as conn:
        reader_pid = conn.conn.info.backend_pid
    got: list[Any] = []
    with psycopg.connect(pg_url) as locker:
        locker.execute("LOCK TABLE retrograph_checkpoints IN ACCESS EXCLUSIVE MODE")  # the read waits for this
        reader = threading.Thread(target=lambda: got.append(graph.get_state(config)))
        reader.start()
        with psycopg.connect(pg_url, autocommit=True) as watcher:
            # this thread keeps running Python (polling the server) while the reader waits:
            # a call holding the GIL as it waited would never let it see the wait
            waiting = None
            while waiting is None:
                waiting = watcher.execute(
                    "SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s AND wait_event_type = 'Lock'",
                    (reader_pid,)).fetchone()
        assert not got
        locker.rollback()
    reader.join()
    assert [g.values for g in got] == [expected.values] and got[0].config == expected.config
    saver.close()


def test_history_pages_hold_a_checkpoint_s_writes_and_a_fork(pg_url):
    from engine.checkpoint.base import PendingWrite

    saver = PostgresSaver(pg_url)
    graph = _graph(saver)
    graph.invoke({"n": 0, "big": "", "stop": 230}, {"configurable": {"thread_id": "t"}, "recursion_limit": 300})
    ids = [h.id for h in saver.list_headers("t")]
    fork = graph.update_state({"configurable": {"thread_id": "t", "checkpoint_id": ids[150]}}, {"n": -1})
    saver.save_writes("t", ids[120], [PendingWrite(task_id="a", task_name="tick", channel="n", value=1)])
    listed = list(saver.history_with_writes("t"))
    by_calls = list(saver._paged_by_calls("t"))
    assert listed == by_calls and len(listed) == len(ids) + 1
    assert listed[0][0].id == fork["configurable"]["checkpoint_id"]
    assert [(w.channel, w.value) for w in dict((c.id, w) for c, w in listed)[ids[120]]] == [("n", 1)]
    for before, limit in ((None, 7), (ids[3], 150), (ids[99], None), (ids[-1], None), ("no-such-id", None)):
        assert list(saver.history_with_writes("t", before=before, limit=limit)) == list(
            itertools.islice(saver._paged_by_calls("t", before=before, limit=limit), 10**6))
    saver.close()
