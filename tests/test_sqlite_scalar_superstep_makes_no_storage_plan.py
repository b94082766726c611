"""A SqliteSaver superstep that changes only small scalars (a loop's counter) costs the
saver a handful of Python calls and no storage plan: counted with a profiler hook, never
timed. A step that appends to a list still goes through the plan."""

from __future__ import annotations

import operator
import sys
from pathlib import Path
from types import FrameType
from typing import Annotated, Any, TypedDict

from engine import END, START, SqliteSaver, StateGraph


class Loop(TypedDict):
    n: int
    done: bool
    log: Annotated[list, operator.add]


class _Counted(SqliteSaver):
    """A real saver counting the Python functions each `save` runs (by name)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.per_save: list[list[str]] = []

    def save(self, checkpoint: Any, *, appended: Any = None) -> None:
        names: list[str] = []

        def hook(frame: FrameType, event: str, arg: Any) -> None:
            if event == "call":
                names.append(frame.f_code.co_name)

        sys.setprofile(hook)
        try:
            super().save(checkpoint, appended=appended)
        finally:
            sys.setprofile(None)
        self.per_save.append(names)


def _run(saver: SqliteSaver, steps: int) -> None:
    b = StateGraph(Loop)
    b.add_node(
        "step", lambda s: {"n": s["n"] + 1, "done": s["n"] + 1 >= steps, **({"log": [s["n"]]} if s["n"] == 10 else {})}
    )
    b.add_edge(START, "step")
    b.add_conditional_edges("step", lambda s: END if s["done"] else "step", ["step", END])
    out = b.compile(checkpointer=saver).invoke(
        {"n": 0, "done": False, "log": []}, {"configurable": {"thread_id": "loop"}, "recursion_limit": steps + 5}
    )
    assert out == {"n": steps, "done": True, "log": [10]}


def test_a_scalar_superstep_is_a_few_calls_and_no_plan(tmp_path: Path) -> None:
    saver = _Counted(tmp_path / "loop.db")
    _run(saver, 30)
    per_save = saver.per_save
    assert len(per_save) == 32  # the input, START's step and 30 supersteps
    # the input (a new thread), START's step and the one appending to `log` are planned
    planned = [i for i, names in enumerate(per_save) if "plan_storage" in names]
    assert planned == [0, 1, 12], planned
    lean = [names for i, names in enumerate(per_save) if i not in planned]
    assert all(names[:2] == ["save", "lean_put"] and len(names) <= 7 for names in lean), lean
    # once its task's record is known, a loop's superstep is four calls (the last one plans nothing)
    steady = [per_save[i] for i in range(3, len(per_save) - 1) if i not in planned]
    assert {len(names) for names in steady} == {4}, steady
    saver.close()
    with SqliteSaver(tmp_path / "loop.db", read_only=True) as reader:
        history = list(reader.history("loop"))
    assert [c.values.get("n") for c in history] == [*range(30, -1, -1), None]  # the input: no values yet
    assert history[0].values == {"n": 30, "done": True, "log": [10]}
