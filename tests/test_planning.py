"""Planning decisions of the Run: deferred nodes wait for the end; cached tasks skip the call."""
from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest

from engine import (
    START,
    CachePolicy,
    InMemoryCache,
    InMemorySaver,
    SqliteCache,
    SqliteSaver,
    StateGraph,
    TaskFinished,
)
from engine.cache import memory as cache_memory


class S(TypedDict):
    log: Annotated[list, operator.add]


def mk(name):
    return lambda s: {"log": [name]}


def uneven(**compile_kw):
    g = StateGraph(S)
    for n in ("a", "b", "c", "c2"):
        g.add_node(n, mk(n))
    g.add_node("d", mk("d"), defer=True)
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("a", "c")
    g.add_edge("b", "d")
    g.add_edge("c", "c2")
    g.add_edge("c2", "d")
    return g.compile(**compile_kw)


def test_deferred_node_runs_once_when_nothing_else_is_left():
    graph = uneven()
    assert graph.invoke({"log": []}) == {"log": ["a", "b", "c", "c2", "d"]}


def test_deferred_node_survives_a_restart_from_the_store(tmp_path):
    db = str(tmp_path / "d.db")
    graph = uneven(checkpointer=SqliteSaver(db), interrupt_after=["c2"])
    cfg = {"configurable": {"thread_id": "t"}}
    assert graph.invoke({"log": []}, cfg) == {"log": ["a", "b", "c", "c2"]}
    assert graph.get_state(cfg).next == ("d",)
    fresh = uneven(checkpointer=SqliteSaver(db))  # another process would see the same file
    assert fresh.invoke(None, cfg) == {"log": ["a", "b", "c", "c2", "d"]}
    steps = [s.next for s in fresh.get_state_history(cfg)]
    assert steps.count(("d",)) == 1


def test_stepping_shows_the_deferred_node_only_at_the_end():
    import asyncio

    async def plans():
        run = uneven().new_run({"log": []})
        await run.start()
        seen = []
        while run.status == "ready":
            seen.append(tuple(t.name for t in run.plan))
            await run.run_pending()
            if run.ready_to_commit:
                run.commit()
        return seen

    assert asyncio.run(plans()) == [("__start__",), ("a",), ("b", "c"), ("c2",), ("d",)]


def cached_graph(calls, cache, **policy):
    class C(TypedDict):
        x: int
        log: Annotated[list, operator.add]

    def slow(s):
        calls.append(s["x"])
        return {"log": [s["x"] * 10]}

    g = StateGraph(C)
    g.add_node("slow", slow, cache_policy=CachePolicy(**policy))
    g.add_node("after", mk("after"))
    g.add_edge(START, "slow")
    g.add_edge("slow", "after")
    return g.compile(cache=cache)


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_cached_task_is_not_called_again_and_is_marked(kind, tmp_path):
    calls = []
    cache = InMemoryCache() if kind == "memory" else SqliteCache(path=tmp_path / "cache.db")
    graph = cached_graph(calls, cache)
    assert graph.invoke({"x": 1, "log": []}) == {"x": 1, "log": [10, "after"]}
    chunks = list(graph.stream({"x": 1, "log": []}, stream_mode=["updates", "events"]))
    assert calls == [1]
    assert ("updates", {"slow": {"log": [10]}, "__metadata__": {"cached": True}}) in chunks
    finished = [c for m, c in chunks if m == "events" and isinstance(c, TaskFinished)]
    assert [(e.name, e.cached) for e in finished if e.name != "__start__"] == [("slow", True), ("after", False)]
    graph.invoke({"x": 2, "log": []})
    graph.clear_cache(["slow"])
    graph.invoke({"x": 1, "log": []})
    assert calls == [1, 2, 1]


def test_sqlite_cache_is_shared_through_the_file(tmp_path):
    calls = []
    cached_graph(calls, SqliteCache(path=tmp_path / "c.db")).invoke({"x": 4, "log": []})
    again = cached_graph(calls, SqliteCache(path=tmp_path / "c.db"))
    assert again.invoke({"x": 4, "log": []})["log"] == [40, "after"] and calls == [4]


def test_cache_entry_expires_after_its_ttl(monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(cache_memory.time, "monotonic", lambda: now[0])
    calls = []
    graph = cached_graph(calls, InMemoryCache(), ttl=60)
    graph.invoke({"x": 1, "log": []})
    now[0] += 59
    graph.invoke({"x": 1, "log": []})
    now[0] += 2
    graph.invoke({"x": 1, "log": []})
    assert calls == [1, 1]


def test_cache_policy_without_a_cache_does_nothing_and_a_bad_key_func_only_skips_caching():
    calls = []
    graph = cached_graph(calls, None)
    graph.invoke({"x": 1, "log": []})
    graph.invoke({"x": 1, "log": []})
    assert calls == [1, 1]
    broken = cached_graph(calls, InMemoryCache(), key_func=lambda s: 1 / 0)
    broken.invoke({"x": 2, "log": []})
    broken.invoke({"x": 2, "log": []})
    assert calls == [1, 1, 2, 2]


def test_cached_fan_out_with_checkpointer():
    calls = []
    graph = cached_graph(calls, InMemoryCache())
    cfg = {"configurable": {"thread_id": "c"}}
    graph = graph.with_checkpointer(InMemorySaver())
    graph.invoke({"x": 7, "log": []}, cfg)
    graph.invoke({"x": 7, "log": []}, {"configurable": {"thread_id": "d"}})
    assert calls == [7] and graph.get_state(cfg).values["log"] == [70, "after"]


def test_update_state_keeps_a_due_deferred_node_due():
    graph = uneven(checkpointer=InMemorySaver(), interrupt_before=["d"])
    cfg = {"configurable": {"thread_id": "u"}}
    graph.invoke({"log": []}, cfg)
    assert graph.get_state(cfg).next == ("d",)
    graph.update_state(cfg, {"log": ["edit"]})
    assert graph.get_state(cfg).next == ("d",)
    assert graph.invoke(None, cfg)["log"] == ["a", "b", "c", "c2", "edit", "d"]
