"""The functional API (`@entrypoint`, `@task`) on the same Run: checkpoints as LangGraph
saves them (step -1 input with the entrypoint next, step 0 loop), task results kept as
pending writes so a resume does not run finished tasks again, events for each task."""
from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from engine import Command, InMemorySaver, RetryPolicy, SqliteSaver, TaskFinished, TaskStarted, interrupt
from engine.cache import InMemoryCache
from engine.func import entrypoint, task
from engine.types import CachePolicy


def make_workflow(checkpointer: Any, calls: list[Any]) -> Any:
    @task
    def add_one(x: int) -> int:
        calls.append(x)
        return x + 1

    @entrypoint(checkpointer=checkpointer)
    def wf(n: int, *, previous: Any = None) -> dict[str, Any]:
        a = add_one(n).result()
        b = [f.result() for f in [add_one(i) for i in range(2)]]
        answer = interrupt({"a": a})
        return {"a": a, "b": b, "answer": answer, "previous": previous}

    return wf


@pytest.mark.parametrize("saver", ["memory", "sqlite"])
def test_interrupt_and_resume_do_not_run_finished_tasks_again(tmp_path: Path, saver: str) -> None:
    calls: list[Any] = []
    checkpointer = InMemorySaver() if saver == "memory" else SqliteSaver(tmp_path / "f.sqlite")
    wf = make_workflow(checkpointer, calls)
    config = {"configurable": {"thread_id": "1"}}
    first = list(wf.stream(5, config, stream_mode="updates"))
    assert first[:3] == [{"add_one": 6}, {"add_one": 1}, {"add_one": 2}]
    assert first[3]["__interrupt__"][0].value == {"a": 6}
    assert calls == [5, 0, 1]
    second = list(wf.stream(Command(resume="yes"), config, stream_mode="updates"))
    assert second == [{"wf": {"a": 6, "b": [1, 2], "answer": "yes", "previous": None}}]
    assert calls == [5, 0, 1]  # nothing ran twice
    history = [(s.metadata["step"], s.metadata["source"], s.next, s.values) for s in wf.get_state_history(config)]
    assert history == [
        (0, "loop", (), {"a": 6, "b": [1, 2], "answer": "yes", "previous": None}),
        (-1, "input", ("wf",), None),
    ]


def test_previous_and_final_on_one_thread() -> None:
    @entrypoint(checkpointer=InMemorySaver())
    def counter(n: int, *, previous: Any = None) -> Any:
        total = (previous or 0) + n
        return entrypoint.final(value=f"total {total}", save=total)

    config = {"configurable": {"thread_id": "c"}}
    assert counter.invoke(2, config) == "total 2"
    assert counter.invoke(3, config) == "total 5"
    assert counter.get_state(config).values == "total 5"

    @entrypoint(checkpointer=InMemorySaver())
    def ask(x: str) -> str:
        return interrupt(f"{x}?")

    first = ask.invoke("a", config)
    assert list(first) == ["__interrupt__"] and first["__interrupt__"][0].value == "a?"
    assert ask.invoke(Command(resume="yes"), config) == "yes"
    second = ask.invoke("b", config)  # the value before is a string: the interrupt comes alone
    assert list(second) == ["__interrupt__"] and second["__interrupt__"][0].value == "b?"
    steps = [s.metadata["step"] for s in counter.get_state_history(config)]
    assert steps == [2, 1, 0, -1]


def test_async_entrypoint_awaits_tasks_and_events_show_each_task() -> None:
    @task
    async def square(x: int) -> int:
        await asyncio.sleep(0)
        return x * x

    @entrypoint()
    async def squares(xs: list[int]) -> list[int]:
        return list(await asyncio.gather(*[square(x) for x in xs]))

    async def go() -> list[Any]:
        return [c async for c in squares.astream([1, 2, 3], stream_mode="events")]

    events = asyncio.run(go())
    started = [e.name for e in events if isinstance(e, TaskStarted)]
    finished = [(e.name, e.update) for e in events if isinstance(e, TaskFinished)]
    assert started == ["squares", "square", "square", "square"]
    assert sorted(finished[:-1], key=lambda f: f[1]) == [("square", 1), ("square", 4), ("square", 9)]
    assert finished[-1][0] == "squares"
    assert asyncio.run(squares.ainvoke([4])) == [16]


def test_task_retry_and_cache() -> None:
    attempts: list[int] = []
    runs: list[int] = []

    @task(retry_policy=RetryPolicy(max_attempts=3, initial_interval=0.0, jitter=False))
    def flaky(x: int) -> int:
        attempts.append(x)
        if len(attempts) < 3:
            raise ConnectionError("try again")
        return x

    @task(cache_policy=CachePolicy(ttl=None))
    def slow(x: int) -> int:
        runs.append(x)
        return x * 10

    cache = InMemoryCache()

    @entrypoint(cache=cache)
    def wf(x: int) -> list[int]:
        return [flaky(x).result(), slow(x).result(), slow(x).result()]

    assert wf.invoke(7) == [7, 70, 70]
    assert attempts == [7, 7, 7] and runs == [7]
    assert wf.invoke(7) == [7, 70, 70] and runs == [7]
    slow.clear_cache(cache)
    assert wf.invoke(7) == [7, 70, 70] and runs == [7, 7]


def test_a_failing_task_fails_the_run_with_its_own_error() -> None:
    @task
    def boom(x: int) -> int:
        raise KeyError("missing")

    @entrypoint()
    def wf(x: int) -> int:
        return boom(x).result()

    with pytest.raises(KeyError, match="missing"):
        wf.invoke(1)


def test_bad_uses_are_clear_errors() -> None:
    @task
    def t(x: int) -> int:
        return x

    with pytest.raises(RuntimeError, match="task `t` was called outside a run"):
        t(1)
    with pytest.raises(TypeError, match="entrypoint\\(\\) got unexpected keyword arguments: checkpointr"):
        entrypoint(checkpointr=InMemorySaver())
    with pytest.raises(TypeError, match="task\\(\\) got unexpected keyword arguments: retyr"):
        task(retyr=3)
    with pytest.raises(TypeError, match="task\\(retry_policy=...\\) takes a RetryPolicy or a list of them, got 3"):
        task(retry_policy=3)
    with pytest.raises(ValueError, match="must take one positional argument"):
        entrypoint()(lambda: 1)


def test_an_entrypoint_is_a_graph_the_studio_and_cli_can_load(tmp_path: Path) -> None:
    from studio.core.loader import LoadedGraph, load_graph

    path = tmp_path / "flow.py"
    path.write_text(
        "from engine.func import entrypoint, task\n"
        "@task\ndef double(x):\n    return x * 2\n"
        "@entrypoint()\ndef flow(x):\n    return double(x).result() + 1\n"
        "example_input = 4\n", encoding="utf-8")
    loaded = load_graph(str(path))
    assert isinstance(loaded, LoadedGraph) and loaded.name == "flow"
    assert loaded.graph.invoke(loaded.example_input) == 9
    assert set(loaded.graph.get_graph().nx.nodes) >= {"flow"}


def test_one_task_interrupting_twice_gets_each_answer_once() -> None:
    @task
    def ask(x: str) -> str:
        return x + interrupt(f"after {x}?")

    @entrypoint(checkpointer=InMemorySaver())
    def wf(x: str) -> str:
        return ask(ask(x).result()).result()

    config = {"configurable": {"thread_id": "q"}}
    assert wf.invoke("a", config)["__interrupt__"][0].value == "after a?"
    assert wf.invoke(Command(resume="b"), config)["__interrupt__"][0].value == "after ab?"
    assert wf.invoke(Command(resume="c"), config) == "abc"


def test_update_state_sets_what_the_next_run_gets_as_previous() -> None:
    @entrypoint(checkpointer=InMemorySaver())
    def keep(x: Any, *, previous: Any = None) -> Any:
        return {"now": x, "before": previous}

    config = {"configurable": {"thread_id": "u"}}
    keep.update_state(config, {"seed": 1})
    assert keep.invoke(2, config) == {"now": 2, "before": {"seed": 1}}
    assert [s.metadata["source"] for s in keep.get_state_history(config)] == ["loop", "input", "update"]


def test_task_names_generators_and_typed_final() -> None:
    import functools

    def tail(suffix: str, value: str) -> str:
        return value + suffix

    class Upper:
        def __call__(self, value: str) -> str:
            return value.upper()

    partial_task = task(functools.partial(tail, "!"))
    upper = task(Upper(), name="upper")

    @entrypoint()
    def shout(x: str) -> entrypoint.final[str, int]:
        return entrypoint.final(value=upper(partial_task(x).result()).result(), save=len(x))

    assert list(shout.stream("hi", stream_mode="updates")) == [{"tail": "hi!"}, {"upper": "HI!"}, {"shout": "HI!"}]
    with pytest.raises(NotImplementedError, match="is a generator"):
        @entrypoint()
        def gen(x: Any) -> Any:
            yield x


@pytest.mark.parametrize("mode", ["custom", "updates"])
def test_stream_hands_out_chunks_while_the_node_still_runs(mode: str) -> None:
    """The node waits for the consumer to have seen its first chunk: without live
    streaming it would wait in vain (its 10 s safety timeout) and report False."""
    import threading

    from engine import get_stream_writer

    seen = threading.Event()

    @task
    def first(x: int) -> int:
        return x + 1

    @entrypoint()
    def flow(x: int) -> bool:
        write = get_stream_writer()
        write({"first": first(x).result()})
        live = seen.wait(timeout=10)
        write({"live": live})
        return live

    chunks = []
    for chunk in flow.stream(1, stream_mode=mode):
        chunks.append(chunk)
        seen.set()
    assert chunks[0] == {"first": 2}
    assert chunks[-1] == ({"live": True} if mode == "custom" else {"flow": True})


def test_an_async_task_called_from_a_sync_entrypoint_runs() -> None:
    @task
    async def later(x: int) -> int:
        await asyncio.sleep(0)
        return x + 100

    @entrypoint(checkpointer=InMemorySaver())
    def flow(x: int) -> int:
        return later(x).result()

    config = {"configurable": {"thread_id": "s"}}
    assert flow.invoke(1, config) == 101
    assert list(flow.stream(2, config, stream_mode="updates")) == [{"later": 102}, {"flow": 102}]


def test_json_schemas_and_runtime_of_an_entrypoint() -> None:
    from typing_extensions import TypedDict  # pydantic's schemas of TypedDicts need it on 3.11

    from engine.runtime.injected import Runtime

    class Context(TypedDict):
        model: str

    @entrypoint(checkpointer=InMemorySaver(), context_schema=Context)
    def run_it(xs: list[int], *, runtime: Runtime) -> entrypoint.final[str, int]:
        return entrypoint.final(value=f"{runtime.context['model']}:{sum(xs)}:{runtime.previous}", save=len(xs))

    assert run_it.get_input_jsonschema() == {"type": "array", "items": {"type": "integer"}, "title": "LangGraphInput"}
    assert run_it.get_output_jsonschema() == {"type": "string", "title": "LangGraphOutput"}
    assert run_it.get_context_jsonschema()["properties"] == {"model": {"title": "Model", "type": "string"}}
    config = {"configurable": {"thread_id": "r"}}
    assert run_it.invoke([1, 2], config, context={"model": "m"}) == "m:3:None"
    assert run_it.invoke([5], config, context={"model": "m"}) == "m:5:2"


def test_an_entrypoint_invoked_inside_a_task_returns_its_value() -> None:
    @entrypoint()
    def add(pair: list[int]) -> int:
        return pair[0] + pair[1]

    @task
    def twice(a: int, b: int) -> int:
        return add.invoke([add.invoke([a, b]), 10])

    @entrypoint(checkpointer=InMemorySaver())
    def outer(pair: list[int]) -> int:
        return twice(*pair).result()

    assert outer.invoke([2, 3], {"configurable": {"thread_id": "n"}}) == 15


def test_a_running_async_task_can_be_cancelled_and_runs_again_on_resume():
    calls = {"started": 0, "cancelled": 0}

    @task
    async def slow(x: int) -> int:
        calls["started"] += 1
        try:
            if x:
                await asyncio.Event().wait()
        except asyncio.CancelledError:
            calls["cancelled"] += 1
            raise
        return x

    @entrypoint(checkpointer=InMemorySaver())
    async def flow(items: list[int]) -> list[int]:
        futures = [slow(i) for i in items]
        await asyncio.sleep(0)
        assert futures[-1].cancel()
        done = await asyncio.gather(*futures[:-1])
        await asyncio.sleep(0)
        assert futures[-1].cancelled() and not futures[-1].cancel()
        return done + [interrupt("more?")]

    config = {"configurable": {"thread_id": "t"}}
    out = asyncio.run(flow.ainvoke([0, 1], config))
    assert "__interrupt__" in str(out) and calls == {"started": 2, "cancelled": 1}
    assert asyncio.run(flow.ainvoke(Command(resume=9), config)) == [0, 9]
    assert calls == {"started": 3, "cancelled": 2}  # the cancelled call had no result: it ran again
