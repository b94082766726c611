"""A state key annotated with LangGraph's DeltaChannel folds each superstep's writes in one
reducer call, keeps its value through a real SQLite store, and names its reducer in diffs."""
import asyncio
from typing import Annotated, TypedDict

import pytest

from engine import END, START, SqliteSaver, StateGraph
from engine.compat.channels import DeltaChannel
from engine.types import Overwrite

CALLS: list[int] = []


def concat(state: list, writes: list) -> list:
    CALLS.append(len(writes))
    out = list(state)
    for w in writes:
        out.extend(w if isinstance(w, list) else [w])
    return out


class S(TypedDict):
    log: Annotated[list, DeltaChannel(concat)]


def _graph(saver=None):
    g = StateGraph(S)
    g.add_node("a", lambda s: {"log": "a"})
    g.add_node("b", lambda s: {"log": "b"})
    g.add_node("c", lambda s: {"log": Overwrite(["c"])} if len(s["log"]) > 4 else None)
    g.add_edge(START, "a")
    g.add_edge(START, "b")
    g.add_edge(["a", "b"], "c")
    g.add_edge("c", END)
    return g.compile(checkpointer=saver)


def test_one_reducer_call_per_superstep_with_all_its_writes():
    CALLS.clear()
    assert _graph().invoke({"log": ["in"]}) == {"log": ["in", "a", "b"]}
    assert CALLS == [1, 2]  # the input, then a's and b's writes together


def test_the_value_survives_a_sqlite_file_and_an_overwrite(tmp_path):
    cfg = {"configurable": {"thread_id": "t"}}
    path = tmp_path / "runs.sqlite"
    _graph(SqliteSaver(str(path))).invoke({"log": ["x"]}, cfg)
    reopened = _graph(SqliteSaver(str(path)))
    assert reopened.get_state(cfg).values == {"log": ["x", "a", "b"]}
    assert reopened.invoke({"log": ["y"]}, cfg) == {"log": ["c"]}


def test_diffs_name_the_batched_reducer():
    run = _graph().new_run({"log": ["in"]}, {})

    async def first_commit():
        await run.start()
        await run.run_task()
        return run.commit()

    diffs = asyncio.run(first_commit()).diffs
    assert [d.reducer for d in diffs if d.key == "log"] == ["concat (batched)"]


def test_a_bad_snapshot_frequency_is_refused():
    with pytest.raises(ValueError, match="snapshot_frequency must be a positive int, got 0"):
        DeltaChannel(concat, snapshot_frequency=0)
