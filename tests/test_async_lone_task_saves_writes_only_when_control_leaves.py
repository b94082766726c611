"""A one-task superstep of the async API saves its task's writes as pending writes only
when control leaves the run before the commit that follows (a chunk goes out to the
consumer): ainvoke, like invoke, commits right away and stores one checkpoint row per
superstep and no pending-write rows; astream of "updates" has the writes saved before the
consumer sees the chunk, so a run cancelled there never runs that task again."""
from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

from typing_extensions import TypedDict

from engine import END, START, SqliteSaver, StateGraph


class S(TypedDict):
    n: int


def _loop(saver: Any, steps: int, calls: list[int] | None = None) -> Any:
    def step(state: S) -> dict[str, int]:
        if calls is not None:
            calls.append(state["n"])
        return {"n": state["n"] + 1}

    g = StateGraph(S)
    g.add_node("step", step)
    g.add_edge(START, "step")
    g.add_conditional_edges("step", lambda s: END if s["n"] >= steps else "step", ["step", END])
    return g.compile(checkpointer=saver)


def _rows(path: Path, table: str) -> int:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    finally:
        conn.close()


def test_ainvoke_stores_no_pending_writes_for_lone_tasks(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    saver = SqliteSaver(str(path))
    graph = _loop(saver, 25)
    config = {"configurable": {"thread_id": "t"}}
    out = asyncio.run(graph.ainvoke({"n": 0}, config))
    saver.close()
    assert out == {"n": 25}
    assert _rows(path, "writes") == 0  # every lone task's writes are read back from its checkpoint
    assert _rows(path, "checkpoints") == 27  # the input, its __start__ task's commit, 25 steps


def test_ainvoke_history_still_shows_each_tasks_result(tmp_path: Path) -> None:
    saver = SqliteSaver(str(tmp_path / "runs.sqlite"))
    graph = _loop(saver, 3)
    config = {"configurable": {"thread_id": "t"}}
    asyncio.run(graph.ainvoke({"n": 0}, config))
    history = list(graph.get_state_history(config))
    results = [t.result for snap in history for t in snap.tasks if t.name == "step"]
    saver.close()
    assert results == [{"n": 3}, {"n": 2}, {"n": 1}]


def test_astream_saves_the_writes_before_the_consumer_sees_the_update(tmp_path: Path) -> None:
    saver = SqliteSaver(str(tmp_path / "runs.sqlite"))
    calls: list[int] = []
    graph = _loop(saver, 5, calls)
    config = {"configurable": {"thread_id": "t"}}

    async def stop_after_second_update() -> list[Any]:
        seen = []
        async for chunk in graph.astream({"n": 0}, config, stream_mode="updates"):
            seen.append(chunk)
            if len(seen) == 2:  # {'step': {'n': 2}}: the task ran, its superstep not committed
                state = await graph.aget_state(config)
                assert state.metadata["step"] == 1  # the superstep is not committed yet,
                assert state.next == ()  # but its task's writes are saved: nothing left to run
                assert [t.result for t in state.tasks] == [{"n": 2}]
                break
        return seen

    seen = asyncio.run(stop_after_second_update())
    assert seen[-1] == {"step": {"n": 2}}
    out = asyncio.run(graph.ainvoke(None, config))  # goes on from the saved writes
    saver.close()
    assert out == {"n": 5}
    assert calls == [0, 1, 2, 3, 4]  # the task whose update went out did not run again
