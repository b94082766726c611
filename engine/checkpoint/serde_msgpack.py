"""The msgpack allow-list's names, served as `langgraph.checkpoint.serde._msgpack`.

Libraries and LangGraph's tests name these: the type of `allowed_msgpack_modules`, its
"not given" default, and the strict-mode switch. In Retrograph every mode is strict in the
sense that matters: nothing named by the data is imported or called (serde_jsonplus.py).
"""
from __future__ import annotations

import os
from collections.abc import Iterable

__all__ = ["AllowedMsgpackModules", "STRICT_MSGPACK_ENABLED", "SAFE_MSGPACK_TYPES", "NOT_GIVEN", "_SENTINEL"]

AllowedMsgpackModules = Iterable[tuple[str, ...] | type]
"""(module, class) pairs (or classes) whose values a JsonPlusSerializer may rebuild."""

NOT_GIVEN: object = object()
"""`allowed_msgpack_modules` not given: registered types only, the rest blocked with a warning."""

_SENTINEL = NOT_GIVEN
"""LangGraph's name for `NOT_GIVEN` (its tests use it as the parameter's default)."""

STRICT_MSGPACK_ENABLED = os.environ.get("LANGGRAPH_STRICT_MSGPACK", "").lower() in ("1", "true", "yes")
"""LangGraph's environment switch; read for compatibility (Retrograph never imports from data)."""

SAFE_MSGPACK_TYPES: frozenset[tuple[str, str]] = frozenset({
    ("datetime", "datetime"), ("datetime", "date"), ("datetime", "time"), ("datetime", "timedelta"),
    ("datetime", "timezone"), ("uuid", "UUID"), ("decimal", "Decimal"), ("builtins", "set"),
    ("builtins", "frozenset"), ("collections", "deque"), ("ipaddress", "IPv4Address"),
    ("ipaddress", "IPv6Address"), ("pathlib", "Path"), ("pathlib", "PosixPath"), ("re", "compile"),
    ("zoneinfo", "ZoneInfo"),
})
"""Types every mode rebuilds: builtins from their plain arguments."""
