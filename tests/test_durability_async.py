"""durability="async": a superstep's save runs on a writer thread while the next
superstep runs; saves keep their order, everything is stored when invoke()/stream()
return (also when a stream is abandoned), and a save that fails fails the run.

Real stores throughout (memory, a SQLite file, PostgreSQL on the throwaway server); the
savers below are the real ones with a hook that records or blocks a put."""
from __future__ import annotations

import operator
import threading
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest

from engine import END, START, InMemorySaver, Send, SqliteSaver, StateGraph
from engine.errors import CheckpointError


class S(TypedDict):
    log: Annotated[list, operator.add]
    n: int


def counter(limit: int = 4, hook: Any = None) -> StateGraph:
    def step(s: S) -> dict:
        if hook is not None:
            hook(s["n"] + 1)
        return {"log": [s["n"] + 1], "n": s["n"] + 1}

    g = StateGraph(S)
    g.add_node("step", step)
    g.add_edge(START, "step")
    g.add_conditional_edges("step", lambda s: END if s["n"] >= limit else "step", ["step", END])
    return g


def cfg(thread: str = "t") -> dict:
    return {"configurable": {"thread_id": thread}}


def history(graph: Any, thread: str = "t") -> list[tuple[int, str, tuple[str, ...], dict]]:
    return [(h.metadata["step"], h.metadata["source"], h.next, dict(h.values))
            for h in graph.get_state_history(cfg(thread))]


def make_store(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> Any:
    if kind == "memory":
        return InMemorySaver()
    if kind == "sqlite":
        return SqliteSaver(str(tmp_path / "runs.sqlite"))
    from engine.checkpoint import PostgresSaver

    return PostgresSaver(request.getfixturevalue("pg_url"))


@pytest.mark.parametrize("kind", ["memory", "sqlite", "postgres"])
def test_async_stores_the_same_history_as_sync(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    store = make_store(kind, tmp_path, request)
    try:
        graph = counter().compile(checkpointer=store)
        assert graph.invoke({"log": [], "n": 0}, cfg("a"), durability="async") == {"log": [1, 2, 3, 4], "n": 4}
        graph.invoke({"log": [], "n": 0}, cfg("s"), durability="sync")
        got = history(graph, "a")  # read right after invoke returned: nothing still in flight
        assert got == history(graph, "s") and [h[0] for h in got] == [4, 3, 2, 1, 0, -1]
        heads = [h.config["configurable"]["checkpoint_id"] for h in graph.get_state_history(cfg("a"))]
        parents = [h.parent_config["configurable"]["checkpoint_id"] if h.parent_config else None
                   for h in graph.get_state_history(cfg("a"))]
        assert parents == heads[1:] + [None], "each checkpoint's parent is the one saved before it"
    finally:
        store.close()


class BlockingSqlite(SqliteSaver):
    """A real SqliteSaver whose put of one step waits until the next superstep's node has
    started (or gives up after `patience` seconds and says so)."""

    def __init__(self, path: str, hold_step: int, patience: float) -> None:
        super().__init__(path)
        self.hold_step, self.patience = hold_step, patience
        self.node_started = threading.Event()
        self.put_threads: set[int] = set()
        self.overlapped: bool | None = None

    def save(self, checkpoint: Any, **kw: Any) -> None:
        self.put_threads.add(threading.get_ident())
        if checkpoint.step == self.hold_step:
            self.overlapped = self.node_started.wait(timeout=self.patience)
        super().save(checkpoint, **kw)


@pytest.mark.parametrize("durability", ["async", "sync"])
def test_the_save_overlaps_the_next_superstep_only_under_async(durability: str, tmp_path: Path) -> None:
    # inline ("sync"), the node of step 2 cannot start while step 1's put waits: it gives up
    store = BlockingSqlite(str(tmp_path / "runs.sqlite"), hold_step=1, patience=10 if durability == "async" else 0.2)

    def hook(n: int) -> None:
        if n == 2:  # the node of step 2 runs: the put of step 1 may finish now
            store.node_started.set()

    graph = counter(limit=3, hook=hook).compile(checkpointer=store)
    caller = threading.get_ident()
    graph.invoke({"log": [], "n": 0}, cfg(), durability=durability)
    if durability == "async":
        assert store.overlapped is True, "the next superstep's node ran while step 1 was being saved"
        assert caller not in store.put_threads, "saves ran on a writer thread"
    else:
        assert store.overlapped is False and store.put_threads == {caller}
    assert [h[0] for h in history(graph)] == [3, 2, 1, 0, -1]
    store.close()


class FailingMemory(InMemorySaver):
    def __init__(self, fail_step: int) -> None:
        super().__init__()
        self.fail_step = fail_step

    def save(self, checkpoint: Any, **kw: Any) -> None:
        if checkpoint.step == self.fail_step:
            raise CheckpointError(f"disk full at step {checkpoint.step}")
        super().save(checkpoint, **kw)


@pytest.mark.parametrize("fail_step", [1, 4])  # a middle step, and the last one
def test_a_failed_async_save_fails_the_run(fail_step: int) -> None:
    store = FailingMemory(fail_step)
    graph = counter().compile(checkpointer=store)
    with pytest.raises(CheckpointError, match=f"disk full at step {fail_step}"):
        graph.invoke({"log": [], "n": 0}, cfg(), durability="async")
    steps = [h[0] for h in history(graph)]
    assert steps == list(range(fail_step - 1, -2, -1)), "nothing was saved after the failed save"


def test_a_failed_async_save_is_not_lost_when_a_node_fails_too() -> None:
    store = FailingMemory(1)

    def hook(n: int) -> None:
        if n == 2:
            raise ValueError("node broke")

    graph = counter(hook=hook).compile(checkpointer=store)
    with pytest.raises((ValueError, CheckpointError)) as caught:
        graph.invoke({"log": [], "n": 0}, cfg(), durability="async")
    text = str(caught.value) + " ".join(getattr(caught.value, "__notes__", []))
    assert "disk full at step 1" in text


def test_an_abandoned_async_stream_leaves_its_last_save_stored(tmp_path: Path) -> None:
    store = SqliteSaver(str(tmp_path / "runs.sqlite"))
    graph = counter(limit=10).compile(checkpointer=store)
    seen = []
    for chunk in graph.stream({"log": [], "n": 0}, cfg(), durability="async", stream_mode="values"):
        seen.append(chunk["n"])
        if chunk["n"] == 3:
            break
    assert seen == [0, 1, 2, 3]
    assert graph.get_state(cfg()).values["n"] == 3, "the checkpoint of the last chunk seen is stored"
    store.close()


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_async_keeps_a_fan_outs_pending_writes_when_a_task_fails(kind: str, tmp_path: Path,
                                                                  request: pytest.FixtureRequest) -> None:
    """The writes of the task that finished are stored (in the background, in order, after
    the checkpoint they belong to) by the time the failed run returns."""
    calls: list[str] = []

    class F(TypedDict):
        log: Annotated[list, operator.add]

    def work(s: dict) -> dict:
        calls.append(s["name"])
        if s["name"] == "bad" and calls.count("bad") == 1:
            raise RuntimeError("flaky")
        return {"log": [s["name"]]}

    g = StateGraph(F)
    g.add_node("work", work)
    g.add_conditional_edges(START, lambda s: [Send("work", {"name": "good"}), Send("work", {"name": "bad"})])
    store = make_store(kind, tmp_path, request)
    graph = g.compile(checkpointer=store)
    with pytest.raises(RuntimeError, match="flaky"):
        graph.invoke({"log": []}, cfg(), durability="async")
    assert graph.invoke(None, cfg(), durability="async") == {"log": ["good", "bad"]}
    assert calls == ["good", "bad", "bad"], "the finished task did not run again"
    store.close()
