"""LangGraph's NamedBarrierValue(AfterFinish): available once every named value was written."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...errors import EmptyChannelError, InvalidUpdateError
from .base import MISSING, BaseChannel

__all__ = ["NamedBarrierValue", "NamedBarrierValueAfterFinish"]


class NamedBarrierValue(BaseChannel[None, Any, set[Any]]):
    """Waits for each of `names` to be written; then its value is None until consumed."""

    __slots__ = ("names", "seen")

    def __init__(self, typ: Any, names: set[Any]) -> None:
        super().__init__(typ)
        self.names = set(names)
        self.seen: set[Any] = set()

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.names == self.names

    __hash__ = BaseChannel.__hash__

    def copy(self) -> Any:
        new = self._clone()
        new.seen = set(self.seen)
        return new

    def checkpoint(self) -> Any:
        return set(self.seen)

    def from_checkpoint(self, checkpoint: Any) -> Any:
        new = self._clone()
        new.seen = set() if checkpoint is MISSING or checkpoint is None else set(checkpoint)
        return new

    def update(self, values: Sequence[Any]) -> bool:
        changed = False
        for v in values:
            if v not in self.names:
                raise InvalidUpdateError(f"At key '{self.key}': Value {v} not in {self.names}")
            if v not in self.seen:
                self.seen.add(v)
                changed = True
        return changed

    def get(self) -> None:
        if self.seen != self.names:
            raise EmptyChannelError()
        return None

    def is_available(self) -> bool:
        return self.seen == self.names

    def consume(self) -> bool:
        if self.seen == self.names:
            self.seen = set()
            return True
        return False


class NamedBarrierValueAfterFinish(NamedBarrierValue):
    """A NamedBarrierValue that opens only once the run is finishing."""

    __slots__ = ("finished",)

    def __init__(self, typ: Any, names: set[Any]) -> None:
        super().__init__(typ, names)
        self.finished = False

    def checkpoint(self) -> Any:
        return (set(self.seen), self.finished)

    def from_checkpoint(self, checkpoint: Any) -> Any:
        new = self._clone()
        if checkpoint is MISSING or checkpoint is None:
            new.seen, new.finished = set(), False
        else:
            seen, new.finished = checkpoint
            new.seen = set(seen)
        return new

    def finish(self) -> bool:
        if not self.finished and self.seen == self.names:
            self.finished = True
            return True
        return False

    def get(self) -> None:
        if not self.finished or self.seen != self.names:
            raise EmptyChannelError()
        return None

    def is_available(self) -> bool:
        return self.finished and self.seen == self.names

    def consume(self) -> bool:
        if self.finished and self.seen == self.names:
            self.finished, self.seen = False, set()
            return True
        return False
