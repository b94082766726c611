"""A plain key: keeps the last value, and accepts one write per superstep."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import InvalidUpdateError
from ..types import Overwrite
from .base import LAST_VALUE, Applied, Channel

__all__ = ["LastValue"]


class LastValue(Channel):
    __slots__ = ()

    reducer_name = LAST_VALUE

    def apply(self, old: Any, writes: Sequence[Any]) -> Applied:
        if len(writes) != 1:
            if not writes:
                return Applied(old)
            raise InvalidUpdateError(
                f"At key '{self.key}': Can receive only one value per step. "
                "Use an Annotated key to handle multiple values."
            )
        value = writes[0]
        return Applied(value.value if type(value) is Overwrite else value)
