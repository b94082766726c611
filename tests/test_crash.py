"""Crash safety: the kill harness at a reduced size, a proof that it can fail, and what a
user sees after a crash between a superstep's saved task writes and its commit.

Full size: `python -m tests.crash --kills 200`.
"""
from __future__ import annotations

import operator
import os
from pathlib import Path
from typing import Annotated, TypedDict

import pytest
from crash.harness import (  # tests/crash: tests/ is on sys.path
    HarnessFailure,
    run_harness,
)

from engine import START, Command, SqliteSaver, StateGraph, interrupt

CI_KILLS = 20


def test_kill_harness_reduced_size():
    seed = int(os.environ["RETROGRAPH_CRASH_SEED"]) if "RETROGRAPH_CRASH_SEED" in os.environ else None
    report = run_harness(CI_KILLS, seed)
    assert report.kills >= CI_KILLS
    assert report.integrity_checks >= CI_KILLS
    assert report.final_states_compared == report.trials >= 1
    assert report.saved_tasks_checked > 0 and report.checkpoint_lookups > 0


def test_kill_harness_on_postgres_reduced_size(pg_server):
    """The same kills against the engine's PostgresSaver on a real server: a fresh schema
    per run, nothing reported saved is lost, nothing saved runs twice."""
    seed = int(os.environ["RETROGRAPH_CRASH_SEED"]) if "RETROGRAPH_CRASH_SEED" in os.environ else None
    report = run_harness(CI_KILLS // 3, seed, new_db=lambda name: pg_server.url())
    assert report.kills >= CI_KILLS // 3
    assert report.final_states_compared == report.trials >= 1
    assert report.saved_tasks_checked > 0 and report.checkpoint_lookups > 0


def test_kill_harness_catches_a_store_that_loses_saved_writes():
    with pytest.raises(HarnessFailure, match=r"task\(s\) ran again after their writes were reported saved: \w+@"):
        run_harness(1, seed=7, sabotage=True)


# -- a crash after every task of a superstep saved its writes, before the commit -------
class S(TypedDict):
    log: Annotated[list, operator.add]


class Crash(Exception):
    """Stands for SIGKILL at the commit: the checkpoint is never written."""


class CrashingSaver(SqliteSaver):
    def __init__(self, path: Path, crash_at_step: int) -> None:
        super().__init__(path)
        self.crash_at_step = crash_at_step

    def save(self, checkpoint, **kwargs):
        if checkpoint.step == self.crash_at_step:
            raise Crash(f"killed before saving step {checkpoint.step}")
        super().save(checkpoint, **kwargs)


def _fan_in(runs: list[str]):
    def node(name):
        def fn(state):
            runs.append(name)
            return {"log": [name]}
        return fn

    g = StateGraph(S)
    for name in "abc":
        g.add_node(name, node(name))
    g.add_edge(START, "a")
    g.add_edge(START, "b")
    g.add_edge(["a", "b"], "c")
    return g


def _interrupt_beside_a_sibling(runs: list[str]):
    def review(state):
        runs.append("review")
        return {"log": [interrupt("ok?")]}

    def audit(state):
        runs.append("audit")
        return {"log": ["audit"]}

    g = StateGraph(S)
    g.add_node("review", review)
    g.add_node("audit", audit)
    g.add_edge(START, "review")
    g.add_edge(START, "audit")
    return g


CFG = {"configurable": {"thread_id": "t"}}


def _crash_in_fan_in(tmp_path: Path, runs: list[str]):
    db = tmp_path / "runs.sqlite"
    with CrashingSaver(db, crash_at_step=1) as saver, pytest.raises(Crash):
        _fan_in(runs).compile(checkpointer=saver).invoke({"log": []}, CFG)
    return db


def test_after_a_crash_before_commit_the_run_continues_without_rerunning_saved_tasks(tmp_path):
    runs: list[str] = []
    db = _crash_in_fan_in(tmp_path, runs)
    with SqliteSaver(db) as saver:
        graph = _fan_in(runs).compile(checkpointer=saver)
        state = graph.get_state(CFG)
        assert state.next == ()  # as in LangGraph: tasks whose writes are saved are not "next"
        assert [t.name for t in state.tasks] == ["a", "b"]
        assert graph.invoke(None, CFG) == {"log": ["a", "b", "c"]}
    assert sorted(runs) == ["a", "b", "c"]


def test_get_state_after_a_crash_before_commit_shows_the_saved_writes(tmp_path):
    db = _crash_in_fan_in(tmp_path, [])
    with SqliteSaver(db) as saver:
        state = _fan_in([]).compile(checkpointer=saver).get_state(CFG)
    assert state.values == {"log": ["a", "b"]}
    assert [t.result for t in state.tasks] == [{"log": ["a"]}, {"log": ["b"]}]


def _crash_after_resume(tmp_path: Path, runs: list[str]) -> Path:
    db = tmp_path / "runs.sqlite"
    with CrashingSaver(db, crash_at_step=1) as saver:
        graph = _interrupt_beside_a_sibling(runs).compile(checkpointer=saver)
        assert graph.invoke({"log": []}, CFG)["__interrupt__"][0].value == "ok?"
        with pytest.raises(Crash):
            graph.invoke(Command(resume="yes"), CFG)
    return db


def test_after_a_crash_following_a_resume_the_answer_is_kept(tmp_path):
    runs: list[str] = []
    db = _crash_after_resume(tmp_path, runs)
    with SqliteSaver(db) as saver:
        graph = _interrupt_beside_a_sibling(runs).compile(checkpointer=saver)
        assert graph.invoke(None, CFG) == {"log": ["audit", "yes"]}
        assert graph.get_state(CFG).next == ()
    assert runs == ["audit", "review", "review"], "audit ran once; review asked, then answered"


def test_get_state_after_a_crash_following_a_resume_lists_no_interrupt(tmp_path):
    db = _crash_after_resume(tmp_path, [])
    with SqliteSaver(db) as saver:
        state = _interrupt_beside_a_sibling([]).compile(checkpointer=saver).get_state(CFG)
    assert state.interrupts == ()
    assert state.next == ()
