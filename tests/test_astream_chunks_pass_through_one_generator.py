"""`astream`'s chunks come straight from the drive's loop: while a node of a streamed run
runs, one async generator of the engine is on the stack (the loop's), whatever the API
(astream, the sync stream, ainvoke, a traced stream), and a superstep of a values stream
makes no more Python calls than that of `ainvoke` but the chunk's own (counted, never
timed). The stream keeps an async generator's ways: nothing runs before the first chunk
is asked for, and a caller that throws into it or closes it early cancels the run."""
from __future__ import annotations

import asyncio
import inspect
import sys
import threading
from typing import Any

import pytest
from typing_extensions import TypedDict

from engine import END, START, StateGraph
from engine.checkpoint import InMemorySaver


class S(TypedDict):
    n: int


def _generators_on_stack() -> int:
    """The async generator frames on the calling thread's stack (the test's own are none)."""
    frame = sys._getframe(1)
    count = 0
    while frame is not None:
        if frame.f_code.co_flags & inspect.CO_ASYNC_GENERATOR:
            count += 1
        frame = frame.f_back
    return count


def _loop(steps: int, seen: list[int] | None = None, checkpointer: Any = None) -> Any:
    """A one-node loop of `steps` supersteps; `seen` gets, for each call of the node made
    on the loop's thread (or the sync API's), the async generators on its stack."""
    main = threading.get_ident()

    def step(state: S) -> dict[str, int]:
        if seen is not None and threading.get_ident() == main:
            seen.append(_generators_on_stack())
        return {"n": state["n"] + 1}

    g = StateGraph(S)
    g.add_node("step", step)
    g.add_edge(START, "step")
    g.add_conditional_edges("step", lambda s: END if s["n"] >= steps else "step", ["step", END])
    return g.compile(checkpointer=checkpointer)


def test_a_streamed_node_runs_under_one_async_generator() -> None:
    seen: list[int] = []
    graph = _loop(20, seen)

    async def main() -> list[Any]:
        return [c async for c in graph.astream({"n": 0}, stream_mode="values")]

    assert [c["n"] for c in asyncio.run(main())] == list(range(21))
    assert len(seen) >= 15  # quick after its first call: then run on the loop
    assert set(seen) == {1}


def test_the_sync_stream_and_ainvoke_also_run_a_node_under_one() -> None:
    seen: list[int] = []
    graph = _loop(10, seen)
    assert [c["n"] for c in graph.stream({"n": 0}, stream_mode="values")] == list(range(11))
    assert [c["step"]["n"] for c in graph.stream({"n": 0})] == list(range(1, 11))
    assert asyncio.run(graph.ainvoke({"n": 0})) == {"n": 10}
    assert len(seen) >= 25
    assert set(seen) == {1}


def test_a_traced_stream_also_runs_a_node_under_one() -> None:
    from langchain_core.callbacks import BaseCallbackHandler

    class Handler(BaseCallbackHandler):
        def __init__(self) -> None:
            self.ends = 0

        def on_chain_end(self, outputs: Any, **kwargs: Any) -> None:
            self.ends += 1

    seen: list[int] = []
    graph = _loop(10, seen)
    handler = Handler()
    chunks = list(graph.stream({"n": 0}, {"callbacks": [handler]}, stream_mode="values"))
    assert [c["n"] for c in chunks] == list(range(11))
    assert handler.ends >= 1  # the graph's run ended, after its last chunk
    assert seen and set(seen) == {1}


def test_a_superstep_of_a_values_stream_makes_only_its_chunk_calls_more_than_ainvoke() -> None:
    """Python calls (generator resumptions included) per superstep, by difference of two
    run lengths: astream's over ainvoke's are the collector's `step_values` and the
    schema's `output` that make the chunk, the one drive generator resumed for it, and the
    drive's turn that hands it the next superstep (`pending`, `takes_lone_superstep`,
    `plain_lone_superstep`), which ainvoke skips by making the plain supersteps that
    follow one another in one go. A second generator layer would add two more."""

    def calls(how: str, steps: int) -> int:
        graph = _loop(steps)
        asyncio.run(graph.ainvoke({"n": 0}))  # the node is seen quick: on the loop from now on
        count = 0

        def profile(frame: Any, event: str, arg: Any) -> None:
            nonlocal count
            if event == "call":
                count += 1

        async def main() -> Any:
            sys.setprofile(profile)
            try:
                if how == "ainvoke":
                    return await graph.ainvoke({"n": 0})
                return [c async for c in graph.astream({"n": 0}, stream_mode="values")][-1]
            finally:
                sys.setprofile(None)

        assert asyncio.run(main()) == {"n": steps}
        return count

    per_step = {how: (calls(how, 120) - calls(how, 60)) / 60 for how in ("ainvoke", "astream")}
    assert round(per_step["astream"] - per_step["ainvoke"]) <= 6, per_step  # (a one-off call in a run: rounded away)


def test_nothing_runs_before_the_first_chunk_is_asked_for() -> None:
    graph = _loop(3)
    stream = graph.astream({"n": 0}, stream_mode="no such mode")  # made outside any event loop
    assert inspect.isasyncgen(stream)

    async def first() -> Any:
        return await stream.__anext__()

    with pytest.raises(ValueError, match="unknown stream_mode"):
        asyncio.run(first())  # the setup's error comes with the first chunk
    later = graph.astream({"n": 0}, stream_mode="values")

    async def all_of(stream: Any) -> list[Any]:
        return [c async for c in stream]

    assert [c["n"] for c in asyncio.run(all_of(later))] == [0, 1, 2, 3]


def _stopped_after_first_chunk(stop: str) -> tuple[Any, list[int]]:
    """A stream of a 5-step loop (saving at exit) stopped at its second chunk, by `stop`."""
    saver = InMemorySaver()
    graph = _loop(5, checkpointer=saver)
    config = {"configurable": {"thread_id": stop}}

    async def main() -> list[int]:
        got: list[int] = []
        stream = graph.astream({"n": 0}, config, stream_mode="values", durability="exit")
        async for chunk in stream:
            got.append(chunk["n"])
            if chunk["n"] == 1:
                break
        if stop == "throw":
            with pytest.raises(KeyError):
                await stream.athrow(KeyError("the caller's"))
        else:
            await stream.aclose()
        return got

    got = asyncio.run(main())
    return graph.get_state(config), got


@pytest.mark.parametrize("stop", ["close", "throw"])
def test_a_caller_that_stops_the_stream_cancels_the_run(stop: str) -> None:
    state, got = _stopped_after_first_chunk(stop)
    assert got == [0, 1]
    # cancelled, the run saved what it had (durability="exit"): the state after one step
    assert state.values == {"n": 1}
