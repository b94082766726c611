"""`langgraph.checkpoint.sqlite.utils.search_where`: the WHERE clause of a checkpoint
listing on LangGraph's SQLite layout (its `checkpoints` table: `thread_id`,
`checkpoint_ns`, `checkpoint_id`, `metadata` JSON), with its parameters.

For querying a checkpoint file LangGraph wrote with your own SQL (Retrograph itself opens
such a file read-only, engine/checkpoint/foreign): a config narrows by thread, namespace
and checkpoint, a metadata filter by `json_extract` on each key (`IS ?` for None, a dict
or list compared as its compact JSON), `before` by `checkpoint_id < ?`. A filter key that
is not a plain name or dotted path raises ValueError, as `list(filter=...)` does.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from .langgraph_api import check_filter_keys

__all__ = ["search_where", "metadata_predicate"]


def metadata_predicate(filter: Mapping[str, Any]) -> tuple[list[str], list[Any]]:
    """One `json_extract(...)` test per filter key, and the values they compare with."""
    check_filter_keys(filter)
    tests: list[str] = []
    params: list[Any] = []
    for key, value in filter.items():
        column = f"json_extract(CAST(metadata AS TEXT), '$.{key}')"
        if value is None:
            tests.append(f"{column} IS ?")
        else:
            tests.append(f"{column} = ?")
        if isinstance(value, (dict, list)):
            value = orjson.dumps(value).decode()
        params.append(value)
    return tests, params


def search_where(config: Mapping[str, Any] | None, filter: Mapping[str, Any] | None,
                 before: Mapping[str, Any] | None = None) -> tuple[str, list[Any]]:
    """(`"WHERE ..."` or `""`, its parameters) for LangGraph's `checkpoints` table."""
    tests: list[str] = []
    params: list[Any] = []
    conf = (config or {}).get("configurable") or {}
    if config:
        tests.append("thread_id = ?")
        params.append(conf.get("thread_id"))
        if conf.get("checkpoint_ns") is not None:
            tests.append("checkpoint_ns = ?")
            params.append(conf["checkpoint_ns"])
        if conf.get("checkpoint_id"):
            tests.append("checkpoint_id = ?")
            params.append(conf["checkpoint_id"])
    if filter:
        more, values = metadata_predicate(filter)
        tests += more
        params += values
    if before is not None:
        tests.append("checkpoint_id < ?")
        params.append(((before.get("configurable") or {}).get("checkpoint_id")))
    return ("WHERE " + " AND ".join(tests) if tests else "", params)
