"""Reading a checkpoint file while another process writes a long run into it, as the
studio does when it opens the database of a run in progress.

Every read must be a consistent snapshot: each listed checkpoint loads, its parent is
listed, and its values are those the graph computes for its step. New checkpoints must
show up while the writer goes on.
"""
from __future__ import annotations

import multiprocessing
import operator
import time
from pathlib import Path
from typing import Annotated, Any, TypedDict

from engine import END, START, SqliteSaver, StateGraph

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


def write_run(path: str) -> None:
    """The writer process: one long run, one checkpoint per superstep."""
    with SqliteSaver(path) as saver:
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
    writer = ctx.Process(target=write_run, args=(path,))
    writer.start()
    sizes_while_writing: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while not Path(path).exists():  # the writer creates the file
            assert writer.is_alive() and time.monotonic() < deadline, "the writer never created the file"
            time.sleep(0.005)
        with SqliteSaver(path) as saver:
            graph = build(saver)
            while writer.is_alive():
                assert time.monotonic() < deadline, "the writer did not finish in time"
                steps = read_once(graph)
                if writer.is_alive() and steps:
                    sizes_while_writing.append(len(steps))
            writer.join(10)
            assert writer.exitcode == 0
            final = read_once(graph)
    finally:
        if writer.is_alive():
            writer.kill()
            writer.join()
    assert final[0] == STEPS and len(final) == STEPS + 2
    assert sizes_while_writing == sorted(sizes_while_writing), "a later read saw fewer checkpoints"
    grew = sorted(set(sizes_while_writing))
    assert len(grew) >= 3, f"new checkpoints did not show up as the run went: {grew}"
