"""A run without a checkpointer names its checkpoints with a cheap counter unless someone
shows ids: a stream of "values" or "updates" shows none (its run counts), a stream of
"debug", "checkpoints" or "tasks", or one with subgraphs, shows real ids."""
from __future__ import annotations

from typing import Any

import pytest
from typing_extensions import TypedDict

from engine import END, START, StateGraph
from engine.runtime import run as run_module


class S(TypedDict):
    n: int


def _loop(steps: int) -> Any:
    g = StateGraph(S)
    g.add_node("step", lambda s: {"n": s["n"] + 1})
    g.add_edge(START, "step")
    g.add_conditional_edges("step", lambda s: END if s["n"] >= steps else "step", ["step", END])
    return g.compile()


def _ids_made(monkeypatch: pytest.MonkeyPatch, **stream: Any) -> tuple[int, list[Any]]:
    made = [0]
    real = run_module.new_checkpoint_id

    def counted() -> str:
        made[0] += 1
        return real()

    monkeypatch.setattr(run_module, "new_checkpoint_id", counted)
    chunks = list(_loop(10).stream({"n": 0}, **stream))
    return made[0], chunks


@pytest.mark.parametrize("mode", ["values", "updates", ["values", "updates"]])
def test_a_stream_that_shows_no_id_counts_them(monkeypatch: pytest.MonkeyPatch, mode: Any) -> None:
    made, chunks = _ids_made(monkeypatch, stream_mode=mode)
    assert chunks  # the stream is as before
    assert made <= 1  # the run's counter prefix only: no id per superstep


@pytest.mark.parametrize("mode", ["debug", "checkpoints", "tasks"])
def test_a_stream_that_shows_ids_gets_real_ones(monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    made, _ = _ids_made(monkeypatch, stream_mode=mode)
    assert made >= 10


def test_a_stream_with_subgraphs_gets_real_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    made, _ = _ids_made(monkeypatch, stream_mode="values", subgraphs=True)
    assert made >= 10


def test_the_value_chunks_are_the_same_either_way(monkeypatch: pytest.MonkeyPatch) -> None:
    _, counted = _ids_made(monkeypatch, stream_mode="values")
    _, real = _ids_made(monkeypatch, stream_mode="values", subgraphs=True)
    assert counted == [c for _, c in real]
