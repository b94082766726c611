"""`langgraph.pregel.debug`'s public helper: a planned task as a "tasks"/"debug" payload.

`map_debug_tasks(tasks)` reads, of each task, only `id`, `name`, `input`, `triggers` and
`config`; a task tagged hidden is left out. What rides along as `metadata` is the
user-meaningful part of the task's config: its metadata without the framework's own
keys (the step, node, path, namespace and thread, which the payload and its namespace
already carry) and its tags without the `seq:step:*` markers, under `tags`. The payload
holds copies: changing the task's config afterwards does not change it.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

__all__ = ["FRAMEWORK_METADATA_KEYS", "map_debug_tasks", "user_tags", "user_metadata"]

FRAMEWORK_METADATA_KEYS: frozenset[str] = frozenset({
    "thread_id", "checkpoint_id", "checkpoint_ns", "checkpoint_map", "langgraph_step",
    "langgraph_node", "langgraph_triggers", "langgraph_path", "langgraph_checkpoint_ns",
})
"""Metadata keys the run itself sets on a task's config (not forwarded in payloads)."""

_HIDDEN = "langsmith:hidden"


def user_tags(tags: Sequence[str] | None) -> list[str] | None:
    """`tags` without the `seq:step:*` markers; None when none are left."""
    kept = [t for t in tags or () if not t.startswith("seq:step")]
    return kept or None


def user_metadata(config: dict[str, Any] | None) -> dict[str, Any] | None:
    """What a task's config adds to its payload as `metadata` (None: nothing)."""
    if config is None:
        return None
    md = {k: v for k, v in (config.get("metadata") or {}).items() if k not in FRAMEWORK_METADATA_KEYS}
    tags = user_tags(config.get("tags"))
    if tags is not None:
        md["tags"] = tags
    return md or None


def map_debug_tasks(tasks: Iterable[Any]) -> Iterator[dict[str, Any]]:
    """One "task" payload per task, hidden tasks left out."""
    for task in tasks:
        config = task.config
        if config is not None and _HIDDEN in (config.get("tags") or ()):
            continue
        payload: dict[str, Any] = {"id": task.id, "name": task.name, "input": task.input,
                                   "triggers": task.triggers}
        md = user_metadata(config)
        if md is not None:
            payload["metadata"] = md
        yield payload
