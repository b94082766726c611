"""Whole histories, compared exactly: with deterministic ids and clock, a run's history
is the same on every machine and every run."""
from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from engine import END, START, SqliteSaver, StateGraph


class S(TypedDict):
    log: Annotated[list, operator.add]
    n: int


def _graph(db: Any) -> Any:
    g = StateGraph(S)
    g.add_node("work", lambda s: {"log": [f"w{s['n']}"], "n": s["n"] + 1})
    g.add_node("check", lambda s: {"log": ["c"]})
    g.add_edge(START, "work")
    g.add_edge("work", "check")
    g.add_conditional_edges("check", lambda s: END if s["n"] >= 2 else "work")
    return g.compile(checkpointer=SqliteSaver(db))


def _history(db: Any) -> list[tuple[Any, ...]]:
    app = _graph(db)
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({"log": [], "n": 0}, config)
    return [
        (s.config["configurable"]["checkpoint_id"],
         (s.parent_config or {}).get("configurable", {}).get("checkpoint_id"),
         s.metadata["step"], s.metadata["source"], s.created_at, s.next, s.values,
         tuple((t.id, t.name) for t in s.tasks))
        for s in app.get_state_history(config)
    ]


def _id(n: int) -> str:
    return f"{n:012x}-000000-test00"


def _at(second: int) -> str:
    return f"2025-01-01T00:00:{second:02d}.000000+00:00"


EXPECTED = [
    (_id(7), _id(6), 4, "loop", _at(6), (), {"log": ["w0", "c", "w1", "c"], "n": 2}, ()),
    (_id(6), _id(5), 3, "loop", _at(5), ("check",), {"log": ["w0", "c", "w1"], "n": 2}, ((f"{_id(6)}/0", "check"),)),
    (_id(5), _id(4), 2, "loop", _at(4), ("work",), {"log": ["w0", "c"], "n": 1}, ((f"{_id(5)}/0", "work"),)),
    (_id(4), _id(3), 1, "loop", _at(3), ("check",), {"log": ["w0"], "n": 1}, ((f"{_id(4)}/0", "check"),)),
    (_id(3), _id(2), 0, "loop", _at(2), ("work",), {"log": [], "n": 0}, ((f"{_id(3)}/0", "work"),)),
    (_id(2), None, -1, "input", _at(1), ("__start__",), {"log": []}, ((f"{_id(2)}/0", "__start__"),)),
]


def test_a_whole_history_is_the_snapshot(tmp_path, deterministic_ids):
    assert _history(tmp_path / "a.sqlite") == EXPECTED


def test_two_runs_write_identical_histories(tmp_path):
    from engine.checkpoint.ids import deterministic_ids

    with deterministic_ids():
        first = _history(tmp_path / "a.sqlite")
    with deterministic_ids():
        second = _history(tmp_path / "b.sqlite")
    assert first == second == EXPECTED
    assert _history(tmp_path / "c.sqlite")[0][0] != _id(7)  # outside the block: real ids again
