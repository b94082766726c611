"""Test support: a run's ids and times replaced by their order of first appearance, so that
two runs of one graph (the general path and a shortcut proven equal to it) compare equal."""
from __future__ import annotations

import re
from typing import Any

__all__ = ["ID_OR_TIME", "Names"]

ID_OR_TIME = re.compile(
    r"[0-9a-f]{12}-[0-9a-f]{6}-[0-9a-f]{6}(?:/\d+)?|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    r"|\d{4}-\d\d-\d\dT[\d:.]+(?:\+00:00|Z)?|[0-9a-f]{32}")
"""A checkpoint id (with its namespace step), a UUID, an ISO time or a task id."""


class Names:
    """Called on a value: the value with each id and time replaced by `<n>`, n its order of
    first appearance (strings, mappings, sequences, exceptions, dataclasses, named tuples)."""

    def __init__(self) -> None:
        self.seen: dict[str, str] = {}

    def __call__(self, value: Any) -> Any:
        if isinstance(value, str):
            return ID_OR_TIME.sub(lambda m: self.seen.setdefault(m.group(0), f"<{len(self.seen)}>"), value)
        if isinstance(value, dict):
            return {self(k): self(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self(v) for v in value]
        if isinstance(value, BaseException):  # its message may name a checkpoint too
            return f"{type(value).__name__}: {self(str(value))}"
        if hasattr(value, "__dataclass_fields__") or hasattr(value, "_fields"):
            fields = value._asdict() if hasattr(value, "_asdict") else {
                k: getattr(value, k) for k in value.__dataclass_fields__}
            return {type(value).__name__: self(fields)}
        return value
