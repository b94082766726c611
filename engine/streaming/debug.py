"""`langgraph.pregel.debug`'s public helper: a planned task as a "tasks"/"debug" payload.

`map_debug_tasks(tasks)` reads, of each task, only `id`, `name`, `input`, `triggers` and
`config`; a task tagged hidden is left out. What rides along as `metadata` is the
user-meaningful part of the task's config: its metadata without the framework's own
keys (the step, node, path, namespace and thread, which the payload and its namespace
already carry) and its tags without the `seq:step:*` markers, under `tags`. The payload
holds copies: changing the task's config afterwards does not change it.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..runtime.task_metadata import FRAMEWORK_METADATA_KEYS, user_metadata, user_tags

__all__ = ["FRAMEWORK_METADATA_KEYS", "map_debug_tasks", "user_tags", "user_metadata"]

_HIDDEN = "langsmith:hidden"


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
