"""A stream of "values" alone turns each superstep of its own run into its chunk without the
dispatch through the stream views: the chunks are those the views make, superstep by
superstep, with interrupts, a step that writes nothing, subgraph nodes, a checkpointer,
modes given as a list, sync and async."""
from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any

import pytest
from typing_extensions import TypedDict

from engine import END, START, Command, StateGraph, interrupt
from engine.checkpoint import InMemorySaver
from engine.checkpoint.ids import deterministic_ids
from engine.runtime import stream as stream_module
from engine.runtime.stream import StreamCollector


class S(TypedDict, total=False):
    n: int
    log: Annotated[list[str], operator.add]
    answer: str


def _loop() -> Any:
    g = StateGraph(S)
    g.add_node("step", lambda s: {"n": s["n"] + 1, "log": [str(s["n"])]})
    g.add_node("idle", lambda s: {})  # writes nothing: no chunk for its superstep
    g.add_edge(START, "step")
    g.add_conditional_edges("step", lambda s: "idle" if s["n"] < 3 else END, ["idle", END])
    g.add_edge("idle", "step")
    return g


def _asking() -> Any:
    g = StateGraph(S)
    g.add_node("ask", lambda s: {"answer": interrupt("name?")})
    g.add_node("go", lambda s: Command(update={"n": 1}, goto=END))
    g.add_edge(START, "ask")
    g.add_edge("ask", "go")
    return g


def _nested() -> Any:
    inner = StateGraph(S)
    inner.add_node("deep", lambda s: {"log": ["deep"]})
    inner.add_edge(START, "deep")
    g = StateGraph(S)
    g.add_node("sub", inner.compile())
    g.add_node("after", lambda s: {"n": len(s["log"])})
    g.add_edge(START, "sub")
    g.add_edge("sub", "after")
    return g


CASES = {
    "loop": (_loop, {"n": 0, "log": []}, None),
    "interrupt": (_asking, {"n": 0}, Command(resume="ada")),
    "subgraph node": (_nested, {"n": 0, "log": []}, None),
}


def _chunks(builder: Any, first: Any, resume: Any, mode: Any, use_async: bool) -> list[Any]:
    graph = builder().compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    out: list[Any] = []
    for given in (first, resume) if resume is not None else (first,):
        if use_async:
            async def run(given: Any = given) -> list[Any]:
                return [c async for c in graph.astream(given, config, stream_mode=mode)]

            out += asyncio.run(run())
        else:
            out += list(graph.stream(given, config, stream_mode=mode))
    return out


@pytest.mark.parametrize("use_async", [False, True], ids=["stream", "astream"])
@pytest.mark.parametrize("mode", ["values", ["values"]], ids=["mode", "list"])
@pytest.mark.parametrize("case", list(CASES))
def test_the_shortcut_gives_the_chunks_the_views_give(monkeypatch: pytest.MonkeyPatch, case: str, mode: Any,
                                                      use_async: bool) -> None:
    builder, first, resume = CASES[case]
    with deterministic_ids():  # (the same checkpoint ids, so the same interrupt ids, both ways)
        short = _chunks(builder, first, resume, mode, use_async)
    monkeypatch.setattr(stream_module, "SHORT_VALUES", False)
    with deterministic_ids():
        viewed = _chunks(builder, first, resume, mode, use_async)
    assert short == viewed
    assert short  # (something was streamed)


def test_the_shortcut_is_taken_for_values_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    handled: list[str] = []
    real = StreamCollector._handle

    def counted(self: StreamCollector, event: Any) -> None:
        handled.append(type(event).__name__)
        real(self, event)

    monkeypatch.setattr(StreamCollector, "_handle", counted)
    list(_loop().compile().stream({"n": 0, "log": []}, stream_mode="values"))
    assert "StepCommitted" not in handled
    handled.clear()
    list(_loop().compile().stream({"n": 0, "log": []}, stream_mode=["values", "updates"]))
    assert handled.count("StepCommitted") >= 5  # another mode: through the views
