"""A commit builds its ChannelDiffs only when a listener of the run wants them: a listener
says it does not with `wants_diffs = False` (a stream without the raw "events" mode is
such a listener), and every StepCommitted still names the keys it wrote (`wrote`), which
is all the values stream reads."""
from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any

import pytest
from typing_extensions import TypedDict

from engine import END, START, StateGraph
from engine.runtime import RunEvent, StepCommitted
from engine.runtime import folding


class S(TypedDict):
    n: int
    log: Annotated[list, operator.add]
    quiet: int


def _graph(steps: int) -> Any:
    g = StateGraph(S)
    g.add_node("step", lambda s: {"n": s["n"] + 1, "log": [s["n"]]})
    g.add_node("silent", lambda s: None)
    g.add_edge(START, "step")
    g.add_conditional_edges("step", lambda s: "silent" if s["n"] >= steps else "step", ["step", "silent"])
    g.add_edge("silent", END)
    return g.compile()


class _Seen:
    def __init__(self, wants_diffs: bool | None) -> None:
        self.committed: list[StepCommitted] = []
        if wants_diffs is not None:
            self.wants_diffs = wants_diffs

    def __call__(self, event: RunEvent) -> None:
        if isinstance(event, StepCommitted):
            self.committed.append(event)


@pytest.fixture
def diffs_made(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    made: list[Any] = []
    real = folding.ChannelDiff

    def counted(**fields: Any) -> Any:
        made.append(fields["key"])
        return real(**fields)

    monkeypatch.setattr(folding, "ChannelDiff", counted)
    return made


def _drive(*listeners: _Seen) -> None:
    run = _graph(3).new_run({"n": 0, "log": []})
    for listener in listeners:
        run.subscribe(listener)
    asyncio.run(run.run_to_end())


def test_a_listener_that_wants_no_diffs_gets_the_written_keys_and_no_diff_is_built(diffs_made: list[Any]) -> None:
    seen = _Seen(wants_diffs=False)
    _drive(seen)
    assert diffs_made == []
    assert [e.diffs for e in seen.committed] == [()] * 5
    # the input's superstep, three of `step`, then `silent`, which wrote nothing
    assert [e.wrote for e in seen.committed] == [("n", "log")] * 4 + [()]


def test_one_listener_that_wants_diffs_gets_them_with_the_same_written_keys(diffs_made: list[Any]) -> None:
    quiet, loud = _Seen(wants_diffs=False), _Seen(wants_diffs=None)  # the default: diffs wanted
    _drive(quiet, loud)
    assert len(diffs_made) == 8  # n and log, four supersteps
    assert [tuple(d.key for d in e.diffs) for e in loud.committed] == [e.wrote for e in loud.committed]
    assert [e.wrote for e in quiet.committed] == [e.wrote for e in loud.committed]


def test_streaming_values_builds_no_diff_and_skips_the_superstep_that_wrote_nothing(diffs_made: list[Any]) -> None:
    chunks = list(_graph(3).stream({"n": 0, "log": []}, stream_mode="values"))
    assert diffs_made == []
    assert [c["n"] for c in chunks] == [0, 1, 2, 3]  # nothing shown after `silent`
    events = [c for c in _graph(3).stream({"n": 0, "log": []}, stream_mode="events") if isinstance(c, StepCommitted)]
    assert len(diffs_made) == 8 and all(e.diffs for e in events[:4]) and events[4].diffs == ()


def test_values_with_output_keys_shows_only_supersteps_that_wrote_one_of_them(diffs_made: list[Any]) -> None:
    g = StateGraph(S)
    g.add_node("a", lambda s: {"n": 1})
    g.add_node("b", lambda s: {"quiet": 2})
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    chunks = list(g.compile().stream({"log": []}, stream_mode="values", output_keys=["n"]))
    assert chunks == [{"n": 1}]  # the input wrote only `log`, `b` only `quiet`
    assert diffs_made == []
