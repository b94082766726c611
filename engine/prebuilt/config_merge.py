"""`ensure_config(*configs)`: one run config from several, as LangGraph merges them.

Underneath is the config of the Runnable running now (langchain's context variable),
copied; a given config that names its own checkpoint coordinates (a thread id, a
checkpoint namespace, id or map) starts from an empty `configurable` instead, so a graph
run inside a node with its own thread does not write under the node's namespace. Then
each given config in order: `configurable` and `metadata` merge key by key (later wins;
`lc_versions` one level deeper), `tags` are added in order, duplicates kept, but for those
the running Runnable already has, callbacks combine, any other known key is replaced, and
an unknown key goes into `configurable`. Empty values are skipped. Finally the run's
coordinates (thread, checkpoint, task, run, assistant and graph ids) are copied into
`metadata` where it has none of its own.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.callbacks import BaseCallbackManager
from langchain_core.runnables.config import var_child_runnable_config

__all__ = ["ensure_config", "merge_callbacks"]

CONF = "configurable"
DEFAULT_RECURSION_LIMIT = 25
_KEYS = frozenset({"tags", "metadata", "callbacks", "run_name", "max_concurrency", "recursion_limit", CONF,
                   "run_id"})
_COPIED = frozenset({"tags", "metadata", "callbacks", CONF})
_COORDINATES = ("thread_id", "checkpoint_ns", "checkpoint_id", "checkpoint_map")
_TO_METADATA = ("thread_id", "checkpoint_id", "checkpoint_ns", "task_id", "run_id", "assistant_id", "graph_id")


def _given(value: Any) -> bool:
    return len(value) > 0 if isinstance(value, (list, tuple, dict)) else value is not None


def merge_callbacks(base: Any, new: Any) -> Any:
    """Two callbacks values (None, a list of handlers or a manager) as one."""
    if new is None:
        return base
    if base is None:
        return new.copy() if isinstance(new, (list, BaseCallbackManager)) else new
    if isinstance(base, list) and isinstance(new, list):
        return base + new
    if not isinstance(new, list) and not isinstance(base, list):
        return base.merge(new)
    manager, handlers = (base, new) if isinstance(new, list) else (new, base)
    manager = manager.copy()
    for handler in handlers:
        manager.add_handler(handler, inherit=True)
    return manager


def _metadata(base: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
    out = {k: dict(v) if isinstance(v, Mapping) else v for k, v in base.items()}
    for key, value in new.items():
        if key == "lc_versions" and isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = {**out[key], **value}
        else:
            out[key] = dict(value) if isinstance(value, Mapping) else value
    return out


def _apply(out: dict[str, Any], config: Mapping[str, Any], inherited: set[str]) -> None:
    for key, value in config.items():
        if not _given(value):
            continue
        if key not in _KEYS:
            out[CONF][key] = value
        elif key == CONF:
            out[CONF] = {**out[CONF], **value}
        elif key == "callbacks":
            out["callbacks"] = merge_callbacks(out.get("callbacks"), value)
        elif key == "metadata":
            out["metadata"] = _metadata(out["metadata"], value)
        elif key == "tags":
            out["tags"] = [*out["tags"], *(t for t in value if t not in inherited)]
        else:
            out[key] = value


def ensure_config(*configs: Mapping[str, Any] | None) -> dict[str, Any]:
    """One config with every key set (see the module docstring)."""
    out: dict[str, Any] = {"tags": [], "metadata": {}, "callbacks": None,
                           "recursion_limit": DEFAULT_RECURSION_LIMIT, CONF: {}}
    ambient = var_child_runnable_config.get()
    for key, value in (ambient or {}).items():
        if _given(value):
            out[key] = value.copy() if key in _COPIED and hasattr(value, "copy") else value
    inherited = set(out["tags"])
    out["metadata"] = dict(out["metadata"])
    if out[CONF] and any(c and c.get(CONF) and any(_given(c[CONF].get(k)) for k in _COORDINATES) for c in configs):
        out[CONF] = {}
    for config in configs:
        if config is not None:
            _apply(out, config, inherited)
    conf, metadata = out[CONF], out["metadata"]
    for key in _TO_METADATA:
        if key not in metadata and conf.get(key):
            metadata[key] = conf[key]
    return out
