"""LangGraph's LastValue and LastValueAfterFinish: one write per superstep, the last kept."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ... import channels as core
from ...errors import EmptyChannelError, InvalidUpdateError
from .base import MISSING, ValueChannel

__all__ = ["LastValue", "LastValueAfterFinish"]


def _one(key: str, values: Sequence[Any]) -> Any:
    if len(values) != 1:
        raise InvalidUpdateError(
            f"At key '{key}': Can receive only one value per step. Use an Annotated key to handle multiple values."
        )
    return values[-1]


class LastValue(ValueChannel):
    """The last value written; more than one write in a superstep is an error."""

    __slots__ = ()

    def from_checkpoint(self, checkpoint: Any) -> LastValue:
        new = self._clone()
        new.value = checkpoint
        return new

    def update(self, values: Sequence[Any]) -> bool:
        if not values:
            return False
        self.value = _one(self.key, values)
        return True

    def engine_channel(self, key: str) -> core.Channel:
        return core.LastValue(key)


class LastValueAfterFinish(ValueChannel):
    """The last value written, readable only once the run finished (then consumed)."""

    __slots__ = ("finished",)

    def __init__(self, typ: Any, key: str = "") -> None:
        super().__init__(typ, key)
        self.finished = False

    def checkpoint(self) -> Any:
        return MISSING if self.value is MISSING else (self.value, self.finished)

    def from_checkpoint(self, checkpoint: Any) -> LastValueAfterFinish:
        new = self._clone()
        new.value, new.finished = (MISSING, False) if checkpoint is MISSING else checkpoint
        return new

    def update(self, values: Sequence[Any]) -> bool:
        if not values:
            return False
        self.finished = False
        self.value = values[-1]
        return True

    def consume(self) -> bool:
        if self.finished:
            self.finished, self.value = False, MISSING
            return True
        return False

    def finish(self) -> bool:
        if not self.finished and self.value is not MISSING:
            self.finished = True
            return True
        return False

    def get(self) -> Any:
        if self.value is MISSING or not self.finished:
            raise EmptyChannelError()
        return self.value

    def is_available(self) -> bool:
        return self.value is not MISSING and self.finished
