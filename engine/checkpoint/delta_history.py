"""`get_delta_channel_history`: what a delta channel needs to rebuild its value at a checkpoint.

LangGraph stores a `DeltaChannel` as each superstep's writes and rebuilds it from the
nearest ancestor that holds a whole value (`seed`) plus the writes made since. The
engine's stores keep every channel's value, so its own runs never need this; it is
served for code that calls it on a saver (and for threads whose channel changed from a
stored-value one to a delta one, where the seed is that stored value).

For each channel asked for, the walk goes up the parent chain of the checkpoint the
config names (on-path ancestors only, so a fork sees its own past), collecting the
pending writes to that channel of each ancestor, and stops at the first ancestor whose
values hold the channel: that value is the `seed`. Writes of the target checkpoint
itself are for the next superstep and are left out. Each entry's `writes` are
`(task_id, channel, value)` oldest first; `seed` is absent when no ancestor held a value.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypedDict

from typing_extensions import NotRequired

__all__ = ["DeltaChannelHistory", "DeltaHistoryAPI"]


class DeltaChannelHistory(TypedDict):
    """One channel's part of `get_delta_channel_history`."""

    writes: list[tuple[str, str, Any]]
    seed: NotRequired[Any]


class DeltaHistoryAPI:
    """`get_delta_channel_history` and its async twin, over a saver's `get_tuple`."""

    null_seed_is_no_seed = False
    """True (the PostgreSQL savers, as LangGraph's): an ancestor's value None is no seed,
    the walk goes on to older ones (a JSON null reads as no value stored there)."""

    def get_delta_channel_history(self, *, config: Mapping[str, Any],
                                  channels: Sequence[str]) -> dict[str, DeltaChannelHistory]:
        if not channels:
            return {}
        found: dict[str, list[tuple[str, str, Any]]] = {c: [] for c in channels}
        seeds: dict[str, Any] = {}
        left = set(channels)
        read = getattr(self, "_history_tuple", None) or self.get_tuple  # type: ignore[attr-defined]
        target = read(config)
        cursor = target.parent_config if target is not None else None
        seen: set[str] = set()
        while cursor is not None and left:
            tup = read(cursor)
            if tup is None or tup.checkpoint["id"] in seen:
                break
            seen.add(tup.checkpoint["id"])
            for write in reversed(tup.pending_writes or ()):
                if write[1] in left:
                    found[write[1]].append(tuple(write))
            values = tup.checkpoint.get("channel_values") or {}
            null_is_none = self.null_seed_is_no_seed
            for ch in [c for c in left if c in values and not (null_is_none and values[c] is None)]:
                seeds[ch] = values[ch]
                left.discard(ch)
            cursor = tup.parent_config
        out: dict[str, DeltaChannelHistory] = {}
        for ch in channels:
            entry: DeltaChannelHistory = {"writes": found[ch][::-1]}
            if ch in seeds:
                entry["seed"] = seeds[ch]
            out[ch] = entry
        return out

    async def aget_delta_channel_history(self, *, config: Mapping[str, Any],
                                         channels: Sequence[str]) -> dict[str, DeltaChannelHistory]:
        return self.get_delta_channel_history(config=config, channels=channels)
