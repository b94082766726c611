"""The benchmark graphs, built the same way on Retrograph's engine and on LangGraph.

A `Backend` names the handful of things that differ between the two (where
`StateGraph`, `Send` and the savers come from); the state schemas, node functions and
routers are the same Python objects on both sides. LangGraph is imported only here and
only when present.
"""
from __future__ import annotations

import operator
import os
import random
import sqlite3
import string
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, TypedDict

import engine

__all__ = [
    "END",
    "ENGINE",
    "LANGGRAPH_MISSING",
    "Backend",
    "CounterState",
    "FanState",
    "GrowingLogState",
    "LogState",
    "NoteState",
    "db_size",
    "fan_graph",
    "growing_log_graph",
    "langgraph_backend",
    "log_graph",
    "loop_graph",
    "note_graph",
    "remove_db",
    "texts",
]

END = "__end__"  # the same string on both sides


@dataclass(frozen=True)
class Backend:
    """Where one runtime keeps its graph builder, Send and checkpoint savers."""

    name: str
    StateGraph: Any
    START: str
    Send: Any
    memory_saver: Callable[[], Any]
    sqlite_saver: Callable[[str], Any]
    close_saver: Callable[[Any], None]


def _close_engine(saver: Any) -> None:
    close = getattr(saver, "close", None)
    if close is not None:
        close()


ENGINE = Backend(
    name="engine", StateGraph=engine.StateGraph, START=engine.START, Send=engine.Send,
    memory_saver=engine.InMemorySaver, sqlite_saver=engine.SqliteSaver, close_saver=_close_engine,
)

LANGGRAPH_MISSING = (
    "LangGraph is not installed: its columns are left empty. "
    "Install it with `pip install -e .[bench]` to compare."
)


def langgraph_backend() -> Backend | None:
    """The LangGraph backend, or None when langgraph (or its SQLite saver) is missing."""
    try:
        from langgraph.checkpoint.memory import InMemorySaver
        from langgraph.checkpoint.sqlite import SqliteSaver
        from langgraph.graph import START, StateGraph
        from langgraph.types import Send
    except ImportError:
        return None

    def sqlite_saver(path: str) -> Any:
        saver = SqliteSaver(sqlite3.connect(path, check_same_thread=False))
        saver.setup()  # create its tables now, not inside the first timed step
        return saver

    def close_saver(saver: Any) -> None:
        conn = getattr(saver, "conn", None)
        if conn is not None:
            conn.close()

    return Backend(
        name="langgraph", StateGraph=StateGraph, START=START, Send=Send, memory_saver=InMemorySaver,
        sqlite_saver=sqlite_saver, close_saver=close_saver,
    )


# -- states ------------------------------------------------------------------------------
class CounterState(TypedDict):
    n: int


class NoteState(TypedDict):
    n: int
    note: str
    stop: int


class LogState(TypedDict):
    log: Annotated[list, operator.add]


class GrowingLogState(TypedDict):
    log: Annotated[list, operator.add]
    stop: int


class FanState(TypedDict):
    items: Annotated[list, operator.add]
    total: int


def texts(count: int, length: int = 200, seed: int = 7) -> list[str]:
    """`count` distinct pseudo-random strings of `length` characters (the same every run)."""
    rng = random.Random(seed)
    alphabet = string.ascii_letters + string.digits
    return ["".join(rng.choices(alphabet, k=length)) for _ in range(count)]


# -- a loop of one trivial node ------------------------------------------------------------
def loop_parts(steps: int) -> tuple[Callable[[CounterState], dict], Callable[[CounterState], str]]:
    """The node (adds one) and the router (back to the node until `steps` ran)."""

    def step(state: CounterState) -> dict:
        return {"n": state["n"] + 1}

    def again(state: CounterState) -> str:
        return "step" if state["n"] < steps else END

    return step, again


def loop_graph(backend: Backend, steps: int, checkpointer: Any = None) -> Any:
    step, again = loop_parts(steps)
    g = backend.StateGraph(CounterState)
    g.add_node("step", step)
    g.add_edge(backend.START, "step")
    g.add_conditional_edges("step", again, ["step", END])
    return g.compile(checkpointer=checkpointer)


# -- history threads: loops that stop at `state["stop"]`, so a thread can be continued ------
def note_parts() -> tuple[Callable[[NoteState], dict], Callable[[NoteState], str]]:
    """A node replacing a 200-character note (flat state), and its router."""
    notes = texts(64)

    def write(state: NoteState) -> dict:
        n = state["n"] + 1
        return {"n": n, "note": notes[n % len(notes)]}

    def again(state: NoteState) -> str:
        return "write" if state["n"] < state["stop"] else END

    return write, again


def note_graph(backend: Backend, checkpointer: Any) -> Any:
    """Runs until `n` reaches `stop`; invoke again with a higher `stop` to go on."""
    write, again = note_parts()
    g = backend.StateGraph(NoteState)
    g.add_node("write", write)
    g.add_edge(backend.START, "write")
    g.add_conditional_edges("write", again, ["write", END])
    return g.compile(checkpointer=checkpointer)


def growing_log_graph(backend: Backend, checkpointer: Any) -> Any:
    """Appends one 200-character string per step until the log holds `stop` items."""
    payload = texts(256)

    def append(state: GrowingLogState) -> dict:
        return {"log": [payload[len(state["log"]) % len(payload)]]}

    def again(state: GrowingLogState) -> str:
        return "append" if len(state["log"]) < state["stop"] else END

    g = backend.StateGraph(GrowingLogState)
    g.add_node("append", append)
    g.add_edge(backend.START, "append")
    g.add_conditional_edges("append", again, ["append", END])
    return g.compile(checkpointer=checkpointer)


# -- a loop appending one string per step to an operator.add list ---------------------------
def log_parts(payload: list[str]) -> tuple[Callable[[LogState], dict], Callable[[LogState], str]]:
    steps = len(payload)

    def append(state: LogState) -> dict:
        return {"log": [payload[len(state["log"])]]}

    def again(state: LogState) -> str:
        return "append" if len(state["log"]) < steps else END

    return append, again


def log_graph(backend: Backend, payload: list[str], checkpointer: Any) -> Any:
    append, again = log_parts(payload)
    g = backend.StateGraph(LogState)
    g.add_node("append", append)
    g.add_edge(backend.START, "append")
    g.add_conditional_edges("append", again, ["append", END])
    return g.compile(checkpointer=checkpointer)


# -- Send fan-out and join -------------------------------------------------------------------
def fan_parts(tasks: int) -> tuple[Callable[..., Any], Callable[[dict], dict], Callable[[FanState], dict]]:
    """The router (one Send per task; it needs the backend's Send), the worker, the join."""

    def work(arg: dict) -> dict:
        return {"items": [arg["i"] * 2]}

    def join(state: FanState) -> dict:
        return {"total": sum(state["items"])}

    def fan_out(send: Any) -> Callable[[FanState], list]:
        def route(state: FanState) -> list:
            return [send("work", {"i": i}) for i in range(tasks)]

        return route

    return fan_out, work, join


def fan_graph(backend: Backend, tasks: int) -> Any:
    fan_out, work, join = fan_parts(tasks)
    g = backend.StateGraph(FanState)
    g.add_node("work", work)
    g.add_node("join", join)
    g.add_conditional_edges(backend.START, fan_out(backend.Send), ["work"])
    g.add_edge("work", "join")
    g.add_edge("join", END)
    return g.compile()


# -- files -------------------------------------------------------------------------------------
def db_size(path: str) -> int:
    """Bytes of a SQLite database after `PRAGMA wal_checkpoint(TRUNCATE)` (the main file
    plus whatever WAL is left; the saver must be closed first)."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    finally:
        conn.close()
    total = 0
    for suffix in ("", "-wal"):
        try:
            total += os.path.getsize(path + suffix)
        except FileNotFoundError:
            pass
    return total


def remove_db(path: str) -> None:
    """Delete a SQLite file and its WAL and shared-memory companions."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            os.remove(path + suffix)
        except FileNotFoundError:
            pass
