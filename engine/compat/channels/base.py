"""LangGraph's channel protocol, over the engine's channels.

A `BaseChannel` is LangGraph's stateful channel: it holds a value, folds a superstep's
writes with `update(values)`, and is saved and restored with `checkpoint()` /
`from_checkpoint()`. Used in a state annotation (`Annotated[str, EphemeralValue]`) it is a
`ChannelSpec`: `engine_channel(key)` names the engine channel that the one `Run` folds
the key through. A subclass the engine does not know runs through `StatefulChannel`.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, Generic, Self, TypeVar

from ...channels import MISSING, Applied, Channel
from ...errors import EmptyChannelError

__all__ = ["BaseChannel", "EmptyChannelError", "MISSING", "StatefulChannel", "ValueChannel", "Value", "Update", "Checkpoint"]

Value = TypeVar("Value")
Update = TypeVar("Update")
Checkpoint = TypeVar("Checkpoint")


class BaseChannel(Generic[Value, Update, Checkpoint], ABC):
    """One channel of a graph, with its value (LangGraph's channel interface)."""

    __slots__ = ("key", "typ", "__weakref__")

    def __init__(self, typ: Any, key: str = "") -> None:
        self.typ = typ
        self.key = key

    def __eq__(self, other: object) -> bool:
        """Channels of one class and the same settings are equal (a subclass with settings
        compares them too)."""
        return type(other) is type(self)

    __hash__ = object.__hash__

    @property
    def ValueType(self) -> Any:  # noqa: N802 - LangGraph's name
        """The type of the value the channel holds."""
        return self.typ

    @property
    def UpdateType(self) -> Any:  # noqa: N802 - LangGraph's name
        """The type of one write."""
        return self.typ

    def copy(self) -> BaseChannel[Value, Update, Checkpoint]:
        return self.from_checkpoint(self.checkpoint())

    def checkpoint(self) -> Any:
        """What a checkpoint keeps of the channel (MISSING: nothing)."""
        try:
            return self.get()
        except EmptyChannelError:
            return MISSING

    @abstractmethod
    def from_checkpoint(self, checkpoint: Any) -> BaseChannel[Value, Update, Checkpoint]:
        """A new channel like this one, holding what `checkpoint()` returned."""

    @abstractmethod
    def get(self) -> Value:
        """The value; EmptyChannelError when there is none."""

    def is_available(self) -> bool:
        try:
            self.get()
        except EmptyChannelError:
            return False
        return True

    @abstractmethod
    def update(self, values: Sequence[Update]) -> bool:
        """Fold one superstep's writes (an empty sequence: a superstep that did not write
        it); True when the value changed."""

    def consume(self) -> bool:
        """A subscriber ran on the value: True when that changed the channel."""
        return False

    def finish(self) -> bool:
        """The run is about to end: True when that changed the channel."""
        return False

    def _clone(self) -> Self:
        """A shallow copy of this channel: its settings and its value."""
        new = object.__new__(type(self))
        for cls in type(self).__mro__:
            for slot in getattr(cls, "__slots__", ()):
                if slot != "__weakref__" and hasattr(self, slot):
                    setattr(new, slot, getattr(self, slot))
        return new

    def engine_channel(self, key: str) -> Channel:
        """The engine channel of a state key annotated with this channel."""
        return StatefulChannel(key, self)


class ValueChannel(BaseChannel[Any, Any, Any]):
    """A channel that holds one value (MISSING: none yet)."""

    __slots__ = ("value",)

    def __init__(self, typ: Any, key: str = "") -> None:
        super().__init__(typ, key)
        self.value: Any = MISSING

    def get(self) -> Any:
        if self.value is MISSING:
            raise EmptyChannelError()
        return self.value

    def is_available(self) -> bool:
        return self.value is not MISSING


class StatefulChannel(Channel):
    """An engine channel that folds writes through a LangGraph-style channel object: the
    state keeps the channel's value, and each superstep restores the channel from it."""

    __slots__ = ("spec", "reducer_name")

    def __init__(self, key: str, spec: BaseChannel[Any, Any, Any]) -> None:
        super().__init__(key)
        self.spec = spec
        self.reducer_name = type(spec).__name__

    def apply(self, old: Any, writes: Sequence[Any]) -> Applied:
        channel = self.spec.from_checkpoint(old)
        channel.key = self.key
        channel.update(list(writes))
        try:
            return Applied(channel.get())
        except EmptyChannelError:
            return Applied(MISSING)
