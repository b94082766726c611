"""LangGraph's DeltaChannel: a reducer that folds a superstep's writes in one call, named
onto the engine's BatchReducerChannel.

LangGraph stores such a channel as the writes of each superstep and rebuilds it by
replaying them; the engine's stores already keep what changed, so in a graph it is a
batched reducer key. On its own it behaves as LangGraph's: `update`, `replay_writes`
(a saver's ancestor writes, oldest first), and `checkpoint()` that keeps nothing.
"""
from __future__ import annotations

import collections.abc
import copy as _copy
from collections.abc import Callable, Sequence
from typing import Annotated, Any, get_args, get_origin

from ... import channels as core
from ...channels.reducer import overwrite_value, reducer_display_name
from .base import MISSING, ValueChannel
from .delta_ids import stamping_ids

__all__ = ["DeltaChannel"]

_CONCRETE = {collections.abc.Sequence: list, collections.abc.MutableSequence: list,
             collections.abc.Set: set, collections.abc.MutableSet: set,
             collections.abc.Mapping: dict, collections.abc.MutableMapping: dict}


def _plain_type(typ: Any) -> Any:
    """`dict[str, int]` -> dict, `Sequence[str]` -> list: the class whose `()` is the empty value."""
    while get_origin(typ) is Annotated:
        typ = get_args(typ)[0]
    origin = get_origin(typ) or typ
    return _CONCRETE.get(origin, origin)


class DeltaChannel(ValueChannel):
    """`reducer(state, [write, ...]) -> state`, one call per superstep; the reducer must be
    deterministic and give the same state for two batches as for the two joined.
    `snapshot_frequency` (a positive int): LangGraph's raw checkpoint shows the whole value
    (a `_DeltaSnapshot`) every this many updates, and else leaves it out."""

    __slots__ = ("reducer", "snapshot_frequency")

    def __init__(self, reducer: Callable[[Any, Sequence[Any]], Any], typ: Any = None, *,
                 snapshot_frequency: int = 100) -> None:
        if not isinstance(snapshot_frequency, int) or snapshot_frequency <= 0:
            raise ValueError(f"snapshot_frequency must be a positive int, got {snapshot_frequency}")
        super().__init__(_plain_type(list if typ is None else typ))
        self.reducer = reducer
        self.snapshot_frequency = snapshot_frequency

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, DeltaChannel) and other.snapshot_frequency == self.snapshot_frequency
                and (other.reducer is self.reducer
                     or reducer_display_name(other.reducer) == reducer_display_name(self.reducer)))

    __hash__ = ValueChannel.__hash__

    def for_annotation(self, base: Any) -> DeltaChannel:
        """The channel of a state key annotated `Annotated[base, DeltaChannel(...)]`: its
        empty value is `base()`."""
        return DeltaChannel(self.reducer, base, snapshot_frequency=self.snapshot_frequency)

    def copy(self) -> DeltaChannel:
        new = self._clone()
        new.value = self.value if self.value is MISSING else _copy.copy(self.value)
        return new

    def checkpoint(self) -> Any:
        """Nothing: the value is rebuilt from the writes (LangGraph keeps snapshots apart)."""
        return MISSING

    def from_checkpoint(self, checkpoint: Any) -> DeltaChannel:
        """Empty (then replay the writes) for nothing or None, else the stored value: a
        snapshot's (`.value`) or a plain one (a key that was a reducer key before)."""
        new = self._clone()
        if checkpoint is MISSING or checkpoint is None:
            new.value = self.typ()
        else:
            new.value = checkpoint.value if type(checkpoint).__name__ == "_DeltaSnapshot" else checkpoint
        return new

    def replay_writes(self, writes: Sequence[tuple[str, str, Any]]) -> None:
        """Fold saved writes `(task_id, channel, value)`, oldest first, in one reducer call;
        the last Overwrite among them is the new base."""
        values = [v for _, _, v in writes]
        if not values:
            return
        base, start = self.value, 0
        for i, v in enumerate(values):
            is_ow, ow = overwrite_value(v)
            if is_ow:
                base, start = (_copy.copy(ow) if ow is not None else self.typ()), i + 1
        rest = values[start:]
        self.value = self.reducer(base, rest) if rest else base

    def update(self, values: Sequence[Any]) -> bool:
        if not values:
            return False
        self.value = self.engine_channel(self.key).apply(self.value, values).value
        return True

    def engine_channel(self, key: str) -> core.Channel:
        typ = self.typ
        return core.BatchReducerChannel(key, stamping_ids(self.reducer), typ if callable(typ) else None,
                                        snapshot_every=self.snapshot_frequency)
