"""`get_state` of a named checkpoint on a SqliteSaver reads the checkpoint, its oldest child
and its pending writes with one statement (counted with SQLite's trace callback, the same
count at any history length), and shows exactly what the call-by-call reads showed: for
every checkpoint of a thread with forks, a leaf, appended lists, big values, fan-outs,
kept writes and an interrupt; on a file made before the fork index; inside a maintenance
transaction. The head and its pending writes (`get_state` without a checkpoint id) are one
statement too. A saver class that overrides `load` is still called."""
from __future__ import annotations

import operator
import sqlite3
from pathlib import Path
from typing import Annotated, Any, TypedDict

import orjson
import pytest

from engine import END, START, Send, SqliteSaver, StateGraph, interrupt
from engine.checkpoint.base import read_state
from engine.errors import CheckpointDecodeError


class S(TypedDict):
    n: int
    log: Annotated[list, operator.add]
    note: str
    stop: int


def _graph(saver: Any) -> Any:
    def tick(s: S) -> dict:
        return {"n": s["n"] + 1, "log": [f"t{s['n']}"], "note": "x" * (100 + 40 * s["n"])}  # inline, then big

    def side(arg: dict) -> dict:
        return {"log": [f"side{arg['i']}"]}

    def ask(s: S) -> dict:
        return {"note": str(interrupt("more?"))}

    def route(s: S) -> Any:
        if s["n"] % 4 == 2:
            return [Send("side", {"i": s["n"]}), Send("side", {"i": -s["n"]})]
        return "tick" if s["n"] < s["stop"] else "ask"

    g = StateGraph(S)
    g.add_node("tick", tick)
    g.add_node("side", side)
    g.add_node("ask", ask)
    g.add_edge(START, "tick")
    g.add_conditional_edges("tick", route, ["tick", "side", "ask"])
    g.add_edge("side", "tick")
    g.add_edge("ask", END)
    return g.compile(checkpointer=saver)


def _ids(graph: Any, thread_id: str) -> list[str]:
    return [s.config["configurable"]["checkpoint_id"]
            for s in graph.get_state_history({"configurable": {"thread_id": thread_id}})]


def _thread(graph: Any, thread_id: str, stop: int) -> list[str]:
    """A run to the interrupt, a fork of an older checkpoint run on, an update (a leaf):
    every checkpoint id of the thread, newest first."""
    config = {"configurable": {"thread_id": thread_id}, "recursion_limit": 10 * stop + 20}
    graph.invoke({"n": 0, "log": [], "note": "", "stop": stop}, config)
    ids = _ids(graph, thread_id)
    fork = graph.update_state({"configurable": {"thread_id": thread_id, "checkpoint_id": ids[len(ids) // 2]}},
                              {"n": 0, "note": "forked"}, as_node="tick")
    graph.invoke(None, {**fork, "recursion_limit": 10 * stop + 20})
    graph.update_state({"configurable": {"thread_id": thread_id, "checkpoint_id": ids[3]}}, {"note": "leaf"},
                       as_node="tick")
    return _ids(graph, thread_id)


def _by_calls(saver: Any, thread_id: str, cid: str) -> Any:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(type(saver), "load_state", None)
        return read_state(saver, thread_id, cid)


def _state(graph: Any, thread_id: str, cid: str) -> Any:
    return graph.get_state({"configurable": {"thread_id": thread_id, "checkpoint_id": cid}})


def _assert_same_as_by_calls(graph: Any, saver: Any, thread_id: str, ids: list[str]) -> None:
    kinds = set()
    for cid in ids:
        ckpt, child, writes = saver.load_state(thread_id, cid)
        old_ckpt, old_child, old_writes = _by_calls(saver, thread_id, cid)
        assert ckpt == old_ckpt and writes == old_writes
        assert (child is None) == (old_child is None)
        if child is not None:
            own = {k for k, v in old_child.versions.items() if v == old_child.id and k in old_child.values}
            assert (child.id, child.parent_id, child.versions) == (old_child.id, old_child.parent_id,
                                                                   old_child.versions)
            assert (child.source, child.nodes_ran) == (old_child.source, old_child.nodes_ran)
            assert child.values == {k: old_child.values[k] for k in own}  # what a snapshot reads of it
        assert graph.snapshot(ckpt, writes, child) == graph.snapshot(old_ckpt, old_writes, old_child)
        kinds.add((child is None, bool(writes), child is not None and child.parent_id == ids[ids.index(cid) - 1]))
    assert (True, False, False) in kinds  # a leaf
    assert any(w for _, w, _ in kinds)  # kept writes
    assert any(not leaf for leaf, _, _ in kinds)


def _counted(saver: Any, fn: Any) -> tuple[list[str], Any]:
    statements: list[str] = []
    saver._conn.set_trace_callback(statements.append)
    try:
        got = fn()
    finally:
        saver._conn.set_trace_callback(None)
    return statements, got


class Flat(TypedDict):
    n: int
    note: str
    big: str
    stop: int


def _flat_graph(saver: Any) -> Any:
    """A flat state: a small value kept in the row, a big one stored apart, each changed
    every step, and `stop`, kept in the row of the run's input."""
    g = StateGraph(Flat)
    g.add_node("tick", lambda s: {"n": s["n"] + 1, "note": f"n={s['n']}", "big": str(s["n"]) * 300})
    g.add_edge(START, "tick")
    g.add_conditional_edges("tick", lambda s: "tick" if s["n"] < s["stop"] else END, ["tick", END])
    return g.compile(checkpointer=saver)


def _flat_thread(graph: Any, thread_id: str, stop: int) -> list[str]:
    graph.invoke({"n": 0, "note": "", "big": "", "stop": stop},
                 {"configurable": {"thread_id": thread_id}, "recursion_limit": stop + 10})
    ids = _ids(graph, thread_id)
    graph.update_state({"configurable": {"thread_id": thread_id, "checkpoint_id": ids[2]}}, {"note": "fork"},
                       as_node="tick")
    return _ids(graph, thread_id)


def test_get_state_is_one_statement_whatever_the_history_length(tmp_path: Path) -> None:
    saver = SqliteSaver(tmp_path / "runs.db")
    graph = _flat_graph(saver)
    short, long = _flat_thread(graph, "short", 12), _flat_thread(graph, "long", 600)
    counts: dict[str, list[int]] = {"short": [], "long": []}
    for thread_id, ids in (("short", short), ("long", long)):
        # the oldest, the first with state, the forked one, the middle, the newest, the fork (a leaf)
        for cid in (ids[-1], ids[-2], ids[-4], ids[len(ids) // 2], ids[1], ids[0]):
            statements, snap = _counted(saver, lambda: _state(graph, thread_id, cid))  # noqa: B023
            assert snap.config["configurable"]["checkpoint_id"] == cid
            assert statements[0] == "BEGIN" and statements[-1] == "COMMIT", statements
            reads = statements[1:-1]
            assert " UNION ALL " in reads[0] and "FROM writes" in reads[0], reads  # rows and writes: one statement
            assert not any("UNION" in s or "writes" in s for s in reads[1:]), reads
            # the rest: the big values (stored apart) and the small ones kept in older rows
            assert all(s.startswith(("SELECT data FROM segments WHERE sid = ", "SELECT inline FROM checkpoints"))
                       for s in reads[1:]), reads
            counts[thread_id].append(len(statements))
    assert counts["short"] == counts["long"], counts  # nothing per step of history
    assert max(counts["long"]) <= 6, counts
    saver.close()


def test_get_state_shows_what_the_call_by_call_reads_showed(tmp_path: Path) -> None:
    saver = SqliteSaver(tmp_path / "runs.db")
    graph = _graph(saver)
    ids = _thread(graph, "t", 12)
    _assert_same_as_by_calls(graph, saver, "t", ids)
    assert _state(graph, "t", ids[-2]).tasks[0].result == {"n": 1, "log": ["t0"], "note": "x" * 100}
    assert saver.load_state("t", "no-such-checkpoint") == (None, None, [])
    assert saver.load_state("no-such-thread", ids[0]) == (None, None, [])
    assert _state(graph, "t", "no-such-checkpoint").values == {}
    with saver.maintenance_transaction():  # read inside a maintenance call's transaction
        assert saver.load_state("t", ids[5]) == saver.load_state("t", ids[5])
    saver.close()


def test_a_file_made_before_the_fork_index_reads_the_same(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    writer = SqliteSaver(path)
    graph = _graph(writer)
    ids = _thread(graph, "t", 10)
    expected = [_by_calls(writer, "t", cid) for cid in ids]
    writer.close()
    with sqlite3.connect(path) as conn:
        conn.execute("DROP INDEX checkpoints_forks")
    reader = SqliteSaver(path, read_only=True)  # a reader adds no index
    assert not reader._forks[1] and reader.load_state("t", ids[0]) is not None
    assert not reader._forks[1]
    _assert_same_as_by_calls(_graph(reader), reader, "t", ids)
    for cid, (ckpt, child, writes) in zip(ids, expected):
        got = reader.load_state("t", cid)
        assert (got[0], got[2]) == (ckpt, writes)
        assert (got[1].id if got[1] else None) == (child.id if child else None)
    reader.close()


def test_the_head_and_its_writes_are_one_statement(tmp_path: Path) -> None:
    saver = SqliteSaver(tmp_path / "runs.db")
    graph = _graph(saver)
    graph.invoke({"n": 0, "log": [], "note": "", "stop": 6},  # ends at the interrupt: the head has writes
                 {"configurable": {"thread_id": "t"}, "recursion_limit": 100})
    head = {"configurable": {"thread_id": "t"}}
    statements, snap = _counted(saver, lambda: graph.get_state(head))
    reads = statements[1:-1]
    assert " UNION ALL " in reads[0] and "FROM writes" in reads[0], reads
    assert not any("UNION" in s or "writes" in s for s in reads[1:]), reads
    ckpt, writes = saver.load_head("t")
    assert writes and writes == saver.pending_writes("t", ckpt.id)
    assert ckpt == saver.load("t")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(SqliteSaver, "load_head", None)
        assert graph.get_state(head) == snap
    assert snap.interrupts and snap.next == ("ask",)
    assert saver.load_head("no-such-thread") == (None, [])
    assert graph.get_state({"configurable": {"thread_id": "no-such-thread"}}).values == {}
    saver.close()


class Log(TypedDict):
    log: Annotated[list, operator.add]
    n: int
    stop: int


def _log_graph(saver: Any) -> Any:
    """Appends an item a step (none every seventh step: an empty segment)."""
    g = StateGraph(Log)
    g.add_node("add", lambda s: {"n": s["n"] + 1, "log": [] if s["n"] % 7 == 3 else [f"item {s['n']}"]})
    g.add_edge(START, "add")
    g.add_conditional_edges("add", lambda s: "add" if s["n"] < s["stop"] else END, ["add", END])
    return g.compile(checkpointer=saver)


def test_a_list_the_child_appended_is_read_as_its_own_items(tmp_path: Path) -> None:
    saver = SqliteSaver(tmp_path / "runs.db")
    graph = _log_graph(saver)
    graph.invoke({"log": [], "n": 0, "stop": 180}, {"configurable": {"thread_id": "t"}, "recursion_limit": 400})
    ids = _ids(graph, "t")
    assert len(ids) > 180  # past two chunks of 64 appends (segments.py)
    fork = graph.update_state({"configurable": {"thread_id": "t", "checkpoint_id": ids[100]}}, {"log": ["fork"]},
                              as_node="add")  # a branch: its list starts a chain of its own
    graph.invoke({"stop": 0}, {**fork, "recursion_limit": 5})
    ids = _ids(graph, "t")
    empty = 0
    for cid in ids:
        ckpt, child, writes = saver.load_state("t", cid)
        old_ckpt, old_child, old_writes = _by_calls(saver, "t", cid)
        assert (ckpt, writes) == (old_ckpt, old_writes)
        if old_child is None:
            assert child is None
            continue
        own = {k: v for k, v in old_child.values.items() if old_child.versions[k] == old_child.id}
        assert child.values == own, cid
        empty += "log" in own and len(own["log"]) == len(ckpt.values.get("log", []))
        assert graph.snapshot(ckpt, writes, child) == graph.snapshot(old_ckpt, old_writes, old_child)
    assert empty > 10  # appends of no items
    def ranges(statements: list[str]) -> list[str]:
        return [s for s in statements if " BETWEEN " in s and ("FROM chunks" in s or "FROM segments" in s)]

    singles = 0
    for cid in (ids[len(ids) // 2], ids[-3], ids[3], ids[4]):  # a chunk's middle, the first appends, the branch
        statements, _ = _counted(saver, lambda: _state(graph, "t", cid))  # noqa: B023
        alone, _ = _counted(saver, lambda: saver.load("t", cid))  # noqa: B023
        # the checkpoint's list read as loading it reads it; the child's: its one segment by its id
        assert ranges(statements) == ranges(alone), statements
        ones = [s for s in statements if s.startswith(("SELECT data FROM segments WHERE sid = ",
                                                       "SELECT data, ends FROM chunks WHERE sid = "))]
        assert len(ones) <= 2, statements  # the segments table, else its chunk
        singles += len(ones)
    assert singles >= 3
    saver.close()


class _OwnLoad(SqliteSaver):
    loads = 0

    def load(self, thread_id: str, checkpoint_id: str | None = None) -> Any:
        _OwnLoad.loads += 1
        return super().load(thread_id, checkpoint_id)


def test_a_saver_class_that_overrides_load_is_still_called(tmp_path: Path) -> None:
    saver = _OwnLoad(tmp_path / "runs.db")
    graph = _graph(saver)
    ids = _thread(graph, "t", 6)
    _OwnLoad.loads = 0
    snap = _state(graph, "t", ids[-2])
    assert _OwnLoad.loads == 2  # the checkpoint and its child, one call each
    graph.get_state({"configurable": {"thread_id": "t"}})
    assert _OwnLoad.loads == 3  # the head too
    assert snap == _graph(SqliteSaver(tmp_path / "runs.db")).get_state(
        {"configurable": {"thread_id": "t", "checkpoint_id": ids[-2]}})
    saver.close()


def test_a_read_replaced_on_the_saver_itself_is_still_called(tmp_path: Path) -> None:
    saver = SqliteSaver(tmp_path / "runs.db")
    graph = _graph(saver)
    ids = _thread(graph, "t", 6)
    calls: list[str] = []
    real = saver.pending_writes

    def counted(thread_id: str, checkpoint_id: str) -> Any:
        calls.append(checkpoint_id)
        return real(thread_id, checkpoint_id)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(saver, "pending_writes", counted)
        _state(graph, "t", ids[-2])
        graph.get_state({"configurable": {"thread_id": "t"}})
    assert calls == [ids[-2], ids[0]]
    saver.close()


def test_a_damaged_value_the_child_changed_is_named(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    saver = SqliteSaver(path)
    graph = _graph(saver)
    ids = _thread(graph, "t", 4)
    first, child = ids[-2], ids[-3]
    saver.close()
    with sqlite3.connect(path) as conn:
        (inline,) = conn.execute("SELECT inline FROM checkpoints WHERE id = ?", (child,)).fetchone()
        held = {**orjson.loads(inline), "n": "{oops"}
        conn.execute("UPDATE checkpoints SET inline = ? WHERE id = ?", (orjson.dumps(held), child))
    saver = SqliteSaver(path)
    with pytest.raises(CheckpointDecodeError, match=f"{child}.*channel `n`"):
        _state(_graph(saver), "t", first)
    saver.close()
