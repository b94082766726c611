"""A saver subclass that overrides LangGraph-form methods (put/aput, put_writes/aput_writes,
get_tuple, get_next_version) is called through them by runs (engine/checkpoint/routing.py);
an unmodified saver is never wrapped."""
from __future__ import annotations

import asyncio
import operator
from typing import Annotated, Any, TypedDict

import pytest

from engine import END, START, InMemorySaver, SqliteSaver, StateGraph
from engine.checkpoint.routing import RoutedSaver, overridden, routed


class S(TypedDict):
    log: Annotated[list, operator.add]


def cfg(thread: str = "t") -> dict:
    return {"configurable": {"thread_id": thread}}


def _graph(saver, parallel: bool = False):
    g = StateGraph(S)
    g.add_node("first", lambda s: {"log": ["first"]})
    g.add_node("second", lambda s: {"log": ["second"]})
    g.add_edge(START, "first")
    if parallel:
        g.add_edge(START, "second")
        g.add_edge("second", END)
    else:
        g.add_edge("first", "second")
    return g.compile(checkpointer=saver)


def _history(graph, config):
    return [(s.values, s.next, s.metadata["step"], s.metadata["source"]) for s in graph.get_state_history(config)]


@pytest.fixture(params=["memory", "sqlite"])
def base(request, tmp_path):
    """(a store class, what makes the arguments of one of its stores from a name)."""
    if request.param == "memory":
        return InMemorySaver, lambda name: ()
    return SqliteSaver, lambda name: (tmp_path / f"{name}.sqlite",)


def test_unmodified_and_own_protocol_savers_are_not_wrapped(tmp_path):
    class OwnProtocol(InMemorySaver):  # a store written against Retrograph's protocol
        def save(self, checkpoint, *, appended=None):
            return super().save(checkpoint, appended=appended)

    for saver in (InMemorySaver(), SqliteSaver(tmp_path / "x.sqlite"), OwnProtocol()):
        assert overridden(type(saver)) == frozenset()
        assert routed(saver, use_async=False) is saver


def test_a_langgraph_form_put_sees_every_save_and_stores_it_whole(base):
    seen: list[tuple[Any, ...]] = []
    parent, args = base

    class Logging(parent):  # type: ignore[misc, valid-type]
        def put(self, config, checkpoint, metadata, new_versions=None):
            seen.append((config["configurable"].get("checkpoint_id"), checkpoint["id"], metadata["step"],
                         dict(checkpoint["channel_values"]), sorted(new_versions)))
            return super().put(config, checkpoint, metadata, new_versions)

    plain, logging = parent(*args("plain")), Logging(*args("logged"))
    assert overridden(Logging) == frozenset({"put"})
    assert type(routed(logging, use_async=False)) is RoutedSaver
    expected = _graph(plain).invoke({"log": []}, cfg())
    assert _graph(logging).invoke({"log": []}, cfg()) == expected
    # the override gets LangGraph's layout (as LangGraph's own run hands it over)
    assert [(s[2], s[3]) for s in seen] == [
        (-1, {"__start__": {"log": []}}), (0, {"log": [], "branch:to:first": None}),
        (1, {"log": ["first"], "branch:to:second": None}), (2, {"log": ["first", "second"]})]
    assert [s[4] for s in seen] == [["__start__"], ["__start__", "branch:to:first", "log"],
                                    ["branch:to:first", "branch:to:second", "log"], ["branch:to:second", "log"]]
    assert seen[0][0] is None and [s[0] for s in seen[1:]] == [s[1] for s in seen[:-1]]  # each names its parent
    assert _history(_graph(logging), cfg()) == _history(_graph(plain), cfg())


@pytest.mark.parametrize("method", ["put", "get_tuple", "get_next_version"])
def test_a_failing_override_fails_the_run(method):
    def boom(self, *args, **kwargs):
        raise ValueError(f"broken {method}")

    Broken = type("Broken", (InMemorySaver,), {method: boom})
    with pytest.raises(ValueError, match=f"broken {method}"):
        _graph(Broken()).invoke({"log": []}, cfg())


@pytest.mark.parametrize("durability", ["sync", "async", "exit"])
def test_put_writes_override_is_called_per_task(durability):
    calls: list[tuple[str, list[str]]] = []

    class Writes(InMemorySaver):
        def put_writes(self, config, writes, task_id, task_path=""):
            calls.append((task_id, sorted(c for c, _ in writes)))
            return super().put_writes(config, writes, task_id, task_path)

    saver = Writes()
    assert _graph(saver, parallel=True).invoke({"log": []}, cfg(), durability=durability) == {
        "log": ["first", "second"]}
    assert len({task for task, _ in calls}) == len(calls) and all("log" in chans for _, chans in calls)
    if durability != "exit":  # the two parallel tasks at least (a one-task superstep may save none)
        assert len(calls) >= 2
    state = _graph(InMemorySaver(), parallel=True)
    state.invoke({"log": []}, cfg())
    assert _history(_graph(saver, parallel=True), cfg())[0][0] == _history(state, cfg())[0][0]


def test_failing_put_writes_fails_an_async_durability_run():
    class Broken(InMemorySaver):
        def put_writes(self, config, writes, task_id, task_path=""):
            raise ValueError("broken put_writes")

    with pytest.raises(ValueError, match="broken put_writes"):
        _graph(Broken(), parallel=True).invoke({"log": []}, cfg(), durability="async")


def test_async_overrides_are_used_by_ainvoke_and_awaited_in_order():
    log: list[str] = []

    class Slow(InMemorySaver):
        async def aput(self, config, checkpoint, metadata, new_versions):
            log.append(f"put {metadata['step']}")
            for _ in range(3):
                await asyncio.sleep(0)
            return await super().aput(config, checkpoint, metadata, new_versions)

        async def aput_writes(self, config, writes, task_id, task_path=""):
            log.append("writes")
            return await super().aput_writes(config, writes, task_id, task_path)

    saver = Slow()
    graph = _graph(saver)
    out = asyncio.run(graph.ainvoke({"log": []}, cfg(), durability="async"))
    assert out == {"log": ["first", "second"]}
    assert [e for e in log if e.startswith("put")] == ["put -1", "put 0", "put 1", "put 2"]
    assert len(list(saver.history("t"))) == 4  # every save landed before ainvoke returned
    log.clear()
    graph.invoke({"log": []}, cfg("sync"))  # the sync API does not call the async overrides
    assert log == []


def test_exit_save_through_aput_is_awaited_when_the_run_is_cancelled():
    log: list[str] = []
    started = asyncio.Event

    class Held(InMemorySaver):
        async def aput(self, config, checkpoint, metadata, new_versions):
            log.append("aput start")
            try:
                for _ in range(5):
                    await asyncio.sleep(0)
                return await super().aput(config, checkpoint, metadata, new_versions)
            finally:
                log.append("aput end")

    async def main() -> None:
        running = started()

        async def waits(s):
            log.append("node start")
            running.set()
            try:
                await asyncio.Event().wait()  # never set: only the cancellation ends it
            finally:
                log.append("node end")

        g = StateGraph(S)
        g.add_node("waits", waits)
        g.add_edge(START, "waits")
        saver = Held()
        task = asyncio.create_task(g.compile(checkpointer=saver).ainvoke({"log": []}, cfg(), durability="exit"))
        await running.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert log == ["node start", "node end", "aput start", "aput end"]
        assert len(list(saver.history("t"))) == 1

    asyncio.run(main())


def test_a_subclass_written_against_langgraphs_api_works_in_a_run(base):
    """put, put_writes, get_tuple and list overridden in LangGraph's form (each calling the
    base class): a run saves and loads through them, and the history matches a plain store's."""
    calls: list[str] = []
    parent, args = base

    class LangGraphStyle(parent):  # type: ignore[misc, valid-type]
        def put(self, config, checkpoint, metadata, new_versions):
            calls.append("put")
            return super().put(config, checkpoint, metadata, new_versions)

        def put_writes(self, config, writes, task_id, task_path=""):
            calls.append("put_writes")
            return super().put_writes(config, writes, task_id, task_path)

        def get_tuple(self, config):
            calls.append("get_tuple")
            return super().get_tuple(config)

        def list(self, config, *, filter=None, before=None, limit=None):
            calls.append("list")
            yield from super().list(config, filter=filter, before=before, limit=limit)

    saver, plain = LangGraphStyle(*args("lg")), parent(*args("plain"))
    assert overridden(LangGraphStyle) == frozenset({"put", "put_writes", "get_tuple"})
    expected = _graph(plain, parallel=True).invoke({"log": []}, cfg())
    assert _graph(saver, parallel=True).invoke({"log": []}, cfg()) == expected
    assert calls.count("put") == 3 and calls.count("put_writes") >= 2 and "get_tuple" in calls
    assert _graph(saver, parallel=True).invoke(None, cfg()) == expected  # the finished thread, loaded back
    assert _history(_graph(saver, parallel=True), cfg()) == _history(_graph(plain, parallel=True), cfg())
    listed = [t.metadata["step"] for t in saver.list(cfg())]
    assert listed == [1, 0, -1] and calls[-1] == "list"


def test_the_engines_own_form_given_to_a_langgraph_method_names_the_right_one():
    saver = InMemorySaver()
    _graph(saver).invoke({"log": []}, cfg())
    for call, own in [(lambda: saver.get("t"), "load(thread_id, checkpoint_id)"),
                      (lambda: list(saver.list("t")), "history(thread_id"),
                      (lambda: saver.get_tuple("t"), "load(thread_id, checkpoint_id)")]:
        with pytest.raises(TypeError, match=r"expected a config dict .* got a str; the engine's own form") as err:
            call()
        assert own in str(err.value)
    assert saver.load("t").values == {"log": ["first", "second"]}
