"""A loop of plain supersteps (engine/runtime/plain_step.py) costs few Python calls: the
supersteps that follow one another are made one after the other by
`plain_lone_superstep`, without going back through `drive()`'s loop, and each makes its
Checkpoint and PlannedTask without a class call, and commits without `set_checkpoint`
nor a call to `after_commit` that finds nothing to do; a write to a plain key is applied
for its router without `apply_own_writes`. Counted with a profile hook (the
Python functions entered per superstep, the difference of a long and a short run), never
timed. That the results are the same as the general path's is
tests/test_plain_superstep_same_as_the_general_one.py's."""
from __future__ import annotations

import asyncio
import sys
from collections import Counter
from collections.abc import Callable
from typing import Any, TypedDict

import pytest

from engine import END, START, InMemorySaver, StateGraph
from engine.runtime import execute


class S(TypedDict):
    n: int


def _loop(steps: int, saver: Any) -> Any:
    g = StateGraph(S)
    g.add_node("step", lambda s: {"n": s["n"] + 1})
    g.add_edge(START, "step")
    g.add_conditional_edges("step", lambda s: "step" if s["n"] < steps else END, ["step", END])
    return g.compile(checkpointer=saver)


def _calls(steps: int, saver_kind: str, how: str) -> Counter[str]:
    """The Python functions entered while a `steps`-long loop is invoked, by name@file
    (a frozen record's `__init__` is made by fast_init.py's exec: its file is "<string>")."""
    saver = InMemorySaver() if saver_kind == "memory" else None
    graph = _loop(steps, saver)
    config: dict[str, Any] = {"recursion_limit": steps + 10}
    if saver is not None:
        config["configurable"] = {"thread_id": "t"}
    counts: Counter[str] = Counter()

    def hook(frame: Any, event: str, _arg: Any) -> None:
        if event == "call":
            code = frame.f_code
            counts[f"{code.co_name}@{code.co_filename.rsplit('/', 1)[-1]}"] += 1

    run: Callable[[], Any] = (lambda: graph.invoke({"n": 0}, config)) if how == "invoke" else (
        lambda: asyncio.run(graph.ainvoke({"n": 0}, config)))
    run()  # imports and caches off the count
    sys.setprofile(hook)
    try:
        out = run() if saver is None else None
        if saver is not None:  # a fresh thread for the counted run
            config["configurable"] = {"thread_id": f"t{steps}"}
            out = run()
    finally:
        sys.setprofile(None)
    assert out == {"n": steps}
    return counts


def _per_step(saver_kind: str, how: str) -> tuple[float, Counter[str]]:
    short, long = _calls(10, saver_kind, how), _calls(110, saver_kind, how)
    diff = Counter({k: long[k] - short[k] for k in long if long[k] > short[k]})
    return sum(diff.values()) / 100, diff


@pytest.mark.parametrize("how", ["invoke", "ainvoke"])
@pytest.mark.parametrize(("saver_kind", "budget"), [("none", 11), ("memory", 20)])
def test_a_plain_loop_superstep_enters_few_python_functions(saver_kind: str, budget: int, how: str,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The node, its router, and the run's own moves: at most `budget` functions entered a
    superstep (24 and 33 before the plain supersteps were made one after the other)."""
    monkeypatch.setattr(execute, "QUICK_S", 60.0)  # on a loaded machine the node stays "quick" on the loop
    per_step, diff = _per_step(saver_kind, how)
    assert per_step <= budget + (3 if how == "ainvoke" else 0), diff.most_common()


@pytest.mark.parametrize("how", ["invoke", "ainvoke"])
def test_consecutive_plain_supersteps_do_not_go_back_through_the_drive_loop(
        how: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted: `takes_lone_superstep` (drive()'s question before each one-task superstep),
    the plain superstep's `set_checkpoint`, `after_commit`, and the records' `__init__`
    are not entered once per superstep."""
    monkeypatch.setattr(execute, "QUICK_S", 60.0)
    _, diff = _per_step("none", how)
    for name in ("takes_lone_superstep@lone_step.py", "set_checkpoint@head.py", "after_commit@commit.py",
                 "__init__@<string>", "call_as_sync@sync_code.py", "node_input@schema.py",
                 "save_checkpoint@head.py", "new_task_id@ids.py", "apply_own_writes@task.py"):
        assert diff[name] < 100, (name, diff.most_common())
    assert diff["plain_superstep@plain_step.py"] == 100
