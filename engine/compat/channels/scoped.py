"""LangGraph's EphemeralValue, AnyValue and UntrackedValue, named onto the engine's
OneStepValue and UnsavedValue."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ... import channels as core
from ...errors import InvalidUpdateError
from .base import MISSING, BaseChannel, ValueChannel

__all__ = ["EphemeralValue", "AnyValue", "UntrackedValue"]


class _Held(ValueChannel):
    __slots__ = ("guard",)

    def __init__(self, typ: Any, guard: bool = True) -> None:
        super().__init__(typ)
        self.guard = guard

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and getattr(other, "guard", None) == self.guard

    __hash__ = BaseChannel.__hash__

    def from_checkpoint(self, checkpoint: Any) -> Any:
        new = self._clone()
        new.value = checkpoint
        return new

    def _last(self, values: Sequence[Any]) -> Any:
        if self.guard and len(values) > 1:
            raise InvalidUpdateError(
                f"At key '{self.key}': {type(self).__name__}(guard=True) can receive only one value per step. "
                "Use guard=False if you want to store any one of multiple values."
            )
        return values[-1]


class EphemeralValue(_Held):
    """A value read by the superstep after the one that wrote it, then cleared."""

    __slots__ = ()

    def update(self, values: Sequence[Any]) -> bool:
        if not values:
            if self.value is MISSING:
                return False
            self.value = MISSING
            return True
        self.value = self._last(values)
        return True

    def engine_channel(self, key: str) -> core.Channel:
        return core.OneStepValue(key, guard=self.guard, label=type(self).__name__)


class AnyValue(EphemeralValue):
    """Any one of a superstep's writes (the last), cleared by a superstep without one."""

    __slots__ = ()

    def __init__(self, typ: Any, key: str = "") -> None:
        super().__init__(typ, guard=False)
        self.key = key

    __eq__ = BaseChannel.__eq__
    __hash__ = BaseChannel.__hash__


class UntrackedValue(_Held):
    """The last value written, kept for the run but never checkpointed."""

    __slots__ = ()

    def checkpoint(self) -> Any:
        return MISSING

    def from_checkpoint(self, checkpoint: Any) -> Any:
        new = self._clone()
        new.value = MISSING
        return new

    def copy(self) -> Any:
        return self._clone()

    def update(self, values: Sequence[Any]) -> bool:
        if not values:
            return False
        self.value = self._last(values)
        return True

    def engine_channel(self, key: str) -> core.Channel:
        return core.UnsavedValue(key, guard=self.guard, label=type(self).__name__)
