"""A one-task superstep made in one go (engine/runtime/lone_step.py) is the loop's own
superstep: every graph here runs twice, with `FUSED` on and off, and the two runs leave
the same checkpoints (values, plan, metadata, tasks with their errors, interrupts and
results) and stream the same chunks. Ids and times are made fresh by every run, so they
are compared by where they first appear, not by their text."""
from __future__ import annotations

import asyncio
import operator
import sqlite3
from collections.abc import Callable
from typing import Annotated, Any, TypedDict

import pytest

from engine import END, START, Command, InMemorySaver, NodeError, StateGraph, interrupt
from engine.checkpoint.sqlite import SqliteSaver
from engine.runtime import lone_step
from engine.runtime.run import Run
from run_names import Names


class S(TypedDict):
    n: int
    log: Annotated[list, operator.add]


def _loop(checkpointer: Any) -> Any:
    g = StateGraph(S)
    g.add_node("step", lambda s: {"n": s["n"] + 1, "log": [s["n"]]})
    g.add_edge(START, "step")
    g.add_conditional_edges("step", lambda s: "step" if s["n"] < 6 else END, ["step", END])
    return g.compile(checkpointer=checkpointer)


def _chain_with_interrupt(checkpointer: Any) -> Any:
    def ask(s: S) -> dict:
        answer = interrupt({"question": s["n"]})
        return {"log": [f"answer:{answer}"]}

    g = StateGraph(S)
    g.add_node("a", lambda s: Command(update={"n": s["n"] + 10}, goto="ask"))
    g.add_node("ask", ask)
    g.add_node("b", lambda s: {"log": ["b"]})
    g.add_edge(START, "a")
    g.add_edge("ask", "b")
    return g.compile(checkpointer=checkpointer)


def _failing(checkpointer: Any) -> Any:
    def bad(s: S) -> dict:
        if s["n"] >= 2:
            raise ValueError(f"boom at {s['n']}")
        return {"n": s["n"] + 1}

    g = StateGraph(S)
    g.add_node("bad", bad)
    g.add_edge(START, "bad")
    g.add_edge("bad", "bad")
    return g.compile(checkpointer=checkpointer)


def _handled(checkpointer: Any) -> Any:
    def bad(s: S) -> dict:
        raise ValueError("boom")

    def handler(s: S, error: NodeError) -> dict:
        return {"log": [f"handled:{error.node}"]}

    g = StateGraph(S)
    g.add_node("first", lambda s: {"n": 1})
    g.add_node("bad", bad, error_handler=handler)
    g.add_node("after", lambda s: {"log": ["after"]})
    g.add_edge(START, "first")
    g.add_edge("first", "bad")
    g.add_edge("bad", "after")
    return g.compile(checkpointer=checkpointer)


def _nested(checkpointer: Any) -> Any:
    inner = StateGraph(S)
    inner.add_node("inc", lambda s: {"n": s["n"] + 1, "log": ["inner"]})
    inner.add_edge(START, "inc")
    child = inner.compile()

    def calls_child(s: S) -> dict:
        out = child.invoke({"n": s["n"], "log": []})
        return {"n": out["n"], "log": out["log"]}

    g = StateGraph(S)
    g.add_node("outer", calls_child)
    g.add_node("sub", child)  # a subgraph node: not plain sync, run through execute()
    g.add_node("x", lambda s: {"log": ["x"]})
    g.add_node("y", lambda s: {"log": ["y"]})
    g.add_node("join", lambda s: {"log": ["join"]})
    g.add_edge(START, "outer")
    g.add_edge("outer", "sub")
    g.add_edge("sub", "x")
    g.add_edge("sub", "y")
    g.add_edge(["x", "y"], "join")
    return g.compile(checkpointer=checkpointer)


def _async_nodes(checkpointer: Any) -> Any:
    async def slow(s: S) -> dict:
        await asyncio.sleep(0)
        return {"n": s["n"] + 1, "log": ["async"]}

    g = StateGraph(S)
    g.add_node("slow", slow)
    g.add_node("sync", lambda s: {"log": ["sync"]})
    g.add_edge(START, "slow")
    g.add_conditional_edges("slow", lambda s: "slow" if s["n"] < 3 else "sync", ["slow", "sync"])
    return g.compile(checkpointer=checkpointer)


GRAPHS: dict[str, Callable[[Any], Any]] = {
    "loop": _loop, "interrupt": _chain_with_interrupt, "failing": _failing, "handled": _handled,
    "nested": _nested, "async": _async_nodes,
}
MODES = ["values", "updates", "tasks", "checkpoints", "debug"]

def _history(graph: Any, config: dict, names: Names) -> list[Any]:
    return [names({"values": s.values, "next": s.next, "config": s.config, "parent": s.parent_config,
                   "metadata": s.metadata, "created_at": s.created_at,
                   "tasks": [(t.id, t.name, repr(t.error), t.interrupts, t.result) for t in s.tasks]})
            for s in graph.get_state_history(config)]


def _run_sync(make: Callable[[Any], Any], saver: Any, how: str) -> list[Any]:
    graph = make(saver)
    config = {"configurable": {"thread_id": "t"}, "recursion_limit": 50}
    names = Names()
    seen: list[Any] = []
    for inputs in ({"n": 0, "log": []}, Command(resume="yes"), None):
        try:
            if how == "invoke":
                seen.append(("out", graph.invoke(inputs, config)))
            elif how == "stream":
                seen += [("chunk", c) for c in graph.stream(inputs, config, stream_mode=MODES)]
            else:
                async def consume(inputs: Any = inputs) -> list[Any]:
                    if how == "ainvoke":
                        return [("out", await graph.ainvoke(inputs, config))]
                    return [("chunk", c) async for c in graph.astream(inputs, config, stream_mode=MODES)]
                seen += asyncio.run(consume())
        except Exception as exc:  # noqa: BLE001 (a failing graph's error is part of what is compared)
            seen.append(("raised", exc))
    return [names(seen), _history(graph, config, names)]


@pytest.fixture(params=["memory", "sqlite"])
def saver_kind(request: pytest.FixtureRequest) -> str:
    return request.param


def _saver(kind: str, path: Any) -> Any:
    if kind == "memory":
        return InMemorySaver()
    return SqliteSaver(sqlite3.connect(str(path), check_same_thread=False))


@pytest.mark.parametrize("how", ["invoke", "stream", "ainvoke", "astream"])
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_each_graph_leaves_the_same_checkpoints_and_chunks_both_ways(name: str, how: str, saver_kind: str,
                                                                      tmp_path: Any,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    outcomes = []
    for fused in (True, False):
        monkeypatch.setattr(lone_step, "FUSED", fused)
        outcomes.append(_run_sync(GRAPHS[name], _saver(saver_kind, tmp_path / f"{fused}.db"), how))
    fused_run, loop_run = outcomes
    assert fused_run[0] == loop_run[0], "the chunks (or outputs) differ"
    assert fused_run[1] == loop_run[1], "the checkpoints differ"
    assert len(fused_run[1]) >= 2


@pytest.mark.parametrize("durability", ["sync", "async", "exit"])
def test_durability_modes_store_the_same_history_both_ways(durability: str, tmp_path: Any,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    outcomes = []
    for fused in (True, False):
        monkeypatch.setattr(lone_step, "FUSED", fused)
        graph = _loop(_saver("sqlite", tmp_path / f"{fused}.db"))
        config = {"configurable": {"thread_id": "t"}}
        names = Names()
        out = graph.invoke({"n": 0, "log": []}, config, durability=durability)
        outcomes.append((names(out), _history(graph, config, names)))
    assert outcomes[0] == outcomes[1]


def test_a_loop_of_one_task_supersteps_never_goes_through_run_pending(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = {"fused": 0, "loop": 0}
    real = Run.run_pending

    async def counted(self: Run, **kw: Any) -> Any:
        calls["loop"] += 1
        return await real(self, **kw)

    monkeypatch.setattr(Run, "run_pending", counted)
    graph = _loop(InMemorySaver())
    for fused in (True, False):
        monkeypatch.setattr(lone_step, "FUSED", fused)
        before = calls["loop"]
        graph.invoke({"n": 0, "log": []}, {"configurable": {"thread_id": f"t{fused}"}})
        calls["fused" if fused else "loop_only"] = calls["loop"] - before
    assert calls["fused"] == 0  # every superstep (the input's, six of `step`) made in one go
    assert calls["loop_only"] == 7
