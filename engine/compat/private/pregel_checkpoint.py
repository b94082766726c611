"""`langgraph.pregel._checkpoint`'s `empty_checkpoint` and `copy_checkpoint`, which test
helpers of LangGraph-based libraries import (their `MemorySaverAssertImmutable`): the raw
checkpoint dict of LangGraph's current layout (v4), with exactly its keys. And its delta
channels' snapshot bound and helpers, over the engine's (checkpoint/delta_record.py):
patching `DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT` here patches the engine's (`__patched_in__`)."""
from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

from ...checkpoint import delta_record
from ...checkpoint.delta_record import DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT, due_for_snapshot
from ...checkpoint.ids import uuid6

__all__ = ["empty_checkpoint", "copy_checkpoint", "LATEST_VERSION", "DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT",
           "delta_channels_to_snapshot", "exit_delta_task_id"]

__patched_in__ = {"DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT": delta_record}
"""Constants the engine reads where they live: a patch of the served name goes there (compat/finder.py)."""

LATEST_VERSION = 4
"""The layout version of the checkpoints made here."""


def empty_checkpoint() -> dict[str, Any]:
    """A checkpoint with no channels, a fresh id and the current time."""
    return {"v": LATEST_VERSION, "id": str(uuid6(clock_seq=-2)), "ts": datetime.now(timezone.utc).isoformat(),
            "channel_values": {}, "channel_versions": {}, "versions_seen": {}}


def copy_checkpoint(checkpoint: Mapping[str, Any]) -> dict[str, Any]:
    """A copy whose dicts can be changed without touching `checkpoint`'s."""
    return {"v": checkpoint["v"], "ts": checkpoint["ts"], "id": checkpoint["id"],
            "channel_values": dict(checkpoint["channel_values"]),
            "channel_versions": dict(checkpoint["channel_versions"]),
            "versions_seen": {k: dict(v) for k, v in checkpoint["versions_seen"].items()},
            "updated_channels": checkpoint.get("updated_channels")}


def delta_channels_to_snapshot(channels: Mapping[str, Any], counters_since_delta_snapshot: Mapping[str, Any],
                               channel_versions: Mapping[str, Any] | None = None) -> set[str]:
    """The delta channels of `channels` (name -> channel with a `snapshot_frequency`) whose
    `(updates, supersteps)` since their last snapshot call for one now."""
    every = {k: ch.snapshot_frequency for k, ch in channels.items()
             if isinstance(getattr(ch, "snapshot_frequency", None), int)}
    return due_for_snapshot(counters_since_delta_snapshot, every)


def exit_delta_task_id(step: int, task_id: str) -> str:
    """The task id under which a `durability="exit"` run keeps superstep `step`'s delta
    writes: `task_id` (a UUID) with its first group replaced by the step, so they sort by step."""
    if not isinstance(step, int) or not 0 <= step < 10**8:
        raise ValueError(f"exit_delta_task_id: step must be an int from 0 to 99999999, got {step!r}")
    head, sep, rest = str(task_id).partition("-")
    if not sep:
        raise ValueError(f"exit_delta_task_id: task_id must be a UUID string, got {task_id!r}")
    return f"{step:08d}-{rest}"
