"""Which compiled graphs a function node calls: found by reading its bytecode.

A node may run a graph from inside its function (`sub.invoke(state)`) rather than being
one. `referenced_subgraphs(fn)` finds such graphs along the references the function's
code can reach, without running it and without its source:

- a closure variable that holds a graph (even where the code that uses it was dropped);
- a chain of names in the function's code — a global or a closure variable followed by
  attribute loads (`HOLDER.payload.graph`) — whose value, at some link, is a graph;
  in nested functions, only chains that start at a closure variable count;
- what `__wrapped__` leads to (a wrapper set by hand).

Subscripts, locals, `self` of a bound method and globals named only in nested functions
are out of reach; a link that does not resolve ends its chain quietly.
"""
from __future__ import annotations

import dis
import types
from collections.abc import Callable, Iterator
from typing import Any

from ..specs import is_subgraph

__all__ = ["referenced_subgraphs"]

_ATTR_OPS = frozenset({"LOAD_ATTR", "LOAD_METHOD"})
_START_OPS = {"LOAD_GLOBAL": "global", "LOAD_DEREF": "deref", "LOAD_NAME": "global"}
_MAX_WRAPPED = 8


def _cells(fn: types.FunctionType) -> dict[str, Any]:
    """The function's closure variables that hold a value (an unfilled cell is left out)."""
    out: dict[str, Any] = {}
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            out[name] = cell.cell_contents
        except ValueError:
            continue
    return out


def _chains(code: types.CodeType, nested: bool) -> Iterator[tuple[str, str, list[str]]]:
    """(kind, first name, attribute names) of each load chain in `code` and its nested code."""
    kind: str | None = None
    head = ""
    attrs: list[str] = []
    for ins in dis.get_instructions(code):
        if kind is not None and ins.opname in _ATTR_OPS:
            attrs.append(str(ins.argval))
            continue
        if kind is not None:
            yield kind, head, attrs
            kind = None
        start = _START_OPS.get(ins.opname)
        if start is not None and not (nested and start == "global"):
            kind, head, attrs = start, str(ins.argval), []
    if kind is not None:
        yield kind, head, attrs
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _chains(const, True)


def _resolve(value: Any, attrs: list[str]) -> Any:
    """The first graph along `value.a.b...` (None when none, or a link does not resolve)."""
    if is_subgraph(value):
        return value
    for name in attrs:
        try:
            value = getattr(value, name)
        except Exception:  # any error of a property: the chain ends here
            return None
        if is_subgraph(value):
            return value
    return None


def _of_function(fn: types.FunctionType, found: list[Any]) -> None:
    cells = _cells(fn)
    for value in cells.values():
        if is_subgraph(value) and value not in found:
            found.append(value)
    scope = fn.__globals__
    for kind, head, attrs in _chains(fn.__code__, False):
        if kind == "deref":
            if head not in cells:
                continue
            value = cells[head]
        elif head in scope:
            value = scope[head]
        else:
            continue
        graph = _resolve(value, attrs)
        if graph is not None and graph not in found:
            found.append(graph)


def referenced_subgraphs(fn: Callable[..., Any]) -> list[Any]:
    """The compiled graphs `fn`'s code reaches, in the order first found (see module doc)."""
    found: list[Any] = []
    current: Any = fn
    seen = 0
    while current is not None and seen < _MAX_WRAPPED:
        seen += 1
        if isinstance(current, types.FunctionType):
            _of_function(current, found)
        current = getattr(current, "__wrapped__", None)
    return found
