"""A key with a reducer: `Annotated[T, fn]` folds each write in with `fn(old, new)`."""
from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import InvalidUpdateError
from ..types import Overwrite
from .base import MISSING, Applied, Channel

__all__ = ["ReducerChannel", "reducer_display_name"]


def reducer_display_name(fn: Callable[..., Any]) -> str:
    """`operator.add`, `add_messages`, `my_module.keep_max`: what the studio shows."""
    if fn is operator.add:
        return "operator.add"
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)
    return name


class ReducerChannel(Channel):
    __slots__ = ("fn", "empty", "reducer_name", "_appends_lists", "_fold")

    def __init__(self, key: str, fn: Callable[[Any, Any], Any], empty: Callable[[], Any] | None) -> None:
        super().__init__(key)
        self.fn = fn
        self.empty = empty
        self.reducer_name = reducer_display_name(fn)
        self._appends_lists = fn is operator.add
        # A reducer may fold a whole superstep itself and say what it appended
        # (add_messages does): `fold(old, writes) -> (value, appended_or_None)`.
        self._fold = getattr(fn, "fold_writes", None)

    def initial(self) -> Any:
        if self.empty is None:
            return MISSING
        return self.empty()

    def apply(self, old: Any, writes: Sequence[Any]) -> Applied:
        if not writes:
            return Applied(old)
        overwrites = [i for i, w in enumerate(writes) if type(w) is Overwrite]
        if overwrites:
            if len(overwrites) > 1:
                raise InvalidUpdateError(
                    f"At key '{self.key}': {len(overwrites)} Overwrite values in one step; "
                    "only one write may replace the value in a superstep."
                )
            at = overwrites[0]
            rest = self.apply(writes[at].value, writes[at + 1:]) if at + 1 < len(writes) else None
            return Applied(rest.value if rest is not None else writes[at].value)
        if self._fold is not None:
            value, appended = self._fold(old, writes)
            return Applied(value, appended)
        fn = self.fn
        value = old
        start = 0
        if value is MISSING:
            value, start = writes[0], 1
        for w in writes[start:]:
            value = fn(value, w)
        if self._appends_lists and type(old) is list and start == 0 and all(type(w) is list for w in writes):
            tail: list[Any] = []
            for w in writes:
                tail.extend(w)
            return Applied(value, tail)
        return Applied(value)
