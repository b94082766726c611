"""LangGraph's BinaryOperatorAggregate: writes folded with `operator(old, new)`, named
onto the engine's ReducerChannel."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ... import channels as core
from ...channels.reducer import overwrite_value
from ...errors import InvalidUpdateError
from ...schema import empty_factory
from .base import MISSING, BaseChannel, ValueChannel

__all__ = ["BinaryOperatorAggregate"]


class BinaryOperatorAggregate(ValueChannel):
    """A value folded from every write with a binary operator; it starts as `typ()` when
    that can be built. An `Overwrite` write replaces the value."""

    __slots__ = ("operator",)

    def __init__(self, typ: Any, operator: Callable[[Any, Any], Any]) -> None:
        super().__init__(typ)
        self.operator = operator
        make = empty_factory(typ)
        if make is not None:
            self.value = make()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BinaryOperatorAggregate):
            return False
        fn = getattr(other, "operator", getattr(other, "fn", None))  # (an engine ReducerChannel: fn)
        return fn is self.operator or getattr(fn, "__name__", 1) == getattr(self.operator, "__name__", 2)

    __hash__ = BaseChannel.__hash__

    def from_checkpoint(self, checkpoint: Any) -> BinaryOperatorAggregate:
        new = self._clone()
        if checkpoint is not MISSING:
            new.value = checkpoint
        return new

    def update(self, values: Sequence[Any]) -> bool:
        if not values:
            return False
        found = [v for is_ow, v in map(overwrite_value, values) if is_ow]
        if found:
            if len(found) > 1:
                raise InvalidUpdateError("Can receive only one Overwrite value per super-step.")
            self.value = found[0]
            return True
        rest = list(values)
        if self.value is MISSING:
            self.value = rest.pop(0)
        for v in rest:
            self.value = self.operator(self.value, v)
        return True

    def engine_channel(self, key: str) -> core.Channel:
        return core.ReducerChannel(key, self.operator, empty_factory(self.typ))


# A state key with a reducer is folded by the engine's ReducerChannel: `graph.channels[key]`
# is one, and LangGraph code checks it as a BinaryOperatorAggregate (what LangGraph makes
# of every reducer key).
BinaryOperatorAggregate.register(core.ReducerChannel)
