"""ChannelDiff: what one superstep did to one state key, for the studio and the tests."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["ChannelWrite", "ChannelDiff"]


@dataclass(frozen=True, kw_only=True, slots=True)
class ChannelWrite:
    """One write to a key, and the task that made it."""

    node: str
    task_id: str
    value: Any


@dataclass(frozen=True, kw_only=True, slots=True)
class ChannelDiff:
    """Value before ⊕ each write (in the order the reducer applied them) → value after.

    `before` is the `MISSING` sentinel (engine.channels.MISSING) when the key had no value.
    `appended` is set when the reducer only appended to a list (the appended items).
    """

    key: str
    reducer: str
    before: Any
    writes: tuple[ChannelWrite, ...]
    after: Any
    appended: tuple[Any, ...] | None = None

    @property
    def changed(self) -> bool:
        try:
            return bool(self.before != self.after)
        except Exception:  # values whose == raises or is ambiguous (arrays)
            return self.before is not self.after

    @property
    def nodes(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(w.node for w in self.writes))
