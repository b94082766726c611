"""A long history is read into the timeline in bulk (Home: all 100,000 checkpoints), and the
bulk paths give exactly what the one-row paths give: the rows, the History, the tree.
Real headers from a real SQLite file (a run with a subgraph, a fork, an edit)."""
from __future__ import annotations

from pathlib import Path
from typing import TypedDict

import pytest

from studio.core import convert, timeline_tree
from studio.core.bulk_rows import timeline_rows
from studio.core.history import History
from studio.core.records import TimelineRow


class _S(TypedDict):
    n: int


@pytest.fixture
def saver(tmp_path: Path):
    """A thread whose run calls a subgraph each step, then forked from its second checkpoint."""
    from engine import END, START, SqliteSaver, StateGraph

    inner = StateGraph(_S)
    inner.add_node("bump", lambda s: {"n": s["n"] + 1})
    inner.add_edge(START, "bump")
    outer = StateGraph(_S)
    outer.add_node("sub", inner.compile())
    outer.add_edge(START, "sub")
    outer.add_conditional_edges("sub", lambda s: "sub" if s["n"] < 4 else END, ["sub", END])
    store = SqliteSaver(str(tmp_path / "bulk.sqlite"))
    graph = outer.compile(checkpointer=store)
    config = {"configurable": {"thread_id": "t"}}
    graph.invoke({"n": 0}, config)
    second = list(graph.get_state_history(config))[-2].config
    graph.update_state(second, {"n": 10})  # a fork of an old checkpoint: a branch
    yield store
    store.close()


def test_bulk_rows_equal_one_row_at_a_time_rows(saver) -> None:
    headers = list(saver.list_headers("t"))
    for ns in saver.namespaces("t"):
        if ns:
            from engine.checkpoint.ids import ns_thread_key

            headers += list(saver.list_headers(ns_thread_key("t", ns)))
    assert {h.source for h in headers} >= {"input", "loop", "update"}
    assert any(convert.timeline_row(h).namespace for h in headers)  # subgraph rows are among them
    bulk = timeline_rows(headers)
    one = [convert.timeline_row(h) for h in headers]
    assert bulk == one
    assert [vars(r) for r in bulk] == [vars(r) for r in one]  # the same fields, not only equal ones
    assert all(type(r) is TimelineRow for r in bulk)


def test_history_add_many_is_add_one_by_one(saver) -> None:
    rows = [convert.timeline_row(h) for h in saver.list_headers("t")]  # newest first: out of order
    one = History()
    added_one = [one.add(r) for r in rows + rows[:3]]
    many = History()
    assert many.add_many(rows + rows[:3]) == sum(added_one) == len(rows)
    assert many.rows() == one.rows() and many.latest_id == one.latest_id
    assert [many.children(r.id) for r in rows] == [one.children(r.id) for r in rows]
    assert many.branches() == one.branches() == 1


def _general(rows: list[TimelineRow]) -> timeline_tree.TimelineTree:
    """The tree built by the general walk (no linear shortcut, no cycle check skipped)."""
    real = timeline_tree._linear
    timeline_tree._linear = lambda *_: False  # type: ignore[assignment]
    try:
        return timeline_tree.build_tree(rows)
    finally:
        timeline_tree._linear = real


def _line(n: int) -> list[TimelineRow]:
    return [TimelineRow(id=f"{i:08d}", parent_id=f"{i - 1:08d}" if i else None, step=i, source="loop",
                        nodes=("a",), next=("a",), created_at=f"2026-01-01T00:00:{i % 60:02d}") for i in range(n)]


def test_a_linear_history_gets_the_tree_the_walk_would_build() -> None:
    rows = _line(2000)
    tree = timeline_tree.build_tree(rows)
    assert tree == _general(rows)
    assert len(tree.chains) == 1 and tree.visible == list(range(2000))


def test_forks_subgraphs_and_cycles_take_the_walk(saver) -> None:
    history = History(convert.timeline_row(h) for h in saver.list_headers("t"))
    forked = list(history.rows())
    assert not timeline_tree._linear(forked, {r.id: i for i, r in enumerate(forked)})
    assert timeline_tree.build_tree(forked) == _general(forked)
    cycle = _line(5)
    cycle[0] = TimelineRow(id=cycle[0].id, parent_id=cycle[-1].id, step=0, source="loop", nodes=(), next=(),
                           created_at=cycle[0].created_at)  # a crafted file: a parent cycle
    tree = timeline_tree.build_tree(cycle)
    assert sorted(i for i in tree.visible if i >= 0) == list(range(5))  # every row once, no endless walk
