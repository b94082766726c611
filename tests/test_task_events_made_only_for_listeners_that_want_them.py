"""A run makes each task's TaskStarted and TaskFinished only when one of its listeners
wants them: a listener says it does not with `task_events = False` (a stream of "values"
alone is such a listener), so streaming values pays for no per-task events."""
from __future__ import annotations

import asyncio
from typing import Any

from typing_extensions import TypedDict

from engine import END, START, StateGraph
from engine.runtime import RunEvent, StepCommitted, TaskFinished, TaskStarted
from engine.runtime.stream import StreamCollector


class S(TypedDict):
    n: int


def _graph(steps: int) -> Any:
    g = StateGraph(S)
    g.add_node("step", lambda s: {"n": s["n"] + 1})
    g.add_edge(START, "step")
    g.add_conditional_edges("step", lambda s: END if s["n"] >= steps else "step", ["step", END])
    return g.compile()


class _Seen:
    def __init__(self, task_events: bool | None) -> None:
        self.kinds: list[type] = []
        if task_events is not None:
            self.task_events = task_events

    def __call__(self, event: RunEvent) -> None:
        self.kinds.append(type(event))


def _drive(*listeners: _Seen) -> Any:
    run = _graph(4).new_run({"n": 0})
    unsubscribe = [run.subscribe(listener) for listener in listeners]
    asyncio.run(run.run_to_end())
    return run, unsubscribe


def test_no_listener_wanting_task_events_gets_none_made() -> None:
    quiet = _Seen(task_events=False)
    run, _ = _drive(quiet)
    assert run.values == {"n": 4}
    assert TaskStarted not in quiet.kinds and TaskFinished not in quiet.kinds
    assert quiet.kinds.count(StepCommitted) == 5  # the input's task and four steps, all reported


def test_a_listener_that_says_nothing_gets_every_task_event() -> None:
    quiet, plain = _Seen(task_events=False), _Seen(task_events=None)
    _drive(quiet, plain)
    assert plain.kinds.count(TaskStarted) == plain.kinds.count(TaskFinished) == 5
    assert quiet.kinds.count(TaskFinished) == 5  # made for the other listener: every listener sees it


def test_unsubscribing_the_one_that_wanted_them_stops_them() -> None:
    run = _graph(2).new_run({"n": 0})
    quiet, plain = _Seen(task_events=False), _Seen(task_events=None)
    run.subscribe(quiet)
    unsubscribe = run.subscribe(plain)
    assert run.task_events
    unsubscribe()
    assert not run.task_events
    asyncio.run(run.run_to_end())
    assert TaskFinished not in quiet.kinds


def test_a_stream_of_values_wants_no_task_events_and_updates_do() -> None:
    schema = _graph(1).schema
    assert not StreamCollector(["values"], schema, None).task_events
    assert StreamCollector(["updates"], schema, None).task_events
    assert StreamCollector(["values"], schema, None, print_modes=["debug"]).task_events
    assert StreamCollector(["events"], schema, None).task_events


def test_streamed_values_are_unchanged() -> None:
    async def chunks() -> list[Any]:
        return [c async for c in _graph(3).astream({"n": 0}, stream_mode="values")]

    assert asyncio.run(chunks()) == [{"n": 0}, {"n": 1}, {"n": 2}, {"n": 3}]
