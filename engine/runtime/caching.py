"""Node caching as a decision of the Run: before a task with a `cache_policy` runs, its
input is looked up in the graph's cache; a hit stands in for the call (the task is
reported with `cached=True`), a miss is stored after the node succeeds."""
from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

__all__ = ["cache_key", "canonical"]


def canonical(value: Any) -> str:
    """A stable text of a node input: dict keys sorted, sets ordered, objects by repr."""
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{canonical(k)}:{canonical(v)}" for k, v in
                              sorted(value.items(), key=lambda kv: repr(kv[0]))) + "}"
    if isinstance(value, (list, tuple)):
        inner = ",".join(canonical(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner})"
    if isinstance(value, (set, frozenset)):
        return "{" + ",".join(sorted(canonical(v) for v in value)) + "}"
    if hasattr(value, "model_dump") and not isinstance(value, type):
        return f"{type(value).__name__}{canonical(value.model_dump())}"
    return repr(value)


def cache_key(policy: Any, node: str, state: Any) -> tuple[tuple[str, ...], str] | None:
    """(namespace, key) of a node's input, or None when the key function fails."""
    try:
        raw = policy.key_func(state) if policy.key_func is not None else canonical(state)
    except Exception:
        return None
    data = raw if isinstance(raw, bytes) else str(raw).encode()
    return (node,), hashlib.blake2b(data, digest_size=16).hexdigest()
