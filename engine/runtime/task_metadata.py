"""What of a task's config rides along in its "tasks"/"debug" payloads, as LangGraph's do:
the config's metadata without the keys the run itself sets on every task (the step, node,
path, namespace and thread, which the payload and its namespace already carry), and its
tags without the `seq:step:*` markers, under `tags`. So `create_agent(name=...)`'s
`lc_agent_name` (and any metadata of the caller's) is in each task start the run streams.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["FRAMEWORK_METADATA_KEYS", "user_tags", "user_metadata"]

FRAMEWORK_METADATA_KEYS: frozenset[str] = frozenset({
    "thread_id", "checkpoint_id", "checkpoint_ns", "checkpoint_map", "langgraph_step",
    "langgraph_node", "langgraph_triggers", "langgraph_path", "langgraph_checkpoint_ns",
})
"""Metadata keys the run itself sets on a task's config (not forwarded in payloads)."""


def user_tags(tags: Sequence[str] | None) -> list[str] | None:
    """`tags` without the `seq:step:*` markers; None when none are left."""
    kept = [t for t in tags or () if not t.startswith("seq:step")]
    return kept or None


def user_metadata(config: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """What a task's config adds to its payload as `metadata` (None: nothing)."""
    if config is None:
        return None
    md = {k: v for k, v in (config.get("metadata") or {}).items() if k not in FRAMEWORK_METADATA_KEYS}
    tags = user_tags(config.get("tags"))
    if tags is not None:
        md["tags"] = tags
    return md or None
