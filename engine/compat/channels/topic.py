"""LangGraph's Topic: the writes of a superstep as a list, named onto the engine's CollectValue."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ... import channels as core
from ...errors import EmptyChannelError
from .base import MISSING, BaseChannel

__all__ = ["Topic"]


class Topic(BaseChannel[Sequence[Any], Any, list[Any]]):
    """A list of the values written (a written list adds its items): those of the last
    superstep that wrote it, or, with `accumulate=True`, all of them."""

    __slots__ = ("values", "accumulate")

    def __init__(self, typ: Any, accumulate: bool = False) -> None:
        super().__init__(typ)
        self.accumulate = accumulate
        self.values: list[Any] = []

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Topic) and other.accumulate == self.accumulate

    __hash__ = BaseChannel.__hash__

    @property
    def ValueType(self) -> Any:  # noqa: N802
        return Sequence[self.typ]  # type: ignore[name-defined]

    @property
    def UpdateType(self) -> Any:  # noqa: N802
        return self.typ | list[self.typ]  # type: ignore[name-defined]

    def copy(self) -> Topic:
        new = self._clone()
        new.values = list(self.values)
        return new

    def checkpoint(self) -> list[Any]:
        return list(self.values)

    def from_checkpoint(self, checkpoint: Any) -> Topic:
        new = self._clone()
        new.values = [] if checkpoint is MISSING or checkpoint is None else list(checkpoint)
        return new

    def update(self, values: Sequence[Any]) -> bool:
        changed = False
        if not self.accumulate:
            changed = bool(self.values)
            self.values = []
        for v in values:
            if isinstance(v, list):
                self.values.extend(v)
                changed = changed or bool(v)
            else:
                self.values.append(v)
                changed = True
        return changed

    def get(self) -> list[Any]:
        if not self.values:
            raise EmptyChannelError()
        return list(self.values)

    def is_available(self) -> bool:
        return bool(self.values)

    def engine_channel(self, key: str) -> core.Channel:
        return core.CollectValue(key, accumulate=self.accumulate)
