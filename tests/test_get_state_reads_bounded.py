"""get_state of any checkpoint reads a bounded amount, whatever the history's length.

get_state of an older checkpoint needs its oldest child (what its own superstep made);
each store finds it by its parent (`first_child`) instead of scanning newer headers.
Counted, not timed: SQLite's virtual-machine steps (a scan of the history grows with it),
the stores' listing calls, and, on PostgreSQL, the statements and the index they use."""
from __future__ import annotations

from typing import Any, TypedDict

import pytest

from engine import END, START, InMemorySaver, SqliteSaver, StateGraph


class S(TypedDict):
    n: int
    stop: int


def _graph(saver: Any) -> Any:
    g = StateGraph(S)
    g.add_node("tick", lambda s: {"n": s["n"] + 1})
    g.add_edge(START, "tick")
    g.add_conditional_edges("tick", lambda s: "tick" if s["n"] < s["stop"] else END, ["tick", END])
    return g.compile(checkpointer=saver)


def _thread(graph: Any, thread_id: str, steps: int) -> list[str]:
    """A thread of `steps` supersteps; its checkpoint ids oldest first."""
    config = {"recursion_limit": steps + 10, "configurable": {"thread_id": thread_id}}
    graph.invoke({"n": 0, "stop": steps}, config)
    return [s.config["configurable"]["checkpoint_id"] for s in graph.get_state_history(config)][::-1]


class _Listing:
    """Counts the listing calls a store gets (a scan of the history goes through them)."""

    def __init__(self, saver: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls = 0
        for name in ("list_headers", "list"):
            real = getattr(saver, name)

            def counted(*args: Any, _real: Any = real, **kwargs: Any) -> Any:
                self.calls += 1
                return _real(*args, **kwargs)

            monkeypatch.setattr(saver, name, counted)


def _state(graph: Any, thread_id: str, checkpoint_id: str) -> Any:
    return graph.get_state({"configurable": {"thread_id": thread_id, "checkpoint_id": checkpoint_id}})


def _with_leaf(graph: Any, thread_id: str, more: int) -> tuple[list[str], str]:
    """A thread of 5 supersteps, an update of its third checkpoint (a leaf: no child), then
    `more` supersteps from the fifth; (its checkpoint ids oldest first, the leaf)."""
    ids = _thread(graph, thread_id, 5)
    leaf = graph.update_state({"configurable": {"thread_id": thread_id, "checkpoint_id": ids[2]}}, {"n": 100})
    graph.invoke({"stop": 5 + more}, {"recursion_limit": more + 20,
                                      "configurable": {"thread_id": thread_id, "checkpoint_id": ids[-1]}})
    history = [s.config["configurable"]["checkpoint_id"]
               for s in graph.get_state_history({"configurable": {"thread_id": thread_id}})][::-1]
    return history, leaf["configurable"]["checkpoint_id"]


def test_sqlite_get_state_of_the_oldest_checkpoint_takes_the_same_steps_at_any_length(tmp_path, monkeypatch):
    saver = SqliteSaver(tmp_path / "runs.sqlite")
    graph = _graph(saver)
    (short, short_leaf), (long, long_leaf) = _with_leaf(graph, "short", 20), _with_leaf(graph, "long", 400)
    assert len(long) > 400
    listing = _Listing(saver, monkeypatch)
    steps = {"n": 0}

    def step() -> int:
        steps["n"] += 1
        return 0

    def vm_steps(thread_id: str, checkpoint_id: str) -> tuple[int, Any]:
        steps["n"] = 0
        saver._conn.set_progress_handler(step, 1)
        try:
            snap = _state(graph, thread_id, checkpoint_id)
        finally:
            saver._conn.set_progress_handler(None, 1)
        return steps["n"], snap

    for short_id, long_id in ((short[1], long[1]), (short[0], long[0]), (short[-1], long[-1]),
                              (short_leaf, long_leaf)):
        few, snap_short = vm_steps("short", short_id)
        many, snap_long = vm_steps("long", long_id)
        assert snap_short.config["configurable"]["checkpoint_id"] == short_id
        assert snap_long.config["configurable"]["checkpoint_id"] == long_id
        assert few > 0
        # a scan of the 20x longer history would take ~20x the steps; a lookup takes the same
        assert many <= few * 1.2 + 20, (few, many)
    assert listing.calls == 0
    # the child found is the one the checkpoint's own superstep made: its task shows its result
    snap = _state(graph, "long", long[1])
    assert [t.name for t in snap.tasks] == ["tick"] and snap.tasks[0].result == {"n": 1}
    saver.close()


def test_a_file_opened_read_only_finds_the_child_too(tmp_path):
    path = tmp_path / "runs.sqlite"
    writer = SqliteSaver(path)
    ids = _thread(_graph(writer), "t", 30)
    fork = _graph(writer).update_state({"configurable": {"thread_id": "t", "checkpoint_id": ids[5]}}, {"n": 100})
    writer.close()
    reader = SqliteSaver(path, read_only=True)
    assert reader.first_child("t", ids[5]) == ids[6]  # its own superstep's, not the later fork
    assert reader.first_child("t", ids[-1]) is None
    assert reader.first_child("t", fork["configurable"]["checkpoint_id"]) is None
    assert reader.first_child("t", "no-such-checkpoint") is None
    reader.close()


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_first_child_is_the_oldest_child_when_a_checkpoint_was_forked(kind, tmp_path):
    saver = InMemorySaver() if kind == "memory" else SqliteSaver(tmp_path / "runs.sqlite")
    graph = _graph(saver)
    ids = _thread(graph, "t", 6)
    forks = [graph.update_state({"configurable": {"thread_id": "t", "checkpoint_id": ids[2]}}, {"n": 50 + i})
             for i in range(2)]
    assert saver.first_child("t", ids[2]) == ids[3]
    fork = forks[0]["configurable"]["checkpoint_id"]
    graph.invoke(None, {"configurable": {"thread_id": "t", "checkpoint_id": fork}})
    children = [h.id for h in saver.list_headers("t") if h.parent_id == fork]
    assert saver.first_child("t", fork) == children[-1]  # newest first: the last is the oldest
    root = saver.list_headers("t")
    assert saver.first_child("t", ids[-1]) is None
    assert saver.first_child("other", ids[2]) is None
    assert list(root)
    saver.close()


def test_memory_get_state_of_any_checkpoint_lists_nothing(monkeypatch):
    saver = InMemorySaver()
    graph = _graph(saver)
    ids = _thread(graph, "t", 200)
    listing = _Listing(saver, monkeypatch)
    for cid in (ids[0], ids[1], ids[100], ids[-1]):
        assert _state(graph, "t", cid).config["configurable"]["checkpoint_id"] == cid
    assert listing.calls == 0


def test_postgres_get_state_of_the_oldest_checkpoint_uses_the_parent_index(pg_url, monkeypatch):
    import psycopg

    from engine.checkpoint.postgres import PostgresSaver

    saver = PostgresSaver(pg_url)
    graph = _graph(saver)
    short, long = _thread(graph, "short", 10), _thread(graph, "long", 150)
    listing = _Listing(saver, monkeypatch)
    assert _state(graph, "long", long[1]).tasks[0].result == {"n": 1}
    assert saver.first_child("long", long[1]) == long[2]
    assert saver.first_child("short", short[-1]) is None
    assert listing.calls == 0
    with psycopg.connect(pg_url) as conn:
        conn.execute("ANALYZE retrograph_checkpoints")
        conn.execute("SET enable_seqscan = off")
        plan = " ".join(r[0] for r in conn.execute(
            "EXPLAIN SELECT id FROM retrograph_checkpoints WHERE thread_id = %s AND parent_id = %s"
            " ORDER BY seq LIMIT 1", ("long", long[1])))
    assert "retrograph_checkpoints_by_parent" in plan, plan
    saver.close()
