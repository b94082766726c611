"""LangGraph's checkpoint vocabulary as `langgraph.checkpoint.base` names it.

User code and savers written for LangGraph build checkpoints as plain dicts:
`Checkpoint(v=..., id=..., ts=..., channel_values=..., channel_versions=...,
versions_seen=...)` (a TypedDict), with `empty_checkpoint()`, `create_checkpoint(...)`,
`copy_checkpoint(...)`, metadata as `CheckpointMetadata`, and versions as
`ChannelVersions`. The engine's own record (data.Checkpoint, a frozen dataclass) is a
different thing; `langgraph.checkpoint.base` serves these names first (compat/layout.py),
and the savers' LangGraph API (langgraph_api.py) stores such a dict as given.
"""
from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any, Literal, TypedDict

from typing_extensions import NotRequired

from .ids import uuid6
from .langgraph_api import CheckpointTuple
from .lg_form import EXCLUDED_METADATA_KEYS, WRITES_IDX_MAP, get_checkpoint_metadata

__all__ = [
    "Checkpoint", "CheckpointMetadata", "CheckpointTuple", "ChannelVersions", "PendingWrite", "DeltaChannelHistory",
    "LATEST_VERSION", "WRITES_IDX_MAP", "EXCLUDED_METADATA_KEYS", "EmptyChannelError", "empty_checkpoint",
    "create_checkpoint", "copy_checkpoint", "get_checkpoint_id", "get_checkpoint_metadata",
    "get_serializable_checkpoint_metadata", "writes_sort_key",
]

ChannelVersions = dict[str, Any]
"""Channel name -> its version (int, float or str, increasing)."""

PendingWrite = tuple[str, str, Any]
"""(task_id, channel, value), as LangGraph's savers hand pending writes back."""

LATEST_VERSION = 2
"""The checkpoint format version LangGraph's helpers write (`v`)."""

class CheckpointMetadata(TypedDict, total=False):
    """What a checkpoint's metadata holds: its source, step, parents' ids, run id."""

    source: Literal["input", "loop", "update", "fork"]
    step: int
    parents: dict[str, str]
    run_id: str


class Checkpoint(TypedDict):
    """A checkpoint as LangGraph's savers take and return it (a plain dict)."""

    v: int
    id: str
    ts: str
    channel_values: dict[str, Any]
    channel_versions: ChannelVersions
    versions_seen: dict[str, ChannelVersions]
    updated_channels: NotRequired[list[str] | None]


class DeltaChannelHistory(TypedDict):
    """One channel's writes along a checkpoint's ancestry, oldest first, and the value
    stored at the nearest ancestor that holds one (`seed`, absent when none does)."""

    writes: list[PendingWrite]
    seed: NotRequired[Any]


class EmptyChannelError(Exception):
    """A channel asked for its checkpoint value has none."""


def empty_checkpoint() -> Checkpoint:
    """A checkpoint with no channels, a fresh id and the current time."""
    return {  # type: ignore[typeddict-unknown-key]
        "v": LATEST_VERSION, "id": str(uuid6(clock_seq=-2)), "ts": datetime.now(timezone.utc).isoformat(),
        "channel_values": {}, "channel_versions": {}, "versions_seen": {}, "pending_sends": [],
        "updated_channels": None,
    }


def copy_checkpoint(checkpoint: Mapping[str, Any]) -> Checkpoint:
    """A copy whose dicts can be changed without touching `checkpoint`'s."""
    return {  # type: ignore[typeddict-unknown-key]
        "v": checkpoint["v"], "ts": checkpoint["ts"], "id": checkpoint["id"],
        "channel_values": dict(checkpoint["channel_values"]), "channel_versions": dict(checkpoint["channel_versions"]),
        "versions_seen": {k: dict(v) for k, v in checkpoint["versions_seen"].items()},
        "pending_sends": list(checkpoint.get("pending_sends", [])),
        "updated_channels": checkpoint.get("updated_channels"),
    }


def create_checkpoint(checkpoint: Mapping[str, Any], channels: Mapping[str, Any] | None, step: int, *,
                      id: str | None = None) -> Checkpoint:
    """The next checkpoint after `checkpoint`: its versions, the values of `channels`
    (each one's `checkpoint()`, those with a version and a value; `checkpoint`'s own values
    when None), a new id for `step` and the current time."""
    if channels is None:
        values = checkpoint["channel_values"]
    else:
        values = {}
        for name, channel in channels.items():
            if name not in checkpoint["channel_versions"]:
                continue
            try:
                values[name] = channel.checkpoint()
            except EmptyChannelError:
                continue
            except Exception as exc:  # the engine's channels name emptiness their own way
                if type(exc).__name__ != "EmptyChannelError":
                    raise
    return {  # type: ignore[typeddict-unknown-key]
        "v": LATEST_VERSION, "ts": datetime.now(timezone.utc).isoformat(), "id": id or str(uuid6(clock_seq=step)),
        "channel_values": values, "channel_versions": checkpoint["channel_versions"],
        "versions_seen": checkpoint["versions_seen"], "pending_sends": checkpoint.get("pending_sends", []),
        "updated_channels": None,
    }


def get_checkpoint_id(config: Mapping[str, Any]) -> str | None:
    """The checkpoint id a config names, if any."""
    return (config.get("configurable") or {}).get("checkpoint_id")


def get_serializable_checkpoint_metadata(config: Mapping[str, Any], metadata: Mapping[str, Any]) -> dict[str, Any]:
    """`get_checkpoint_metadata` without the `writes` entry older metadata carried."""
    out = get_checkpoint_metadata(config, metadata)
    out.pop("writes", None)
    return out


def writes_sort_key(task_path: str, task_id: str = "", idx: int = 0) -> tuple[str, str, int]:
    """The order a superstep applies its tasks' writes in: by task path, task id, index."""
    return (task_path, task_id, idx)
