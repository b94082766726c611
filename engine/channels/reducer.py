"""A key with a reducer: `Annotated[T, fn]` folds each write in with `fn(old, new)`."""
from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import InvalidUpdateError
from ..types import Overwrite
from .base import MISSING, OPERATOR_ADD, Applied, Channel

__all__ = ["ReducerChannel", "BatchReducerChannel", "reducer_display_name", "overwrite_value", "OVERWRITE_KEY", "reducer_error"]


def reducer_error(exc: Exception, key: str, reducer: str, node: str | None) -> Exception:
    """`exc` raised by a reducer, restated to name the key, the reducer and the node whose
    write it was folding; the same exception type (chained), so callers that catch a
    TypeError still do."""
    who = f"node `{node}` wrote `{key}`" if node else f"a write to `{key}`"
    text = f"{who}, and its reducer `{reducer}` raised {type(exc).__name__}: {exc}"
    try:
        return type(exc)(text)
    except Exception:  # noqa: BLE001 - an exception class with its own constructor
        exc.add_note(text)
        return exc


def reducer_display_name(fn: Callable[..., Any]) -> str:
    """`operator.add`, `add_messages`, `my_module.keep_max`: what the studio shows."""
    if fn is operator.add:
        return OPERATOR_ADD
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)
    return name


OVERWRITE_KEY = "__overwrite__"


def _overwrite_dict(value: dict[Any, Any]) -> bool:
    """`{"__overwrite__": v}` or an Overwrite that went through JSON (`{"value": v, "type": ...}`)."""
    if len(value) == 1:
        return OVERWRITE_KEY in value
    return len(value) == 2 and value.get("type") == OVERWRITE_KEY and "value" in value


def overwrite_value(value: Any) -> tuple[bool, Any]:
    """(whether `value` is an Overwrite in any of its forms, the value it writes)."""
    if type(value) is Overwrite:
        return True, value.value
    if type(value) is dict and _overwrite_dict(value):
        return True, value[OVERWRITE_KEY] if OVERWRITE_KEY in value else value["value"]
    return False, None


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
        all_lists = True  # one plain pass (no generator per write: a Send fan-in folds hundreds)
        for w in writes:
            kind = type(w)
            if kind is Overwrite or (kind is dict and _overwrite_dict(w)):
                return Applied(self._overwritten(writes))
            if kind is not list:
                all_lists = False
        if all_lists and self._appends_lists and type(old) is list:
            # list + list, write by write, is old + every write in order: build it once
            # (linear, where folding the writes one by one copies the growing list each time)
            tail: list[Any] = []
            for w in writes:
                tail.extend(w)
            return Applied(old + tail, tail)
        if self._fold is not None:
            value, appended = self._fold(old, writes)
            return Applied(value, appended)
        fn = self.fn
        value = old
        start = 0
        if value is MISSING:
            value, start = writes[0], 1
        for i in range(start, len(writes)):
            try:
                value = fn(value, writes[i])
            except Exception as exc:
                exc.write_index = i  # type: ignore[attr-defined]  # commit names the node
                raise
        return Applied(value)

    def _overwritten(self, writes: Sequence[Any]) -> Any:
        """As LangGraph: the step's one Overwrite replaces the value; the step's other
        writes, before or after it, are dropped."""
        found = [v for is_ow, v in map(overwrite_value, writes) if is_ow]
        if len(found) > 1:
            raise InvalidUpdateError(
                f"At key '{self.key}': Can receive only one Overwrite value per super-step. "
                f"{len(found)} writes in this step were Overwrite values; only one may replace the value."
            )
        return found[0]


class BatchReducerChannel(Channel):
    """A key whose reducer folds a whole superstep's writes in one call,
    `fn(old, [write, ...]) -> new` (LangGraph's DeltaChannel). The reducer must give the
    same value for two batches folded one after the other as for the two joined, so
    writes may be replayed in batches of any size. One Overwrite in a superstep replaces
    the value (None: the empty value); the step's other writes are dropped.

    `snapshot_every`: how LangGraph's raw checkpoint form shows the key (the engine's
    stores keep every value either way): as writes, with the whole value (a snapshot)
    every this many updates (checkpoint/delta_record.py)."""

    __slots__ = ("fn", "empty", "reducer_name", "snapshot_every")

    def __init__(self, key: str, fn: Callable[[Any, list[Any]], Any], empty: Callable[[], Any] | None,
                 snapshot_every: int = 100) -> None:
        super().__init__(key)
        self.fn = fn
        self.empty = empty
        self.reducer_name = f"{reducer_display_name(fn)} (batched)"
        self.snapshot_every = snapshot_every

    def initial(self) -> Any:
        return MISSING if self.empty is None else self.empty()

    def apply(self, old: Any, writes: Sequence[Any]) -> Applied:
        if not writes:
            return Applied(old)
        found = [v for is_ow, v in map(overwrite_value, writes) if is_ow]
        if len(found) > 1:
            raise InvalidUpdateError(f"At key '{self.key}': Can receive only one Overwrite value per super-step.")
        if found:
            return Applied(self.initial() if found[0] is None else found[0])
        base = self.initial() if old is MISSING else old
        return Applied(self.fn(base, list(writes)))
