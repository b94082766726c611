"""Reducers in one plain line, and the writes a commit cannot merge (conflicts)."""
from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..channels.base import LAST_VALUE, OPERATOR_ADD
from ..channels.reducer import overwrite_value
from ..messages import is_add_messages
from .reasons import Conflict

__all__ = ["reducer_line", "key_reducer", "find_conflicts"]

ADD_MESSAGES = "add_messages"
"""`add_messages`' display name in a ChannelDiff (its `__qualname__`)."""


def _docstring_line(fn: Callable[..., Any]) -> str:
    target = fn.func if isinstance(fn, functools.partial) else fn
    doc = inspect.getdoc(target) or ""
    first = doc.strip().split("\n\n", 1)[0]
    return " ".join(first.split())[:200]


def reducer_line(reducer: str, fn: Callable[..., Any] | None = None) -> str:
    """What a reducer does, in one line a student can read.

    `reducer` is the display name the engine records in a ChannelDiff ("last value",
    "operator.add", "add_messages", a function's name); `fn` (when the graph's code is
    loaded) lets a custom reducer speak through its docstring."""
    if reducer == LAST_VALUE:
        return "last value: the write replaces the old value (one write per superstep)"
    if not reducer:  # a history read without the graph's code (LangGraph's stores) does not name it
        return "reducer not known: the history was read without the graph's code (open it with --graph FILE.py)"
    if reducer == OPERATOR_ADD:
        return "operator.add: old + each write, in task order (lists are joined, numbers summed)"
    base = reducer.rsplit(".", 1)[-1]
    # by identity when the code is loaded; read without it, the name the engine gives it
    if is_add_messages(fn) if fn is not None else reducer == ADD_MESSAGES:
        return ("add_messages: appends new messages; one whose id is already there replaces "
                "that message (by id); RemoveMessage deletes by id")
    doc = _docstring_line(fn) if fn is not None else ""
    if doc:
        return f"{reducer}: {doc}"
    return f"{reducer}: a custom reducer, called as {base}(value so far, write) for each write in task order"


def key_reducer(graph: Any, key: str) -> tuple[str, Callable[..., Any] | None]:
    """(display name, function) of `key`'s reducer in a compiled graph; ("last value", None)
    for a plain key or when the graph is not known."""
    channels = getattr(getattr(graph, "schema", None), "channels", None) or {}
    channel = channels.get(key)
    if channel is None:
        return LAST_VALUE, None
    return getattr(channel, "reducer_name", LAST_VALUE), getattr(channel, "fn", None)


def find_conflicts(writes: Sequence[tuple[str, str, Any]], reducers: Mapping[str, str]) -> tuple[Conflict, ...]:
    """Writes the commit will refuse: `writes` are (node, key, value) of one superstep's
    finished tasks; `reducers` maps a key to its reducer's display name."""
    by_key: dict[str, list[tuple[str, Any]]] = {}
    for node, key, value in writes:
        by_key.setdefault(key, []).append((node, value))
    found: list[Conflict] = []
    for key, items in by_key.items():
        nodes = tuple(n for n, _ in items)
        overwrites = [n for n, v in items if overwrite_value(v)[0]]
        if reducers.get(key, LAST_VALUE) == LAST_VALUE and len(items) > 1:
            found.append(Conflict(key=key, nodes=nodes, text=(
                f"conflict: `{key}` keeps the last value, and {_names(nodes)} each wrote it in this "
                f"superstep; there is no order between tasks of one superstep, so the commit refuses it "
                f"(InvalidUpdateError). Give `{key}` a reducer (Annotated[list, operator.add]) or let "
                "one node write it.")))
        elif len(overwrites) > 1:
            found.append(Conflict(key=key, nodes=tuple(overwrites), text=(
                f"conflict: {_names(tuple(overwrites))} each wrote Overwrite(...) to `{key}`; only one "
                "Overwrite per superstep can replace the value, so the commit refuses it.")))
        elif overwrites and len(items) > 1:
            found.append(Conflict(key=key, nodes=nodes, text=(
                f"note: {overwrites[0]} wrote Overwrite(...) to `{key}`: it replaces the value and the "
                f"other writes of this superstep to `{key}` are dropped.")))
    return tuple(found)


def _names(nodes: Sequence[str]) -> str:
    shown = [f"`{n}`" for n in nodes]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]
