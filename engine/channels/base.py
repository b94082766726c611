"""A channel is how one state key folds the writes of a superstep into a new value.

Channels are stateless specs: the run keeps the values in a plain dict, so a snapshot,
a rewind or a fork is a dict copy, and a channel is a pure function of (old, writes).
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, Final, Protocol, runtime_checkable

__all__ = ["Channel", "ChannelSpec", "MISSING", "Applied", "LAST_VALUE", "OPERATOR_ADD"]


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Final = _Missing()
"""The value of a channel that was never written."""


class Applied:
    """What applying a superstep's writes to one channel produced."""

    __slots__ = ("value", "appended")

    def __init__(self, value: Any, appended: list[Any] | None = None) -> None:
        self.value = value
        self.appended = appended
        """When set, `value == old + appended` (a pure list append): storage keeps only it."""


LAST_VALUE = "last value"
"""The reducer name of a key without a reducer (what a ChannelDiff and the studio show)."""
OPERATOR_ADD = "operator.add"
"""The reducer name of `operator.add`."""


class Channel(ABC):
    """The merge rule of one state key."""

    __slots__ = ("key",)

    reducer_name: str = LAST_VALUE
    transient: bool = False
    """The value lasts one superstep: a superstep that does not write the key clears it."""
    saved: bool = True
    """False: the value lives only in the run (node inputs, output, streams), never in a
    checkpoint or a saved pending write."""

    def __init__(self, key: str) -> None:
        self.key = key

    def initial(self) -> Any:
        """The value before any write: MISSING, or the reducer's empty value."""
        return MISSING

    @abstractmethod
    def apply(self, old: Any, writes: Sequence[Any]) -> Applied:
        """Fold one superstep's writes (in the order the reducer applies them) into `old`."""


@runtime_checkable
class ChannelSpec(Protocol):
    """What a state annotation may carry besides a reducer: an object (or a class built
    with the field's type, `cls(tp)`) that names the channel of its key. The compat layer's
    LangGraph channel classes are such specs (`Annotated[str, EphemeralValue]`)."""

    def engine_channel(self, key: str) -> Channel:
        """The engine's channel for the state key `key`."""
        ...
