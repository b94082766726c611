"""Channels whose value is scoped: to one superstep, to the run, or to the writes of a superstep.

`OneStepValue` lasts one superstep (the superstep after the write reads it; a superstep
that does not write it clears it). `UnsavedValue` keeps its value for the run but never
in a checkpoint. `CollectValue` gathers a superstep's writes into a list (lists flattened),
for that superstep only or accumulated.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import InvalidUpdateError
from ..types import Overwrite
from .base import MISSING, Applied, Channel

__all__ = ["OneStepValue", "UnsavedValue", "CollectValue", "ONE_STEP", "NOT_SAVED", "COLLECT"]

ONE_STEP = "last value, for one superstep"
NOT_SAVED = "last value, not checkpointed"
COLLECT = "collects writes"


def _guarded_last(channel: Channel, guard: bool, label: str, writes: Sequence[Any]) -> Any:
    if guard and len(writes) > 1:
        raise InvalidUpdateError(
            f"At key '{channel.key}': {label}(guard=True) can receive only one value per step. "
            "Use guard=False if you want to store any one of multiple values."
        )
    value = writes[-1]
    return value.value if type(value) is Overwrite else value


class OneStepValue(Channel):
    """The last write, read by the next superstep only; cleared by a superstep without a write.

    `guard`: more than one write in a superstep is an error (else the last one is kept);
    `label` names the channel in that error."""

    __slots__ = ("guard", "label")

    reducer_name = ONE_STEP
    transient = True

    def __init__(self, key: str, *, guard: bool = True, label: str = "OneStepValue") -> None:
        super().__init__(key)
        self.guard = guard
        self.label = label

    def apply(self, old: Any, writes: Sequence[Any]) -> Applied:
        if not writes:
            return Applied(MISSING)
        return Applied(_guarded_last(self, self.guard, self.label, writes))


class UnsavedValue(Channel):
    """The last write, kept for the run only: never saved in a checkpoint or a pending
    write, so a run resumed from a checkpoint starts without it."""

    __slots__ = ("guard", "label")

    reducer_name = NOT_SAVED
    saved = False

    def __init__(self, key: str, *, guard: bool = True, label: str = "UnsavedValue") -> None:
        super().__init__(key)
        self.guard = guard
        self.label = label

    def apply(self, old: Any, writes: Sequence[Any]) -> Applied:
        if not writes:
            return Applied(old)
        return Applied(_guarded_last(self, self.guard, self.label, writes))


class CollectValue(Channel):
    """A list of the superstep's writes (a written list adds its items). `accumulate`:
    the list keeps growing across supersteps; else it holds one superstep's writes and a
    superstep without a write clears it. An empty list is no value."""

    __slots__ = ("accumulate", "transient")

    reducer_name = COLLECT

    def __init__(self, key: str, *, accumulate: bool = False) -> None:
        super().__init__(key)
        self.accumulate = accumulate
        self.transient = not accumulate

    def apply(self, old: Any, writes: Sequence[Any]) -> Applied:
        items: list[Any] = list(old) if self.accumulate and isinstance(old, list) else []
        for w in writes:
            if isinstance(w, list):
                items.extend(w)
            else:
                items.append(w)
        if not items:
            return Applied(MISSING if not self.accumulate or old is MISSING else old)
        return Applied(items)
