"""A plain one-task superstep made in one function (engine/runtime/plain_step.py) is the
general superstep: every graph here runs with `PLAIN` on and off, under each API and
stream mode, without a checkpointer, with InMemorySaver and with SqliteSaver, and the two
runs give the same outputs, chunks, errors and checkpoints. The graphs take the plain path
and leave it at every point it can be left (an error in the node, its router or its
reducer; an output that is not a plain dict; a fan-out; an interrupt; the recursion
limit). Ids and times are fresh in every run: they are compared by first appearance."""
from __future__ import annotations

import asyncio
import json
import operator
import sqlite3
from collections.abc import Callable
from typing import Annotated, Any, TypedDict

import pytest

from engine import END, START, Command, InMemorySaver, Send, StateGraph, get_stream_writer, interrupt
from engine.checkpoint.sqlite import SqliteSaver
from engine.runtime import execute, plain_step
from run_names import Names


class S(TypedDict):
    n: int
    log: Annotated[list, operator.add]


def _graph(nodes: dict[str, Any], edges: list[tuple[str, str]], routers: dict[str, tuple[Any, Any]],
           saver: Any, **compile_kw: Any) -> Any:
    g = StateGraph(S)
    for name, fn in nodes.items():
        g.add_node(name, fn)
    for a, b in edges:
        g.add_edge(a, b)
    for name, (router, path) in routers.items():
        g.add_conditional_edges(name, router, path)
    return g.compile(checkpointer=saver, **compile_kw)


def _loop(saver: Any) -> Any:
    return _graph({"step": lambda s: {"n": s["n"] + 1, "log": [s["n"]]}}, [(START, "step")],
                  {"step": (lambda s: "step" if s["n"] < 5 else END, ["step", END])}, saver)


def _chain(saver: Any) -> Any:  # edges only, several keys, a node writing nothing, one writing None
    return _graph({"a": lambda s: {"n": 1, "log": ["a"]}, "b": lambda s: {}, "c": lambda s: None,
                   "d": lambda s: {"n": s["n"] * 10}},
                  [(START, "a"), ("a", "b"), ("b", "c"), ("c", "d")], {}, saver)


def _mapped(saver: Any) -> Any:  # a path_map, a list answer (fan-out), a Send, then a join by edges
    def route(s: S) -> Any:
        if s["n"] == 1:
            return "again"
        if s["n"] == 2:
            return ["x", "y"]
        return [Send("x", {"n": 100, "log": []})] if s["n"] == 3 else "done"

    return _graph({"start": lambda s: {"n": s["n"] + 1}, "x": lambda s: {"log": ["x"], "n": s["n"] + 1},
                   "y": lambda s: {"log": ["y"]}},
                  [(START, "start"), ("y", "start")],
                  {"start": (route, {"again": "start", "x": "x", "y": "y", "done": END}),
                   "x": (lambda s: "start" if s["n"] < 50 else END, ["start", END])}, saver)


def _commands(saver: Any) -> Any:  # Commands and dropped keys: concluded the general way
    return _graph({"a": lambda s: Command(update={"n": 2}, goto="b"), "b": lambda s: {"log": ["b"], "other": 1},
                   "c": lambda s: [Command(update={"log": ["c1"]}), {"n": 3}]},
                  [(START, "a"), ("b", "c")], {}, saver)


def _failing_router(saver: Any) -> Any:
    def route(s: S) -> str:
        if s["n"] >= 2:
            raise ValueError(f"router boom at {s['n']}")
        return "step"

    return _graph({"step": lambda s: {"n": s["n"] + 1}}, [(START, "step")], {"step": (route, ["step", END])}, saver)


def _unknown_route(saver: Any) -> Any:
    return _graph({"step": lambda s: {"n": s["n"] + 1}}, [(START, "step")],
                  {"step": (lambda s: "step" if s["n"] < 2 else "nowhere", None)}, saver)


def _failing_reducer(saver: Any) -> Any:
    return _graph({"a": lambda s: {"log": ["ok"]}, "b": lambda s: {"log": 5}}, [(START, "a"), ("a", "b")],
                  {}, saver)


def _failing_node(saver: Any) -> Any:
    def bad(s: S) -> dict:
        if s["n"] >= 2:
            raise KeyError("node boom")
        return {"n": s["n"] + 1}

    return _graph({"bad": bad}, [(START, "bad")], {"bad": (lambda s: "bad", ["bad"])}, saver)


def _asks(saver: Any) -> Any:  # interrupt() inside a plain node, then its resume
    def ask(s: S) -> dict:
        return {"log": [f"answer:{interrupt({'q': s['n']})}"]}

    return _graph({"a": lambda s: {"n": s["n"] + 1}, "ask": ask, "b": lambda s: {"log": ["b"]}},
                  [(START, "a"), ("a", "ask"), ("ask", "b")], {}, saver)


def _writes_custom(saver: Any) -> Any:  # a stream writer asked for inside a plain node
    def talk(s: S) -> dict:
        get_stream_writer()({"at": s["n"]})
        return {"n": s["n"] + 1}

    return _graph({"talk": talk}, [(START, "talk")],
                  {"talk": (lambda s: "talk" if s["n"] < 3 else END, ["talk", END])}, saver)


def _breakpoints(saver: Any) -> Any:
    return _loop(saver) if saver is None else _graph(
        {"step": lambda s: {"n": s["n"] + 1}, "after": lambda s: {"log": ["after"]}},
        [(START, "step"), ("step", "after")], {}, saver, interrupt_before=["after"], interrupt_after=["step"])


def _endless(saver: Any) -> Any:  # the recursion limit ends it
    return _graph({"step": lambda s: {"n": s["n"] + 1}}, [(START, "step"), ("step", "step")], {}, saver)


GRAPHS: dict[str, Callable[[Any], Any]] = {
    "loop": _loop, "chain": _chain, "mapped": _mapped, "commands": _commands, "failing_router": _failing_router,
    "unknown_route": _unknown_route, "failing_reducer": _failing_reducer, "failing_node": _failing_node,
    "asks": _asks, "custom": _writes_custom, "breakpoints": _breakpoints, "endless": _endless,
}
HOWS = ["invoke", "ainvoke", "stream:values", "stream:updates", "stream:values,custom,updates",
        "stream:values,tasks,debug,checkpoints", "astream:values", "astream:updates,custom"]

def _history(graph: Any, config: dict, names: Names) -> list[Any]:
    return [names({"values": s.values, "next": s.next, "config": s.config, "parent": s.parent_config,
                   "metadata": s.metadata, "created_at": s.created_at,
                   "tasks": [(t.id, t.name, repr(t.error), t.interrupts, t.result) for t in s.tasks]})
            for s in graph.get_state_history(config)]


def _user_frames(value: Any) -> Any:
    """A stored traceback keeps the node's and router's frames; the engine's own frames
    between the run and the user's code (which function called the node) are left out:
    each path has its own. JSON text is decoded to reach the tracebacks inside it."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if isinstance(value, str):
        try:
            decoded = json.loads(value)
        except ValueError:
            decoded = None
        if isinstance(decoded, (dict, list)):
            return _user_frames(decoded)
        if "Traceback (most recent call last)" not in value:
            return value
        kept, skipping = [], False
        for line in value.splitlines():
            if line.startswith("  File "):
                skipping = "/engine/" in line
            elif not line.startswith("    "):
                skipping = False
            if not skipping:
                kept.append(line)
        return "\n".join(kept)
    if isinstance(value, dict):
        return {k: _user_frames(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_user_frames(v) for v in value]
    return value


def _stored(saver: Any, graph: Any, config: dict, names: Names, path: Any) -> list[Any]:
    """What the saver holds: each checkpoint as loaded (its plan's triggers, barriers and
    versions included) and, in a SQLite file, every row of every table (the bytes as text),
    so an appended list stored whole instead of as its new items shows."""
    loaded = [saver.load("t", s.config["configurable"]["checkpoint_id"]) for s in graph.get_state_history(config)]
    rows: list[Any] = []
    if isinstance(saver, SqliteSaver):
        conn = sqlite3.connect(str(path))
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
        for table in tables:
            rows += [(table, [_user_frames(v) for v in row])
                     for row in conn.execute(f"SELECT * FROM {table}")]  # noqa: S608 (names read from the file)
        conn.close()
    return [names(loaded), names(rows)]


def _run(make: Callable[[Any], Any], saver: Any, how: str, path: Any = None) -> list[Any]:
    graph = make(saver)
    config: dict[str, Any] = {"recursion_limit": 12}
    if saver is not None:
        config["configurable"] = {"thread_id": "t"}
    api, _, modes = how.partition(":")
    mode: Any = modes.split(",") if "," in modes else modes
    names = Names()
    seen: list[Any] = []
    inputs_seq = [{"n": 0, "log": []}] + ([Command(resume="yes"), None] if saver is not None else [])
    for inputs in inputs_seq:
        try:
            if api == "invoke":
                seen.append(("out", graph.invoke(inputs, config)))
            elif api == "stream":
                seen += [("chunk", c) for c in graph.stream(inputs, config, stream_mode=mode)]
            else:
                async def consume(inputs: Any = inputs) -> list[Any]:
                    if api == "ainvoke":
                        return [("out", await graph.ainvoke(inputs, config))]
                    return [("chunk", c) async for c in graph.astream(inputs, config, stream_mode=mode)]
                seen += asyncio.run(consume())
        except Exception as exc:  # noqa: BLE001 (a failing graph's error is part of what is compared)
            seen.append(("raised", exc))
    if saver is None:
        return [names(seen), []]
    return [names(seen), _history(graph, config, names) + _stored(saver, graph, config, names, path)]


def _saver(kind: str, path: Any) -> Any:
    if kind == "none":
        return None
    if kind == "memory":
        return InMemorySaver()
    return SqliteSaver(sqlite3.connect(str(path), check_same_thread=False))


@pytest.mark.parametrize("saver_kind", ["none", "memory", "sqlite"])
@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_each_graph_gives_the_same_outputs_chunks_and_checkpoints_both_ways(
        name: str, how: str, saver_kind: str, tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    outcomes = []
    for plain in (True, False):
        monkeypatch.setattr(plain_step, "PLAIN", plain)
        path = tmp_path / f"{plain}.db"
        outcomes.append(_run(GRAPHS[name], _saver(saver_kind, path), how, path))
    plain_run, general_run = outcomes
    assert plain_run[0] == general_run[0], "the chunks (or outputs, or errors) differ"
    assert plain_run[1] == general_run[1], "the checkpoints differ"
    assert plain_run[0]


@pytest.mark.parametrize("how", ["invoke", "ainvoke", "astream:values", "stream:values"])
@pytest.mark.parametrize("saver_kind", ["none", "memory"])
def test_a_plain_loop_never_goes_through_the_general_conclude(how: str, saver_kind: str, tmp_path: Any,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted: with PLAIN on, the loop's node supersteps are concluded by plain_step
    (only the input's task goes through `conclude`); with it off, every one does."""
    calls = {"n": 0}
    real = execute.conclude

    def counted(*args: Any, **kw: Any) -> Any:
        calls["n"] += 1
        return real(*args, **kw)

    monkeypatch.setattr(execute, "conclude", counted)
    monkeypatch.setattr(plain_step, "conclude", counted)
    monkeypatch.setattr(execute, "QUICK_S", 60.0)  # on a loaded machine the node stays "quick" on the loop
    counts = {}
    for plain in (True, False):
        monkeypatch.setattr(plain_step, "PLAIN", plain)
        calls["n"] = 0
        _run(_loop, _saver(saver_kind, tmp_path / f"{plain}.db"), how)
        counts[plain] = calls["n"]
    assert counts[False] >= 6  # the input's task and the five `step`s, at least
    assert counts[True] <= 2  # the input's task (and, async, the first `step` on a worker)
