"""The functional API in its own terms: an `@entrypoint`'s state is what it returned, and its
node's source is the user's function (and the tasks it calls), not the engine's wrapper.

A checkpoint of an entrypoint holds two channels, `__end__` (the return value) and
`__previous__` (what the next call sees as `previous`); `get_state().values` is the first.
The state panel, the diff and `retrograph history --values` show the same. Qt-free.
"""
from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

__all__ = ["ENTRY_CHANNELS", "RETURN_KEY", "is_entrypoint_state", "entry_value", "shown_values", "entry_source"]

ENTRY_CHANNELS = frozenset({"__end__", "__previous__"})
RETURN_KEY = "return value"
"""The one row an entrypoint's state shows when it returned something other than a dict."""


def is_entrypoint_state(values: Any) -> bool:
    return isinstance(values, Mapping) and bool(values) and set(values) <= ENTRY_CHANNELS


def entry_value(values: Any) -> Any:
    """A checkpoint's values as `get_state().values` gives them (an entrypoint's return value)."""
    return values.get("__end__") if is_entrypoint_state(values) else values


def shown_values(values: Any) -> Any:
    """`entry_value` as the key → value mapping a state panel shows."""
    if not is_entrypoint_state(values):
        return values
    value = values.get("__end__")
    if isinstance(value, Mapping):
        return dict(value)
    return {} if value is None else {RETURN_KEY: value}


def _source(fn: Any) -> tuple[str, str | None, int | None]:
    target = inspect.unwrap(fn)
    lines, line = inspect.getsourcelines(target)
    return "".join(lines), inspect.getsourcefile(target), line


def _tasks_called(fn: Any) -> list[Any]:
    """The `@task`s the function names (its globals and closure), in the order it names them."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return []
    scope = dict(getattr(fn, "__globals__", {}) or {})
    for name, cell in zip(code.co_freevars, getattr(fn, "__closure__", None) or (), strict=False):
        try:
            scope[name] = cell.cell_contents
        except ValueError:  # an empty cell
            continue
    found = []
    for name in dict.fromkeys((*code.co_names, *code.co_freevars)):
        value = scope.get(name)
        if type(value).__name__ == "_Task" and callable(getattr(value, "fn", None)):
            found.append(value)
    return found


def entry_source(graph: Any, name: str) -> tuple[str, str | None, int | None] | None:
    """(source, file, line) of an entrypoint's function followed by each task it calls; None
    when `name` is not an entrypoint's node."""
    fn = getattr(graph, "fn", None)
    if fn is None or getattr(graph, "input_node", None) != name:
        return None
    try:
        source, file, line = _source(fn)
    except (OSError, TypeError):
        return None
    parts = [source]
    for t in _tasks_called(fn):
        try:
            text, where, at = _source(t.fn)
        except (OSError, TypeError):
            continue
        parts.append(f"\n# task `{t.name}` ({where}:{at})\n{text}")
    return "".join(parts), file, line
