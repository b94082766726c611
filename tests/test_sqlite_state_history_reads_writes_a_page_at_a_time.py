"""`get_state_history` on a SqliteSaver reads each page of checkpoints with the pending
writes of the whole page in one query (counted with SQLite's trace callback; the time is
a bench row), and gives the same snapshots as the call-by-call reads; a saver class that
overrides `pending_writes` is still called for every checkpoint."""
from __future__ import annotations

import itertools
import operator
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest

from engine import END, START, SqliteSaver, StateGraph
from engine.checkpoint.sqlite_history import PagedWrites
from engine.errors import CheckpointDecodeError


class S(TypedDict):
    log: Annotated[list, operator.add]
    n: int


def _graph(saver: Any, steps: int) -> Any:
    g = StateGraph(S)
    g.add_node("a", lambda s: {"log": [f"a{s['n']}"], "n": s["n"] + 1})
    g.add_node("b", lambda s: {"log": [f"b{s['n']}"]})
    g.add_edge(START, "a")
    g.add_edge(START, "b")  # two tasks a superstep: the first to finish keeps its writes
    g.add_conditional_edges("a", lambda s: "a" if s["n"] < steps else END, ["a", END])
    return g.compile(checkpointer=saver)


def _history(graph: Any, config: dict[str, Any], limit: int | None = None) -> list[Any]:
    return list(itertools.islice(graph.get_state_history(config), limit))


def _snapshots_by_calls(graph: Any, config: dict[str, Any]) -> list[Any]:
    """What get_state_history gives when the saver has no page reads: history, then
    pending_writes of each checkpoint."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(SqliteSaver, "history_with_writes", None)
        return _history(graph, config)


class _Sub(SqliteSaver):
    calls = 0

    def pending_writes(self, thread_id: str, checkpoint_id: str) -> Any:
        _Sub.calls += 1
        return super().pending_writes(thread_id, checkpoint_id)


def test_a_page_of_history_reads_its_writes_in_one_query(tmp_path: Path) -> None:
    path = str(tmp_path / "h.db")
    with SqliteSaver(path) as saver:
        graph = _graph(saver, 60)
        config = {"configurable": {"thread_id": "t"}, "recursion_limit": 200}
        graph.invoke({"log": [], "n": 0}, config)
        graph.update_state(config, {"n": 100}, as_node="a")  # a fork-free update at the head
    with SqliteSaver(path) as saver:
        graph = _graph(saver, 60)
        statements: list[str] = []
        saver._db().set_trace_callback(statements.append)
        first_100 = _history(graph, {"configurable": {"thread_id": "t"}}, 100)
        saver._db().set_trace_callback(None)
        writes_queries = [s for s in statements if "FROM writes" in s]
        assert len(first_100) == 63  # the input, 61 supersteps, the update
        assert len(writes_queries) == 3  # pages of 25: 63 checkpoints
        assert not [s for s in statements if "FROM writes WHERE tid = (SELECT" in s]  # no call per checkpoint
        assert any(t.result is not None for snap in first_100 for t in snap.tasks)
        assert first_100 == _snapshots_by_calls(graph, {"configurable": {"thread_id": "t"}})
        one_by_one = [graph.get_state(s.config) for s in first_100[1:]]  # the head is read live by get_state
        assert first_100[1:] == one_by_one


def test_pending_writes_of_a_page_are_those_of_each_checkpoint(tmp_path: Path) -> None:
    with SqliteSaver(str(tmp_path / "w.db")) as saver:
        graph = _graph(saver, 30)
        config = {"configurable": {"thread_id": "t"}, "recursion_limit": 100}
        graph.invoke({"log": [], "n": 0}, config)
        pairs = list(saver.history_with_writes("t"))
        assert [c.id for c, _ in pairs] == [c.id for c in saver.history("t")]
        assert [w for _, w in pairs] == [saver.pending_writes("t", c.id) for c, _ in pairs]
        assert sum(len(w) for _, w in pairs) > 0
        older = pairs[10][0].id
        tail = list(saver.history_with_writes("t", before=older, limit=30))
        assert [c.id for c, _ in tail] == [c.id for c, _ in pairs[11:41]]
        assert list(saver.history_with_writes("missing")) == []


def test_a_subclass_overriding_pending_writes_is_called_for_each_checkpoint(tmp_path: Path) -> None:
    with _Sub(str(tmp_path / "s.db")) as saver:
        graph = _graph(saver, 10)
        config = {"configurable": {"thread_id": "t"}, "recursion_limit": 100}
        graph.invoke({"log": [], "n": 0}, config)
        _Sub.calls = 0
        got = _history(graph, {"configurable": {"thread_id": "t"}})
        assert _Sub.calls == len(got) == 12
    assert issubclass(SqliteSaver, PagedWrites)


def test_an_unreadable_write_is_named_when_its_checkpoint_is_reached(tmp_path: Path) -> None:
    path = str(tmp_path / "bad.db")
    with SqliteSaver(path) as saver:
        graph = _graph(saver, 5)
        graph.invoke({"log": [], "n": 0}, {"configurable": {"thread_id": "t"}, "recursion_limit": 50})
        conn = saver._db()
        (wid, checkpoint), = conn.execute("SELECT wid, checkpoint FROM writes ORDER BY wid LIMIT 1").fetchall()
        conn.execute("UPDATE writes SET value = ? WHERE wid = ?", (b"{not json", wid))
        seen = []
        with pytest.raises(CheckpointDecodeError, match=f"a pending write of `{checkpoint}`"):
            for ckpt, _ in saver.history_with_writes("t"):
                seen.append(ckpt.id)
        ids = [c.id for c in saver.history("t")]
        assert seen == ids[:ids.index(checkpoint)]  # the newer checkpoints came first, whole
