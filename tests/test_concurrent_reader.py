"""Reading a checkpoint file while another process writes a long run into it, as the
studio does when it opens the database of a run in progress.

Every read must be a consistent snapshot: each listed checkpoint loads, its parent is
listed, and its values are those the graph computes for its step. New checkpoints must
show up while the writer goes on.
"""
from __future__ import annotations

import multiprocessing
import operator
import sqlite3
import time
from pathlib import Path
from typing import Annotated, Any, TypedDict


from engine import (
    END,
    START,
    CheckpointError,
    SqliteSaver,
    StateGraph,
)

STEPS = 200
NAP_S = 0.01
"""The writer's node naps so the run outlasts several reads (setup, not pass/fail logic)."""
CFG = {"configurable": {"thread_id": "long"}}


class Counter(TypedDict):
    n: int
    seen: Annotated[list, operator.add]
    total: int


def _tick(state: Counter) -> dict[str, Any]:
    time.sleep(NAP_S)
    n = state["n"]
    return {"n": n + 1, "seen": [n], "total": state["total"] + n}


def build(saver: SqliteSaver) -> Any:
    g = StateGraph(Counter)
    g.add_node("tick", _tick)
    g.add_edge(START, "tick")
    g.add_conditional_edges("tick", lambda s: "tick" if s["n"] < STEPS else END, ["tick", END])
    return g.compile(checkpointer=saver)


def expected(step: int) -> dict[str, Any]:
    """The state after superstep `step` (0 is the input, `tick` runs from step 1)."""
    return {"n": step, "seen": list(range(step)), "total": step * (step - 1) // 2}


def write_run(path: str, opened: Any) -> None:
    """The writer process: one long run, one checkpoint per superstep."""
    with SqliteSaver(path) as saver:
        opened.set()  # the file exists and has its schema
        build(saver).invoke({"n": 0, "seen": [], "total": 0}, {**CFG, "recursion_limit": STEPS + 5})


def read_once(graph: Any) -> list[int]:
    """One read of the whole history; returns its steps, newest first, after checking it."""
    history = list(graph.get_state_history(CFG))
    ids = {snap.config["configurable"]["checkpoint_id"] for snap in history}
    steps = []
    for snap in history:
        step = snap.metadata["step"]
        steps.append(step)
        if step == -1:
            assert snap.parent_config is None and snap.metadata["source"] == "input"
            assert snap.next == ("__start__",)
            continue
        assert snap.parent_config is not None
        assert snap.parent_config["configurable"]["checkpoint_id"] in ids, f"step {step}: parent not listed"
        assert snap.values == expected(step), f"step {step}"
        assert snap.next == (("tick",) if step < STEPS else ())
    assert steps == list(range(len(steps) - 2, -2, -1)), "a gap or a duplicate in the history"
    return steps


def test_a_reader_sees_consistent_snapshots_while_another_process_writes(tmp_path: Path):
    path = str(tmp_path / "live.sqlite")
    ctx = multiprocessing.get_context("spawn")  # not the crash harness's forkserver
    opened = ctx.Event()
    writer = ctx.Process(target=write_run, args=(path, opened))
    writer.start()
    sizes_while_writing: list[int] = []
    try:
        deadline = time.monotonic() + 60
        # Opening while the writer creates the file is the xfail test below; not this one.
        assert opened.wait(60), f"the writer never opened the file (exit code {writer.exitcode})"
        with SqliteSaver(path) as saver:
            graph = build(saver)
            while writer.is_alive():
                assert time.monotonic() < deadline, "the writer did not finish in time"
                steps = read_once(graph)
                if writer.is_alive() and steps:
                    sizes_while_writing.append(len(steps))
            writer.join(10)
            assert writer.exitcode == 0, "the writer failed (its traceback is in the captured stderr)"
            final = read_once(graph)
    finally:
        if writer.is_alive():
            writer.kill()
            writer.join()
    assert final[0] == STEPS and len(final) == STEPS + 2
    assert sizes_while_writing == sorted(sizes_while_writing), "a later read saw fewer checkpoints"
    grew = sorted(set(sizes_while_writing))
    assert len(grew) >= 3, f"new checkpoints did not show up as the run went: {grew}"


class _Rows:
    def __init__(self, rows: list[tuple]) -> None:
        self._rows = rows

    def fetchone(self) -> tuple | None:
        return self._rows[0] if self._rows else None

    def __iter__(self):
        return iter(self._rows)


def test_two_processes_opening_a_new_file_at_once_both_succeed(tmp_path: Path, monkeypatch):
    """Replays the interleaving deterministically: the other process creates the file right
    after this one read its application id."""
    path = tmp_path / "new.sqlite"
    real_connect = sqlite3.connect
    armed = [True]

    def connect(*args: Any, **kwargs: Any) -> Any:
        if armed[0]:
            return Interleaved(real_connect(*args, **kwargs))
        return real_connect(*args, **{**kwargs, "timeout": 0.2})  # the other process's connection

    class Interleaved:
        def __init__(self, conn: sqlite3.Connection) -> None:
            self._conn = conn

        def execute(self, sql: str, *args: Any) -> Any:
            cursor = self._conn.execute(sql, *args)
            if armed[0] and sql.strip().upper() == "PRAGMA APPLICATION_ID":
                armed[0] = False
                rows = cursor.fetchall()
                try:
                    SqliteSaver(path).close()  # the other process creates the file right now
                except CheckpointError:  # locked out: this interleaving can no longer happen
                    pass
                return _Rows(rows)
            return cursor

        def __getattr__(self, name: str) -> Any:
            return getattr(self._conn, name)

    monkeypatch.setattr(sqlite3, "connect", connect)
    with SqliteSaver(path) as saver:
        assert saver.threads() == []
    assert not armed[0], "the interleaving was not replayed: SqliteSaver no longer reads the id that way"
