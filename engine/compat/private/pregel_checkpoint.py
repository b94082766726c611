"""`langgraph.pregel._checkpoint`'s `empty_checkpoint` and `copy_checkpoint`, which test
helpers of LangGraph-based libraries import (their `MemorySaverAssertImmutable`): the raw
checkpoint dict of LangGraph's current layout (v4), with exactly its keys."""
from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

from ...checkpoint.ids import uuid6

__all__ = ["empty_checkpoint", "copy_checkpoint", "LATEST_VERSION"]

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
